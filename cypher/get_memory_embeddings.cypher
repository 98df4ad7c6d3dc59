// Stored embeddings and texts of the given memories, to rebuild a vector index without the model
// when the model id matches.
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
RETURN m.id AS id, m.vector_id AS vector_id, m.embedding AS embedding,
  m.embedding_model AS embedding_model, m.text AS text, m.speaker AS speaker

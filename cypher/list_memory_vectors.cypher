// Vector ids and embedding model of one user's memories (start-up reconciliation).
MATCH (m:Memory {user_id: $user_id})
RETURN m.id AS id, m.vector_id AS vector_id, m.embedding_model AS embedding_model

// The memories written after change $since up to $upto (graph/follow.py): what another process
// added, with what a replica's FAISS and BM25 indexes need (the stored embedding and its model).
MATCH (m:Memory {user_id: $user_id})
WHERE m.seq > $since AND m.seq <= $upto
RETURN m.id AS id, m.text AS text, m.speaker AS speaker, m.kind AS kind, m.embedding AS embedding,
  m.embedding_model AS embedding_model

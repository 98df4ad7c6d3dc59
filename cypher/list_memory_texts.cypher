// Ids, speakers and texts of one user's memories, to build the in-process lexical (BM25) index.
MATCH (m:Memory {user_id: $user_id})
RETURN m.id AS id, m.speaker AS speaker, m.text AS text

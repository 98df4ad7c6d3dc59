// Marks a session ended, records its topics and links its episodic summary memory.
MATCH (s:Session {user_id: $user_id, id: $session_id})
MATCH (e:Memory {user_id: $user_id, id: $episode_id})
SET s.ended = true, s.ended_at = $now, s.topics = $topics, e.kind = 'episode'
MERGE (s)-[:SUMMARIZED_BY]->(e)
RETURN s.id AS id

// Marks a session ended, records its topics, profile hints and open threads, and links its
// episodic summary.
MATCH (s:Session {user_id: $user_id, id: $session_id})
MATCH (e:Memory {user_id: $user_id, id: $episode_id})
SET s.ended = true, s.ended_at = $now, s.topics = $topics, e.kind = 'episode',
    s.expertise = $expertise, s.returning_topics = $returning, s.declined_topics = $declined,
    s.open_threads = $open_threads
MERGE (s)-[:SUMMARIZED_BY]->(e)
RETURN s.id AS id

// One session's properties (with its cached window summary and its episode, if any).
MATCH (s:Session {user_id: $user_id, id: $session_id})
OPTIONAL MATCH (s)-[:SUMMARIZED_BY]->(e:Memory)
RETURN s.id AS id, s.started_at AS started_at, s.last_turn_at AS last_turn_at,
  s.turn_count AS turn_count, s.ended AS ended, s.ended_at AS ended_at, s.topics AS topics,
  s.window_summary AS window_summary, s.window_upto AS window_upto, e.id AS episode_id,
  s.expertise AS expertise, s.returning_topics AS returning_topics,
  s.declined_topics AS declined_topics

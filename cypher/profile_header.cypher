// What a context block's user and profile lines show of one speaker: the user's settings and the
// speaker's stored profile with its first $items expertise items (area and depth only), and when
// its speaker last spoke in what it folds. Reads two nodes and a few items: never the user's
// history.
OPTIONAL MATCH (u:UserSettings {user_id: $user_id})
OPTIONAL MATCH (p:Profile {user_id: $user_id, speaker: $speaker})
OPTIONAL MATCH (p)-[:HAS_EXPERTISE]->(x:Expertise)
WHERE x.rank < $items
WITH u, p, x
ORDER BY x.rank
RETURN u.timezone AS timezone, u.preferred_name AS set_name, p.preferred_name AS said_name,
  p.relationship_stage AS relationship_stage, p.verbosity AS verbosity,
  p.provides_structured_data AS provides_structured_data,
  p.responds_to_follow_ups AS responds_to_follow_ups, p.last_active_at AS last_active_at,
  collect(x {.area, .depth}) AS items

// A user's profiles (one speaker's with $speaker, else all) with their expertise items in rank
// order, and the user's settings.
MATCH (p:Profile {user_id: $user_id})
WHERE $speaker IS NULL OR p.speaker = $speaker
OPTIONAL MATCH (p)-[:HAS_EXPERTISE]->(x:Expertise)
WITH p, x
ORDER BY x.rank
WITH p, collect(x {.area, .area_key, .depth, .reason, .evidence, .turns, .sessions, .specific,
  .types, .rank}) AS items
RETURN p.speaker AS speaker, p.entity_key AS entity_key, p.verbosity AS verbosity,
  p.provides_structured_data AS provides_structured_data,
  p.responds_to_follow_ups AS responds_to_follow_ups, p.words_per_turn AS words_per_turn,
  p.structured_share AS structured_share, p.answered_share AS answered_share,
  p.topics_declined AS topics_declined, p.sessions_completed AS sessions_completed,
  p.entries_contributed AS entries_contributed, p.first_active_at AS first_active_at,
  p.last_active_at AS last_active_at, p.preferred_name AS preferred_name,
  p.relationship_stage AS relationship_stage, p.disclosures AS disclosures,
  p.last_session_id AS last_session_id, p.built_at AS built_at, items
ORDER BY speaker

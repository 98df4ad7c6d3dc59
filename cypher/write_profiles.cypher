// Replaces a user's profiles with $profiles, as one statement: every (:Profile) of the user and
// its (:Expertise) items go, then each profile is created, linked to the speaker's entity
// (PROFILE_OF) when it exists, with its items, each linked to the entity it is about (ABOUT).
// Profiles are derived from session tallies, so replacing them whole is an update; the user's
// settings live on (:UserSettings) and are not touched.
OPTIONAL MATCH (old:Profile {user_id: $user_id})
OPTIONAL MATCH (old)-[:HAS_EXPERTISE]->(item:Expertise)
WITH collect(DISTINCT old) + collect(DISTINCT item) AS stale
FOREACH (n IN stale | DETACH DELETE n)
WITH count(*) AS cleared
UNWIND $profiles AS pr
CREATE (p:Profile {user_id: $user_id, speaker: pr.speaker})
SET p.entity_key = pr.entity_key, p.verbosity = pr.verbosity,
  p.provides_structured_data = pr.provides_structured_data,
  p.responds_to_follow_ups = pr.responds_to_follow_ups, p.words_per_turn = pr.words_per_turn,
  p.structured_share = pr.structured_share, p.answered_share = pr.answered_share,
  p.topics_declined = pr.topics_declined, p.sessions_completed = pr.sessions_completed,
  p.entries_contributed = pr.entries_contributed, p.first_active_at = pr.first_active_at,
  p.last_active_at = pr.last_active_at, p.preferred_name = pr.preferred_name,
  p.relationship_stage = pr.relationship_stage, p.disclosures = pr.disclosures,
  p.last_session_id = pr.last_session_id, p.built_at = $now
WITH p, pr
OPTIONAL MATCH (person:Entity {user_id: $user_id, key: pr.entity_key})
FOREACH (_ IN CASE WHEN person IS NULL THEN [] ELSE [1] END | MERGE (p)-[:PROFILE_OF]->(person))
WITH p, pr
UNWIND CASE WHEN size(pr.expertise) = 0 THEN [null] ELSE pr.expertise END AS it
OPTIONAL MATCH (about:Entity {user_id: $user_id, key: it.area_key})
FOREACH (_ IN CASE WHEN it IS NULL THEN [] ELSE [1] END |
  CREATE (p)-[:HAS_EXPERTISE]->(x:Expertise {user_id: $user_id, speaker: pr.speaker,
    area: it.area, area_key: it.area_key, depth: it.depth, reason: it.reason,
    evidence: it.evidence, turns: it.turns, sessions: it.sessions, specific: it.specific,
    types: it.types, rank: it.rank})
  FOREACH (__ IN CASE WHEN about IS NULL THEN [] ELSE [1] END | CREATE (x)-[:ABOUT]->(about)))
RETURN count(DISTINCT p) AS profiles

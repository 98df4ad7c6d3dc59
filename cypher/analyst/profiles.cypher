// Answers: who speaks in a user's memories, and what does each one know well? Every profile with
// its person, stage, style and counts, and its expertise items in rank order with the entity each
// is about. Built when sessions end (graph/write/profiles.py); the depth rules are in
// graph/profile/rules.py.
// Parameters: $userId (whose graph, e.g. 'alice').
MATCH (p:Profile {user_id: $userId})
OPTIONAL MATCH (p)-[:PROFILE_OF]->(person:Entity)
OPTIONAL MATCH (p)-[:HAS_EXPERTISE]->(x:Expertise)
OPTIONAL MATCH (x)-[:ABOUT]->(about:Entity)
WITH p, person, x, about
ORDER BY p.speaker, x.rank
RETURN p.speaker AS speaker, person.key AS person, p.relationship_stage AS stage,
  p.verbosity AS verbosity, p.sessions_completed AS sessions, p.entries_contributed AS turns,
  collect(x.area + ' [' + x.depth + '] → ' + coalesce(about.key, '?')) AS expertise,
  p.topics_declined AS declined
ORDER BY speaker

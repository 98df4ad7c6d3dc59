// The typed facts of one user whose subject is outside its relation's domain (graph/vocabulary.py
// DOMAINS, passed as $domains: [{type, subjects}]): a place that works somewhere, a thing that
// plans. The write never stores one (extraction/kinds.py); the tests and operators check that it
// holds for a whole graph.
MATCH (s:Entity {user_id: $user_id})-[r]->(o:Entity {user_id: $user_id})
WITH s, r, o, [d IN $domains WHERE d.type = type(r)] AS found
WHERE size(found) > 0 AND NOT s.type IN found[0].subjects
RETURN s.key AS source, type(r) AS type, o.key AS target
ORDER BY source, type, target

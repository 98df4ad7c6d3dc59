// The turns of a user's ended sessions, and their turns without a session, that name any of $keys
// (the areas of the profiles' expertise), not as their speaker, with who said them: an area
// gathers its speaker's turns from every session and day. Read at each fold from the current
// graph, since a topic is linked to earlier turns once it recurs (graph/profile/rules.py). Reads
// the areas' mentions only.
MATCH (e:Entity {user_id: $user_id})
WHERE e.key IN $keys
MATCH (e)<-[x:MENTIONS]-(m:Memory)
WHERE coalesce(x.as_speaker, false) = false AND m.speaker IS NOT NULL
  AND coalesce(m.kind, 'turn') = 'turn'
OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
WITH e, m, s
WHERE (s IS NULL AND m.session_id IS NULL) OR s.ended = true
RETURN e.key AS key, m.speaker AS speaker, collect(m.id) AS ids

// Answers: why does the profile say this person knows that? One speaker's expertise items with
// the reason and the turns behind each (the evidence memory ids, newest first, with their text).
// Parameters: $userId (whose graph, e.g. 'alice'), $speaker (e.g. 'Alice').
MATCH (p:Profile {user_id: $userId, speaker: $speaker})-[:HAS_EXPERTISE]->(x:Expertise)
UNWIND x.evidence AS id
MATCH (m:Memory {user_id: $userId, id: id})
WITH x, m
ORDER BY x.rank, m.occurred_at DESC
RETURN x.area AS area, x.depth AS depth, x.reason AS reason,
  collect(m.session_id + ': ' + m.text) AS evidence
ORDER BY area

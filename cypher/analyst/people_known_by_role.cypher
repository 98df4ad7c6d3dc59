// Answers: who does the memory know only by role ("Melanie's husband"), with no name yet? The
// knowledge index lists them as gaps (UNNAMED_PERSON), each with a question to ask.
// Parameters: $userId (whose graph, e.g. 'alice').
MATCH (e:Person {user_id: $userId})
WHERE e.unnamed = true
OPTIONAL MATCH (e)<-[:MENTIONS]-(m:Memory)
RETURN e.key AS key, e.label AS label, count(m) AS memories
ORDER BY memories DESC, key

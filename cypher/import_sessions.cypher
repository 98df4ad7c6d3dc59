// Upserts exported sessions by (user_id, id).
UNWIND $rows AS row
MERGE (s:Session {user_id: row.user_id, id: row.id})
SET s += row
RETURN count(s) AS count

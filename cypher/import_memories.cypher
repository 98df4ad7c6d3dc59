// Upserts exported memories by (user_id, id): running an export twice creates nothing new.
UNWIND $rows AS row
MERGE (m:Memory {user_id: row.user_id, id: row.id})
SET m += row
RETURN count(m) AS count

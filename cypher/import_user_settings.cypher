// Upserts exported user settings by user_id.
UNWIND $rows AS row
MERGE (u:UserSettings {user_id: row.user_id})
SET u += row
RETURN count(u) AS count

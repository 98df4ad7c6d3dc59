// What a write reads under its lock, in one round trip (graph/write/pipeline.py): where the
// user's change sequence stands (graph/follow.py brings the caches there) and the newest memory
// (by ingest order) of each session the batch continues, where its turns join the NEXT chain.
// One row per session found; one row with a null session when none is (or none was asked for).
OPTIONAL MATCH (log:ChangeLog {user_id: $user_id})
WITH log
OPTIONAL MATCH (m:Memory {user_id: $user_id})
WHERE m.session_id IN $sessions
WITH log, m.session_id AS session, m
ORDER BY m.created_at DESC
WITH log, session, collect(m.id) AS ids
RETURN log.epoch AS epoch, log.seq AS seq, session, ids[0] AS last

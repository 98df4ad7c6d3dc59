// Where the user's change sequence stands (graph/follow.py): read before a call that uses the
// per-process caches, which are brought up to date when they hold another value. No row values
// (nulls) for a user without a log: nothing written since the log was introduced, or forgotten.
OPTIONAL MATCH (log:ChangeLog {user_id: $user_id})
RETURN log.epoch AS epoch, log.seq AS seq

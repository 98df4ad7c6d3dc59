// The user's change sequence with its log of removals (graph/follow.py): the memory ids forgotten
// and the sequence value each removal took; `trimmed` is the newest value no longer in the log.
OPTIONAL MATCH (log:ChangeLog {user_id: $user_id})
RETURN log.epoch AS epoch, log.seq AS seq, log.trimmed AS trimmed, log.removed AS removed,
  log.removed_seq AS removed_seq

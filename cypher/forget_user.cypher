// Deletes every node of one user (memories, entities, sessions and their edges, profiles, their
// expertise items, the profile tallies of days without a session, the user's settings and
// knowledge indexes, and the change log: replicas see the log gone and drop their caches of the
// user); returns how many memories were removed.
OPTIONAL MATCH (m:Memory {user_id: $user_id})
WITH collect(m) AS memories
OPTIONAL MATCH (e:Entity {user_id: $user_id})
WITH memories, collect(e) AS entities
OPTIONAL MATCH (s:Session {user_id: $user_id})
WITH memories, entities, collect(s) AS sessions
OPTIONAL MATCH (log:ChangeLog {user_id: $user_id})
WITH memories, entities, sessions, collect(log) AS logs
OPTIONAL MATCH (p:Profile {user_id: $user_id})
WITH memories, entities, sessions, logs, collect(p) AS profiles
OPTIONAL MATCH (x:Expertise {user_id: $user_id})
WITH memories, entities, sessions, logs, profiles, collect(x) AS items
OPTIONAL MATCH (u:UserSettings {user_id: $user_id})
WITH memories, entities, sessions, logs, profiles, items, collect(u) AS settings
OPTIONAL MATCH (k:KnowledgeIndex {user_id: $user_id})
WITH memories, entities, sessions, logs, profiles, items, settings, collect(k) AS indexes
OPTIONAL MATCH (d:DayTally {user_id: $user_id})
WITH memories, entities, sessions, logs, profiles, items, settings, indexes, collect(d) AS days
FOREACH (n IN memories + entities + sessions + logs + profiles + items + settings + indexes + days |
  DETACH DELETE n)
RETURN size(memories) AS count

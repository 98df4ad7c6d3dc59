// Every user id that owns at least one memory (start-up reconciliation of the vector indexes).
MATCH (m:Memory)
RETURN DISTINCT m.user_id AS user_id

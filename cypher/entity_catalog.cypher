// Every entity of one user, in the compact form used to resolve mentions and score frequency.
MATCH (e:Entity {user_id: $user_id})
RETURN e.key AS key, e.type AS type, e.label AS label, e.aliases AS aliases,
  e.mention_count AS mention_count, e.gender AS gender, coalesce(e.unnamed, false) AS unnamed,
  coalesce(e.plural, false) AS plural

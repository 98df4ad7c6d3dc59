// Sets a user's timezone and preferred name by hand (each only when $set_timezone /
// $set_name): they live on one (:UserSettings) node, apart from the derived profiles.
MERGE (u:UserSettings {user_id: $user_id})
SET u.timezone = CASE WHEN $set_timezone THEN $timezone ELSE u.timezone END,
  u.preferred_name = CASE WHEN $set_name THEN $preferred_name ELSE u.preferred_name END,
  u.updated_at = $now
RETURN u.timezone AS timezone, u.preferred_name AS preferred_name

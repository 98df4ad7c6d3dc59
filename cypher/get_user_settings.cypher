// A user's settings set by hand (timezone, preferred name), if any.
MATCH (u:UserSettings {user_id: $user_id})
RETURN u.timezone AS timezone, u.preferred_name AS preferred_name

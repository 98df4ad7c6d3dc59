// A user's settings set by hand (timezone, preferred name), for `recollect export`.
MATCH (u:UserSettings {user_id: $user_id})
RETURN u {.*} AS props

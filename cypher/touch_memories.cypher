// Records that memories were returned by context: last access time and access count.
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
SET m.last_accessed_at = $now, m.access_count = coalesce(m.access_count, 0) + 1
RETURN count(m) AS touched

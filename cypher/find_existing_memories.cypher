// Idempotency look-up: memories of one user that already carry one of the given external ids or
// content hashes.
MATCH (m:Memory {user_id: $user_id})
WHERE m.external_id IN $external_ids OR m.content_hash IN $content_hashes
RETURN m.id AS id, m.external_id AS external_id, m.content_hash AS content_hash

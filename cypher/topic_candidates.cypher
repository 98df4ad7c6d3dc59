// The candidate topics of one user's memories (noun chunks that carried no fact), with the
// memories holding each: a candidate becomes an entity when it recurs in another memory.
MATCH (m:Memory {user_id: $user_id})
WHERE size(coalesce(m.topic_candidates, [])) > 0
UNWIND m.topic_candidates AS key
RETURN key, collect(m.id) AS memory_ids

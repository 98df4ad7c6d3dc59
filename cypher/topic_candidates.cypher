// The keys held on one user's memories that no entity stands for yet, with the memories holding
// each: candidate topics (noun chunks that carried no fact), which become entities when they
// recur in another memory, and names said only by an agent or only at a sentence start, which
// become entities when someone says them where a name must be (extraction/resolver.py).
MATCH (m:Memory {user_id: $user_id})
WHERE size(coalesce(m.topic_candidates, [])) > 0
UNWIND m.topic_candidates AS key
RETURN key, collect(m.id) AS memory_ids

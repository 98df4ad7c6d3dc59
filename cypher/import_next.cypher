// Recreates exported NEXT edges (session turn order), once each.
UNWIND $rows AS row
MATCH (a:Memory {user_id: $user_id, id: row.from})
MATCH (b:Memory {user_id: $user_id, id: row.to})
MERGE (a)-[r:NEXT]->(b)
RETURN count(r) AS count

// Recreates exported typed relations, once each, with their properties. Relationship types are
// literals of the vocabulary (graph/vocabulary.py), chosen by the row's type.
UNWIND $rows AS row
MATCH (a:Entity {user_id: $user_id, key: row.src})
MATCH (b:Entity {user_id: $user_id, key: row.dst})
FOREACH (_ IN CASE WHEN row.type = 'WORKS_AT' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_AT]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'LIVES_IN' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIVES_IN]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'FAMILY_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:FAMILY_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'FRIEND_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:FRIEND_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'MEMBER_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:MEMBER_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'WORKS_ON' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_ON]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'LIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIKES]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'VISITED' THEN [1] ELSE [] END |
  MERGE (a)-[x:VISITED]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'RELATED_TO' THEN [1] ELSE [] END |
  MERGE (a)-[x:RELATED_TO]->(b) SET x += row.props)
RETURN count(*) AS count

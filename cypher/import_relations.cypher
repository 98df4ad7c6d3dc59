// Recreates exported typed relations, once each, with their properties. Relationship types are
// literals of the vocabulary (graph/vocabulary.py), chosen by the row's type.
UNWIND $rows AS row
MATCH (a:Entity {user_id: $user_id, key: row.src})
MATCH (b:Entity {user_id: $user_id, key: row.dst})
FOREACH (_ IN CASE WHEN row.type = 'WORKS_AT' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_AT]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'WORKS_AS' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_AS]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'WORKS_ON' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_ON]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'STUDIES' THEN [1] ELSE [] END |
  MERGE (a)-[x:STUDIES]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'LIVES_IN' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIVES_IN]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'MOVED_TO' THEN [1] ELSE [] END |
  MERGE (a)-[x:MOVED_TO]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'FROM' THEN [1] ELSE [] END |
  MERGE (a)-[x:FROM]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'VISITED' THEN [1] ELSE [] END |
  MERGE (a)-[x:VISITED]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'ATTENDED' THEN [1] ELSE [] END |
  MERGE (a)-[x:ATTENDED]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'MEMBER_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:MEMBER_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'VOLUNTEERS_AT' THEN [1] ELSE [] END |
  MERGE (a)-[x:VOLUNTEERS_AT]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'SUPPORTS' THEN [1] ELSE [] END |
  MERGE (a)-[x:SUPPORTS]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'FAMILY_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:FAMILY_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'PARTNER_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:PARTNER_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'FRIEND_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:FRIEND_OF]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'HAS_PET' THEN [1] ELSE [] END |
  MERGE (a)-[x:HAS_PET]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'OWNS' THEN [1] ELSE [] END |
  MERGE (a)-[x:OWNS]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'LIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIKES]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'DISLIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:DISLIKES]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'PRACTICES' THEN [1] ELSE [] END |
  MERGE (a)-[x:PRACTICES]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'PLAYS' THEN [1] ELSE [] END |
  MERGE (a)-[x:PLAYS]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'MADE' THEN [1] ELSE [] END |
  MERGE (a)-[x:MADE]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'READ' THEN [1] ELSE [] END |
  MERGE (a)-[x:READ]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'WATCHED' THEN [1] ELSE [] END |
  MERGE (a)-[x:WATCHED]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'PLANS' THEN [1] ELSE [] END |
  MERGE (a)-[x:PLANS]->(b) SET x += row.props)
FOREACH (_ IN CASE WHEN row.type = 'RELATED_TO' THEN [1] ELSE [] END |
  MERGE (a)-[x:RELATED_TO]->(b) SET x += row.props)
RETURN count(*) AS count

// Upserts exported entities by (user_id, key) with their type label (a literal of the vocabulary).
UNWIND $rows AS row
MERGE (e:Entity {user_id: row.user_id, key: row.key})
SET e += row
FOREACH (_ IN CASE WHEN row.type = 'person' THEN [1] ELSE [] END | SET e:Person)
FOREACH (_ IN CASE WHEN row.type = 'place' THEN [1] ELSE [] END | SET e:Place)
FOREACH (_ IN CASE WHEN row.type = 'org' THEN [1] ELSE [] END | SET e:Org)
FOREACH (_ IN CASE WHEN row.type = 'project' THEN [1] ELSE [] END | SET e:Project)
FOREACH (_ IN CASE WHEN row.type = 'event' THEN [1] ELSE [] END | SET e:Event)
FOREACH (_ IN CASE WHEN row.type = 'topic' THEN [1] ELSE [] END | SET e:Topic)
FOREACH (_ IN CASE WHEN row.type = 'pet' THEN [1] ELSE [] END | SET e:Pet)
FOREACH (_ IN CASE WHEN row.type = 'work' THEN [1] ELSE [] END | SET e:Work)
FOREACH (_ IN CASE WHEN row.type = 'language' THEN [1] ELSE [] END | SET e:Language)
FOREACH (_ IN CASE WHEN row.type = 'agent' THEN [1] ELSE [] END | SET e:Agent)
RETURN count(e) AS count

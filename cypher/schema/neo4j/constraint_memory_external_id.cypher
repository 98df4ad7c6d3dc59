// Two processes writing the same input (the same externalId of a user) at the same instant
// store it once: the second write fails on this constraint and its writer answers with the
// first one's memory (graph/write/pipeline.py). It also serves lookups by externalId, as the
// index it replaces did (dropped first, by constraint_0_drop_memory_external_id_index.cypher).
CREATE CONSTRAINT memory_user_external_id IF NOT EXISTS
FOR (m:Memory) REQUIRE (m.user_id, m.external_id) IS UNIQUE

// Graphs created before the externalId constraint hold an index on the same properties, which
// Neo4j refuses to keep beside a uniqueness constraint: it goes first (schema files run in name
// order), and the constraint's own index replaces it.
DROP INDEX memory_external_id IF EXISTS

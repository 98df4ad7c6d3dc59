#!/usr/bin/env node
// Checks Cypher files with Neo4j's own parser (@neo4j-cypher/language-support, Cypher 5 by default).
// Usage: node lint.mjs FILE...  Prints {"FILE": {"statements": n, "diagnostics": [...]}, ...} as JSON.
// "Parameter $x is not defined" is dropped: parameters are supplied at run time.
import { readFileSync } from 'node:fs';
import { isNotParamError, lintCypherQuery, parseStatementsStrs } from '@neo4j-cypher/language-support';

const SEVERITY = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };
const report = {};
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, 'utf8');
  const { diagnostics } = lintCypherQuery(text, {});
  report[file] = {
    statements: parseStatementsStrs(text).filter((s) => s.trim()).length,
    diagnostics: diagnostics.filter(isNotParamError).map((d) => ({
      severity: SEVERITY[d.severity] ?? String(d.severity),
      message: d.message,
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
    })),
  };
}
process.stdout.write(JSON.stringify(report, null, 2) + '\n');

"""Caches that follow the store: one user's FAISS and BM25 indexes brought up to the graph.

Every write, forget and merge advances the user's change sequence in the same statement
(`ChangeLog {user_id, epoch, seq}`, cypher/write_memories.cypher): memories carry the value that
wrote them, and the log keeps the newest removals with theirs. A process's FAISS index records the
mark it holds at least (graph/vectors.py). Before a call that reads the caches the service reads
the graph's mark (one small statement) and, when it differs, calls `catch_up` under its write lock:

- same epoch, and the removals since the held mark still listed: the delta is applied — the
  memories written since (their stored embeddings, so no model runs) are added to FAISS and BM25,
  the listed removals taken out;
- otherwise (no mark held, another epoch after forgetUser, or too far behind): the whole user is
  reconciled against the graph (graph/reconcile.py) and BM25 rebuilt on its next query.

Adding and removing are idempotent, so a mark only needs to be a lower bound of what an index holds:
a crash after an index gained vectors but before its mark moved costs a repeated delta, never a lost
memory. The catalogue, speaker counts and memory facts (graph/memory_facts.py) are not patched from
the delta: the service drops them after any change from elsewhere and reads them again from the
graph (its own changes it patches in place).
"""

from __future__ import annotations

from extraction.embedder import embedding_text
from extraction.protocols import TextEmbedder
from graph.lexical import LexicalIndexes
from graph.reconcile import ReconcileReport, add_rows, reconcile_user
from graph.records import Mark, appliable
from graph.store import Store
from graph.vectors import VectorStore


def catch_up(
    store: Store,
    vectors: VectorStore,
    lexical: LexicalIndexes,
    embedder: TextEmbedder,
    user_id: str,
    report: ReconcileReport,
) -> Mark:
    """Brings the user's FAISS and BM25 indexes up to the graph's mark; returns that mark. The
    caller holds the service's write lock, so no write of this process interleaves."""
    held = vectors.mark(user_id)
    log = store.change_log(user_id)
    target = log.mark
    if held == target:
        return target
    if appliable(held, log):
        removed = [memory_id for seq, memory_id in log.removed if held.seq < seq <= target.seq]
        rows = store.memories_since(user_id, held.seq, target.seq)
        if removed:
            report.removed += vectors.remove(user_id, removed)
            lexical.remove(user_id, removed)
        if rows:
            add_rows(vectors, embedder, user_id, rows, report)
            lexical.add(
                user_id, [r.id for r in rows], [embedding_text(r.text, r.speaker) for r in rows]
            )
        report.deltas += 1
    else:
        reconcile_user(store, vectors, embedder, user_id, report)
        lexical.drop(user_id)
        report.reloads += 1
    vectors.set_mark(user_id, target)
    return target

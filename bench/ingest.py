"""Bulk ingest against the embedder alone, on the ten LoCoMo dev conversations (real turns).

The bulk path is what `recollect ingest` runs: a runtime on a fresh data directory, each line
screened by the storage policy, then `remember_many` in batches (256, the bench builds' size), and
the runtime closed (its background work: ended sessions' episodes, profiles, the files). Timed
from the first batch to the close, so the models' load (bench/startup.py) is not in it; each
conversation is its own user and its turns carry their sessions and times, as a client sends
them. Beside it, in the same process and run: the embedder alone as the model is configured
(256 word pieces, torch on every core) and spaCy alone (the whole pipeline, `nlp.pipe`), on the
same `Speaker: text` strings. The ratio is ingest's turns/s over the embedder's texts/s.

    python bench/ingest.py [--data ../shared/data/locomo-dev] [--batch 256] [--profile FILE]

`--profile FILE` writes a cProfile of the ingest (every thread's time is in the calling thread's
waits; use py-spy for a per-thread view).
"""

from __future__ import annotations

import argparse
import cProfile
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from locomo import DEFAULT_DATA, conversation_files, load
from machine import describe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--profile", help="write a cProfile of the ingest here")
    args = parser.parse_args()

    from api.runtime import start
    from api.settings import Settings
    from extraction.embedder import MODEL_TOKENS, Embedder, embedding_text
    from graph.validation import NewMemory, validate

    conversations = [load(path) for path in conversation_files(args.data)]
    memories = [
        NewMemory(
            user_id=c.user,
            text=t.text,
            speaker=t.speaker,
            session_id=t.session,
            occurred_at=datetime.fromisoformat(t.occurred_at).timestamp(),
        )
        for c in conversations
        for t in c.turns
    ]
    texts = [embedding_text(m.text, m.speaker) for m in memories]
    print(f"{describe()}\n{len(memories)} turns of {len(conversations)} conversations", flush=True)

    with tempfile.TemporaryDirectory(prefix="recollect-ingest-") as tmp:
        runtime = start(Settings(data_dir=Path(tmp) / "data"))
        service = runtime.service
        profiler = cProfile.Profile() if args.profile else None
        began = time.perf_counter()
        try:
            if profiler is not None:
                profiler.enable()
            for at in range(0, len(memories), args.batch):
                batch = [
                    service.screen.one(validate(m, service.limits.max_text_chars))
                    for m in memories[at : at + args.batch]
                ]
                service.remember_many(batch)
            acknowledged = time.perf_counter() - began
        finally:
            runtime.close()
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile)
        drained = time.perf_counter() - began

    embedder = Embedder(max_tokens=MODEL_TOKENS)
    embedder.embed(texts[:64])  # torch's first call allocates
    began = time.perf_counter()
    embedder.embed(texts)
    embedding = time.perf_counter() - began
    from extraction.pipeline import load_pipeline

    nlp = load_pipeline()
    began = time.perf_counter()
    for _ in nlp.pipe(texts, batch_size=64):
        pass
    parsing = time.perf_counter() - began

    n = len(memories)
    embed_rate = n / embedding
    print("| what | seconds | per second | × embedder alone |\n|---|---|---|---|")
    for name, seconds in (
        ("ingest, acknowledged", acknowledged),
        ("ingest, with background and close", drained),
        ("embedder alone (256 pieces, all cores)", embedding),
        ("spaCy alone", parsing),
    ):
        print(f"| {name} | {seconds:.1f} | {n / seconds:.1f} | {n / seconds / embed_rate:.2f} |")


if __name__ == "__main__":
    sys.exit(main())

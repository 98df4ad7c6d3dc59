"""Long texts. A person's note of 20,000 characters is parsed part by part (extraction/chunks.py),
so a fact in its last paragraph reaches the graph; an assistant's reply of thousands of
characters is parsed to its head; the embedder takes the first word pieces, BM25 the whole text —
so a word at the very end still finds the memory. The cuts and the joining are pure functions;
the rest runs on the embedded engine with the real models."""

from __future__ import annotations

from extraction.chunks import PART_CHARS, joined, text_parts
from extraction.embedder import Embedder
from extraction.extractor import PARSED_CHARS, parsed_head
from extraction.model import REF_PREFIX, Extraction, Mention, Reference, Relation
from tests.conftest import Api
from tests.documents import CONTEXT, REMEMBER_MANY

VIA = """query($user: ID!, $message: String!) {
  context(userId: $user, message: $message, maxMemories: 3, minConfidence: 0, minScore: 0) {
    memories { via memory { id } } } }"""
FILLER = "A good plan keeps the route flexible and the budget simple, and it leaves room for rest. "


def test_short_texts_are_parsed_whole() -> None:
    assert parsed_head("My sister Ana lives in Porto.", 100) == "My sister Ana lives in Porto."
    assert parsed_head("x " * 500, None) == "x " * 500


def test_long_texts_are_cut_after_the_last_sentence_end_in_the_head() -> None:
    said = "Ana lives in Porto. She teaches maths there! Does she like it?"
    assert parsed_head(said + " " + "y" * 200, 70) == said
    lines = "First line about Ana\nsecond line about Porto\n" + "z " * 100
    assert parsed_head(lines, 60) == "First line about Ana\nsecond line about Porto\n"


def test_a_head_without_a_sentence_end_is_cut_at_a_space() -> None:
    text = "word " * 100
    head = parsed_head(text, 52)
    assert len(head) <= 52 and head.endswith(" ") and text.startswith(head)
    assert parsed_head("x" * 100, 10) == "x" * 10  # one endless token: cut where the head ends


def test_the_embedder_cuts_at_its_word_piece_limit(embedder: Embedder) -> None:
    long_prefix = FILLER * (embedder.max_tokens // 10)
    a, b = embedder.embed([long_prefix + "zebras", long_prefix + "quantum chromodynamics"])
    assert float(a @ b) > 0.9999, "what lies past the limit is not embedded"
    c, d = embedder.embed(["I love zebras.", "I study quantum chromodynamics."])
    assert float(c @ d) < 0.9


def test_a_fact_in_the_head_is_extracted_and_a_word_past_every_cut_still_finds_the_memory(
    api: Api,
) -> None:
    reply = "My sister Ana lives in Porto. " + FILLER * (2 * (PARSED_CHARS or 2000) // len(FILLER))
    reply += "Finally, pack a spare quokka plush for the train."
    user = "long-text-user"
    stored = api.ok(REMEMBER_MANY, inputs=[{"userId": user, "text": reply, "speaker": "Kim"}])
    keys = {e["key"] for e in stored["rememberMany"][0]["entities"]}
    assert "place:porto" in keys
    block = api.ok(CONTEXT, user=user, message="What about the quokka plush?", max=3)["context"]
    assert [m["memory"]["text"] for m in block["memories"]][0] == reply


# -- whole texts ---------------------------------------------------------------------------------

DIARY = [
    "The morning started slowly, with coffee and the radio murmuring about the weather.",
    "I spent an hour sorting old receipts and decided most of them could finally go.",
    "The bus was late again, so I walked the long way past the market stalls.",
    "Lunch was a bowl of soup and some bread, which was exactly what the cold day needed.",
    "In the afternoon I read a few chapters of a novel about a lighthouse keeper.",
    "The light faded early, and the street lamps came on one by one along the road.",
    "I wrote a shopping list and then forgot it on the kitchen table, as usual.",
    "Later I tidied the shelves and found a postcard I had never sent.",
]


def _note(chars: int, ending: str) -> str:
    """A person's long note of at most `chars` characters: paragraphs of everyday sentences,
    then `ending` as its last one."""
    paragraphs: list[str] = []
    for n in range(0, 10 * chars, 3):
        paragraph = " ".join(DIARY[(n + k) % len(DIARY)] for k in range(5))
        if sum(len(p) + 2 for p in [*paragraphs, paragraph]) + len(ending) > chars:
            break
        paragraphs.append(paragraph)
    return "\n\n".join([*paragraphs, ending])


def test_a_long_text_is_cut_into_parts_at_paragraphs_that_hold_all_of_it() -> None:
    note = _note(20_000, "My cat Biscuit sleeps on the windowsill of our flat in Tartu.")
    parts = text_parts(note)
    assert 19_000 < len(note) <= 20_000 and len(parts) >= 10
    assert "".join(parts) == note
    assert all(len(p) <= PART_CHARS for p in parts)
    assert all(p.endswith("\n\n") for p in parts[:-1])  # paragraphs are not split
    assert parts[-1].endswith("in Tartu.")
    assert text_parts("short") == ["short"]


def test_a_paragraph_longer_than_a_part_is_cut_after_sentences_then_at_spaces() -> None:
    sentences = "One fact here. " * 300
    parts = text_parts(sentences, 200)
    assert "".join(parts) == sentences and all(len(p) <= 200 for p in parts)
    assert all(p.endswith(". ") for p in parts[:-1])
    words = "word " * 200
    assert all(p.endswith(" ") for p in text_parts(words, 64)[:-1])
    assert "".join(text_parts("x" * 500, 64)) == "x" * 500  # no break at all: cut where it must


def test_joined_parts_keep_references_apart_and_drop_a_later_parts_pronoun() -> None:
    she = Mention(f"{REF_PREFIX}she", "person", "She", reference=Reference("pronoun", "female"))
    ana = Mention("person:ana", "person", "Ana")
    porto = Mention("place:porto", "place", "Porto")
    first = Extraction(
        [ana, she], [Relation(she.key, "LIVES_IN", "place:porto")], cues=frozenset({"a"})
    )
    later = Extraction(
        [she, porto], [Relation(she.key, "WORKS_AT", "place:porto")], cues=frozenset({"b"})
    )
    mom = Mention(
        f"{REF_PREFIX}mom",
        "person",
        "mom",
        reference=Reference("role", owner="person:ana", role="mom"),
    )
    third = Extraction([mom], [Relation(mom.key, "LIVES_IN", "place:porto")])
    whole = joined([first, later, third])
    assert whole.keys() == ["person:ana", f"{REF_PREFIX}she", "place:porto", f"{REF_PREFIX}p2.mom"]
    assert {(r.src, r.type) for r in whole.relations} == {
        (f"{REF_PREFIX}she", "LIVES_IN"),
        (f"{REF_PREFIX}p2.mom", "LIVES_IN"),
    }
    assert whole.cues == {"a", "b"}
    assert joined([first]) is first


def test_a_fact_in_the_last_paragraph_of_a_long_note_reaches_the_graph_and_context(
    api: Api,
) -> None:
    """A 20,000-character note whose last paragraph names a cat and a city, among five short
    distractors: the cat and the city are in the graph, the note is the memory that mentions the
    cat, and context finds it."""
    user = "whole-text-user"
    note = _note(20_000, "My cat Biscuit sleeps on the windowsill of our flat in Tartu.")
    distractors = [
        "I bought new running shoes on Saturday.",
        "The dentist appointment moved to Thursday.",
        "My brother likes strong coffee in the morning.",
        "We watched a documentary about glaciers.",
        "The garden needs watering twice a week now.",
    ]
    inputs = [{"userId": user, "text": t, "speaker": "Dana"} for t in [*distractors, note]]
    stored = api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]
    keys = {e["key"] for e in stored[-1]["entities"]}
    assert "place:tartu" in keys, keys
    assert "pet:biscuit" in keys, keys
    for question in ["What is my cat called?", "Where is the flat with the windowsill?"]:
        block = api.ok(CONTEXT, user=user, message=question, max=3)["context"]
        assert stored[-1]["id"] in [m["memory"]["id"] for m in block["memories"]], question
    # the note is embedded in passages too, and the one that matched is named
    owned, _ = api.runtime.vectors.passage_matrix(user, [stored[-1]["id"]])
    assert len(owned) >= 30  # 20,000 characters in passages of at most 500
    block = api.ok(VIA, user=user, message="Where does the cat sleep?")["context"]
    via = {m["memory"]["id"]: m["via"] for m in block["memories"]}
    last = f"passage:{len(owned)}"
    assert last in via.get(stored[-1]["id"], []), via  # "My cat Biscuit sleeps on…"

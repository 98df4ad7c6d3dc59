"""Long turns (an assistant's reply of thousands of characters): extraction parses the head,
the embedder the first word pieces, BM25 the whole text — so a word at the very end still finds
the memory. The cut itself is a pure function; the rest runs on the embedded engine with the real
models."""

from __future__ import annotations

from extraction.embedder import Embedder
from extraction.extractor import PARSED_CHARS, parsed_head
from tests.conftest import Api
from tests.documents import CONTEXT, REMEMBER_MANY

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

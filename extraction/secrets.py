"""Secrets said in chat, for Presidio: passwords and PINs after a cue ("my password is …",
"pin: 4321"), and API keys and tokens by their published shapes or after a cue.

Presidio's own recognizers cover ids with a checksum or a fixed shape (cards, IBANs, SSNs, …); a
secret has neither, so it is found by what is said around it. Only the secret itself is marked:
"my password is [PASSWORD]" keeps what the sentence was about. A plain lowercase word after the
cue is not taken ("my password is too long", "the password is on the fridge"): a secret is quoted,
or holds a digit, a symbol or a capital inside it.

Each expression is searched only in a text that can hold a match (extraction/shapes.py: its cue
words, a key's published prefix): a long turn without them costs a few substring checks.

Imports Presidio and extraction/shapes.py only; nothing from graph/ or api/.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from presidio_analyzer import EntityRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts

from extraction.shapes import TextView, shape

PASSWORD = "PASSWORD"
API_KEY = "API_KEY"

_QUOTE = "\"'`\u201c\u201d\u2018\u2019"
_SECRET_TOKEN = rf"(?P<q>[{_QUOTE}])?(?P<secret>[^\s{_QUOTE}]{{4,128}})(?(q)[{_QUOTE}])"
# a cue, then an optional verb or separator, then the secret
_PASSWORD_CUE = re.compile(
    r"(?i)\b(?:password|passwd|passphrase|pass\s?code|pwd|wi-?fi\s+key)s?\b"
    r"(?:\s+(?:for|to|of|on)\s+(?:my|the|our|your)?\s*[\w.-]+)?"
    r"\s*(?:is|was|=|:|->|to|now\s+is|is\s+now|will\s+be|should\s+be)\s*(?:now\s+)?" + _SECRET_TOKEN
)
_PIN_CUE = re.compile(
    r"(?i)\b(?:pin|pin\s+code|pin\s+number)\b\s*(?:is|was|=|:)\s*(?P<secret>\d{4,8})\b"
)
_KEY_CUE = re.compile(
    r"(?i)\b(?:api[\s_-]?key|access[\s_-]?key|secret[\s_-]?key|client[\s_-]?secret|"
    r"auth(?:entication)?[\s_-]?token|access[\s_-]?token|bearer|token)\b"
    r"\s*(?:is|was|=|:)?\s*" + r"(?P<q>[" + _QUOTE + r"])?(?P<secret>[A-Za-z0-9_\-./+=]{16,256})"
)
# shapes published by the issuers (prefix and length), each unlikely in prose
_KEY_SHAPES = re.compile(
    r"(?P<secret>"
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
    r"|\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
    r"|\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{40,}"  # GitHub
    r"|\bglpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API key
    r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"  # JSON Web Token
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    r")"
)
_TRAILING = ".,;:!?)]}"
_SHAPES = {p: shape(p) for p in (_PASSWORD_CUE, _PIN_CUE, _KEY_CUE, _KEY_SHAPES)}
SCORE = 0.9


def _looks_secret(token: str, quoted: bool) -> bool:
    """A quoted token, or one with a digit, a symbol or a capital after its first letter; not a
    plain word ("long", "sunshine") nor a lone capitalised one ("Monday")."""
    if quoted:
        return True
    return (
        any(c.isdigit() for c in token)
        or any(not c.isalnum() for c in token)
        or any(c.isupper() for c in token[1:])
    )


def _key_like(token: str) -> bool:
    """After a key cue: letters and digits both, as keys are (not "token is expiring")."""
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


class SecretRecognizer(EntityRecognizer):
    """PASSWORD (cued passwords, passphrases, PINs) and API_KEY (cued keys and known shapes)."""

    def __init__(self) -> None:
        super().__init__(
            supported_entities=[PASSWORD, API_KEY], name="SecretRecognizer", version="1"
        )

    def load(self) -> None:  # nothing to load: regular expressions only
        return None

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        found: list[RecognizerResult] = []
        view = TextView(text)
        if PASSWORD in entities:
            found += self._cued(view, _PASSWORD_CUE, PASSWORD, _looks_secret)
            found += self._cued(view, _PIN_CUE, PASSWORD, lambda _t, _q: True)
        if API_KEY in entities:
            found += self._cued(view, _KEY_CUE, API_KEY, lambda t, _q: _key_like(t))
            found += [
                RecognizerResult(API_KEY, m.start("secret"), m.end("secret"), SCORE)
                for m in _matches(view, _KEY_SHAPES)
            ]
        return found

    @staticmethod
    def _cued(
        view: TextView, pattern: re.Pattern[str], entity: str, accept: Callable[[str, bool], bool]
    ) -> list[RecognizerResult]:
        out: list[RecognizerResult] = []
        for match in _matches(view, pattern):
            secret = match.group("secret")
            quoted = "q" in match.groupdict() and match.group("q") is not None
            stripped = secret if quoted else secret.rstrip(_TRAILING)
            if len(stripped) < 4 or not accept(stripped, quoted):
                continue
            start = match.start("secret")
            out.append(RecognizerResult(entity, start, start + len(stripped), SCORE))
        return out


def _matches(view: TextView, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """The pattern's matches, searched for only when the text can hold one."""
    return list(pattern.finditer(view.text)) if _SHAPES[pattern].may_match(view) else []

"""The storage policy for personal data and secrets: what each type found in a text becomes
before anything is written — kept, redacted to its type (`[CREDIT_CARD]`), or refused.

Defaults: payment ids, government ids and secrets are redacted; names, places, dates, e-mail
addresses, phone numbers and IP addresses are kept (they are what a memory is for, or the user's
to choose). `RECOLLECT_PII_POLICY` changes the service's policy, and a memory's `piiPolicy`
changes it for that memory, both in one syntax: comma-separated `TYPE=action` pairs applied in
order, where TYPE is a type below or a group (`payment`, `government`, `secrets`, `contact`,
`names`, `all`), and `off` is `all=keep`:

    RECOLLECT_PII_POLICY="EMAIL_ADDRESS=redact,secrets=refuse"

Pure: no I/O and no model (the detector is extraction/pii.py; graph/write/screen.py applies this).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graph.errors import InvalidInput

KEEP, REDACT, REFUSE = "keep", "redact", "refuse"
ACTIONS = (KEEP, REDACT, REFUSE)

PAYMENT = ("CREDIT_CARD", "IBAN_CODE", "US_BANK_NUMBER", "CRYPTO")
GOVERNMENT = (
    "US_SSN",
    "US_ITIN",
    "US_PASSPORT",
    "US_DRIVER_LICENSE",
    "UK_NHS",
    "UK_NINO",
    "UK_PASSPORT",
    "AU_TFN",
    "CA_SIN",
    "IN_AADHAAR",
    "IN_PAN",
    "SG_NRIC_FIN",
    "ES_NIF",
    "IT_FISCAL_CODE",
)
SECRETS = ("PASSWORD", "API_KEY")
CONTACT = ("EMAIL_ADDRESS", "PHONE_NUMBER", "IP_ADDRESS")
NAMES = ("PERSON", "LOCATION", "DATE_TIME", "NRP")
PII_TYPES = PAYMENT + GOVERNMENT + SECRETS + CONTACT + NAMES
GROUPS: Mapping[str, tuple[str, ...]] = {
    "payment": PAYMENT,
    "government": GOVERNMENT,
    "secrets": SECRETS,
    "contact": CONTACT,
    "names": NAMES,
    "all": PII_TYPES,
}
DEFAULT_REDACTED = PAYMENT + GOVERNMENT + SECRETS


@dataclass(frozen=True)
class PiiPolicy:
    """The action for each type that is not kept (a type absent here is kept)."""

    actions: tuple[tuple[str, str], ...] = tuple((t, REDACT) for t in DEFAULT_REDACTED)

    def action(self, pii_type: str) -> str:
        return dict(self.actions).get(pii_type, KEEP)

    @property
    def watched(self) -> frozenset[str]:
        """The types a text must be searched for: those not kept."""
        return frozenset(t for t, _ in self.actions)

    def overridden(self, spec: str | None, field: str) -> PiiPolicy:
        """This policy changed by `spec` (the module docstring's syntax); a bad spec is
        InvalidInput naming `field`, the part and what is allowed."""
        if spec is None or not spec.strip():
            return self
        actions = {t: a for t, a in self.actions}
        for part in (p.strip() for p in spec.split(",")):
            if not part:
                continue
            name, action = _pair(part, field)
            for pii_type in _types(name, field):
                actions[pii_type] = action
        return PiiPolicy(tuple((t, a) for t, a in sorted(actions.items()) if a != KEEP))


def _pair(part: str, field: str) -> tuple[str, str]:
    if part.lower() == "off":
        return "all", KEEP
    name, sep, action = part.partition("=")
    action = action.strip().lower()
    if not sep or action not in ACTIONS:
        raise InvalidInput(
            field, f"holds {part!r}; write TYPE=action with action one of {', '.join(ACTIONS)}"
        )
    return name.strip(), action


def _types(name: str, field: str) -> tuple[str, ...]:
    if name.lower() in GROUPS:
        return GROUPS[name.lower()]
    if name.upper() in PII_TYPES:
        return (name.upper(),)
    raise InvalidInput(
        field,
        f"names {name!r}, no type of personal data; allowed the groups "
        f"{', '.join(GROUPS)} or the types {', '.join(PII_TYPES)}",
    )


def parse_policy(spec: str | None, field: str = "RECOLLECT_PII_POLICY") -> PiiPolicy:
    """The default policy changed by `spec`."""
    return PiiPolicy().overridden(spec, field)

"""Questions unanswerable by construction (issue 56): what a conversation's own people are asked
about attributes the conversation never states — a car's make, a blood type, a dentist's name.

Each template names the attribute and the words any turn stating it would need (the thing, its
kinds and its usual verbs). A template is asked of a conversation only when no turn of it holds
any of those words, so no memory can answer it: the block should say that nothing relevant was
found. The templates and their words were written from general knowledge of how people speak of
these things, before any block was read, and are never tuned to what the service returns.

    python bench/unanswerable.py [--locomo ../shared/data/locomo-dev]   # prints what is asked
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Template:
    """`third` asks about a named person, `first` as the person themself; `words` are what a turn
    stating the thing would hold (lower case, whole words)."""

    name: str
    third: str
    first: str
    words: frozenset[str]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


TEMPLATES: tuple[Template, ...] = (
    Template(
        "car",
        "What make is {name}'s car?",
        "What make is my car?",
        _words(
            "car cars vehicle vehicles sedan suv truck van drive drives driving drove driven "
            "toyota honda ford tesla bmw audi volkswagen vw nissan hyundai kia mazda subaru "
            "chevy chevrolet volvo jeep mercedes porsche dealership mileage"
        ),
    ),
    Template(
        "blood type",
        "What is {name}'s blood type?",
        "What is my blood type?",
        _words("blood type donor donate donated donating transfusion"),
    ),
    Template(
        "shoe size",
        "What shoe size does {name} wear?",
        "What shoe size do I wear?",
        _words("shoe shoes size sizes sneakers boots trainers footwear"),
    ),
    Template(
        "dentist",
        "What is the name of {name}'s dentist?",
        "What is the name of my dentist?",
        _words("dentist dentists dental teeth tooth orthodontist braces cavity hygienist"),
    ),
    Template(
        "phone",
        "What brand of phone does {name} use?",
        "What brand of phone do I use?",
        _words(
            "phone phones smartphone iphone android samsung pixel galaxy motorola nokia "
            "huawei xiaomi oneplus mobile cellphone"
        ),
    ),
    Template(
        "football club",
        "Which football club does {name} support?",
        "Which football club do I support?",
        _words(
            "football soccer club clubs team teams league match matches fan fans supporter "
            "stadium united city arsenal chelsea liverpool madrid barcelona"
        ),
    ),
    Template(
        "internet provider",
        "Which internet provider does {name} use at home?",
        "Which internet provider do I use at home?",
        _words("internet provider broadband wifi isp comcast verizon fiber router xfinity"),
    ),
    Template(
        "grandmother",
        "What was {name}'s grandmother's maiden name?",
        "What was my grandmother's maiden name?",
        _words("grandmother grandma granny nana maiden grandparents grandparent"),
    ),
    Template(
        "allergy",
        "Which medicine does {name} take for allergies?",
        "Which medicine do I take for allergies?",
        _words(
            "allergy allergies allergic antihistamine medicine medicines medication pill pills "
            "hay fever pollen zyrtec claritin benadryl"
        ),
    ),
    Template(
        "mortgage",
        "Which bank holds {name}'s mortgage?",
        "Which bank holds my mortgage?",
        _words("mortgage bank banks loan loans lender refinance refinanced"),
    ),
)


def askable(turns: Iterable[str], templates: Sequence[Template] = TEMPLATES) -> list[Template]:
    """The templates none of whose words any turn holds."""
    said: set[str] = set()
    for text in turns:
        said.update(_WORD.findall(text.lower()))
    return [t for t in templates if not (t.words & said)]


def third_person(turns: Iterable[str], people: Sequence[str]) -> list[str]:
    """Each askable template about each of the conversation's people."""
    return [t.third.format(name=person) for t in askable(turns) for person in people]


def first_person(turns: Iterable[str]) -> list[str]:
    """Each askable template asked by the user about themself."""
    return [t.first for t in askable(turns)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo-dev"
    parser.add_argument("--locomo", default=str(here))
    args = parser.parse_args()
    from locomo import conversation_files, load

    for path in conversation_files(args.locomo):
        conversation = load(path)
        people = sorted({t.speaker for t in conversation.turns})
        asked = third_person((t.text for t in conversation.turns), people)
        print(f"{conversation.user}: {len(asked)} questions")
        for text in asked:
            print(f"  {text}")


if __name__ == "__main__":
    main()

"""Template sentences for the performance bench's second table: conversational sentences about
people, places, organisations, projects and hobbies, with dates, so that extraction finds many
entities. Short and regular — real turns (bench/realtext.py) are longer and cost more.
"""

from __future__ import annotations

import random

FIRST = [
    "Mary",
    "Tom",
    "Priya",
    "Jake",
    "Linda",
    "Omar",
    "Sofia",
    "Ken",
    "Aiko",
    "Lars",
    "Nadia",
    "Pedro",
    "Grace",
    "Yusuf",
    "Elena",
    "Ravi",
]
LAST = ["Smith", "Garcia", "Chen", "Okafor", "Novak", "Silva", "Kowalski", "Haddad"]
PLACES = [
    "Boston",
    "Denver",
    "Lisbon",
    "Kyoto",
    "Toronto",
    "Oslo",
    "Lima",
    "Cairo",
    "Seattle",
    "Berlin",
    "Nairobi",
    "Austin",
    "Dublin",
    "Hanoi",
]
ORGS = [
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella Labs",
    "Hooli",
    "Stark Industries",
    "the Denver Chess Club",
    "the city library",
]
HOBBIES = [
    "pottery",
    "hiking",
    "chess",
    "baking sourdough",
    "salsa dancing",
    "birdwatching",
    "painting",
    "running marathons",
    "gardening",
    "photography",
]
ROLES = ["sister", "brother", "friend", "cousin", "neighbour", "colleague", "mother", "husband"]
TEMPLATES = [
    "My {role} {first} moved to {place} last {season}.",
    "{first} {last} works at {org} and loves {hobby}.",
    "I visited {place} with my {role} {first} in {month}.",
    "{first} is planning a trip to {place} to see friends from {org}.",
    "My {role} {first} joined {org} as an engineer on Project {project}.",
    "I've been really into {hobby} since {first} showed me how in {place}.",
    "We had dinner with {first} {last} at a small place near {place}.",
    "{first} told me that {org} is opening a new office in {place}.",
    "I'm working on Project {project} with {first} and it launches in {month}.",
    "Did you know {first} used to live in {place} before joining {org}?",
]
SEASONS = ["spring", "summer", "autumn", "winter"]
MONTHS = ["January", "March", "May", "July", "September", "November"]
PROJECTS = ["Apollo", "Zephyr", "Atlas", "Beacon", "Nimbus", "Orion"]
QUESTIONS = [
    "Where does {first} live now?",
    "Who works at {org}?",
    "What is Project {project}?",
    "When did I visit {place}?",
    "Who likes {hobby}?",
    "How is my {role} {first}?",
]


def sentence(rng: random.Random, templates: list[str]) -> str:
    return rng.choice(templates).format(
        first=rng.choice(FIRST),
        last=rng.choice(LAST),
        place=rng.choice(PLACES),
        org=rng.choice(ORGS),
        hobby=rng.choice(HOBBIES),
        role=rng.choice(ROLES),
        season=rng.choice(SEASONS),
        month=rng.choice(MONTHS),
        project=rng.choice(PROJECTS),
    )


def texts_for(start: int, stop: int, seed: int = 7) -> list[str]:
    """Memories number `start`..`stop` - 1 of the synthetic user (the same for every run)."""
    rng = random.Random(seed)
    made = [sentence(rng, TEMPLATES) for _ in range(stop)]
    return [f"{text} (note {i})" for i, text in enumerate(made)][start:]

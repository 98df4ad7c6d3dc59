from __future__ import annotations

from extraction.model import Extraction, KnownEntity, Mention, Relation
from extraction.resolver import Resolver


def _extraction(*mentions: Mention, relations: tuple[Relation, ...] = ()) -> Extraction:
    return Extraction(list(mentions), list(relations))


def test_first_name_resolves_to_the_only_full_name() -> None:
    resolver = Resolver([KnownEntity("person:mary_smith", "person", "Mary Smith")])
    result, aliases = resolver.resolve(_extraction(Mention("person:mary", "person", "Mary")))
    assert result.keys() == ["person:mary_smith"]
    assert aliases == {"person:mary_smith": {"Mary"}}


def test_ambiguous_first_name_stays_its_own_entity() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:mary_smith", "person", "Mary Smith"),
            KnownEntity("person:mary_jones", "person", "Mary Jones"),
        ]
    )
    result, _ = resolver.resolve(_extraction(Mention("person:mary", "person", "Mary")))
    assert result.keys() == ["person:mary"]


def test_full_name_resolves_to_the_only_bare_first_name() -> None:
    resolver = Resolver([KnownEntity("person:tom", "person", "Tom")])
    result, aliases = resolver.resolve(
        _extraction(Mention("person:tom_baker", "person", "Tom Baker"))
    )
    assert result.keys() == ["person:tom"]
    assert aliases == {"person:tom": {"Tom Baker"}}


def test_known_alias_resolves() -> None:
    resolver = Resolver([KnownEntity("org:acme_corp", "org", "Acme Corp", ("Acme",))])
    result, _ = resolver.resolve(_extraction(Mention("org:acme", "org", "Acme")))
    assert result.keys() == ["org:acme_corp"]


def test_mistyped_person_resolves_to_the_known_person() -> None:
    resolver = Resolver([KnownEntity("person:caroline", "person", "Caroline")])
    result, _ = resolver.resolve(_extraction(Mention("org:caroline", "org", "Caroline")))
    assert result.mentions == [Mention("person:caroline", "person", "Caroline")]


def test_relations_follow_resolution_and_batch_learning() -> None:
    resolver = Resolver()
    first, _ = resolver.resolve(_extraction(Mention("person:mary_smith", "person", "Mary Smith")))
    second, _ = resolver.resolve(
        _extraction(
            Mention("person:mary", "person", "Mary"),
            Mention("place:boston", "place", "Boston"),
            relations=(Relation("person:mary", "LIVES_IN", "place:boston"),),
        )
    )
    assert first.keys() == ["person:mary_smith"]
    assert second.relations == [Relation("person:mary_smith", "LIVES_IN", "place:boston")]
    assert resolver.resolve_key("person:mary") == "person:mary_smith"
    assert resolver.resolve_key("person:nobody") is None


def test_named_finds_keys_by_label_and_alias_in_learn_order() -> None:
    resolver = Resolver(
        [
            KnownEntity("person:mary_smith", "person", "Mary Smith", ("Mary",)),
            KnownEntity("org:mary", "org", "Mary"),
        ]
    )
    assert resolver.named("mary") == ["person:mary_smith", "org:mary"]
    assert resolver.named("mary_smith") == ["person:mary_smith"]
    assert resolver.named("nobody") == []
    # learning again (a new mention count) neither duplicates nor reorders
    resolver.learn(KnownEntity("person:mary_smith", "person", "Mary Smith", ("Mary",), 5))
    assert resolver.named("mary") == ["person:mary_smith", "org:mary"]

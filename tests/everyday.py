"""Everyday chats, written for the tests (invented; no data set's words): short conversations
between a user and an assistant, or two friends, of the kind a new user has in their first
week. Each says what a careful reader would write down (`facts`) and what must not appear
(`absent`), and which entities must exist under which type (`entities`) or must not.

A fact is written "src TYPE dst" with entity keys; a trailing " now" asks that it be current,
" was" that a newer value superseded it. `absent` patterns may use `*` for any part
("place:* WORKS_AT *": no place works anywhere).
"""

from __future__ import annotations

from dataclasses import dataclass

Turn = tuple[str, str]


@dataclass(frozen=True)
class Chat:
    name: str
    sessions: tuple[tuple[Turn, ...], ...]
    facts: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    not_entities: tuple[str, ...] = ()


U, A = "User", "Assistant"

CHATS: tuple[Chat, ...] = (
    Chat(
        "cousin-moves",
        (
            (
                (U, "My cousin moved to Denver last month."),
                (A, "That's a big change! How is he settling in?"),
                (U, "He teaches at a high school there and loves it."),
                (U, "My brother Sam lives in Boston with his wife Ana."),
                (A, "Do they visit often?"),
                (U, "Not really. He works at a bank."),
            ),
        ),
        facts=(
            "person:user FAMILY_OF person:sam",
            "person:sam LIVES_IN place:boston",
            "person:sam PARTNER_OF person:ana",
            "person:sam WORKS_AT topic:bank",
        ),
        absent=("place:* * *", "person:sam WORKS_AT topic:high_school", "person:user MOVED_TO *"),
        entities=("place:denver", "place:boston", "person:ana"),
    ),
    Chat(
        "cousin-and-his-wife",
        (
            (
                (U, "My best friend Nina got engaged!"),
                (A, "How wonderful! When is the wedding?"),
                (U, "Next June. Also, my cousin moved to Denver."),
                (U, "He teaches at a high school there."),
                (U, "His wife Ana is a nurse."),
                (U, "My teacher, Mrs. Alvarez, says Denver is lovely."),
            ),
        ),
        facts=("person:user FRIEND_OF person:nina", "person:user FRIEND_OF person:alvarez"),
        absent=(
            "place:* * *",
            "person:nina * *",
            "* PARTNER_OF person:ana",
            "person:user WORKS_AT *",
        ),
        entities=("person:alvarez", "place:denver"),
        not_entities=("place:alvarez", "org:alvarez"),
    ),
    Chat(
        "cat-named-next-turn",
        (
            (
                (U, "I adopted a cat last year."),
                (A, "How lovely! What's her name?"),
                (U, "Her name is Miso."),
                (U, "She sleeps on my desk while I work."),
            ),
            (
                (U, "My cat knocked a glass off the table this morning."),
                (A, "Oh no, is Miso alright?"),
                (U, "She's fine, just proud of herself."),
            ),
        ),
        facts=("person:user HAS_PET pet:miso",),
        absent=("person:user HAS_PET topic:cat", "person:user HAS_PET pet:user_cat"),
        entities=("pet:miso",),
        not_entities=("place:miso", "person:miso", "topic:miso", "pet:user_cat"),
    ),
    Chat(
        "puppy-called",
        (
            (
                (U, "We got a puppy on Saturday."),
                (A, "Congratulations! What did you call him?"),
                (U, "We called him Biscuit."),
                (U, "I walk Biscuit every morning before work."),
            ),
        ),
        facts=("person:user HAS_PET pet:biscuit",),
        entities=("pet:biscuit",),
        not_entities=("person:biscuit", "place:biscuit"),
    ),
    Chat(
        "dog-by-use",
        (
            (
                (U, "I took Charlie to the vet yesterday."),
                (A, "I hope everything is okay."),
                (U, "Yes, Charlie just needed his shots. I fed him and he slept all day."),
            ),
        ),
        entities=("pet:charlie",),
        not_entities=("person:charlie",),
    ),
    Chat(
        "bakery-job",
        (
            (
                (U, "Big news: I got a job at a bakery called Flour Power!"),
                (A, "That's wonderful! When do you start?"),
                (U, "Monday. My new boss Linda seems really kind."),
                (A, "Is she the owner?"),
                (U, "Yes, she opened it ten years ago."),
            ),
        ),
        facts=(
            "person:user WORKS_AT org:flour_power",
            "person:user FRIEND_OF person:linda",
        ),
        absent=("person:user WORKS_AT topic:bakery",),
        entities=("org:flour_power", "person:linda"),
    ),
    Chat(
        "teacher-and-language",
        (
            (
                (U, "I'm learning Spanish in an evening class."),
                (A, "¡Qué bien! How do you like it?"),
                (U, "I love it. My teacher Maria is from Mexico City."),
                (U, "She makes us speak only Spanish in class."),
            ),
        ),
        facts=(
            "person:user STUDIES language:spanish",
            "person:user FRIEND_OF person:maria",
            "person:maria FROM place:mexico_city",
        ),
        entities=("language:spanish", "person:maria"),
        not_entities=("place:maria", "org:maria"),
    ),
    Chat(
        "programmer",
        (
            (
                (U, "I've been coding in Kotlin at work and learning Rust on the side."),
                (A, "Nice combination. What are you building in Rust?"),
                (U, "A small command-line tool. Rust is my favorite language now."),
            ),
        ),
        facts=("person:user STUDIES language:rust", "person:user LIKES language:rust"),
        entities=("language:kotlin", "language:rust"),
        not_entities=("place:kotlin", "person:rust", "org:rust"),
    ),
    Chat(
        "girlfriend",
        (
            (
                (U, "My girlfriend Priya just got promoted."),
                (A, "Please congratulate her from me!"),
                (U, "I will. She works at a hospital in Austin."),
                (U, "We've been dating for two years."),
            ),
        ),
        facts=("person:user PARTNER_OF person:priya", "person:priya WORKS_AT topic:hospital"),
        absent=("place:* PARTNER_OF *", "person:user WORKS_AT *"),
        entities=("person:priya", "place:austin"),
        not_entities=("place:priya",),
    ),
    Chat(
        "plans-not-done",
        (
            (
                (U, "I'm heading to Lisbon after the conference next week."),
                (A, "Lisbon is lovely in spring."),
                (U, "I can't wait to try the pastries there."),
                (U, "I'm also thinking of moving to Portugal someday."),
                (U, "I hope I get to visit Porto too."),
            ),
        ),
        facts=("person:user PLANS place:lisbon", "person:user PLANS place:portugal"),
        absent=(
            "person:user VISITED place:lisbon",
            "person:user MOVED_TO *",
            "person:user LIVES_IN *",
            "person:user VISITED place:porto",
        ),
    ),
    Chat(
        "negations-and-questions",
        (
            (
                (U, "I don't have any pets, and I've never been to Japan."),
                (A, "Would you like to visit Japan one day?"),
                (U, "Maybe. Have you heard of the Ghibli Museum?"),
                (U, "I don't like sushi though."),
            ),
        ),
        facts=("person:user DISLIKES topic:sushi",),
        absent=(
            "person:user HAS_PET *",
            "person:user VISITED *",
            "person:user LIKES topic:sushi",
        ),
    ),
    Chat(
        "move-supersedes",
        (
            (
                (U, "I live in Chicago with my roommate."),
                (A, "How do you like the city?"),
                (U, "It's great, but the winters are rough."),
            ),
            (
                (U, "My landlord raised the rent again."),
                (A, "That's frustrating. Are you thinking of moving?"),
                (U, "We finally moved to Milwaukee last weekend."),
            ),
        ),
        facts=(
            "person:user LIVES_IN place:chicago was",
            "person:user LIVES_IN place:milwaukee now",
        ),
    ),
    Chat(
        "job-change",
        (
            (
                (U, "I work at Acme Corp as a designer."),
                (A, "What do you design there?"),
                (U, "Mostly packaging."),
            ),
            (
                (U, "I quit Acme last month and started working at Globex."),
                (A, "Exciting! How is the new team?"),
                (U, "Great so far."),
            ),
        ),
        facts=(
            "person:user WORKS_AT org:acme_corp was",
            "person:user WORKS_AT org:globex now",
            "person:user WORKS_AS topic:designer",
        ),
    ),
    Chat(
        "sibling-pronouns",
        (
            (
                (U, "My sister Jess moved to Seattle in March."),
                (A, "How does she like it?"),
                (U, "She loves it. She works at a coffee shop near the water."),
                (U, "My dad visited her last week."),
            ),
        ),
        facts=(
            "person:user FAMILY_OF person:jess",
            "person:jess MOVED_TO place:seattle",
            "person:jess LIVES_IN place:seattle",
        ),
        absent=(
            "place:seattle * *",
            "person:user MOVED_TO *",
            "agent:assistant * *",
            "* * agent:assistant",
        ),
        not_entities=("person:assistant",),
        entities=("agent:assistant",),
    ),
    Chat(
        "assistant-suggestions",
        (
            (
                (U, "Can you recommend a good book for a long flight?"),
                (
                    A,
                    "You might enjoy The Night Circus by Erin Morgenstern. I also love "
                    "Project Hail Mary; I read it twice and recommend it to everyone.",
                ),
                (U, "Thanks! I read Project Hail Mary last year and loved it."),
            ),
        ),
        facts=("person:user READ work:project_hail_mary",),
        absent=("agent:assistant * *", "* * agent:assistant"),
        not_entities=("person:erin_morgenstern",),
    ),
    Chat(
        "race-and-club",
        (
            (
                (U, "I ran my first half marathon on Sunday!"),
                (A, "Congratulations! How did it go?"),
                (U, "Slow but I finished. I joined a running club in May."),
                (U, "Next I'm planning to run the Chicago Marathon."),
            ),
        ),
        facts=(
            "person:user ATTENDED topic:half_marathon",
            "person:user MEMBER_OF topic:running_club",
            "person:user PLANS event:chicago_marathon",
        ),
        absent=("person:user ATTENDED event:chicago_marathon",),
    ),
    Chat(
        "kids-and-partner",
        (
            (
                (U, "My husband Tom and I have two kids."),
                (A, "How old are they?"),
                (U, "Our daughter Lily is seven and our son Max is four."),
                (U, "Lily started piano lessons this fall."),
            ),
        ),
        facts=(
            "person:user PARTNER_OF person:tom",
            "person:user FAMILY_OF person:lily",
            "person:user FAMILY_OF person:max",
        ),
        absent=("person:user PLAYS *",),
        entities=("person:lily", "person:max"),
        not_entities=("pet:max",),
    ),
    Chat(
        "club-and-breakup",
        (
            (
                (U, "I joined a book club in January."),
                (A, "What are you reading?"),
                (U, "A mystery novel. My boyfriend Dev thinks it's boring."),
            ),
            (
                (U, "I quit the book club last week, it took too much time."),
                (A, "That's fair. How's Dev?"),
                (U, "We broke up, actually."),
            ),
        ),
        facts=(
            "person:user MEMBER_OF topic:book_club was",
            "person:user PARTNER_OF person:dev was",
        ),
    ),
    Chat(
        "plan-done-and-taste-changed",
        (
            (
                (U, "I'm planning to visit Kyoto in the spring."),
                (A, "It's beautiful then."),
                (U, "I love spicy food, by the way."),
            ),
            (
                (U, "I finally visited Kyoto over the weekend!"),
                (A, "How was it?"),
                (U, "Amazing. Oddly, I don't like spicy food anymore."),
            ),
        ),
        facts=(
            "person:user PLANS place:kyoto was",
            "person:user VISITED place:kyoto now",
            "person:user LIKES topic:spicy_food was",
            "person:user DISLIKES topic:spicy_food now",
        ),
    ),
    Chat(
        "friends-talking",
        (
            (
                ("Nora", "I finally adopted a dog from the shelter!"),
                ("Eli", "No way! What's his name?"),
                ("Nora", "His name is Pepper. He's a terrier mix."),
                ("Eli", "You've got this, training a rescue takes patience."),
                ("Nora", "Thanks! My brother Leo helps me walk him."),
            ),
        ),
        facts=(
            "person:nora HAS_PET pet:pepper",
            "person:nora FAMILY_OF person:leo",
        ),
        absent=("person:eli HAS_PET *",),
        entities=("pet:pepper",),
        not_entities=("person:pepper",),
    ),
)

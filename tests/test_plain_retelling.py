"""A box that asks what a letter decided, in plain words, gets the decision and the next step told as a person
tells a friend: not a sentence of the letter corrected, and no run of its words copied."""

from __future__ import annotations

import random
import re

from flows.sim.people.item_writing import asked
from flows.sim.people.plain_retelling import plain_retelling

QUESTION = ("Rewrite the council's decision in plain English, as you would explain it to a neighbour: what was "
            "decided and what happens next. 10 to 35 words. Use your own words; do not copy the letter.")
REFUSED = ("Dear Mr Pereira, thank you for your application for a parking permit for Elm Road. We have checked the "
           "documents you sent and regret that we are unable to issue a permit, as the vehicle is not registered "
           "at your address. If you wish to appeal, please send a copy of the registration document by 14 March.")
PAID = ("Dear Ms Ward, we are pleased to confirm that your claim for the water damage to your hallway floor is "
        "covered. We will pay 940 GBP into your account within five working days. No further action is needed.")


def _copies(text: str, source: str, run: int = 6) -> bool:
    said = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
    shown = " " + re.sub(r"[^a-z0-9]+", " ", source.lower()) + " "
    return any(f" {' '.join(said[i:i + run])} " in shown for i in range(len(said) - run + 1))


def test_a_plain_decision_box_is_not_a_correction() -> None:
    assert asked(QUESTION, "plain_version") == "plain"
    assert asked("Rewrite the first sentence without the spelling mistakes.", "fixed") == "correction"
    assert asked("Rewrite the label's first sentence for a child: use everyday words.", "rewrite") == "correction"


def test_the_decision_and_next_step_are_told_plainly() -> None:
    for seed in range(10):
        refused = plain_retelling([REFUSED], random.Random(seed), 10, 35)
        paid = plain_retelling([PAID], random.Random(seed), 10, 35)
        for text, letter in ((refused, REFUSED), (paid, PAID)):
            assert 10 <= len(text.split()) <= 35, text
            assert not _copies(text, letter), text
        assert re.search(r"refused|won't|said no", refused) and "14 March" in refused and "send" in refused, refused
        assert re.search(r"pay|cover", paid) and "940 GBP" in paid and "don't need" in paid, paid


def test_a_text_that_decides_nothing_gives_no_retelling() -> None:
    assert plain_retelling(["The museum opened in 1902 and holds three thousand clocks."], random.Random(1), 10,
                           35) == ""


def test_a_rewrite_heading_before_a_hint_is_the_boxs_question() -> None:
    from flows.core.pages.asks_worker import question_texts
    from flows.core.pages.mturk_forms import _parse

    html = ("<form><p><b>4. Rewrite the council's decision in plain English</b>: what was decided and what happens "
            "next.</p><p>10 to 35 words, in your own words.</p><textarea name='plain' required></textarea></form>")
    question = question_texts(_parse(html))["plain"]
    assert "decision" in question and "10 to 35 words" in question, question
    assert asked(question, "plain") == "plain"

"""An honest simulated worker asked what someone should do retells the item's own advice; asked what a text leaves
unclear, names a part of it; asked for a title, writes the news, not the text's first words cut off."""

from __future__ import annotations

import random
import re

import pytest

from flows.sim.people.item_writing import asked
from flows.sim.people.summaries import headline
from flows.sim.people.told_text import asked_of, instructions, left_unclear, retold_advice

RECALL = ("Product recall: Glowmax desk lamp, model GL-4. The cable can overheat when the lamp is left on. "
          "Unplug the lamp and take it back to the shop where you bought it for a full refund.")
NO_ADVICE = "Sunbeam kettles sold in June have a handle that can come loose. The company apologises."


@pytest.mark.parametrize("question", [
    "What should someone who already owns or bought this product do? (5 to 25 words)",
    "What should a tenant living on the ground floor of the older block do?",
    "What do you think the people who signed up for the trip should do now?",
])
def test_what_someone_should_do_is_asked_however_long_the_subject(question: str) -> None:
    assert asked(question, "answer") == "action"


def test_the_items_own_advice_is_retold_within_the_range() -> None:
    assert instructions([RECALL])[0].startswith("Unplug the lamp")  # the heading and the fault are no advice
    for seed in range(20):
        text = retold_advice([RECALL], random.Random(seed), 5, 25)
        assert 5 <= len(text.split()) <= 25 and re.search(r"unplug", text, re.I), text
        assert not re.search(r"inspect|repair", text, re.I), text  # its own advice, not one made up


def test_an_order_told_of_someone_is_said_as_an_order() -> None:
    said = instructions(["Because of the storm, all pupils must be collected from the hall by 2pm."])
    assert said == ["Collect all pupils from the hall by 2pm"]


def test_with_no_advice_given_none_is_retold() -> None:
    assert retold_advice([NO_ADVICE], random.Random(1), 5, 25) == ""


def test_what_a_rule_leaves_unclear_names_its_own_words_and_varies() -> None:
    rule = "Players who arrive late may join the next round if the host agrees, and must pay a fair share of snacks."
    assert asked("What is unclear or missing in this rule? (5 to 30 words)", "gap") == "unclear"
    texts = [left_unclear([rule], random.Random(seed), 5) for seed in range(30)]
    for text in texts:
        quoted = text.split('"')[1::2]
        assert all(q.lower() in rule.lower() for q in quoted), text
        assert re.search(r"not (?:say|clear|defined)|never|vague|unclear|who decides|leaves out", text, re.I), text
    assert len(set(texts)) >= 10  # not one frame for every worker


def test_a_title_tells_the_news_not_the_lead_in() -> None:
    notice = ("We are pleased to announce that the Riverside swimming pool will reopen on 1 June after repairs. "
              "Season tickets go on sale next week.")
    for seed in range(10):
        title = headline([notice], random.Random(seed), 3, 10)
        assert 3 <= len(title.split()) <= 10 and not title.endswith("."), title
        assert title.lower().startswith("riverside swimming pool") and "reopen" in title.lower(), title


def test_a_writers_requests_and_questions_become_what_the_reader_does_first() -> None:
    mail = "My name is spelt wrong on my account and bills. Can you fix it? Also, can I pay by card?"
    said = retold_advice([mail], random.Random(3), 5, 20)
    assert said.lower().startswith("fix it, since their name is spelt wrong"), said
    assert "whether they can pay by card" in said.lower() or len(said.split()) >= 12, said
    assert not retold_advice(["The lift is out of order on the third floor."], random.Random(3), 5, 20)


def test_asked_what_an_item_asks_for_the_answer_is_its_request_told_of_its_writers() -> None:
    petition = ("The Harbour Road pool is the only public pool in town. We ask the council to keep it open and "
                "repair the changing rooms.")
    question = "In one sentence, what does the petition ask the council to do?"
    said = {asked_of([petition], question, random.Random(k)) for k in range(12)}
    kept = r"They (?:ask|want|are asking) the council to keep the Harbour Road pool open"
    assert all(re.match(kept, s) for s in said), said
    assert len(said) >= 2 and not asked_of([petition], "Summarise the petition in one sentence.", random.Random(1))

"""Simulated honest workers on pages of our own: a box the page says to leave empty after one answer is filled after
the others, with a sentence of the item where it asks for one copied; a counter-argument box whose words state a
minimum is written by everyone, at that length, in the claim's words."""

from __future__ import annotations

import random
import re

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import new_worker

CLAIM = """<form><input type="hidden" name="item_id_0" value="c-{k}"><p>{para}</p><p>Claim: <b>{claim}</b></p>
<p>According to the paragraph, the claim is:</p>
<input type="radio" name="verdict_0" value="supported" required> Supported: the paragraph says so
<input type="radio" name="verdict_0" value="contradicted"> Contradicted: the paragraph says otherwise
<input type="radio" name="verdict_0" value="not_mentioned"> Not mentioned: it does not say either way
<p>Copy the one sentence from the paragraph that shows your answer. Leave this empty if you chose "not
mentioned".</p><textarea name="evidence_0"></textarea></form>"""
PARAS = [("The Colosseum is an oval amphitheatre in Rome. It could hold about 50,000 spectators. Work on it began "
          "under Vespasian.", "The Colosseum held about 50,000 people.", "It could hold about 50,000 spectators."),
         ("Koalas are marsupials found in eastern Australia. They feed almost only on eucalyptus leaves. A young "
          "koala lives in its mother's pouch.", "Koalas mostly eat eucalyptus.", "They feed almost only on "
                                                                             "eucalyptus leaves.")]
COUNTER = """<form><input type="hidden" name="item_id_0" value="d-{k}"><p>{claim}</p>
<p>Write a counter-argument: the strongest reply a person who disagrees could give (15 to 40 words).</p>
<textarea name="counter_0"></textarea></form>"""


def filled(page: str, seed: int) -> dict[str, str]:
    worker = new_worker("diligent", {}, random.Random(seed))
    return fill_unhinted(worker, form_fields(page), page, {}, random.Random(seed * 31 + 7))


def test_a_box_left_empty_after_one_answer_holds_a_sentence_after_the_others() -> None:
    seen = set()
    for k in range(24):
        para, claim, _ = PARAS[k % 2]
        values = filled(CLAIM.format(k=k, para=para, claim=claim), k)
        seen.add(values["verdict_0"] == "not_mentioned")
        if values["verdict_0"] == "not_mentioned":
            assert values["evidence_0"] == "", values
        else:
            shown = [*re.split(r"(?<=\.)\s+", para), claim]
            assert values["evidence_0"] in shown, values  # copied as the box asks, one whole sentence
    assert seen == {True, False}


def test_a_counter_argument_box_is_written_at_its_stated_length_in_the_claims_words() -> None:
    claims = ["Building more cycle lanes just makes traffic worse, because you take a lane away from cars.",
              "If buses were free, most people would leave their cars at home.",
              "Homework in primary school does nothing for children's results."]
    for k, claim in enumerate(claims * 3):
        said = filled(COUNTER.format(k=k, claim=claim), k)["counter_0"]
        assert 15 <= len(said.split()) <= 40, said  # an unrequired box whose words state a minimum: written
        point = {w for w in re.findall(r"[a-z]{5,}", claim.lower())}
        assert point & set(re.findall(r"[a-z]{5,}", said.lower())), said

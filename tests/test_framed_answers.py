"""A question asking for a cause, a risk or what happens next is answered as a person answers it, framed by the
question (flows/sim/people/framed_answers.py): the item's people and things named, the rest in the worker's own
words, so QC's source_copy passes honest answers and still catches a pasted item."""

from __future__ import annotations

import random
import re

import pandas as pd

from flows.core.pages.asks_worker import topic
from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import common_among, page_chunks
from flows.sim.people.crowd_model import new_worker
from flows.sim.people.framed_answers import frame_of
from qc.source_copy import source_copy

Kind = tuple[str, str, int, list[tuple[str, tuple[str, ...]]]]  # question, stated limit, most words, (item, words)

PAGE = """<form><input type="hidden" name="item_id_0" value="x-{k}">
<p>People wrote to us. Read what they wrote and answer the question below.</p>
<div><p>{text}</p></div><p><b>{question}</b> {limit}</p><textarea name="guess_0" required></textarea></form>"""
CAUSE: Kind = ("What do you think is the most likely cause of this?", "One sentence, up to 30 words.", 30, [
    ("Since we moved to a new flat last month, our cat Tigger hides under the bed all day. He used to sit "
     "in the window of our old house and watch the birds.", ("tigger", "moved", "flat", "move", "change")),
    ("My son Alfie has stopped eating breakfast. It started after he changed schools in September, and he "
     "says his stomach hurts every morning before the bus comes.", ("alfie", "school", "change", "stomach")),
    ("Our parrot Kiwi screams every evening now. My partner started working late three weeks ago, so Kiwi is "
     "on her own until nine most nights.", ("kiwi", "alone", "work", "late", "own"))])
RISK: Kind = ("What is the biggest thing that could go wrong with this plan?", "One sentence, no more than 25 words.",
              25, [
    ("I'm going to clean the upstairs windows from outside. I'll put the ladder on the patio slabs and "
     "lean out to reach the far corner.", ("ladder", "fall", "slip")),
    ("We want to hang a big framed picture over the sofa. I'll drill into the wall above it and use the "
     "plugs that came with the frame.", ("drill", "pipe", "cable", "wall", "picture")),
    ("The bathroom tap is loose. I'll tighten the nut under the basin with a spanner, and I won't bother "
     "turning off the water as it's only a small job.", ("tap", "water", "leak", "flood"))])
NEXT: Kind = ("What do you think happens next?", "(1 or 2 sentences, at most 40 words)", 40, [
    ("Every morning at six, Mr Olsen found a new paper boat floating in his rain barrel. Today the boat "
     "had a name written on its side: his own.", ("olsen", "boat", "barrel")),
    ("The lift in Harper's office building stopped between floors, and the emergency phone rang before she "
     "could pick it up. A calm voice said her name and asked her not to panic.", ("harper", "lift", "phone")),
    ("Nina's new neighbour never turned on his lights. On Friday, she saw him carry a telescope up to the "
     "roof at midnight, and the street lamps all went out at once.", ("nina", "neighbour", "telescope"))])


def _answers(kind: Kind, profile: str = "diligent", seeds: int = 4) -> list[tuple[str, str, str]]:
    question, limit, _, items = kind
    pages = [PAGE.format(k=k, text=text, question=question, limit=limit) for k, (text, _) in enumerate(items)]
    refs = [(str(k), page_chunks(html)) for k, html in enumerate(pages)]
    out = []
    for k, html in enumerate(pages):
        for seed in range(seeds):
            worker = new_worker(profile, {}, random.Random(seed))
            said = fill_unhinted(worker, form_fields(html), html, {}, random.Random(100 * k + seed),
                                 common=common_among(refs, str(k)))["guess_0"]
            out.append((f"x-{k}", items[k][0], said))
    return out


def _copies(text: str, shown: str, n: int = 8) -> bool:
    def runs(t: str) -> set[tuple[str, ...]]:
        w = re.findall(r"[a-z0-9']+", t.lower())
        return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}
    return bool(runs(text) & runs(shown))


def _flagged(answers: list[tuple[str, str, str]]) -> int:
    df = pd.DataFrame({"assignment_id": [f"a{i}" for i in range(len(answers))],
                       "worker_id": [f"w{i}" for i in range(len(answers))],
                       "image_id": [item for item, _, _ in answers], "caption": [said for _, _, said in answers]})
    flags = source_copy(df, {"item_text": {item: [text] for item, text, _ in answers}})
    return len(flags)


def test_the_kind_of_answer_is_read_off_the_question() -> None:
    assert frame_of(CAUSE[0]) == "cause" and frame_of(RISK[0]) == "risk" and frame_of(NEXT[0]) == "next"
    assert frame_of("What does 'deposit' mean here?") == "" and frame_of("What went wrong, and how?") == ""
    assert topic(NEXT[0]) == "" and topic("What do you think would make cooking easier?") == "opinion"


def test_honest_answers_name_the_items_details_in_their_own_words_within_the_limits() -> None:
    for kind in (CAUSE, RISK, NEXT):
        _, _, most, items = kind
        named = {f"x-{k}": words for k, (_, words) in enumerate(items)}
        for item, text, said in _answers(kind):
            assert 4 <= len(said.split()) <= most, said
            assert len(re.findall(r"[.!?](?:\s|$)", said)) <= (2 if kind is NEXT else 1), said
            assert any(w in said.lower() for w in named[item]), (said, named[item])
            assert not _copies(said, text), said  # no run of eight of the item's words
        assert _flagged(_answers(kind)) == 0


def test_a_pasted_item_is_still_caught() -> None:
    for kind in (CAUSE, RISK, NEXT):
        pasted = _answers(kind, "copy_paster", 2)
        assert _flagged(pasted) == len(pasted), pasted

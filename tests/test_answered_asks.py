"""Honest simulated text meets the length its page states and names the item's words: a reason of at least 10 or
12 words, a comment within 100 characters, a "who and why" of 25 words or more, a summary of 40 to 60 words, none
pasting a long run of the item; a correction box is left empty where the page says so (the simulator writes no
correction: without a language model it answers no question, docs/custom_pages.md). The pages are ours
(``tests/pages/answers/``, written for this test), imported as a user would (``hitflow new --from``).

``python -m tests.test_answered_asks`` prints the share per page of honest answers that pass its page's check.
"""

from __future__ import annotations

import os
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker

PAGES = Path(__file__).resolve().parent / "pages" / "answers"
WORDS = re.compile(r"[a-z']+")
STOP = frozenset(("the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "that", "this", "is",
                  "are", "was", "were", "it", "its", "by", "from", "as", "be"))


def words(text: str) -> list[str]:
    return WORDS.findall(text.lower())


def copied_run(text: str, source: str) -> int:
    a, b = words(text), words(source)
    runs = {tuple(b[i:i + n]) for n in range(1, 30) for i in range(len(b) - n + 1)}
    return max((n for n in range(1, 30) for i in range(len(a) - n + 1) if tuple(a[i:i + n]) in runs), default=0)


def length_check(box: str, shown: tuple[str, ...], least: int = 0, most: int = 10**6, chars: int = 10**6,
                 run: int = 8) -> Callable[[dict, dict], bool]:
    """The box's text within its page's words and characters, naming a word of the item's ``shown`` columns, pasting
    no run of them longer than ``run`` words."""
    def check(row: dict, a: dict) -> bool:
        text, item = a.get(box, ""), " ".join(row[c] for c in shown)
        return least <= len(text.split()) <= most and len(text) <= chars and copied_run(text, item) <= run \
            and bool(set(words(text)) & (set(words(item)) - STOP))
    return check


def fixit(row: dict, a: dict) -> bool:
    return (a.get("fixed", "") == "") == (a["clean"] == "yes")  # empty where the page says so, else written


def slogan(row: dict, a: dict) -> bool:
    text = a.get("phrasing", "")  # an optional box: written or not
    return not text or bool(set(words(text)) & (set(words(row["slogan"])) - STOP))


CHECKS: dict[str, Callable[[dict, dict], bool]] = {
    "sharper": length_check("because", ("scene",), least=12), "clicks": length_check("why", ("first", "second"),
                                                                                       chars=100),
    "quicker": length_check("reason", ("one", "two"), least=10),
    "audience": length_check("audience", ("product",), least=25), "fixit": fixit,
    "digest": length_check("digest", ("report",), least=40, most=60, run=18), "slogan": slogan}


def answers(tmp: Path, page: str, seeds: int = 3) -> list[tuple[dict, dict]]:
    """(item row, one honest worker's answers) for every item of ``page``, every honest profile, ``seeds`` each."""
    scaffold_from(page, PAGES / f"{page}.html", tmp, items=PAGES / f"{page}_items.csv")
    cfg = load_campaign(tmp / "config" / f"{page}.toml")
    out = []
    for k, row in enumerate(read_custom_items(cfg)):
        html = custom_page(cfg, [{**row, "image_id": row["item_id"]}])
        for p, profile in enumerate(HONEST_PROFILES):
            for s in range(seeds):
                worker = new_worker(profile, {}, random.Random(1000 * p + s))
                values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(100 * k + 10 * p + s))
                out.append((row, {n.rsplit("_", 1)[0]: v for n, v in values.items() if n.endswith("_0")}))
    return out


def share(tmp: Path, page: str) -> tuple[float, list[str]]:
    """The share of honest answers on ``page`` that pass its check, and the failing ones."""
    got = answers(tmp, page)
    bad = [repr(a) for row, a in got if not CHECKS[page](row, a)]
    return 1 - len(bad) / len(got), bad


@pytest.mark.parametrize("page", sorted(CHECKS))
def test_honest_text_is_at_the_stated_length_about_the_item(tmp_path: Path, page: str) -> None:
    got, bad = share(tmp_path, page)
    assert got >= 0.9, (page, round(got, 2), bad[:4])


TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=120)
PHRASES = st.sampled_from(["Why?", "Who would use this and why? At least 20 words.", "Any comment on the wording?",
                           "Which one is brighter?", "If it is correct, leave this empty.", "Summarise in 30 words.",
                           "Fix the sentence:", "Comment on the word \"", "headphones", "How many?", "Your age",
                           "at most 5 characters", "at least 3 words", "____", "Reason (min. 4 words)",
                           "What would you ask the author?", "Who is it for, and why? (at least 10 words)",
                           "Rewrite the sentence correctly.", "Suggest a clearer headline", "Summarise in one line.",
                           "Describe what happened, in your own words", "I", "Me and", "\"", ", but "])
CHOICE = "<p>{q1}</p><input type=radio name=c_0 value=A required> A <input type=radio name=c_0 value=B> B"


@pytest.mark.timeout(300)  # a writer that loops forever on some words fails here rather than hangs
@settings(max_examples=int(os.environ.get("ASKED_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@example(item="Great headphones for the price, a bit tight.", q1="Is it positive?", q2="Summarise the headphones "
         "review", profile="diligent", required=True)  # a box's words that read as a question about the worker
@example(item="\"I was there, but we left\"", q1="Is it positive?", q2="What would you ask the author?",
         profile="diligent", required=True)  # a question quoting a clause of a first-person, quoted text
@example(item="Me and , but I", q1="Rewrite the sentence correctly.", q2="Summarise in one sentence.",
         profile="typo_prone", required=True)
@given(item=st.lists(st.one_of(TEXT, PHRASES), min_size=1, max_size=3).map(" ".join),
       q1=st.one_of(TEXT, PHRASES), q2=st.lists(st.one_of(TEXT, PHRASES), max_size=3).map(" ".join),
       profile=st.sampled_from(["diligent", "typo_prone", "speeder", "canned_abuser", "rule_breaker"]),
       required=st.booleans())
def test_the_simulated_crowd_never_raises_on_a_pages_words(item: str, q1: str, q2: str, profile: str,
                                                           required: bool) -> None:
    from html import escape

    html = (f"<html><body><p>{escape(item)}</p>" + CHOICE.format(q1=escape(q1)) +
            f"<p>{escape(q2)}</p><textarea name=t_0{' required' if required else ''}></textarea></body></html>")
    worker = new_worker(profile, {}, random.Random(1))
    values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(2))
    assert set(values) <= {"c_0", "t_0"}


if __name__ == "__main__":
    import tempfile

    for name in sys.argv[1:] or sorted(CHECKS):
        with tempfile.TemporaryDirectory() as d:
            value, failing = share(Path(d), name)
        print(f"{name}: {value:.2f}", *failing[:3], sep="\n  ")

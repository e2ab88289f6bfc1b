"""A page's own paragraph that carries one item column ("Below is one section of {club}'s terms") is the
page's, not the item's: honest simulated workers write about the item's texts, and a box asking what
differs between two versions gets the words the second puts in place of the first's."""

from __future__ import annotations

import random

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import common_among, page_chunks
from flows.sim.people.comparisons import difference
from flows.sim.people.crowd_model import new_worker
from flows.sim.people.own_words import echoes_page
from flows.sim.people.page_context import page_contexts

PAGE = """<form><input type="hidden" name="item_id_0" value="rule-{k}">
<p>Clubs often update the rules they give their members. We want to know whether members can tell what changed.
Below is one section of {club}'s rules, before and after an update. Please read both versions carefully.</p>
<div><h4>Old version</h4>{old}</div><div><h4>New version</h4>{new}</div>
<p><b>In one sentence, what is different in the new version?</b> At most 30 words.</p>
<textarea name="what_changed_0" required></textarea></form>"""
CLUBS = ["Riverside Rowing", "Hilltop Tennis", "Northgate Chess", "Bayview Sailing", "Elm Street Bowls",
         "Old Mill Cycling", "Cedar Park Running", "Lakeside Angling"]
RULES = ["Guests may visit the clubhouse up to {n} times a season with a member.",
         "Lockers are emptied every {n} days and anything left is given to charity.",
         "The annual fee rises by {n} percent from the first of April.",
         "Juniors under {n} must be signed in by a parent at the front desk.",
         "Boats can be booked {n} weeks ahead through the office or by phone.",
         "Members who miss {n} matches in a row lose their team place.",
         "The bar closes {n} hours after the last game ends on Saturdays.",
         "Lost cards cost {n} pounds to replace and take a week to arrive."]
ITEMS = [(rule.format(n=n + 3), rule.format(n=n + 5)) for n, rule in enumerate(RULES)]
INTRO = "Clubs often update the rules they give their members"


def _pages() -> list[tuple[str, str]]:
    return [(f"h{k}", PAGE.format(k=k, club=CLUBS[k], old=old, new=new)) for k, (old, new) in enumerate(ITEMS)]


def test_a_paragraph_other_pages_show_with_a_name_changed_is_the_pages() -> None:
    pages = _pages()
    refs = [(key, page_chunks(html)) for key, html in pages[:6]]
    common = common_among(refs, "h7", page_chunks(pages[7][1]))
    assert any(t.startswith(INTRO) for t in common), common
    assert not any(t.startswith(ITEMS[7][0][:12]) for t in common), common  # the item's own texts


def test_honest_answers_to_what_changed_name_the_change_not_the_pages_prose() -> None:
    pages = _pages()
    refs = [(key, page_chunks(html)) for key, html in pages[:6]]
    for k in range(6, 8):
        key, html = pages[k]
        for seed in range(6):
            worker = new_worker("diligent", {}, random.Random(seed))
            common = common_among(refs, key, page_chunks(html))
            answer = fill_unhinted(worker, form_fields(html), html, {}, random.Random(seed), common=common)
            said = answer["what_changed_0"]
            assert "update the rules" not in said and CLUBS[k] not in said, said
            assert str(k + 5) in said and len(said.split()) <= 30, said


def test_an_answer_made_of_the_instructions_words_reads_as_an_echo() -> None:
    page = "We want to know whether members can tell what changed. Guests may visit up to 3 times a season."
    items = ["Guests may visit up to 3 times a season."]
    assert echoes_page("Basically, we want to know whether members can tell what changed.", page, items)
    assert not echoes_page("Guests may now visit up to 5 times instead of 3.", page, items)


TWO = """<form>{parts}</form>"""
PART = """<input type="hidden" name="item_id_{i}" value="clause-{i}"><div>{clause}</div>
<p>In this clause, what does "{term}" mean? Explain it in your own words, as you would to a friend.</p>
<textarea name="meaning_{i}"></textarea>"""


def test_a_question_each_item_of_a_page_shows_with_its_own_word_is_no_items_text() -> None:
    clauses = [("The Client shall pay each invoice within 30 days of the invoice date.", "invoice date"),
               ("A deposit of a quarter of the fee is payable on signing, the balance a week before.", "balance")]
    html = TWO.format(parts="".join(PART.format(i=i, clause=c, term=t) for i, (c, t) in enumerate(clauses)))
    contexts = page_contexts(html, frozenset({"Submit"}))  # as other pages of the study show
    for i, (clause, _) in enumerate(clauses):
        assert contexts[str(i)].texts == [clause], contexts[str(i)].texts


def test_a_question_with_how_to_answer_after_it_is_the_boxs_question() -> None:
    html = """<form><div>The Client shall pay each invoice within 30 days.</div>
<p>3. In this clause, what does "invoice" mean? Explain it in your own words.</p>
<p class="small">Between 5 and 20 words. Don't just copy the clause.</p><textarea name="meaning"></textarea></form>"""
    asked = question_texts(read_page(html))["meaning"]
    assert 'what does "invoice" mean?' in asked and "Between 5 and 20 words" in asked, asked


def test_the_two_versions_are_the_two_most_alike_texts_not_the_longest() -> None:
    intro = ("Clubs often update the rules they give their members, and we want to know whether members can tell "
             "what changed in this section of the rules.")
    texts = [intro, "Lockers are emptied every 7 days.", "Lockers are emptied every 14 days."]
    told = difference(texts, random.Random(0), 30)
    assert "14" in told and "Clubs" not in told, told

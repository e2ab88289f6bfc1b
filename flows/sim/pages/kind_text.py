"""Free text of the kind a box asks for (summary, reason, reply ...), from the item's words within the box's limits."""

from __future__ import annotations

import re

from flows.core.pages.form_spec import field_rule
from flows.core.pages.mturk_forms import FormField
from flows.sim.pages.filling import Filling, known_for, takes_care
from flows.sim.people import captions
from flows.sim.people.asked_about import QUOTE, answer_about, asked_form, asked_term, asking
from flows.sim.people.asked_details import (
    action,
    fault,
    fixable,
    item_question,
    missing_detail,
    open_answer,
    question_answer,
)
from flows.sim.people.asked_shapes import UNSURE, box_ask, echoes_ask, shaped_answer
from flows.sim.people.choice_reasons import ANCHOR, choice_reason, named_choice, told_grounds
from flows.sim.people.comparisons import asks_difference, comparison, difference
from flows.sim.people.corrections import corrected, left_empty, politer, to_correct
from flows.sim.people.crowd_model import normalise
from flows.sim.people.descriptions import description
from flows.sim.people.item_answers import fit_text, optional
from flows.sim.people.item_lookups import LOOKUPS, looked_up
from flows.sim.people.item_writing import asked, audience, framed, marked_word, spans, the_word
from flows.sim.people.known_text import copied, holds, known_text, own_sentence
from flows.sim.people.own_answers import OWN_KINDS, own_answer
from flows.sim.people.own_words import OWN_WORDS, echoes_page, uncopied
from flows.sim.people.page_context import ItemContext, field_base
from flows.sim.people.stated_limits import Limits, stated, within
from flows.sim.people.summaries import (
    CHARS_A_WORD,
    ONE_SENTENCE,
    at_least_words,
    headline,
    main_text,
    summary,
    words_asked,
)
from flows.sim.people.told_text import asked_of, left_unclear, retold_advice


def styled(fill: Filling, text: str, exact: bool = False) -> str:
    """``text`` as the worker's profile types it; ``exact``: words copied as they stand, checked against their source
    (no typos)."""
    kind = fill.worker.profile
    if kind == "blur_talker" and fill.rng.random() < fill.worker.params.get("blur_rate", 0.7):
        text = "A blurry photo of " + text[:1].lower() + text[1:]
    if kind == "caps_locker":
        return text.upper()
    if kind == "typo_prone" and not exact:
        return captions.add_typos(text, fill.worker.params.get("typo_rate", 0.12), fill.rng)
    return text


OWN_ANSWERS = ("open", "answer", "comparison")  # kinds a person answers in their own words, naming the item's things
# a text that tells of a plan, not of trouble ("The school will start lessons at 8:00 from September")
PLANNED = re.compile(r"\b(?:will(?! not| never| no)|plans?|planned|proposes?|proposed|proposal|intends?|is going to|"
                     r"are going to|from next|scheme)\b", re.I)


def asked_text(fill: Filling, f: FormField, ctx: ItemContext, sources: list[str]) -> str | None:
    """Text of the kind the box asks (a remark in an optional box); None for captions, free answers, wordless items."""
    question, rng = fill.questions.get(f.name, ""), fill.rng
    wanted = asked(question, field_base(f.name))
    if not wanted and optional(f) and f.name not in fill.sole:
        wanted = "remark"
    chosen, choice_asks = fill.picked.get(ctx.key, ""), fill.picked.get(f"{ctx.key}?", "")
    if wanted == "correction" and left_empty(question, chosen, choice_asks):
        return ""  # the page says to leave it empty after this worker's own answer
    rule, said = field_rule(f) or {}, stated(question)
    high = min(n for n in (rule.get("maxlength"), said.most_chars, 10**6) if n is not None)
    low = max(int(rule.get("minlength") or 0), said.least_chars)
    least = max(said.least_words, fill.min_words.get(f.name, 0), -(-low // CHARS_A_WORD))
    texts = ctx.texts or ([] if not ctx.shows_image else sources[:2])
    given = known if (known := known_for(fill, ctx, f)) and takes_care(fill) else None  # the item's known answer
    text = ""
    for _ in range(8):  # a person does not write the same text twice
        text = _of_kind(wanted, question, texts, fill, ctx, least, (low, said))
        if given and not holds(text, given):  # as one who knows it says it (people/known_text.py)
            text = known_text(given, question, ctx.texts, rng, least, said.most_words)
        elif text and ctx.texts and echoes_page(text, fill.page, ctx.texts):  # told from the item's words instead
            text = summary(ctx.texts, rng, said.most_words, low, bool(ONE_SENTENCE.search(question)))
        if not text:
            return "" if wanted == "remark" and optional(f) else None
        if len(text.split()) < least or len(text) < low:  # met with more of the item, not its words over again
            text = at_least_words(text, max(least, low // CHARS_A_WORD + 1), texts, rng)
        if wanted in OWN_ANSWERS and not QUOTE.search(asking(question)):  # in one's own words, not the item's
            text = _unpasted(text, question, [*ctx.texts, *fill.item_texts.get(ctx.key, [])], fill, (given, least))
        text = fit_text(styled(fill, within(text, said.most_words, high), bool(QUOTE.search(asking(question)))), f,
                        rng, texts)
        if normalise(text) not in fill.worker.written:
            break
    if echoes_ask(text, question, [*ctx.texts, *sources]) and not QUOTE.search(asking(question)):  # never the ask
        text = styled(fill, UNSURE)
    fill.worker.written.add(normalise(text))
    fill.item_texts.setdefault(ctx.key, []).append(text)
    return text


def shaped_text(fill: Filling, f: FormField, ctx: ItemContext) -> str:
    """The answer in the shape the box's words (its question and the hint around it) ask, within their limits."""
    if known_for(fill, ctx, f):  # the requester's known answer is what the run says the answers follow
        return ""
    question = fill.questions.get(f.name, "")
    ask = box_ask(question, fill.around.get(f.name, ""))
    if not (told := shaped_answer(ask, ctx.texts, fill.rng)):
        return ""
    said, rule = stated(ask), field_rule(f) or {}
    told = within(told, said.most_words, min(n for n in (rule.get("maxlength"), said.most_chars, 10**6) if n))
    fill.worker.written.add(normalise(told))
    fill.item_texts.setdefault(ctx.key, []).append(told)
    return fit_text(styled(fill, told), f, fill.rng, [])


def _unpasted(text: str, question: str, shown: list[str], fill: Filling, known: tuple[str | None, int]) -> str:
    """``text`` kept from pasting a run of the item's words or of another box's answer: reworded where a word or two
    can break the run, else the known answer said, else a sentence of one's own naming one of the item's things."""
    if not copied(text, shown):
        return text
    if not copied(told := uncopied(text, " \n ".join(shown)), shown):
        return told
    (given, least), rng = known, fill.rng
    told = known_text(given, question, shown, rng, least, None) if given else own_sentence(question, shown, rng, least)
    return told or text


def _of_kind(wanted: str, question: str, texts: list[str], fill: Filling, ctx: ItemContext, least: int,
             limits: tuple[int, Limits]) -> str:
    rng, (low, said) = fill.rng, limits
    if told := asked_form(question, ctx.texts, least, said.most_words):  # a quote, where the asking verb asks one
        return told
    if wanted in ("summary", "comparison", "") and asks_difference(question) and \
            (told := difference(texts, rng, said.most_words)):
        return told  # what the second text says in place of the first's
    if wanted == "comparison":  # two texts told apart; with fewer than two, the box's question answered as it is
        if told := comparison(question, texts, rng, said.most_words):
            return told
        wanted = ""
    if wanted in LOOKUPS:  # a fact the item states, the sentence bearing on a question, the things it names
        if told := looked_up(wanted, question, ctx.texts, said.most_words):
            return told
        wanted = ""
    if wanted in ("summary", "action") and (plea := asked_of(ctx.texts, question, rng)):
        return plea  # what the item asks for, where that is the question
    if wanted == "meaning" or (wanted == "summary" and asked_term(question, ctx.texts, fill.page)):  # the term
        return answer_about(question, ctx.texts, rng, said.most_words, fill.page)  # it asks of, not all of it
    if wanted == "summary" and ctx.texts:  # a few words to spare over a minimum, as a person does
        most = said.most_words or (said.most_chars or 0) // CHARS_A_WORD or None
        asked_words = (least + most) // 2 if least and most else max(words_asked(question, low, most) or 0,
                                                                      least + 4 if least else 0) or None
        told = summary(ctx.texts, rng, asked_words, low, bool(ONE_SENTENCE.search(question)))
        return uncopied(told, main_text(ctx.texts)) if OWN_WORDS.search(question) else told
    if wanted == "audience":
        return audience(texts, rng, least)
    if wanted == "correction":
        target, version = to_correct(question, texts, ctx.labels)
        return corrected(target, rng, version, bool(re.search(r"\bsentence\b", question, re.I))) if texts else ""
    if wanted == "politer":
        return politer(main_text(texts), rng) if texts else ""
    if wanted in ("word", "remark", "clarification", "wording", "question", "ask"):
        word = (the_word(question) or marked_word(texts)) if wanted == "word" else ""
        # a word the page marks in a way the simulator does not read (bold): a remark on the item
        return framed("remark" if wanted == "word" and not word else wanted, texts, rng, word)
    if wanted == "open":
        return open_answer(question, texts, rng)
    if wanted == "title":
        return headline(texts, rng, said.least_words, said.most_words)
    if wanted == "unclear" and not ctx.shows_image and (gap := left_unclear(texts, rng, least)):
        return gap
    if wanted in ("missing", "untold", "unclear") and ctx.shows_image:  # a detail a picture's description leaves out
        return missing_detail(texts, rng, fill.page)
    if wanted in OWN_KINDS or wanted in ("missing", "unclear"):  # in the person's own voice, from the item's words
        return own_answer(wanted if wanted in OWN_KINDS else "untold", question, texts, rng, least, fill.page)
    if wanted == "reason" and ctx.texts and not fill.choices.get(ctx.key) and not ctx.shows_image:
        return own_answer("because", question, texts, rng, least, fill.page)  # no choice made: the text's why
    if wanted == "action" and (told := retold_advice(texts, rng, least, said.most_words)):
        return told  # the item's own advice retold
    if wanted == "action" and PLANNED.search(" ".join(texts)) and not fixable(" ".join(texts)):
        return own_answer("advice", question, texts, rng, least, fill.page)  # a plan, not a report: how to go on
    if wanted in ("fault", "action"):
        return (fault if wanted == "fault" else action)(texts, rng)
    if wanted == "caption":  # the thing it names described, or (none named) a caption as free_text writes it
        return description(question, texts, fill.picked.get(ctx.key, ""), rng)
    if wanted == "answer" or (not wanted and not ctx.shows_image):  # the item's own question, answered
        known = question_answer(item_question(ctx.asks or texts), rng)
        if known or wanted or not ctx.texts or not question.strip():
            return known
        return answer_about(question, ctx.texts, rng, said.most_words)  # a kind nobody named: what it asks about
    # grounds for the choice in the item's words from its main text (what decides a choice is said there, not the scale)
    shown = [t for t in texts if not ANCHOR.search(t)] or texts
    if wanted == "reason" and (found := spans([t for t in shown if len(t.split()) >= 8] or shown, rng, 3)):
        chosen, asks, level, ends = (fill.picked.get(f"{ctx.key}{k}", "") for k in ("", "?", "%", "~"))
        if (named := named_choice(fill.choices.get(ctx.key, []), question)) and named[1] != chosen:
            (asks, chosen), level, ends = named, "1", ""  # the choice the reason's question names, not the last
        return choice_reason(chosen, f"{question} {asks}", found, rng, least, float(level or 1), ends,
                             ctx.shows_image, said.most_words, [] if ctx.shows_image else told_grounds(shown))
    return ""



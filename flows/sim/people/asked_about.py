"""Any question about the item, answered as a person who read it answers: from the part of the item whose words
the question shares (a term it quotes first), in the item's words but not copied, within the box's limits. No kind
of question is named: what a question is about is read off its words, so a kind nobody foresaw is met as well; the
form of a new text it asks for (a quote, a line, a message ...) is read off its asking sentence's verb."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from flows.sim.people.framed_answers import SMALL, framed_answer
from flows.sim.people.own_words import uncopied
from flows.sim.people.stated_limits import LEAST, MOST, SPAN
from flows.sim.people.summaries import main_text, sentences

QUOTED = re.compile(r"[\"“‘']([A-Za-z][\w' -]{0,38}[\w])[\"”’']")
PARTS = re.compile(r"[;:]\s+|,\s+(?=(?:\w+\s){2,})|\s\((?=[^)]{8,}\))")  # a sentence's clauses; an aside
LABELLED = re.compile(r"\b(?:Term|Word|Phrase): ([A-Za-z][\w'-]{2,}(?: [a-z][\w'-]+)?)\b")
LABEL = re.compile(r"^[A-Z][\w ]{0,30}:\s+")  # "Example: ", "Staff note: " opening a text
LEAD = re.compile(r"^(?:and|but|so|then|which|or|also|however)\s+", re.I)
STEM = 5  # a word's first letters stand for the word ("ripen", "ripening")


def _stems(text: str) -> list[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # numpy and pandas load only once text is asked

    for limit in (SPAN, LEAST, MOST):  # "(2 to 6 words)" says how long, not what about
        text = limit.sub(" ", text)
    return [w[:STEM] for w in re.findall(r"[a-z][a-z'-]{2,}|\d+", text.lower()) if w not in ENGLISH_STOP_WORDS]


def asked_term(question: str, texts: list[str], page: str = "") -> str:
    """The term a question asks about that the item's text uses: quoted in it ("what does 'balance' mean"), else one
    the page labels ("Term: deposit"), else ""."""
    said = " ".join(texts).lower()
    labelled = [m[1] for m in LABELLED.finditer(f"{page} {' '.join(texts)}")]
    return next((t for t in [*(m[1] for m in QUOTED.finditer(question)), *labelled] if t.lower() in said), "")


def ranked(question: str, parts: list[str]) -> list[str]:
    """``parts`` sharing the question's words, most related first (TF-IDF cosine: the words few parts share weigh
    most); [] where none shares any."""
    if not parts or not set(_stems(question)) & {s for p in parts for s in _stems(p)}:
        return []
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectors = TfidfVectorizer(analyzer=_stems).fit_transform([question, *parts])
    scores = (vectors[1:] @ vectors[0].T).toarray().ravel()
    return [p for score, p in sorted(zip(scores, parts, strict=True), key=lambda x: -x[0]) if score > 0]


def bearing_part(question: str, texts: list[str], page: str = "") -> str:
    """The item's sentence that bears most on the question: the one holding the term it quotes, else the one its
    words are most like, else the main text's first (a question that names none of the item's words)."""
    said = [LABEL.sub("", s) for t in texts for s in sentences(t)]
    if term := asked_term(question, texts, page):  # (the fullest sentence using it, not its label)
        return max((s for s in said if term.lower() in s.lower()), key=len)
    topic = set(_stems(" ".join(main_text(texts).split()[:4])))  # what the whole text is about picks no sentence
    about = " ".join(w for w in question.split() if not set(_stems(w)) & topic)
    return next(iter(ranked(about, said) or ranked(question, said)), "") or next(iter(sentences(main_text(texts))), "")


def _clause(sentence: str, question: str, term: str, most: int | None) -> str:
    """The clause of a long sentence that bears on the question (and the one after it, room permitting)."""
    parts = [LEAD.sub("", p.strip(" ,.;:()")) for p in PARTS.split(sentence) if p.strip(" ,.;:()")]
    if not most or len(sentence.split()) <= most or len(parts) < 2:
        return sentence.rstrip(".!?")
    best = next((p for p in parts if term and term.lower() in p.lower()), "") or \
        next(iter(ranked(question, parts)), parts[0])
    at = parts.index(best)
    more = parts[at + 1] if at + 1 < len(parts) else ""
    return f"{best}, {more}" if more and len(f"{best} {more}".split()) <= most else best


def answer_about(question: str, texts: list[str], rng: random.Random, most: int | None = None, page: str = "") -> str:
    """What the item says of what ``question`` asks, in a person's words: a quoted term opened with and said of
    in its context, anything else told from its clause; ``most`` words at most where the box states them."""
    if not texts:
        return ""
    if told := framed_answer(question, texts, rng, most):  # a cause, a risk, what happens next: said as one
        return told
    term = asked_term(question, texts, page)
    told = _clause(bearing_part(question, texts, page), question, term, most)
    if term and (most is None or most > 8):  # the term named first, then how the item uses it, not copied
        context = re.sub(rf"\b(an?|the)(\s+{re.escape(term)})\b", lambda m: ("this" if m[1].lower() == "the" else
                                                                          "the") + m[2], told, count=1, flags=re.I)
        opener = rng.choice(("{T} means, here: {c}", "Here {t} means this: {c}", "In this text {t} means: {c}")
                            if re.search(r"\bmean", question, re.I) else ("{T}: {c}", "About {t}: {c}"))
        told = opener.format(T=_cased(term, str.upper), t=term, c=_cased(context, str.lower))
    return _cased(uncopied(told, main_text(texts)), str.upper) + ("" if (most or 99) <= 8 else ".")


def _cased(text: str, case: Callable[[str], str]) -> str:
    """``text`` with its first letter in ``case`` where its first word is a plain word ("iPhone", "VAT" kept)."""
    first = text.split()[0] if text.split() else ""
    return case(text[:1]) + text[1:] if first[1:].islower() or len(first) == 1 else text


# A run of the item's own words ("copy the phrase ... word for word"), read off the asking sentence's verb and object
QUOTE = re.compile(r"\b(?:copy|quote|paste)\b(?=[^.?]*\b(?:word for word|exactly|verbatim|as (?:it|they) appears?|"
                   r"phrase|words)\b)|\bword for word\b|\bverbatim\b", re.I)


def asking(question: str) -> str:
    """The sentence of ``question`` that asks: its first question, else its first sentence (a number opening it
    says nothing)."""
    question = re.sub(r"^\s*\d{1,2}[.)]\s+", "", question)
    said = re.split(r"(?<=[.?!])\s+", question.strip())
    return next((s for s in said if s.endswith("?")), said[0] if said else "")


def asked_form(question: str, texts: list[str], least: int, most: int | None) -> str:
    """A quote of the item's relevant part where the question's verb asks one; "" otherwise."""
    ask = asking(question)
    if not texts or not ask or not QUOTE.search(ask):
        return ""
    return quoted_run(question, texts, max(least, 1), most or 15)


def quoted_run(question: str, texts: list[str], least: int, most: int) -> str:
    """The item's own words, as they stand: the sentence sharing most of the question's words (its small words too:
    "put together", "went together"), else the one bearing on it, cut to its clause where longer than ``most``
    words, run on to the next clause's end where shorter than ``least``."""
    said = main_text(texts).split()
    bare = [w.strip(".,;:!?\"'()“”").lower() for w in said]
    asks = {w[:STEM] for w in re.findall(r"[a-z]{3,}", asking(question).lower()) if w not in SMALL}
    shared = {s: len(asks & {w[:STEM] for w in re.findall(r"[a-z]{3,}", s.lower())}) for s in sentences(" ".join(said))}
    best = max(shared, key=lambda s: shared[s], default="")
    best = _clause(best if shared.get(best) else bearing_part(question, texts), question, "", most)
    head = [w.strip(".,;:!?\"'()“”").lower() for w in LEAD.sub("", best.strip()).split()[:3]]
    at = next((k for k in range(len(bare)) if bare[k:k + len(head)] == head), 0)
    ends = [k + 1 for k in range(at, len(said)) if re.search(r"[.,;:!?]$", said[k]) or k + 1 == len(said)]
    end = next((k for k in ends if k - at >= max(least, len(best.split()))), len(said))
    return " ".join(said[at:min(end, at + most)]).rstrip(",;:")

"""Any question about the item, answered as a person who read it answers: from the part of the item whose words
the question shares (a term it quotes first), in the item's words but not copied, within the box's limits. No kind
of question is named: what a question is about is read off its words, so a kind nobody foresaw is met as well; the
form of a new text it asks for (a quote, a line, a message ...) is read off its asking sentence's verb."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from flows.sim.people.framed_answers import SMALL, _detail, _phrase, _thing, framed_answer
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


# What the asking sentence asks to be done with the item, read off its verb and object, not off a domain: a run of
# the item's own words ("copy the phrase ... word for word"), a new line that rhymes with one of its lines, a new
# sentence using its word, what a short funny item plays on ("explain the joke"), a message to someone it names
# ("write a thank-you text to Priya"), and what makes its advice hard or easy for the worker ("... for you?").
QUOTE = re.compile(r"\b(?:copy|quote|paste)\b(?=[^.?]*\b(?:word for word|exactly|verbatim|as (?:it|they) appears?|"
                   r"phrase|words)\b)|\bword for word\b|\bverbatim\b", re.I)
RHYME = re.compile(r"\brhym\w*\b(?: with)?(?: the (?:last|final|end) (?:word )?of)?\s*(?:(?:line|verse) (?P<n>\d)|"
                   r"[\"“‘'](?P<w>[A-Za-z]+)[\"”’'])?", re.I)
EXPLAIN = re.compile(r"\b(?:explain|what makes|why is)\b[^?.]*\b(?:joke|pun|funny|wordplay|riddle|humou?r)", re.I)
MESSAGE = re.compile(r"\b(?i:write|send|draft|compose)\b (?:a |an |your )?(?:short |quick |brief )?(?P<kind>[\w-]+ )?"
                     r"(?:text|message|note|e-?mail|letter|card) (?:to|for) (?P<who>[A-Z][\w'-]+)")
USE = re.compile(r"\b(?:sentence|example)\b[^.?]*\buses? (?:the|this|that) (?:word|term|phrase|expression)\b|"
                 r"\buse (?:the|this|that) (?:word|term) in (?:a|an|your own) (?:new )?(?:sentence|example)\b", re.I)
OPENERS = ("Last summer I noticed that", "My friend told me that", "In the film we watched,", "I read this week that",
           "Near where I live,", "When I was young,", "At work yesterday,")
HURDLE = re.compile(r"\b(?:makes?|made) (?:this|it|that|doing \w+) (?:hard|harder|difficult|easy|easier)\b|"
                    r"\bstops? you\b|\bgets? in (?:your|the) way\b|\bwhat would help you\b|\bhelped you start\b", re.I)
# (the thing the verse names in it: one line on two verses is a template, not a person's)
LINE_ENDS = ("So here's to the {t}, and every {w}", "Sending hugs for the {t}, and one more {w}",
             "We send our love, the {t} and {w}", "And may you find joy in the {t} and {w}",
             "Wishing you the best with the {t}, and {w}", "With the {t}, and {w}")
PLAYS = ("It plays on \"{w}\": said about {t} it means one thing, and in everyday English it means another.",
         "The joke is the word \"{w}\", which fits {t} and also has a second, everyday meaning.",
         "\"{w}\" can be taken two ways here: about {t}, and in its usual sense, which is the funny part.")
HURDLES = ("Remembering to {a} is the hard part for me, a reminder on my phone would help.",
           "It's mostly habit, I forget to {a}, so a note somewhere visible would make it easier.",
           "Finding the time to {a} is what makes it hard, and a routine would help.",
           "I already try to {a}, and what helped me start was a friend doing it too.")
CLOSES = ("it made a real difference", "we couldn't do it without you", "hope to see you again soon",
          "it was a big help to everyone")
SMALL_END = SMALL | {"me", "him", "them", "us", "you", "one", "did", "out", "here", "there", "up"}
PARTICLES = ("on", "up", "out", "in", "off", "down")


def asking(question: str) -> str:
    """The sentence of ``question`` that asks: its first question, else its first sentence (a number opening it
    says nothing)."""
    question = re.sub(r"^\s*\d{1,2}[.)]\s+", "", question)
    said = re.split(r"(?<=[.?!])\s+", question.strip())
    return next((s for s in said if s.endswith("?")), said[0] if said else "")


def asked_form(question: str, texts: list[str], rng: random.Random, least: int, most: int | None) -> str:
    """Text in the form the question's verb asks for (a quote, a rhyming line, an explanation, a message, the
    worker's own hurdle), from the item's relevant part; "" where the question asks none of these."""
    ask = asking(question)
    if not texts or not ask:
        return ""
    if QUOTE.search(ask):
        return quoted_run(question, texts, max(least, 1), most or 15)
    if (rhyme := RHYME.search(question)) and re.search(r"\b(?:line|verse|rhym)", ask, re.I):
        return rhyming_line(rhyme, texts, rng)
    if (told := MESSAGE.search(ask)) and told["who"].lower() in " ".join(texts).lower():
        return message(told["kind"] or "", told["who"], texts, rng)
    if USE.search(ask) and (used := in_use(texts, rng)):
        return used
    if EXPLAIN.search(ask) and len(main_text(texts).split()) <= 40:  # a short item's point is at its end
        return plays_on(texts, rng)
    if HURDLE.search(ask) and re.search(r"\byou\b", ask, re.I):
        return rng.choice(HURDLES).format(a=_advice(main_text(texts)))
    return ""


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


def rhyming_line(asked: re.Match[str], texts: list[str], rng: random.Random) -> str:
    """A new line ending on a word that rhymes with the word the question names (the last of line N, else of the
    item's last line), a common word spelt with the same ending."""
    lines = [s for t in texts for s in re.split(r"\s*\n\s*|\s*/\s*", t) if s.strip()]
    target = asked["w"] or (lines[int(asked["n"]) - 1] if asked["n"] and int(asked["n"]) <= len(lines) else
                            lines[-1] if lines else "")
    word = (re.findall(r"[A-Za-z]+", target) or [""])[-1].lower()
    found = rhymes(word)
    things = [" ".join(t.split()[-2:]) for line in lines if (t := _thing(line))] or ["day"]
    return rng.choice(LINE_ENDS).format(w=rng.choice(found), t=rng.choice(things)) if found else ""


def rhymes(word: str) -> list[str]:
    """Common words spelt with ``word``'s ending from its last sounded vowel ("cake": make, take; "year": near),
    most common first; not the word itself nor a word holding it."""
    from flows.sim.people.entity_spans import COMMON, word_counts

    stem = re.sub(r"(?<=[^aeiou])e$", "", word)
    # (a suffix takes the vowel before it: "morning": "orning", "jokes": "okes", not "ing", "es")
    sound = re.search(r"[aeiouy]+[^aeiouy]*(?:ing|ed|er|es|ers|ly|y)$", stem) or \
        re.search(r"[aeiouy]+[^aeiouy]*$", stem) or re.search(r"[aeiouy]+$", word)
    if not sound or len(word) < 2:
        return []
    counts, ending = word_counts(), (sound[0] + word[len(stem):]) if sound.end() <= len(stem) else sound[0]
    for end in (ending, ending[1:] if len(ending) >= 4 else ending):  # "earts", else "arts"
        end = end if len(end) >= 2 else word[-2:]
        found = sorted((w for w in counts if w.endswith(end) and len(w) >= 3 and w.isalpha() and not word.endswith(w)
                        and not (w.endswith(word) and len(w) - len(word) >= 3) and counts[w] >= COMMON),
                       key=lambda w: -counts[w])
        if found:
            break
    return [w for w in found[:8] if counts[w] * 12 >= counts[found[0]]]  # the common ones (no rare, no rude word)


def in_use(texts: list[str], rng: random.Random) -> str:
    """A new sentence using the item's headword as its example sentence does: the few words around it there, after
    an opening of the worker's own. The headword is its one-word text, else its example's least common word (the
    word a card teaches is the rare one); "" where the item shows none."""
    from flows.sim.people.entity_spans import word_counts

    word = next((t.strip() for t in texts if re.fullmatch(r"[A-Za-z][\w'-]+", t.strip())), "") or min(
        re.findall(r"\b[a-z][a-z'-]{3,}", main_text(texts)), key=lambda w: word_counts().get(w, 0), default="")
    root = word.lower()[:max(4, len(word) - 2)]
    found = [(s.split(), k) for t in texts if t.strip() != word for s in sentences(LABEL.sub("", t.strip(" \"“”")))
             for k, w in enumerate(s.split()) if root and w.lower().strip(".,;:!?\"'“”").startswith(root)]
    if not found:
        return ""
    said, at = max(found, key=lambda f: len(f[0]))  # from its clause's subject ("the river", "many tenants") on
    start = 0 if at <= 4 else next((k for k in range(at - 3, at) if said[k].lower() in ("the", "a", "an", "my", "his",
                                                                                       "her", "their", "its")), at - 1)
    end = next((k + 1 for k in range(at, min(len(said), at + 5)) if re.search(r"[,;:.!?]$", said[k])), at + 5)
    window = " ".join(w.strip("\"“”") for w in said[start:end]).rstrip(".,;:!?")
    window = _phrase(window if window.startswith("I ") else window[:1].lower() + window[1:], 7)  # (not copied)
    return f"{rng.choice(OPENERS)} {window}."


def plays_on(texts: list[str], rng: random.Random) -> str:
    """What a short item (a joke) turns on: its last sentence's last word that its first part does not use."""
    said = sentences(main_text(texts))
    setup, punch = " ".join(said[:-1]).lower(), said[-1] if said else ""
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*", punch) if w.lower() not in SMALL_END]
    word = next((w for w in reversed(words) if w.lower() not in setup), words[-1] if words else "")
    after = re.search(rf"\b{re.escape(word)} (\w+)", punch) if word else None
    word = word.split("-")[-1]  # "over-swept": a word made of two plays on its second
    word += f" {after[1]}" if after and after[1].lower() in PARTICLES else ""  # "working on (it)", "make up"
    thing = next((w for w in re.findall(r"\b(?:the|a|an) ([a-z]{3,})", setup or punch)), "the situation")
    return rng.choice(PLAYS).format(w=word.lower(), t=f"the {thing}" if thing != "the situation" else thing)


def message(kind: str, who: str, texts: list[str], rng: random.Random) -> str:
    """A short message to ``who`` ("Thank you, Priya: you ..."), naming one thing the item says they did."""
    main = main_text(texts)  # the sentence they are the subject of ("Tom drove ...", "She packed ..."), not "Tom's"
    doing = next((s for s in sentences(main) if re.match(rf"(?:{re.escape(who)}|[Ss]he|[Hh]e|[Tt]hey)\b(?!')", s)),
                 "") or bearing_part(who, texts)
    doing = re.sub(r"^(\w+), [^,]{3,60}, ", r"\1 ", re.sub(r"\s*\([^)]*\)", "", doing))  # its asides left out
    deed = _detail(re.sub(rf"^(?:{re.escape(who)}|[Ss]he|[Hh]e|[Tt]hey) (?:was|is)?", "you were " if re.match(
        r"\S+ (?:was|is)\b", doing) else "you ", doing), main).split(" (")[0].rstrip(".,;:!")
    opening = kind.strip().replace("-", " ").capitalize() or "Hi"
    return f"{opening}, {who}, {deed}, {rng.choice(CLOSES)}."


def _advice(text: str) -> str:
    """What an item of advice tells a person to do, in a few of its words ("turn the central heating down")."""
    first = re.split(r"[.;:,!?(]|\s(?:and|to save|so|because|instead|rather than|when|if)\s", text.strip(" \"“”'"))[0]
    said = {"your": "my", "you": "I", "yourself": "myself"}
    return _phrase(" ".join(said.get(w.lower(), w.lower()) for w in first.split()), 6) or "do it"

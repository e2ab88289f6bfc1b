"""Instructed-response items (Meade & Craig 2012; Prolific's attention checks): a question whose words name the one
option to choose, by value, label or place, read as a careful person reads it. Free of pandas for the simulator."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

QUOTED = re.compile(r"[\"'\u2018\u201c\u00ab]([^\"'\u2019\u201d\u00bb]{1,200})[\"'\u2019\u201d\u00bb]")
# "check" as a verb only before what it ticks: an "attention check 3" names nothing
_VERB = re.compile(r"\b(?:choose|select|pick|click(?:\s+on)?|tick|mark|check(?=\s+(?:only|the)\b)|answer(?:\s+with)?|"
                   r"respond\s+with)\b", re.I)
# words between the verb and the option: "select the option labelled 'Agree'", "tick only the box 'Dog'"
_FILLER = re.compile(r"(?:\s*\b(?:only|just|exactly|the|an?|option|answer|response|value|number|button|box|choice|"
                     r"circle|labell?ed|marked|saying|(?:that|which)\s+(?:says|reads)|with\s+the\s+(?:label|text)|"
                     r"here)\b)*\s*", re.I)
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_PLACE = re.compile(r"(" + "|".join(_ORDINALS) + r"|\d{1,2}(?:st|nd|rd|th)|last|leftmost|rightmost|top|bottom|"
                    r"middle)\s+(?:option|answer|choice|button|box|circle|one|response|bubble|column)\b", re.I)
# a question, a negation (a trap) or a condition ("select 7 if you agree": a scale's anchor) is no plain instruction
AWAY = re.compile(r"\?|\b(?:not|never|no|none|nor|neither|avoid|except|unless|instead|without|other\s+than|"
                  r"anything\s+but|if|when|whenever|whether|depending|according|based\s+on|best|describes?|"
                  r"reflects?|matches|applies|closest)\b|n[\u2019']t\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
_REFUSED = ""  # a sentence that instructs but is turned away: the question is no check


def _names(options: Sequence[str], labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """(a name a person may use for the option, in lower case, the option's value), longest first."""
    named = {(" ".join(n.split()).casefold(), v) for v in options if v for n in (v, labels.get(v, "")) if n.strip()}
    return sorted(named, key=lambda p: -len(p[0]))


def _place(word: str, options: Sequence[str]) -> str | None:
    word, shown = word.casefold(), [o for o in options if o]
    at = {"last": -1, "rightmost": -1, "bottom": -1, "leftmost": 0, "top": 0}.get(word)
    if at is None and word == "middle":
        at = len(shown) // 2 if len(shown) % 2 else None
    elif at is None:
        at = _ORDINALS.index(word) if word in _ORDINALS else int(word[:-2]) - 1
    return shown[at] if at is not None and -len(shown) <= at < len(shown) else None


def _option_at(text: str, at: int, options: Sequence[str], names: list[tuple[str, str]]) -> tuple[str, int] | None:
    """(the option named at ``at``, where its name ends): quoted, written out, or by its place."""
    if quote := QUOTED.match(text, at):
        said = " ".join(quote[1].split()).strip(" .,!").casefold()
        return next(((v, quote.end()) for n, v in names if n == said), None)
    if place := _PLACE.match(text, at):
        value = _place(place[1], options)
        return (value, place.end()) if value is not None else None
    low = text.casefold()
    return next(((v, at + len(n)) for n, v in names if low.startswith(n, at)
                 and not low[at + len(n):at + len(n) + 1].isalnum()), None)


def _told(sentence: str, options: Sequence[str], names: list[tuple[str, str]]) -> str | None:
    """The option one sentence instructs; _REFUSED when it instructs one but turns away (or names another)."""
    for verb in _VERB.finditer(sentence):
        filler = _FILLER.match(sentence, verb.end())  # it matches nothing at worst
        hit = _option_at(sentence, filler.end() if filler else verb.end(), options, names)
        if hit is None:
            continue
        rest = sentence[hit[1]:].casefold()
        others = [v for n, v in names if v != hit[0] and re.search(rf"(?<!\w){re.escape(n)}(?!\w)", rest)]
        around = QUOTED.sub(" ", sentence[:verb.start()] + " " + sentence[hit[1]:])
        return _REFUSED if others or AWAY.search(around) else hit[0]
    return None


def _question(text: str, options: Sequence[str], labels: Mapping[str, str]) -> str:
    """The question without the option labels that follow it on the page (read with it before its last option)."""
    shown = [" ".join(labels[o].split()) for o in options if labels.get(o, "").strip()]
    text = " ".join(text.split())
    for k in range(len(shown), 0, -1):
        if text.endswith(" " + " ".join(shown[:k])):
            return text[:-len(" ".join(shown[:k]))].rstrip()
    return text


def instructed(question: str, options: Sequence[str], labels: Mapping[str, str] | None = None
               ) -> tuple[str, str] | None:
    """(the value ``question`` says to pick, its sentence); None for none, several, a question, negation, condition."""
    labels = labels or {}
    names = _names(options, labels)
    told = [(_told(s, options, names), s) for s in _SENTENCE_END.split(_question(question, options, labels))]
    values = {v for v, _ in told} - {None}
    return next((v, s) for v, s in told if v is not None) if len(values) == 1 and _REFUSED not in values else None


def instructed_option(question: str, options: Sequence[str], labels: Mapping[str, str] | None = None) -> str | None:
    return found[0] if (found := instructed(question, options, labels)) else None

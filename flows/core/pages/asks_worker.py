"""Controls that ask about the worker, not the item ("What is your age?")."""

from __future__ import annotations

import re

from flows.core.pages.mturk_forms import _FormParser

TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # "If yes, where?" follows "Have you heard of it?"; "If yes: type the sentence as it should read" asks for work
    ("if_yes", re.compile(r"^\s*if (yes|so)\b(?![\s,:;-]*(?:please\s+)?(?:type|write|re-?write|correct|fix|copy|"
                          r"describe|explain|list|give|enter|mark|name|quote)\b)", re.I)),
    ("age", re.compile(r"\byour age\b|\bhow old are you|\byear of birth|\bage\s*[:?]?\s*$", re.I)),
    ("place", re.compile(r"where do you live|province|territory|which (country|state|city)|your (country|city|"
                         r"state|location)|where are you (from|based)", re.I)),
    ("language", re.compile(r"native language|first language|mother tongue|languages? do you speak", re.I)),
    ("colour", re.compile(r"favou?rite colou?r", re.I)),
    ("gender", re.compile(r"\byour gender|\bgender\s*[:?]?\s*$", re.I)),
    ("device", re.compile(r"headphone|listen(ing)? to the (files|audio|samples) with|listening (device|type)", re.I)),
    ("confidence", re.compile(r"how (sure|confident|certain) are you|your confidence", re.I)),
    ("heard", re.compile(r"have you (ever )?hea?r?d|heard (about|of) .* before|have you (ever )?(used|tried)", re.I)),
    ("often", re.compile(r"^\s*how often do you", re.I)),
    # "What do you think?" alone, of a topic, or of the worker's own life ("... would help you start?"); what one
    # thinks of the item shown ("this proposal") or a guess about it ("... happens next?", "... is the cause?") is not,
    # nor the reason for one's answer ("Why do you say that?"); "Why do you cycle?" is the worker's own
    ("opinion", re.compile(r"^\s*what (?:do you think )?would make|^\s*what do you think\s*(?:[?.!]|$)|"
                           r"^\s*what do you think (?:of|about) (?!(?:this|these|that|the) "
                           r"(?!hit\b|task\b|survey\b|study\b|questionnaire\b))|"
                           r"^\s*what do you think\b[^?]*\b(?:you|your|yourself)\b|^\s*what do you like|"
                           r"^\s*why do you(?!\s+(?:say|think|feel|believe|rate|choose|pick|give|answer)\b)",
                           re.I)),
    ("feedback", re.compile(r"additional feedback|questions and/or comments|comments? (about|on) (this|the) (hit|task"
                            r"|survey)|help us improve|other thoughts", re.I)),
)
SHORT_LABEL = re.compile(r"^[^?]{1,40}$")  # a crowd element's label: a name for the box, not its question
ADJACENT = 3  # parser steps: a <label> this close after a control (of no other control) is its label


def question_texts(page: _FormParser) -> dict[str, str]:
    """Field name -> the words a person reads as its question."""
    out: dict[str, str] = {}
    previous = 0
    for name, pos in sorted(page.positions.items(), key=lambda p: p[1]):
        f = page.fields.get(name)
        if f is None:
            continue
        own = [f.attrs.get(k, "") for k in ("label", "header") if f.attrs.get(k)] or \
            [t for t in (page.label_of.get(name), page.label_of.get(f"#{f.attrs.get('id')}")) if t][:1]
        before = [label for p, _, label in page.texts if previous < p <= pos][-1:]  # a <label> just before it
        since = [t for p, t, _ in page.texts if previous < p <= pos]
        runs = [t for p, t in page.prose if previous < p <= pos]  # "the word <b>bank</b> is used": one text
        # a question and, after it, only how to answer ("Please answer in no more than 20 words."): both
        run = runs[-2:] if len(runs) >= 2 and asks(runs[-2]) and "?" not in runs[-1] else runs[-1:]
        # a heading that asks, after a box with words of its own before it, is the next question; a <label> is its own
        after = [t for p, t, label in page.texts if pos < p <= pos + ADJACENT and label and p not in page.bound
                 and before != [True] and not (run and asks(t) and p not in page.in_label)]
        if f.kind in ("radio", "checkbox"):
            words = since
        elif own and run and EXAMPLE.match(own[0]):  # a label that is an example answer: the words above ask
            words = [*run, *own]
        elif own and run and SHORT_LABEL.match(own[0]) and (asks(run[-1]) or "? " in run[-1]):  # "Business name"
            # under what it asks ("Who was paid? Write the name ..., up to 5 words")
            words = [*run, *own]
        else:
            words = own or after[:1] or run or [f.attrs.get("placeholder", "")]
        out[name] = " ".join(words)
        previous = pos + (ADJACENT if after and not own and f.kind not in ("radio", "checkbox") else 0)
    return out


EXAMPLE = re.compile(r"^\W*(?:e\.\s?g\.|eg\b|for example\b|for instance\b|example\s*:|such as\b)", re.I)
# a question, or an instruction to write one ("3. Write ONE question you would ask the seller."), before a hint
ASKING = re.compile(r"^\W*(?:\d+[.)]\s*)?(?:if \w+(?: \w+)?\s*[:,]\s*)?(?:write|re-?write|rephrase|compare|ask|"
                    r"describe|explain|give|name|list|suggest|say|tell|summari[sz]e)\b",
                    re.I)


def asks(text: str) -> bool:
    return text.rstrip().endswith("?") or "? " in text or bool(ASKING.match(text))  # "What ...? Explain ..."


def topic(question: str) -> str:
    """What a question asks of the worker's own (an age, a device, a comment), not of the item; "" when it does not."""
    for name, pattern in TOPICS:
        if pattern.search(question):
            return name
    return ""

"""Whether a box the page asks under a condition ("If no, what is wrong?") is asked of a worker, by their own choice."""

from __future__ import annotations

import re

QUOTES = "\"'“”‘’ "
EMPTY_WHEN = re.compile(r"(?:(?:leave|keep) (?:it|this|the (?:box|field|text ?box|space|answer))? ?(?:empty|blank)|"
                        r"(?:do not|don't) (?:write|type|fill)[^.;]*?) (?:if|when|where) (?P<c>[^.;]+)|"
                        r"(?:if|when) (?P<d>[^,.;]+),? (?:leave|skip)", re.I)
# a box asked only after one answer: "only if you answered 'No'", "If no, what is wrong?", "If not: which part ..."
ONLY_WHEN = re.compile(r"\b(?:only )?if (?:you (?:answered|chose|selected|picked|said|clicked) (?P<v>[\"'“]?\w+)|"
                       r"(?P<n>yes|no|not)\s*[,:;.)\-–])", re.I)
IF_SO = re.compile(r"\s*(?:only )?if (?P<c>[^,.;:]{1,40})[,:]", re.I)
FINE = re.compile(r"\b(correct|fine|right|ok|okay|no (?:errors?|mistakes?|problems?)|nothing (?:to fix|wrong)|"
                  r"grammatical|free of)\b", re.I)
FAULT = re.compile(r"\b(errors?|mistakes?|problems?|wrong|incorrect|ungrammatical|typos?|issues?|fix(?:es|ing)?|"
                   r"needs? (?:a |some )?(?:small |minor )?(?:changes?|corrections?|edits?))\b", re.I)


def says_fine(chosen: str, choice_asks: str) -> bool:
    """Whether the worker's choice (label or value) said the item is fine ("Yes" to "Is it correct?")."""
    if re.search(r"\bno (?:errors?|mistakes?|problems?)", chosen, re.I):
        return True
    if FAULT.search(chosen) or FINE.search(chosen):
        return not FAULT.search(chosen)
    yes = bool(re.match(r"\s*(yes|true)\b", chosen, re.I))
    return yes != (bool(FAULT.search(choice_asks)) and not re.search(r"free of|without", choice_asks, re.I))


def asked_when(question: str, chosen: str) -> bool | None:
    """Whether a box asked only after one answer is asked of a worker who chose ``chosen``; None: of everyone."""
    empty = EMPTY_WHEN.search(question)
    if not (m := ONLY_WHEN.search(question)) or (empty and empty.start() <= m.start() <= empty.end()):
        return None  # ("leave it empty if you chose ...": when not to write)
    said = (m["v"] or "").strip(QUOTES) or m["n"].lower().replace("not", "no")
    return bool(re.search(rf"\b{re.escape(said)}\b", chosen, re.I))


def left_empty(question: str, chosen: str, choice_asks: str) -> bool:
    """Whether the box's own words ask a person who chose ``chosen`` to leave it empty."""
    if (when := asked_when(question, chosen)) is not None:
        return not when
    if not (m := EMPTY_WHEN.search(question)):  # "If wrong, type ...": asked only while the condition holds
        said = IF_SO.match(question)
        return bool(said and (FAULT.search(said["c"]) or FINE.search(said["c"])) and
                    says_fine(chosen, choice_asks) == bool(FAULT.search(said["c"])))
    condition = m["c"] or m["d"]
    if said := re.search(r"you (?:answered|chose|selected|picked|said|ticked) (?:[\"'“]([^\"'”]+)|(\w+))", condition,
                         re.I):
        return bool(re.search(rf"\b{re.escape(said[1] or said[2])}\b", chosen.replace("_", " "), re.I))
    fine = bool(re.search(r"\bno (?:error|mistake|problem)|nothing", condition, re.I)) or \
        (bool(FINE.search(condition)) and not FAULT.search(condition))
    return says_fine(chosen, choice_asks) == fine

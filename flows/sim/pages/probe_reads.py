"""A script asked, its requirements known: does an every-box group take one box, what word range does a box take."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Held = Callable[..., bool]  # (values, also=stated groups whose browser check counts) -> refused twice
MOST = 400  # words tried in a box: a page that refuses this many has a maximum below it
SAID = "A short honest answer about what this item shows and what it means for the people it concerns"


def one_box_groups(held: Held, honest: dict[str, str], every: list[str]) -> list[str]:
    """The groups of ``every`` (each box required by the HTML) the page takes with only their first box ticked."""
    return [name for name in every if honest.get(name)
            and not held({**honest, name: honest[name].split("|")[0]}, also=[name])]


def boxes_together(held: Held, groups: list[dict[str, Any]], honest: dict[str, str], required: Any) -> list[str]:
    """Single boxes, each its own field and none required alone, of which the page wants at least one ticked:
    refused with all unticked, taken with any one of them ticked (the rest unticked)."""
    single = [g["name"] for g in groups if g["kind"] == "checkbox" and len([o for o in g["options"] if o]) == 1
              and g["name"] not in required and honest.get(g["name"])]
    none = {**honest, **dict.fromkeys(single, "")}
    if len(single) < 2 or not held(none):
        return []
    alone = [name for name in single if not held({**none, name: honest[name]})]
    return alone if len(alone) > 1 else []


def words(n: int, long: bool = False, short: bool = False) -> str:
    """``n`` words of a plain answer; each a long word, or each one letter (a count of characters differs)."""
    said = ["understandably"] * n if long else ["a"] * n if short else (SAID.split() * n)[:n]
    return " ".join(said) + "."


def word_ranges(held: Held, groups: list[dict[str, Any]], honest: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Per word-counted box, (fewest, most) words, 0 where unset; kept where a character count would not explain it."""
    out = {}
    for g in groups:
        name, n = g["name"], len(honest.get(g["name"], "").split())
        if g["kind"] not in ("text", "textarea") or not n or held(answer := {**honest, name: words(n)}):
            continue

        def takes(k: int, how: dict[str, bool] | None = None, name: str = name, answer: dict = answer) -> bool:
            return not held({**answer, name: words(k, **(how or {}))})
        least = _edge(takes, 1, n) if n > 1 and not takes(1) else 0
        most = _edge(takes, n, MOST) - 1 if not takes(MOST) else 0
        least = least if least and not takes(least - 1, {"long": True}) else 0
        most = most if most and not takes(most + 1, {"short": True}) else 0
        if least or most:
            out[name] = (least, most)
    return out


def _edge(takes: Callable[[int], bool], low: int, high: int) -> int:
    """The first count in (low, high] on the other side of what ``low`` gives (one side taken, the other not)."""
    side = takes(low)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if takes(mid) == side else (low, mid)
    return high


def condition(refusing: list[tuple[str, str]], tried: list[tuple[str, str]], honest: dict[str, str]
              ) -> tuple[str, str]:
    """The choice and its values (joined by "|") the requirement follows, from the refusals in ``refusing``."""
    if ("", "") in refusing:
        c = next(c for c, v in tried if c and (c, v) not in refusing)
        values = [honest[c]]
    else:
        c, values = refusing[0][0], []
    values += [v for d, v in refusing if d == c]
    return c, "|".join(dict.fromkeys(values))


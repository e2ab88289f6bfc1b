"""Answers the requester knows, handed to the simulator before a campaign posts."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from flows.sim.people.crowd_model import BankEntry

ANY_ITEM = "*"
MARK = "\x1e"  # a campaign's own answer: entry.answers["<campaign>\x1e<field>"]
CURRENT: ContextVar[str | None] = ContextVar("hitflow_sim_campaign", default=None)  # the page being filled's
MAX_ROWS = 2_000_000  # a body this long is not a campaign's answers


def add_known(bank: dict[str, BankEntry], rows: list[dict[str, Any]], scope: str | None = None) -> int:
    """Known answers into the bank (``scope``'s own when named); how many were taken. ValueError on a bad row."""
    if not isinstance(rows, list) or len(rows) > MAX_ROWS:
        raise ValueError("expected a JSON list of {item_id, field, answer} objects")
    for row in rows:
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("item_id", "field", "answer")):
            raise ValueError(f"a known answer must be {{item_id, field, answer}} strings, not {str(row)[:80]}")
        entry = bank.setdefault(row["item_id"], BankEntry([], 0))
        entry.answers[row["field"] if scope is None else f"{scope}{MARK}{row['field']}"] = row["answer"]
    return len(rows)


def known_answer(bank: dict[str, BankEntry], key: str, field: str) -> str | None:
    """The known answer of ``field`` for the item a page calls ``key``, the page's campaign's first."""
    scope = CURRENT.get()
    names = (f"{scope}{MARK}{field}", field) if scope is not None else (field,)
    for name in names:
        for k in dict.fromkeys((key, key.split("|")[0], key.split("|")[0].split("~")[0], ANY_ITEM)):
            entry = bank.get(k)
            if entry is not None and name in entry.answers:
                return entry.answers[name]
    return None


def known_option(answer: str | None, options: list[str]) -> str | None:
    """The option a known answer names (case and spaces aside), or None when it names none."""
    if answer is None:
        return None
    wanted = " ".join(answer.split()).casefold()
    return next((o for o in options if " ".join(o.split()).casefold() == wanted), None)


def described(bank: dict[str, BankEntry], key: str) -> bool:
    """The bank holds captions for this item (an entry holding only known answers describes nothing)."""
    entry = bank.get(key.split("~")[0])
    return entry is not None and bool(entry.captions)

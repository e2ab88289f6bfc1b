"""A session's items one a page, where the campaign's page keeps its items apart."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from flows.core.ledger.store import Store
from flows.core.pages.mturk_forms import answer_rows
from flows.platforms.interface import GATE_BATCH
from flows.platforms.quiz_record import stored_quiz


def one_a_page(store: Store, campaign: str, session: dict[str, Any], apart: bool) -> bool:
    """``apart``: the campaign's page keeps its items apart (the quiz's record says so for the quiz's study)."""
    if session["batch"] == GATE_BATCH:
        return bool(stored_quiz(store, campaign).get("apart"))
    return apart and len(json.loads(session["item_ids"])) > 1


def answered(store: Store, campaign: str, session_id: str) -> set[str]:
    return {r["item_id"] for r in store.rows("SELECT DISTINCT item_id FROM answers WHERE campaign = ? AND "
                                             "assignment_id = ? AND item_id != ''", [campaign, session_id])}


def shown(store: Store, campaign: str, session: dict[str, Any], apart: bool) -> str:
    """The item ids the session's page shows now, as its signature signs them (JSON): all its items, or on a quiz
    of one item a page the first not answered (the last once all are)."""
    if not one_a_page(store, campaign, session, apart):
        return str(session["item_ids"])
    ids, done = json.loads(session["item_ids"]), answered(store, campaign, session["session_id"])
    return json.dumps([next((i for i in ids if i not in done), ids[-1])])


def posted(store: Store, campaign: str, session: dict[str, Any], fields: dict[str, str], apart: bool) -> str:
    """The items of the page a submission answers: one a page, the item it names (a page sent twice, or again after
    the next one opened, still reads as the page it was)."""
    if not one_a_page(store, campaign, session, apart):
        return str(session["item_ids"])
    item = fields.get("image_id_0", "")
    return json.dumps([item]) if item in json.loads(session["item_ids"]) else shown(store, campaign, session, apart)


def keep_page(store: Store, campaign: str, session: dict[str, Any], item: str, xml: str, first: str) -> bool:
    """One item's answers kept (the first sent stands); whether every item of the session now has its own. An item
    whose page sent nothing for it (a choice left unpicked) is kept blank, as a left-blank box is, under its
    control's field (else ``first``, the page's first answer field), so the next page opens."""
    rows = [r for r in answer_rows(session["session_id"], xml, [item]) if r["item_id"] == item]
    if not rows:
        field = next((k[1] for k in stored_quiz(store, campaign).get("key", []) if k[0] == item), first)
        rows = [{"assignment_id": session["session_id"], "item_id": item, "field": field, "value": ""}]
    store.insert_raw("answers", [{**r, "campaign": campaign} for r in rows], "IGNORE")
    return set(json.loads(session["item_ids"])) <= answered(store, campaign, session["session_id"])


def next_page(campaign: str, session: dict[str, Any]) -> str:
    """The task page's address for the session's next item (Prolific's own parameters, as its link carries)."""
    return f"/task/{campaign}?" + urlencode({"PROLIFIC_PID": session["participant_id"],
                                             "STUDY_ID": session["study_id"], "SESSION_ID": session["session_id"]})

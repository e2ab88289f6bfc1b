"""A review card's reads (flows/campaigns/review_data.py ``card_captions``, ``card_flags``) against what they
cut down, worked out here from the rows written, on SQLite and PostgreSQL: a busy worker's card shows its own
assignment's captions first, ``most`` at most, and counts the assignments; its flags are its own assignment's
first, then one of each rule in turn, shown by rule, with their number."""

from __future__ import annotations

import random
from typing import Any

from flows.campaigns.review_data import card_captions, card_flags, histories
from flows.core.ledger.store import Store
from tests.ledger_reads import item_flags, worker_captions

CAMPAIGN = "cards"
RULES = ("caps_lock", "min_words", "time_outlier")


def _ledger(location: str) -> tuple[Store, list[dict[str, Any]]]:
    """Batch 1: W1 did 12 assignments of 3 captions each, W2 one; W1's 30 flags over three rules. The flags
    as written, in order (each one's ``n``)."""
    store, rng = Store(location), random.Random(5)
    work = [("W1", f"A{k:02d}") for k in range(12)]
    work.insert(4, ("W2", "B00"))
    for worker, assignment in work:
        store.table("assignments").insert({"assignment_id": assignment, "hit_id": f"H{assignment}",
                                           "campaign": CAMPAIGN, "batch": 1, "worker_id": worker})
        for j in range(3):
            image = f"{assignment}-i{j}"
            store.table("items").insert({"campaign": CAMPAIGN, "item_id": image, "url": f"https://x.test/{image}.jpg",
                                         "batch": 1})
            store.table("answers").insert({"campaign": CAMPAIGN, "assignment_id": assignment, "item_id": image,
                                           "field": "caption",
                                           "value": f"caption {j} of {assignment}"})
    flags = []
    for n in range(30):
        flag = {"rule": RULES[0] if n < 20 else rng.choice(RULES[1:]), "value": str(n), "threshold": "1",
                "assignment_id": f"A{rng.randrange(12):02d}", "image_id": "", "detail": f"flag {n}"}
        store.table("qc_flags").insert({"campaign": CAMPAIGN, "batch": 1, "worker_id": "W1", **flag})
        flags.append({**flag, "n": n})
    return store, flags


def test_a_card_shows_its_own_assignments_captions_first_and_counts_the_assignments(ledger_location: str) -> None:
    store, _ = _ledger(ledger_location)
    every = worker_captions(store, CAMPAIGN, 1, "W1")
    assert len(every) == 36 and every[0]["assignment_id"] == "A00"
    cards = [(1, "W1", "A07"), (1, "W1", ""), (1, "W2", "B00"), (1, "W9", "")]
    (own, busy), (worker, busy_too), (single, one), (nobody, none) = card_captions(store, CAMPAIGN, cards, 4)
    mine = [c for c in every if c["assignment_id"] == "A07"]
    assert own == (mine + [c for c in every if c["assignment_id"] != "A07"])[:4]
    assert worker == every[:4] and busy == busy_too == 12  # a worker's card: the ledger's order
    assert [c["caption"] for c in single] == [f"caption {j} of B00" for j in range(3)] and one == 1
    assert nobody == [] and none == 0
    assert [card_captions(store, CAMPAIGN, [(1, "W1", "")], 100)[0][0]] == [every]  # room for all: every one


def test_a_cards_flags_are_its_own_first_then_one_of_each_rule_in_turn(ledger_location: str) -> None:
    store, written = _ledger(ledger_location)
    by_rule = sorted(written, key=lambda f: (f["rule"], f["n"]))
    assert item_flags(store, CAMPAIGN, 1, "W1") == [{k: v for k, v in f.items() if k != "n"} for f in by_rule]
    for own, most in (("", 5), ("A03", 6), ("A03", 40), ("", 1)):
        turn: dict[str, int] = {}
        ranked = []
        for f in written:  # as written: each rule's first flag, then each one's second, ...
            ranked.append(((f["assignment_id"] != own, turn.get(f["rule"], 0), f["n"]), f))
            turn[f["rule"]] = turn.get(f["rule"], 0) + 1
        chosen = [f for _, f in sorted(ranked, key=lambda r: r[0])][:most]
        expected = [{k: v for k, v in f.items() if k != "n"} for f in sorted(chosen, key=lambda f: (f["rule"], f["n"]))]
        assert card_flags(store, CAMPAIGN, 1, "W1", own, most) == (expected, 30)
    rules = {f["rule"] for f in card_flags(store, CAMPAIGN, 1, "W1", "", 3)[0]}
    assert rules == {f["rule"] for f in written}  # three flags: one of each rule that fired, not three caps_lock
    assert card_flags(store, CAMPAIGN, 1, "W2", "B00", 5) == ([], 0)


def test_a_pages_workers_history_is_theirs_in_the_whole_campaigns(ledger_location: str) -> None:
    store, _ = _ledger(ledger_location)
    for k, action in enumerate(("reject", "approve", "reject")):
        store.table("decisions").insert({"assignment_id": f"A{k:02d}", "campaign": CAMPAIGN, "batch": 1,
                                         "worker_id": "W1", "action": action, "applied": ""})
    store.table("blocks").insert({"campaign": CAMPAIGN, "worker_id": "W1", "batch": 1, "rules": "caps_lock"})
    whole = histories(store, CAMPAIGN)
    page = histories(store, CAMPAIGN, {"W1"})
    assert page.to_dict("records") == whole[whole["worker_id"] == "W1"].to_dict("records")
    assert page.to_dict("records") == [{"worker_id": "W1", "batch": 1, "assignments": 12, "flags": 30, "rejected": 2,
                                        "blocked": 1}]

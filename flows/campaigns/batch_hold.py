"""Hold a batch for a person when one rule would reject or block most of its workers (``[policy] hold_share``)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd

from flows.core.errors import BatchHeld, ConfigError
from flows.core.ledger.store import Store
from flows.core.run.run_context import Run
from qc.answer_faults import MALFORMED
from qc.review_queue import rule_names  # a block's "invalid_answerx1" or "consensus 40% (2/5)"

# With fewer workers reached, a share says little: two bad workers among three is plausible fraud.
MIN_WORKERS_REACHED = 3
RELEASES = ("approve", "rules")


def rule_reach(decisions: pd.DataFrame, blocks: pd.DataFrame) -> dict[str, set[str]]:
    """Rule -> the workers it would reject (any assignment) or block in this batch."""
    reach: dict[str, set[str]] = defaultdict(set)
    for d in decisions[decisions["action"] == "reject"].to_dict("records"):
        for rule in filter(None, str(d["reasons"]).split(",")):
            reach[rule].add(str(d["worker_id"]))
    for b in blocks.to_dict("records"):
        for rule in rule_names(str(b["rules"])):
            reach[rule].add(str(b["worker_id"]))
    return reach


def overreaching(decisions: pd.DataFrame, blocks: pd.DataFrame, share: float,
                 unreadable: Collection[str] = ()) -> list[tuple[str, int, int]]:
    """(rule, workers reached, workers in batch) for each rule over the share, widest first (``unreadable`` too)."""
    total = int(decisions["worker_id"].nunique())
    reach = rule_reach(decisions, blocks)
    if unreadable:
        reach[MALFORMED] = reach[MALFORMED] | set(unreadable)
    over = [(rule, len(who), total) for rule, who in reach.items()
            if total and len(who) >= MIN_WORKERS_REACHED and len(who) / total > share]
    return sorted(over, key=lambda o: (-o[1], o[0]))


def _batch_row(store: Store, campaign: str, batch: int) -> dict[str, Any]:
    rows = store.rows("SELECT * FROM batches WHERE campaign = ? AND batch = ?", [campaign, batch])
    return rows[0] if rows else {}


def held_rules(run: Run, batch: int, decisions: pd.DataFrame, blocks: pd.DataFrame,
               unreadable: Collection[str] = ()) -> set[str]:
    """The rules set aside in this batch (released with "approve"); raises BatchHeld to hold it."""
    row = _batch_row(run.store, run.cfg.name, batch)
    release = row.get("hold_release") or ""
    if release == "rules":
        return set()
    over = overreaching(decisions, blocks, run.cfg.policy.hold_share, unreadable)
    if not over:
        return set()
    if release == "approve":
        run.progress(f"batch {batch}: released by a person: {', '.join(r for r, _, _ in over)} neither rejects "
                     "nor blocks in this batch")
        return {rule for rule, _, _ in over}
    note = "; ".join(f"rule {rule} {'could not read the answers of' if rule == MALFORMED else 'would reject or block'}"
                     f" {n} of {total} workers ({n / total:.0%}, over the {run.cfg.policy.hold_share:.0%} of [policy] "
                     "hold_share)" for rule, n, total in over)
    run.store.set_batch(run.cfg.name, batch, hold=note, hold_page=page_fingerprint(run))
    raise BatchHeld(f"batch {batch} HELD for review, nothing rejected or blocked: {note}. A rule that fires on "
                    f"nearly everyone is a defect in the page or the rule, not fraud: check the page "
                    f"(`hitflow run {run.cfg.path} --dry-run`) and the rule, then release it with "
                    f"`hitflow run {run.cfg.path} --release-hold approve` (pay the work; the rule neither rejects "
                    f"nor blocks in this batch) or `--release-hold rules` (decide by the rules as they stand)", batch)


def approve_despite(decisions: pd.DataFrame, rules: set[str]) -> pd.DataFrame:
    """Decisions with the set-aside rules taken out of every rejection's reasons."""
    if not rules:
        return decisions
    out = decisions.copy()
    for i, d in out.iterrows():
        kept = [r for r in str(d["reasons"]).split(",") if r and r not in rules]
        if d["action"] == "reject" and len(kept) < len([r for r in str(d["reasons"]).split(",") if r]):
            out.at[i, "reasons"] = ",".join(kept)
            out.at[i, "action"] = "reject" if kept else "approve"
    return out


def blocks_despite(blocks: pd.DataFrame, rules: set[str]) -> pd.DataFrame:
    """Blocks with the set-aside rules taken out (a worker blocked only by them is not blocked)."""
    if not rules:
        return blocks

    def kept(text: Any) -> str:
        return ";".join(p for p in str(text).split(";") if (names := rule_names(p)) and not names & rules)

    out = blocks.assign(rules=[kept(r) for r in blocks["rules"]])
    return out[out["rules"] != ""].reset_index(drop=True)


def released_rules(run: Run, batch: int) -> set[str]:
    """For the block step: the rules a person set aside when releasing this batch."""
    row = _batch_row(run.store, run.cfg.name, batch)
    return {r.split(" ")[1] for r in str(row.get("hold") or "").split("; ")
            if r.startswith("rule ")} if row.get("hold_release") == "approve" else set()


def release_held(store: Store, campaign: str, how: str) -> list[int]:
    """Mark every held batch of the campaign released (``approve`` or ``rules``); the batches."""
    if how not in RELEASES:
        raise ConfigError(f"--release-hold {how!r}: say approve or rules")
    held = [int(r["batch"]) for r in store.rows("SELECT * FROM batches WHERE campaign = ?", [campaign])
            if r.get("hold") and not r.get("hold_release")]
    if not held:
        raise ConfigError(f"no batch of {campaign} is held for review; nothing to release "
                          f"(`hitflow status {campaign}`)")
    for batch in held:
        store.set_batch(campaign, batch, hold_release=how)
    return held


def page_fingerprint(run: Run) -> str:
    """SHA-256 of the config file and the campaign's own page (a built-in task's page is hitflow's)."""
    digest = hashlib.sha256()
    for path in (run.cfg.path, run.cfg.template):
        if path is not None:
            digest.update(Path(path).read_bytes() if Path(path).is_file() else b"")
    return digest.hexdigest()


def refuse_same_page(run: Run, batch: int) -> None:
    """Before posting ``batch``: a stop if an earlier held batch was paid and the page and config are unchanged."""
    fingerprint = page_fingerprint(run)
    for row in run.store.rows("SELECT * FROM batches WHERE campaign = ? AND batch < ? AND hold_release = "
                              "'approve' AND hold_page = ?", [run.cfg.name, batch, fingerprint]):
        rules = ", ".join(sorted(released_rules(run, int(row["batch"])))) or "its rule"
        raise BatchHeld(f"batch {batch} not posted: batch {row['batch']} was held ({rules} on most of its workers) "
                        f"and paid despite it, and the page and config are as they were, so {rules} would hold "
                        f"this batch too. Fix the page (`hitflow run {run.cfg.path} --dry-run`) or the rule "
                        "([qc]/[policy] in the config), then run again", batch)

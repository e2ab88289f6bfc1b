"""``make bench-custom-qc``: QC on a requester's own page beside the caption task's.

Two campaigns run end to end on the simulator, with the same crowd (``config/crowds/
vizwiz_authenticity.toml``: honest typists and note-pasters, assistant pasters, part-typers,
speeders, caps-lockers, copy pasters, instruction echoers, template rings ...), the same items
(``generate:N`` synthetic photos) and the same shape (5 batches, 5 items a page, 5 workers an item):

- the caption task (``config/vizwiz_full_scale.toml``), its own rules;
- a crowd-form page in the shape MTurk's crowd HTML elements reference documents
  (``bench/custom_page/page.html.j2``: a ``crowd-text-area`` and a ``crowd-radio-group`` whose
  buttons each carry their own name), with the QC and policy ``hitflow new`` writes.

Per task it prints, against the simulator's truth (who is what):

- recall: the share of bad workers (every profile outside ``HONEST_PROFILES``) who worked before
  the last batch and were blocked before it, and the share flagged by any rule at all;
- honest false flags: the share of honest workers blocked, of honest workers with a flag a rule
  blocks or rejects on, and of honest answers (free-text fields) with any flag but the random sample;
- for the custom page, the share of honest answers repeating the page's instructions (any run of
  five words of the page's instruction text, an independent count, not the instruction_echo rule),
  and the share of honest workers blocked (the goal: <= 5% and <= 3%).

Figures go to ``bench/results-custom-qc.json``, one entry per size and seed; nothing here is a test.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
from pathlib import Path
from typing import Any

from bench.authenticity import run_judged, share
from bench.results_file import keep_result

ROOT = Path(__file__).resolve().parents[1]
CAPTION_CONFIG = ROOT / "config" / "vizwiz_full_scale.toml"
CUSTOM_CONFIG = ROOT / "bench" / "custom_page" / "campaign.toml"
CROWD = ROOT / "config" / "crowds" / "vizwiz_authenticity.toml"
RESULTS = ROOT / "bench" / "results-custom-qc.json"
NOT_BLAMING = ("random_sample",)  # drawn at random: not an accusation
ECHO_WORDS = 5  # a run of this many of the instructions' words in an answer repeats them


def run_task(config: Path, items: int, seed: int) -> dict[str, Any]:
    """One campaign end to end in this process; its ledger judged against the simulator's workers."""
    wall, result = run_judged(config, items, seed, CROWD, lambda db, workers: judge(db, workers, config))
    return {"config": str(config.relative_to(ROOT)), "items": items, "seed": seed, "wall_s": round(wall, 1),
            **result}


def free_text_answers(db: sqlite3.Connection) -> list[Any]:
    """Every non-empty free-text answer of a worked assignment (the caption, or a custom page's text box)."""
    return db.execute("SELECT a.assignment_id, a.worker_id, a.batch, x.item_id, x.field, x.value FROM assignments a "
                      "JOIN answers x ON x.assignment_id = a.assignment_id WHERE a.batch > 0 AND x.value != '' "
                      "AND (x.field = 'caption' OR x.field LIKE 'description%')").fetchall()


def judge(db: sqlite3.Connection, workers: dict[str, Any], config: Path) -> dict[str, Any]:
    from flows.core.config.config import load_config
    from flows.sim.people.crowd_model import HONEST_PROFILES

    cfg = load_config(config)
    blaming = set(cfg.policy.reject_rules) | set(cfg.policy.block_min_flags)
    last = db.execute("SELECT max(batch) FROM assignments WHERE batch > 0").fetchone()[0]
    worked: dict[str, int] = {}
    for row in db.execute("SELECT worker_id, batch FROM assignments WHERE batch > 0"):
        worked[row["worker_id"]] = min(worked.get(row["worker_id"], 99), int(row["batch"]))
    flags = [f for f in db.execute("SELECT worker_id, rule, assignment_id, image_id FROM qc_flags").fetchall()
             if f["rule"] not in NOT_BLAMING]
    blocks = {r["worker_id"]: int(r["batch"]) for r in db.execute("SELECT worker_id, batch FROM blocks")}
    honest = [w for w in worked if workers[w].profile in HONEST_PROFILES]
    bad_early = [w for w, first in worked.items() if workers[w].profile not in HONEST_PROFILES and first < last]
    flagged = {f["worker_id"] for f in flags}
    blamed = {f["worker_id"] for f in flags if f["rule"] in blaming}
    texts = free_text_answers(db)
    honest_set = set(honest)
    honest_texts = [t for t in texts if t["worker_id"] in honest_set]
    flagged_answers = {(f["assignment_id"], f["image_id"]) for f in flags}
    return {
        "workers_worked": len(worked), "honest_workers": len(honest), "bad_workers_before_last": len(bad_early),
        "free_text_answers": len(texts), "honest_answers": len(honest_texts),
        "recall_blocked_before_last": share([w for w in bad_early if blocks.get(w, 99) < last], bad_early),
        "recall_flagged": share([w for w in bad_early if w in flagged], bad_early),
        "honest_blocked": share([w for w in honest if w in blocks], honest),
        "honest_blamed": share([w for w in honest if w in blamed], honest),
        "honest_answers_flagged": round(sum((t["assignment_id"], t["item_id"]) in flagged_answers
                                            for t in honest_texts) / max(1, len(honest_texts)), 4),
        "rules_on_honest": rule_counts([f for f in flags if f["worker_id"] in honest_set]),
        "honest_answers_echoing_instructions": echo_share(honest_texts, cfg),
        "by_profile": profile_table(workers, worked, blocks, flagged),
        "straight_lining_flagged": straight_lining_by_profile(flags, workers, worked),
        "item_blind_flagged": straight_lining_by_profile(flags, workers, worked, "item_blind"),
    }


def straight_lining_by_profile(flags: list[Any], workers: dict[str, Any], worked: dict[str, int],
                               rule: str = "choice_straight_lining") -> dict[str, str]:
    """Per profile: workers flagged by ``rule`` of those who worked ("2 of 5")."""
    hit = {f["worker_id"] for f in flags if f["rule"] == rule}
    table: dict[str, list[int]] = {}
    for w in worked:
        row = table.setdefault(workers[w].profile, [0, 0])
        row[0] += w in hit
        row[1] += 1
    return {p: f"{n} of {of}" for p, (n, of) in sorted(table.items()) if n or p == "contrarian"}


def instruction_runs(cfg: Any) -> set[tuple[str, ...]]:
    """Every run of ECHO_WORDS words in the page's instructions (the custom page's instructions block)."""
    if cfg.task != "custom" or cfg.template is None:
        return set()
    page = Path(cfg.template).read_text(encoding="utf-8")
    block = re.search(r"{% block instructions %}(.*?){% endblock %}", page, re.S)
    words = re.findall(r"[a-z']+", re.sub(r"<[^>]+>", " ", block.group(1) if block else "").lower())
    return {tuple(words[k:k + ECHO_WORDS]) for k in range(len(words) - ECHO_WORDS + 1)}


def echo_share(texts: list[Any], cfg: Any) -> float | None:
    runs = instruction_runs(cfg)
    if not runs:
        return None
    echoing = 0
    for t in texts:
        words = re.findall(r"[a-z']+", t["value"].lower())
        echoing += any(tuple(words[k:k + ECHO_WORDS]) in runs for k in range(len(words) - ECHO_WORDS + 1))
    return round(echoing / max(1, len(texts)), 4)


def rule_counts(flags: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in flags:
        counts[f["rule"]] = counts.get(f["rule"], 0) + 1
    return dict(sorted(counts.items()))


def profile_table(workers: dict[str, Any], worked: dict[str, int], blocks: dict[str, int],
                  flagged: set[str]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for w in worked:
        row = table.setdefault(workers[w].profile, {"worked": 0, "flagged": 0, "blocked": 0})
        row["worked"] += 1
        row["flagged"] += w in flagged
        row["blocked"] += w in blocks
    return dict(sorted(table.items()))


def show(label: str, r: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:5.1f}%"

    lines = [f"{label:<12} {r['items']} items, {r['wall_s']} s, {r['workers_worked']} workers "
             f"({r['honest_workers']} honest), {r['free_text_answers']} free-text answers",
             f"  recall: bad workers blocked before the last batch {pct(r['recall_blocked_before_last'])} "
             f"of {r['bad_workers_before_last']}; flagged by any rule {pct(r['recall_flagged'])}",
             f"  honest: blocked {pct(r['honest_blocked'])}, with a rejecting/blocking rule's flag "
             f"{pct(r['honest_blamed'])}, answers flagged {pct(r['honest_answers_flagged'])}",
             f"  flagged by choice_straight_lining: {r['straight_lining_flagged']}",
             f"  flagged by item_blind: {r.get('item_blind_flagged', {})}"]
    if r["honest_answers_echoing_instructions"] is not None:
        lines.append(f"  honest answers repeating the page's instructions: "
                     f"{pct(r['honest_answers_echoing_instructions'])} (goal <= 5%; blocked goal <= 3%)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    run: dict[str, Any] = {}
    for label, config in (("caption", CAPTION_CONFIG), ("custom page", CUSTOM_CONFIG)):
        run[label] = run_task(config, args.items, args.seed)
        print(show(label, run[label]), flush=True)
    keep_result(RESULTS, f"{args.items} items, seed {args.seed}", run)  # one entry per size and seed
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

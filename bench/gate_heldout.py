"""``make bench-gate-heldout``: the gate and the rehearsal on held-out pages nobody tuned on (bench/gate_heldout/).

Seven pages written fresh as requesters write them (MTurk ``${column}`` HTML, one crowd-form page), each with
its items file, plus one variant (the checkbox page as its import note asks it rewritten), imported with the
CLI (``hitflow new NAME --from PAGE --items CSV``), set up with the keys the docs name (batches, workers an
item, items a page, a budget, control items and a truth column where the page has them) and run with the CLI
on the MTurk and on the Prolific simulator with the default crowd, one campaign at a time, each in a
temporary folder. Judged against the simulator's truth (``sim_workers.json``) with
bench/gate_bench.py's definitions: per page and route, bad-profile assignments approved unnoticed (no flag, no
block), by profile; honest workers blocked; approved assignments with a field the page as written requires
left blank. Where the page has controls: contrarian and speeder (the random clicker) workers with 2+ pages,
caught (blocked) and noticed (any flag, rejection or block). The rehearsal: honest submissions timed out,
the honest median seconds an assignment against the plan (the dry run's "estimated N min" on Prolific, its
"about N min a unit" on MTurk), and per free-text field the share of honest answers that answer the question
(a stated keyword check per field) and meet the page's stated word limit, with a sample of ten kept to read.

``--repo PATH`` runs another checkout's hitflow (PYTHONPATH=PATH) on the same pages; ``--items N`` uses the
first N items of each file. Refusals and crashes are results: their exit code and last lines are kept.
Figures go to bench/results-gate-heldout.json under the measured code's commit.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.gate_bench import judge, share
from bench.gate_defects import shown_line
from bench.newcomer_kit import edit_config
from bench.results_file import keep_result

ROOT = Path(__file__).resolve().parents[1]
PAGES_DIR = ROOT / "bench" / "gate_heldout"
RESULTS = ROOT / "bench" / "results-gate-heldout.json"
ROUTES = ("mturk", "prolific")
HONEST = ("diligent", "typo_prone", "slow", "note_paster", "fast_typist", "slow_typist")
CLICKERS = ("contrarian", "speeder")  # one extreme on every choice; any option at random
# the profiles whose abuse shows in choices as much as in text (README: one extreme, any option, required left
# empty); the others' abuse is a text box's, so a page without one leaves them little to catch
CHOICE_ABUSERS = ("contrarian", "speeder", "rule_breaker")
DONE = ("APPROVED", "REJECTED", "SUBMITTED", "AWAITING REVIEW")

WHO = re.compile(r"\b(people|person|persons|anyone|anybody|someone|somebody|who|those|users?|owners?|famil(y|ies)|"
                 r"parents?|students?|kids|children|cyclists?|runners?|gardeners?|travell?ers?|cooks?|elderly|"
                 r"older|beginners?|households?|workers?|fans?|buyers?|customers?)\b", re.I)
WHY = re.compile(r"\b(because|since|so|as|helps?|useful|handy|easier|easy|saves?|would|could|need|needs|want)\b",
                 re.I)
FOCUS = re.compile(r"\b(sharp\w*|focus\w*|blur\w*|clearer|unclear|crisp\w*|details?|edges?|fuzzy|soft|noise|noisy|"
                   r"grain\w*|smear\w*|photo [ab]|lines?)\b", re.I)


def words(text: str) -> list[str]:
    return re.findall(r"[\w'-]+", text)


def corrects_sentence(text: str, item: dict[str, str]) -> bool:
    """A corrected sentence: not the item's sentence as it stands, yet mostly its words."""
    said, shown = [w.lower() for w in words(text)], [w.lower() for w in words(item.get("sentence", ""))]
    return bool(said) and said != shown and len(set(said) & set(shown)) >= 0.5 * len(set(shown))


@dataclass(frozen=True)
class TextField:
    """A free-text field: the word minimum the page's own words state (0: none) and what answering it means."""
    min_words: int
    answers: Callable[[str, dict[str, str]], bool]
    check: str
    applies: Callable[[dict[str, str]], bool] = lambda _item: True  # the items where the question is asked


@dataclass(frozen=True)
class HeldoutPage:
    name: str
    images_per_hit: int
    required: tuple[str, ...]  # as the page is written, not as imported
    texts: dict[str, TextField] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # config keys the docs name, beyond the common ones
    truth: str = ""  # [campaign] truth, where the items file has a truth column
    controls: bool = False
    folder: Path = PAGES_DIR  # where the page and its CSV files are
    # a further figure read off the ledger: (db, campaign, profiles) -> figures, shown on a line of its own
    extra: Callable[[sqlite3.Connection, str, dict[str, str]], dict[str, Any]] | None = None
    source: str = ".html"  # the page file's ending (".xml": an HTMLQuestion)


PAGES = (
    HeldoutPage("opinion_poll", 1, ("agreement", "certainty")),
    HeldoutPage("pantry_check", 1, ("ingredients",)),  # "at least one box must be ticked", checked by its script
    HeldoutPage("sharper_photo", 2, ("focus", "reason"), {"reason": TextField(
        10, lambda t, _i: bool(FOCUS.search(t)), "names focus, sharpness, blur, detail or edges")}),
    HeldoutPage("headline_tone", 5, ("tone",), keys={"controls": '"headline_tone_controls.csv"',
                                                     "control_share": "0.2"},
                truth='{tone = "gold_tone"}', controls=True),
    HeldoutPage("gadget_blurb", 1, ("audience",), {"audience": TextField(
        30, lambda t, _i: bool(WHO.search(t) and WHY.search(t)), "names who (people, parents, cyclists...) "
        "and why (because, helps, useful, saves...)")}),
    HeldoutPage("grammar_check", 1, (), {"fixed": TextField(
        0, corrects_sentence, "on sentences with a mistake: differs from the sentence shown yet keeps half its "
        "words (a correction)", lambda item: item.get("gold_correct") == "no")},
                keys={"controls": '"grammar_check_controls.csv"', "control_share": "0.2"},
                truth='{choice = "gold_correct"}', controls=True),
    HeldoutPage("animal_quiz", 1, ("eggs",), keys={"controls": '"animal_quiz_controls.csv"'}, controls=True),
    # pantry_check as a user leaves it after the import's note: the script's check as data-min-selections="1"
    HeldoutPage("pantry_check_min1", 1, ("ingredients",)),
)
COMMON = {"batches": "3", "assignments_per_image": "3", "budget": '"100000.00 USD"'}


def hitflow(args: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """One CLI call, niced: its exit code, its output (both streams) and its last lines."""
    exe = Path(sys.executable).parent / "hitflow"
    cmd = ["nice", str(exe if exe.exists() else "hitflow"), *args]
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    out = p.stdout + p.stderr
    return {"cmd": "hitflow " + " ".join(args), "rc": p.returncode, "out": out,
            "tail": out.strip().splitlines()[-4:]}


def prepare(page: HeldoutPage, folder: Path, env: dict[str, str]) -> tuple[dict[str, Any], Path]:
    """The page imported into ``folder`` by the CLI and set up as the docs say; the import's call and the config."""
    for suffix in (page.source, "_items.csv", "_controls.csv"):
        if (page.folder / f"{page.name}{suffix}").exists():
            shutil.copyfile(page.folder / f"{page.name}{suffix}", folder / f"{page.name}{suffix}")
    made = hitflow(["new", page.name, "--from", f"{page.name}{page.source}", "--items", f"{page.name}_items.csv"],
                   folder, env)
    made["notes"] = [ln for ln in made["out"].splitlines() if ": note: " in ln]
    config = folder / "config" / f"{page.name}.toml"
    if made["rc"] == 0 and config.exists():
        if page.controls and (folder / f"{page.name}_controls.csv").exists():  # else the one the import wrote
            shutil.copyfile(folder / f"{page.name}_controls.csv", config.parent / f"{page.name}_controls.csv")
        missing = edit_config(config, {**COMMON, "images_per_hit": str(page.images_per_hit), **page.keys})
        if page.truth:  # not a key the starter config writes: added under [campaign] as the docs show it
            text = config.read_text(encoding="utf-8")
            config.write_text(text.replace("[campaign]\n", f"[campaign]\ntruth = {page.truth}\n", 1), "utf-8")
        made["keys_not_found"] = missing
    return made, config


def plan_minutes(dry: str, route: str) -> float | None:
    """The plan's minutes a unit as the dry run states them: Prolific's advertised estimate, else the page's."""
    found = re.search(r"estimated ([\d.]+) min", dry) if route == "prolific" else None
    found = found or re.search(r"about ([\d.]+) min a unit", dry)
    return float(found.group(1)) if found else None


def rehearsal(db: sqlite3.Connection, campaign: str, profiles: dict[str, str], page: HeldoutPage,
              items: dict[str, dict[str, str]], minutes: float | None) -> dict[str, Any]:
    """Timeouts, time against the plan and the free text of honest workers."""
    rows = db.execute("SELECT assignment_id, worker_id, status, accept_time, submit_time FROM assignments "
                      "WHERE campaign = ? AND batch > 0", [campaign]).fetchall()
    honest = [r for r in rows if profiles.get(r[1]) in HONEST]
    done = [r for r in honest if (r[2] or "").upper() in DONE and r[3] is not None and r[4] is not None]
    secs = [r[4] - r[3] for r in done]
    median = round(statistics.median(secs), 1) if secs else None
    out: dict[str, Any] = {
        "honest_submissions": len(honest), "honest_timed_out": sum((r[2] or "").upper() == "TIMED-OUT" for r in honest),
        "honest_statuses": dict(sorted({s: sum(r[2] == s for r in honest) for s in {r[2] for r in honest}}.items())),
        "honest_median_s": median, "plan_minutes": minutes,
        "median_vs_plan": round(median / (60 * minutes), 2) if median and minutes else None, "text": {}}
    done_ids = {r[0] for r in done}
    for name, spec in page.texts.items():
        given = [(r[1], r[2] or "") for r in db.execute(
            "SELECT assignment_id, item_id, value FROM answers WHERE campaign = ? AND field = ? AND item_id != ''",
            [campaign, name]) if r[0] in done_ids and r[1] in items and spec.applies(items[r[1]])]
        filled = [(i, t) for i, t in given if t.strip()]
        meets = [(i, t) for i, t in filled if len(words(t)) >= spec.min_words]
        ok = [(i, t) for i, t in meets if spec.answers(t, items[i])]
        out["text"][name] = {
            "stated_min_words": spec.min_words, "check": spec.check, "honest_answers": len(given),
            "blank": len(given) - len(filled), "meet_limit": len(meets), "both": len(ok),
            "answer_question": sum(spec.answers(t, items[i]) for i, t in filled),
            "both_share": share(len(ok), len(given)),
            "median_words": statistics.median([len(words(t)) for _, t in filled]) if filled else None,
            "sample": [f"{i}: {t}" for i, t in filled[:: max(1, len(filled) // 10)][:10]]}
    return out


def controls_caught(db: sqlite3.Connection, campaign: str, profiles: dict[str, str],
                    known: dict[tuple[str, str], str], texts: set[str]) -> dict[str, Any]:
    """Contrarians and speeders with 2+ submitted pages or stopped before a second (blocked after one, MTurk's
    quiz failed): how many were blocked, how many had any work noticed, and each one's control answers."""
    given: dict[tuple[str, str, str], dict[str, str]] = {}  # (worker, assignment, item) -> field -> value
    for w, a, item, fld, value in db.execute(
            "SELECT a.worker_id, a.assignment_id, an.item_id, an.field, an.value FROM answers an JOIN assignments a "
            "ON a.assignment_id = an.assignment_id AND a.campaign = ? WHERE an.item_id != ''", [campaign]):
        given.setdefault((w, a, item), {})[fld] = value or ""
    seen: dict[str, list[bool]] = {}
    for (w, _a, item), fields in given.items():
        for (known_item, fld), answer in known.items():
            if known_item == item:
                # a crowd-form radio group is stored one field a button, the chosen one holding its value
                value = fields.get(fld, next((v for f, v in fields.items() if v and f not in texts), ""))
                seen.setdefault(w, []).append(value == answer)
    pages: dict[str, int] = {}
    for w, in db.execute(f"SELECT worker_id FROM assignments WHERE campaign = ? AND batch > 0 AND upper(status) IN "
                         f"({','.join('?' * len(DONE))})", [campaign, *DONE]):
        pages[w] = pages.get(w, 0) + 1
    blocked = {r[0] for r in db.execute("SELECT worker_id FROM blocks WHERE campaign = ?", [campaign])}
    # stopped before a second page (blocked after one, or MTurk's quiz failed) is what controls met first are for
    quiz_failed = {r[0] for r in db.execute("SELECT worker_id FROM qualification_scores WHERE mode = 'control_quiz' "
                                            "AND NOT passed")} if _has_table(db, "qualification_scores") else set()
    stopped = {w for w in (blocked & set(pages)) | quiz_failed if pages.get(w, 0) < 2 and profiles.get(w) in CLICKERS}
    who = {w for w, n in pages.items() if n >= 2 and profiles.get(w) in CLICKERS} | stopped
    flagged = {r[0] for r in db.execute("SELECT worker_id FROM qc_flags WHERE campaign = ? AND rule NOT IN "
                                        "('random_sample', 'rule_info')", [campaign])}
    rejected = {r[0] for r in db.execute("SELECT worker_id FROM decisions WHERE campaign = ? AND action = 'reject'",
                                         [campaign])}
    blocked |= stopped
    return {"workers_2plus_pages": len(who), "stopped_before_second": len(stopped), "blocked": len(who & blocked),
            "blocked_share": share(len(who & blocked), len(who)),
            "noticed": len(who & (blocked | flagged | rejected)),
            "noticed_share": share(len(who & (blocked | flagged | rejected)), len(who)),
            "by_worker": {w: {"profile": profiles[w], "pages": pages.get(w, 0), "blocked": w in blocked,
                              "flagged": w in flagged, "controls_right": sum(seen.get(w, [])),
                              "controls_given": len(seen.get(w, []))} for w in sorted(who)},
            "honest_controls": _tally([seen.get(w, []) for w in seen if profiles.get(w) in HONEST])}


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).fetchone() is not None


def _tally(answers: list[list[bool]]) -> dict[str, int]:
    return {"workers": len(answers), "given": sum(len(a) for a in answers), "right": sum(sum(a) for a in answers)}


def run_route(page: HeldoutPage, route: str, items: int | None, env: dict[str, str],
              seed: int | None = None, keep: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"heldout-{page.name}-") as tmp:
        folder = keep / f"{page.name}-{route}" if keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        made, _config = prepare(page, folder, env)
        res: dict[str, Any] = {"import": {k: made[k] for k in ("rc", "tail", "notes", "keys_not_found")
                                          if k in made}}
        if made["rc"] != 0:
            return {**res, "failed": "import"}
        limit = ["--limit", str(items)] if items else []
        rel = f"config/{page.name}.toml"
        dry = hitflow(["run", rel, "--dry-run", "--platform", route, *limit], folder, env)
        res["dry_run"] = {"rc": dry["rc"], "problems": [ln for ln in dry["out"].splitlines() if "PROBLEM" in ln],
                          "plan": [ln for ln in dry["out"].splitlines() if ln.startswith("your own page:")],
                          "no_problems_found": "no problems found" in dry["out"]}
        seeded = ["--seed", str(seed)] if seed is not None else []
        ran = hitflow(["run", rel, "--no-prefect", "--platform", route, *limit, *seeded], folder, env)
        res["run"] = {"rc": ran["rc"], "tail": ran["tail"],
                      "errors": [ln for ln in ran["out"].splitlines() if "error" in ln.lower()][:5]}
        truth_file = folder / "runs" / page.name / "sim_workers.json"
        if ran["rc"] not in (0, 8, 10) or not truth_file.exists():
            return {**res, "failed": "run"}
        profiles = {w["worker_id"]: w["profile"] for w in json.loads(truth_file.read_text(encoding="utf-8"))}
        with (folder / f"{page.name}_items.csv").open(encoding="utf-8") as f:
            item_rows = {r["item_id"]: r for r in csv.DictReader(f)}
        with sqlite3.connect(folder / "runs" / "hitflow.db") as db:
            db.row_factory = sqlite3.Row
            res["gate"] = judge(db, page.name, profiles, set(HONEST), page.required)
            clicks = [v for p, v in res["gate"]["by_profile"].items() if p in CHOICE_ABUSERS]
            res["gate"]["choice_abusers"] = {k: sum(v[k] for v in clicks) for k in ("assignments", "unnoticed")}
            res["rehearsal"] = rehearsal(db, page.name, profiles, page, item_rows,
                                         plan_minutes(dry["out"], route))
            res["gate"]["honest_rejected"] = sum(profiles.get(r[0]) in HONEST for r in db.execute(
                "SELECT worker_id FROM decisions WHERE campaign = ? AND action = 'reject'", [page.name]))
            if page.controls:
                with (folder / "config" / f"{page.name}_controls.csv").open(encoding="utf-8") as f:
                    known = {(r["item_id"], r["field"]): r["answer"] for r in csv.DictReader(f)}
                res["controls"] = controls_caught(db, page.name, profiles, known, set(page.texts))
            if page.extra:
                res["extra"] = page.extra(db, page.name, profiles)
        return res


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


def show(page: str, route: str, r: dict[str, Any]) -> list[str]:
    if "gate" not in r:
        step = r.get("failed", "?")
        tail = (r.get("run") or r["import"]).get("tail", [])
        return [f"{page:<14} {route:<8} FAILED at {step}: {' | '.join(tail)[-300:]}"]
    g, h = r["gate"], r["rehearsal"]
    lines = [f"{page:<14} {route:<8} unnoticed {g['unnoticed']:>3}/{g['bad_assignments']:<3} "
             f"({pct(g['unnoticed_share']):>4})  honest blocked {g['honest_blocked']}/{g['honest_workers']} (flagged "
             f"{g.get('honest_flagged', '?')})  "
             f"approved required-blank {g['approved_required_blank']}  honest rejected {g['honest_rejected']}"
             f"  honest timed out {h['honest_timed_out']}/"
             f"{h['honest_submissions']}  honest median {h['honest_median_s']} s vs plan {h['plan_minutes']} min "
             f"(x{h['median_vs_plan']})",
             f"{'':<23} contrarian+speeder+rule_breaker unnoticed {g['choice_abusers']['unnoticed']}/"
             f"{g['choice_abusers']['assignments']}; by profile: "
             + ", ".join(f"{p} {v['unnoticed']}/{v['assignments']}" for p, v in g["by_profile"].items())]
    if "defect_shown" in g:
        lines.append(f"{'':<23} {shown_line(g['defect_shown'])}")
    if "controls" in r:
        c = r["controls"]
        lines.append(f"{'':<23} controls: contrarian+speeder with 2+ pages or stopped before a second "
                     f"{c['workers_2plus_pages']} (stopped {c.get('stopped_before_second', 0)}): blocked "
                     f"{c['blocked']} ({pct(c['blocked_share'])}), noticed {c['noticed']} ({pct(c['noticed_share'])}); "
                     f"their controls right/given " + ", ".join(f"{v['controls_right']}/{v['controls_given']}"
                                                          for v in c["by_worker"].values())
                     + f"; honest {c['honest_controls']['right']}/{c['honest_controls']['given']}")
    for name, t in h["text"].items():
        lines.append(f"{'':<23} text {name}: {t['honest_answers']} honest, blank {t['blank']}, >= "
                     f"{t['stated_min_words']} words {t['meet_limit']}, answers the question {t['answer_question']}, "
                     f"both {t['both']} "
                     f"({pct(t['both_share'])}), median words {t['median_words']}")
    if "extra" in r:
        lines.append(f"{'':<23} " + ", ".join(f"{k} {v}" for k, v in r["extra"].items()))
    return lines


def code_commit(repo: Path) -> str:
    found = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return found.stdout.strip() or "unknown"


def main(argv: list[str] | None = None, pages: tuple[HeldoutPage, ...] = PAGES, results: Path = RESULTS) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose hitflow runs (default: this one)")
    parser.add_argument("--items", type=int, default=None, help="the first N items of each file (default: all, ~30)")
    parser.add_argument("--seed", type=int, default=None, help="the simulator's seed (default: hitflow's)")
    parser.add_argument("--keep", type=Path, default=None, help="run in DIR/<page>-<route>/ and keep it")
    parser.add_argument("--pages", default="", help="comma-separated page names (default: all)")
    parser.add_argument("--label", default="", help="the measured code's name where --repo is no git checkout "
                                                     "(default: its commit)")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    env = {**os.environ, "PYTHONPATH": str(repo)}
    if repo != ROOT:  # another checkout's code is read, never written to (no __pycache__ there)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    which = subprocess.run([sys.executable, "-c", "import flows; print(flows.__file__)"], env=env, cwd="/",
                           capture_output=True, text=True).stdout.strip()  # cwd: -c puts it before PYTHONPATH
    commit = args.label or code_commit(repo)
    print(f"measuring {which} at {commit}", flush=True)
    chosen = [p for p in pages if not args.pages or p.name in args.pages.split(",")]
    run: dict[str, Any] = {}
    for page in chosen:
        run[page.name] = {}
        for route in ROUTES:
            run[page.name][route] = run_route(page, route, args.items, env, args.seed, args.keep)
            print("\n".join(show(page.name, route, run[page.name][route])), flush=True)
    key = (f"{commit}, {args.items or 'all'} items, seed {'default' if args.seed is None else args.seed}"
           + (f", pages {args.pages}" if args.pages else ""))
    product = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%h", "--", "flows", "qc", "postprocess"],
                             capture_output=True, text=True).stdout.strip()
    keep_result(results, key, {"flows": which, "product_last_changed_at": product, "crowd": "default",
                               "setup": {**COMMON, "route_flag": "--platform mturk|prolific", "seed": args.seed},
                               "pages": run})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

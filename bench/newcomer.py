"""A newcomer's afternoon, end to end (the newcomer work's first done-when line), as a script a person can run.

A fresh clone of this repository at HEAD (with ``../shared`` beside it), ``make demo`` there (which
builds ``.venv``), then, with only the docs (README, docs/tutorials/own-page.md, docs/how-to/), from an
empty folder with that ``.venv`` on the PATH:

1. ``hitflow new reviews``, made a sentiment page (one choice and a comment box per review) with 69
   reviews and control items; preview, dry run; ``hitflow run`` stopped by Ctrl-C mid batch 1;
   ``hitflow cancel``; the run again (refused); the simulator then served on its state file and asked,
   as any MTurk client, what is open and whether anything is worked a week later.
2. ``hitflow new sentiment`` on the same page: a pilot ``--limit 20``, then the full 69 items; every item
   worked ``assignments_per_image`` times and each assignment approved or rejected once (the ledger's
   calls, and the platform's own statuses).
3. ``[policy] review = "flagged"`` (docs/how-to/review.md) on a served simulator: batch 1 waits for a person.

Each campaign's ``hitflow status`` (text and ``--json``), report and ``hitflow ui`` (overview, the
campaign's page, its review queue, over HTTP) are read, and what each view says needs a person is compared
with the run's own lines (bench/newcomer_views.py). Prints PASS/FAIL per check; exits 1 on any FAIL.

Run: ``make bench-newcomer`` (``python -m bench.newcomer``). ``NEWCOMER_VENV=/path/.venv`` (or ``--venv``)
reuses a built venv instead of building one (the clone's code still runs: PYTHONPATH points at it);
``--keep`` leaves the temporary folder and its log (every command and what it printed)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from bench import newcomer_views as views
from bench.newcomer_kit import Checks, Shell, edit_config, write_sentiment

ROOT = Path(__file__).resolve().parents[1]
OVERLAP = 3  # assignments_per_image the newcomer sets
PAGE_KEYS = {"title": '"Say how a product review feels"', "keywords": '"sentiment, product reviews, reading"',
             "description": '"Read short product reviews and say whether each is positive, neutral or negative."',
             "images_per_hit": "5", "assignments_per_image": str(OVERLAP), "batches": "3", "control_share": "0.2"}
OPEN_HIT = {"Assignable", "Unassignable"}  # still taking or being worked


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def setup(tmp: Path, venv: str, c: Checks, log: Path) -> Shell:
    """Clone, ``.venv`` on the PATH as ``source .venv/bin/activate`` puts it, ``make demo``."""
    clone = tmp / "hitflow"
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    if (ROOT.parent / "shared").is_dir():
        (tmp / "shared").symlink_to((ROOT.parent / "shared").resolve())
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "HITFLOW_DB", "HITFLOW_OUT")}
    env.update(PATH=f"{clone / '.venv' / 'bin'}:{env['PATH']}", VIRTUAL_ENV=str(clone / ".venv"),
               PYTHONUNBUFFERED="1")  # lines as they come, as a terminal shows them
    if venv:  # make sees .venv built (its stamp newer than pyproject.toml); the clone's code runs from it
        (clone / ".venv").symlink_to(Path(venv).resolve())
        os.utime(clone / "pyproject.toml", (0, 0))
        env["PYTHONPATH"] = str(clone)
    print(f"clone of {ROOT} at {head.strip()} in {clone}; venv {'reused: ' + venv if venv else 'built by make'}",
          flush=True)
    shell = Shell(clone, env, log)
    demo = shell.run("make", "demo", timeout=3600)
    c.check("make demo in a fresh clone", demo.code == 0 and "report:" in demo.out,
            f"exit {demo.code}, {demo.wall_s:.0f} s wall, {demo.cpu_s:.0f} s CPU (venv {'reused' if venv else 'built'})"
            + ("" if demo.code == 0 else f"; {(demo.err or demo.out).strip()[-300:]}"))
    # README: "The outputs are in runs/vizwiz_captions/: dataset.json and dataset.csv ..., answers.csv and
    # workers.csv ..., flags.csv, blocked_workers.csv and report.html"
    named = ["dataset.json", "dataset.csv", "answers.csv", "workers.csv", "flags.csv", "blocked_workers.csv",
             "report.html"]
    absent = [f for f in named if not (clone / "runs" / "vizwiz_captions" / f).is_file()]
    c.check("the demo's outputs the README names are there", not absent, f"missing: {absent}")
    (tmp / "project").mkdir()
    return Shell(tmp / "project", env, log)


def new_campaign(sh: Shell, name: str, c: Checks) -> Path:
    """``hitflow new NAME``, the page and its files written, the scaffold's keys set; preview; dry run."""
    made = sh.run("hitflow", "new", name)
    c.check(f"{name}: hitflow new", made.code == 0 and (sh.cwd / "config" / f"{name}.toml").is_file(), made.err.strip())
    write_sentiment(sh.cwd / "config", name)
    config = sh.cwd / "config" / f"{name}.toml"
    missing = edit_config(config, {**PAGE_KEYS, "controls": f'"{name}_controls.csv"'})
    c.check(f"{name}: the scaffold has every key the docs say to set", not missing, f"missing: {missing}")
    shown = sh.run("hitflow", "preview", f"config/{name}.toml")
    page = sh.cwd / "runs" / name / "preview.html"
    c.check(f"{name}: hitflow preview writes the page", shown.code == 0 and page.is_file() and
            "The kettle: Works perfectly" in page.read_text(encoding="utf-8"), (shown.out + shown.err).strip()[:200])
    dry = sh.run("hitflow", "run", f"config/{name}.toml", "--dry-run")
    short = re.search(r"SHORT by ([\d.]+) USD", dry.out)
    if short:  # the docs: raise the budget as you add items, the dry run says by how much
        estimate = float(re.search(r"campaign estimate ([\d.]+) USD", dry.out)[1])  # type: ignore[index]
        edit_config(config, {"budget": f'"{estimate * 1.2:.2f} USD"'})
        dry = sh.run("hitflow", "run", f"config/{name}.toml", "--dry-run")
    c.check(f"{name}: dry run passes" + (" once the budget is raised by what it said" if short else ""),
            dry.code == 0 and "control items:" in dry.out, f"exit {dry.code}; {dry.err.strip()[-200:]}")
    return config


def compare_views(sh: Shell, name: str, c: Checks, run_outputs: list[str], expect: int | None = None) -> None:
    """Every view's figure of what needs a person, side by side; all equal (and ``expect`` when given)."""
    figures: dict[str, int | None] = {"the run's lines": views.from_run_lines(*run_outputs)}
    text, data = sh.run("hitflow", "status", name), sh.run("hitflow", "status", name, "--json")
    c.check(f"{name}: hitflow status and status --json", text.code == 0 and data.code == 0, text.err + data.err)
    figures["status text"] = views.from_status_text(text.out)
    figures.update(views.from_status_json(data.out))
    report = sh.cwd / "runs" / name / "report.html"
    if report.is_file():
        figures["report"] = views.from_report(report)
    else:  # a run that stopped for a person has not written its report yet (it does when the campaign ends)
        print(f"      {name}: no report yet ({report.relative_to(sh.cwd)}): not compared", flush=True)
    with sh.background(["hitflow", "ui", "--port", str(free_port())], ready="token=") as lines:
        link = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=\S+", "".join(lines))
        c.check(f"{name}: hitflow ui starts and prints its link", link is not None, "".join(lines)[-300:])
        if link:
            with httpx.Client(base_url=link[1], timeout=300) as client:
                signed = client.get(link[0], follow_redirects=True)
                page = client.get(f"/report/{name}")
                ui = views.from_ui(client, name)
            c.check(f"{name}: ui overview, campaign page and review queue answer", signed.status_code == 200
                    and page.status_code == (200 if report.is_file() else 403) and ui["_queue_status"] == 200,
                    f"{signed.status_code}, {page.status_code}, {ui['_queue_status']}")
            figures.update({k: v for k, v in ui.items() if not k.startswith("_")})
    said = ", ".join(f"{k} {v}" for k, v in figures.items())
    agree = len(set(figures.values())) == 1 and None not in figures.values()
    c.check(f"{name}: every view agrees on what needs a person", agree and (expect is None or figures["status text"]
                                                                            == expect), said)


def part_cancel(sh: Shell, c: Checks) -> None:
    name = "reviews"
    new_campaign(sh, name, c)

    def mid_batch_1(line: str) -> bool:
        got = re.match(r"batch 1: (\d+)/(\d+) HITs complete", line)
        return bool(got) and 0 < int(got[1]) < int(got[2])  # type: ignore[index]

    run, at = sh.interrupted(["hitflow", "run", f"config/{name}.toml", "--no-prefect"], mid_batch_1)
    c.check(f"{name}: Ctrl-C mid batch 1 stops the run (exit 130) and names the command that resumes",
            run.code == 130 and bool(at) and "hitflow run" in run.err + run.out,
            f"stopped after {at!r}; exit {run.code}; {run.err.strip()[-200:]}")
    ledger = views.Ledger(sh.cwd / "runs" / "hitflow.db", name)
    before = ledger.posted()
    cancel = sh.run("hitflow", "cancel", name)
    c.check(f"{name}: hitflow cancel", cancel.code == 0 and ledger.status() == "cancelled",
            f"exit {cancel.code}, campaign {ledger.status()!r}; {(cancel.err or cancel.out).strip()[-300:]}")
    cancelled = ledger.posted()
    c.check(f"{name}: the cancel posts nothing", cancelled["create calls"] == before["create calls"],
            f"{before} -> {cancelled}")
    again = sh.run("hitflow", "run", f"config/{name}.toml", "--no-prefect")
    c.check(f"{name}: a run after the cancel is refused (exit 2) and posts nothing",
            again.code == 2 and ledger.posted() == cancelled, f"exit {again.code}: {again.err.strip()[-200:]}")
    state = re.search(r"state (\S+\.db)", run.out)
    if c.check(f"{name}: the run names its simulator's state file", state is not None):
        on_platform(sh, state[1], ledger, c)  # type: ignore[index]
    compare_views(sh, name, c, [run.out])


def on_platform(sh: Shell, state: str, ledger: views.Ledger, c: Checks) -> None:
    """The simulator on the state file the commands used: no HIT of the cancelled campaign open, every
    assignment decided, and a week later (its auto-approval delay is 3 days) no more work on it."""
    port = free_port()
    with sh.background(["hitflow", "sim", "serve", "--port", str(port), "--state", state, "--speed", "0"],
                       ready="Ctrl-C stops it") as lines:
        url = f"http://127.0.0.1:{port}"
        if not c.check(f"{ledger.campaign}: hitflow sim serve on the run's state", "Ctrl-C stops it" in "".join(lines),
                       "".join(lines)[-300:]):
            return
        hits = list(ledger.hit_items())
        now = views.platform_work(url, hits)
        still_open = {h: s for h, s in now["hits"].items() if s in OPEN_HIT}
        c.check(f"{ledger.campaign}: no HIT open on the platform after the cancel", not still_open,
                f"{len(hits)} HIT(s): {sorted(set(now['hits'].values()))}")
        statuses = {s for _, s in now["assignments"].values()}
        c.check(f"{ledger.campaign}: every assignment on the platform decided by the cancel",
                statuses <= {"Approved", "Rejected"}, f"{len(now['assignments'])} assignment(s): {sorted(statuses)}")
        views.advance_clock(url, 7 * 86400)
        later = views.platform_work(url, hits)
        c.check(f"{ledger.campaign}: a week later nothing more was worked", set(later["assignments"]) ==
                set(now["assignments"]), f"{len(now['assignments'])} -> {len(later['assignments'])} assignment(s)")


def part_pilot(sh: Shell, c: Checks) -> None:
    name = "sentiment"
    new_campaign(sh, name, c)
    pilot = sh.run("hitflow", "run", f"config/{name}.toml", "--no-prefect", "--limit", "20")
    said = re.search(r"plan: 20 item\(s\) in \d+ batch\(es\); (\d+) control item\(s\)", pilot.out)
    c.check(f"{name}: pilot --limit 20, its control items counted", pilot.code == 0 and said is not None,
            f"exit {pilot.code}; {(pilot.err or '').strip()[-200:]}")
    dry = sh.run("hitflow", "run", f"config/{name}.toml", "--dry-run")
    estimate = re.search(r"campaign estimate ([\d.]+) USD", dry.out)
    c.check(f"{name}: the dry run after the pilot says the ledger holds its plan", dry.code == 0 and estimate
            is not None and "already holds sentiment's plan" in dry.out, f"exit {dry.code}; {dry.err.strip()[-200:]}")
    if estimate:  # docs/how-to/resume-reconcile-cancel.md: leave the budget room for the grown plan's pages
        edit_config(sh.cwd / "config" / f"{name}.toml", {"budget": f'"{float(estimate[1]) * 1.25:.2f} USD"'})
    full = sh.run("hitflow", "run", f"config/{name}.toml", "--no-prefect")
    c.check(f"{name}: the full run grows the pilot by 49 items", full.code == 0 and
            "grows by 49 item(s) after its 20 planned ones" in full.out, f"exit {full.code}; {full.err.strip()[-300:]}")
    ledger = views.Ledger(sh.cwd / "runs" / "hitflow.db", name)
    paid_once(sh, ledger, c, re.findall(r"state (\S+\.db)", full.out)[0])
    answers = sh.cwd / "runs" / name / "answers.csv"
    rows = answers.read_text(encoding="utf-8").splitlines()[1:] if answers.is_file() else []
    c.check(f"{name}: answers.csv has one answer per item", len(rows) == 69, f"{len(rows)} row(s)")
    compare_views(sh, name, c, [pilot.out, full.out], expect=0)


def paid_once(sh: Shell, ledger: views.Ledger, c: Checks, state: str) -> None:
    """Each item in ``OVERLAP`` assignments (none twice), one approve or reject call per assignment, and the
    platform's own statuses the same."""
    items = ledger.hit_items()
    work = {r["assignment_id"]: r["hit_id"] for r in ledger.rows(
        "SELECT assignment_id, hit_id FROM assignments WHERE campaign = ? AND batch > 0")}
    per_item = {i: 0 for ids in items.values() for i in ids}
    for hit in work.values():
        for i in items[hit]:
            per_item[i] += 1
    c.check(f"{ledger.campaign}: every item worked {OVERLAP} times (pilot items not posted again)",
            len(per_item) >= 69 and set(per_item.values()) == {OVERLAP},
            f"{len(per_item)} items incl. controls; times worked: {sorted(set(per_item.values()))}")
    sent = ledger.verdicts_sent()
    c.check(f"{ledger.campaign}: one approve or reject call per assignment", set(sent) == set(work)
            and set(sent.values()) == {1}, f"{len(work)} assignments, {sum(sent.values())} calls")
    with sh.background(["hitflow", "sim", "serve", "--port", str(port := free_port()), "--state", state,
                        "--speed", "0"], ready="Ctrl-C stops it"):
        seen = views.platform_work(f"http://127.0.0.1:{port}", list(items))["assignments"]
    paid = {i: 0 for i in per_item}
    for hit, status in seen.values():
        for i in items[hit] if status in ("Approved", "Rejected") else []:
            paid[i] += 1
    c.check(f"{ledger.campaign}: on the platform every item's work decided {OVERLAP} times, nothing else pending",
            set(paid.values()) == {OVERLAP} and set(seen) == set(work), f"{len(seen)} assignment(s) on the platform")


def part_review(sh: Shell, c: Checks) -> None:
    """docs/how-to/review.md on the newcomer's page: batch 1 waits for a person; every view counts the same."""
    name = "triage"
    config = new_campaign(sh, name, c)
    text = config.read_text(encoding="utf-8").replace("[policy]\n", '[policy]\nreview = "flagged"\n', 1)
    config.write_text(text, encoding="utf-8")
    port = free_port()
    with sh.background(["hitflow", "sim", "serve", "--port", str(port), "--state", "runs/sim/served.db"],
                       ready="Ctrl-C stops it"):
        run = sh.run("hitflow", "run", f"config/{name}.toml", "--no-prefect", "--limit", "10",
                     "--endpoint-url", f"http://127.0.0.1:{port}")
        c.check(f"{name}: batch 1 waits for review (exit 0, names hitflow review)", run.code == 0 and
                "hitflow review" in run.out + run.err, f"exit {run.code}; {(run.out + run.err).strip()[-300:]}")
        compare_views(sh, name, c, [run.out + run.err])  # the line saying it waits is on stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", default=os.environ.get("NEWCOMER_VENV", ""),
                        help="reuse this built venv (default $NEWCOMER_VENV; unset: make builds .venv)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and its log")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="hitflow-newcomer-"))
    log, c, started = tmp / "newcomer.log", Checks(), time.perf_counter()
    parts: list[tuple[str, Callable[[Shell, Checks], None]]] = [
        ("cancel", part_cancel), ("pilot", part_pilot), ("review", part_review)]
    try:
        sh = setup(tmp, args.venv, c, log)
        for part, step in parts:
            try:
                step(sh, c)
            except Exception as exc:  # one part's surprise is its FAIL; the others still run
                c.check(f"{part}: ended early", False, f"{type(exc).__name__}: {exc}")
    finally:
        kept = f"; kept {tmp} (log {log})" if args.keep else ""
        if not args.keep:
            shutil.copyfile(log, Path(tempfile.gettempdir()) / "hitflow-newcomer-last.log") if log.is_file() else None
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(c.results) - len(c.failed)} passed, {len(c.failed)} failed in {time.perf_counter() - started:.0f} s"
          + (kept or f"; commands and output: {Path(tempfile.gettempdir()) / 'hitflow-newcomer-last.log'}"))
    for name in c.failed:
        print(f"FAILED: {name}")
    return 1 if c.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

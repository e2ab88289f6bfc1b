"""A newcomer's own pages, end to end (own-task work's first and third done-when lines), as a script a person can run.

From an empty folder with this checkout's ``.venv`` on the PATH, with the docs (docs/importing_pages.md,
docs/how-to/review.md, control-items.md, scheduled-batches.md, docs/tutorials/prolific.md):

1. Two pages written in MTurk's requester-UI style: "rate this caption 1-5 and say why" (a choice and a
   required reason) and a product review's sentiment (a choice and an optional comment); each imported with
   ``hitflow new NAME --from PAGE --items CSV``, control items and ``[policy] review = "flagged"`` set.
2. Each page on the MTurk simulator and on the Prolific simulator (a served simulator, ``--endpoint-url``):
   the dry runs (the Prolific plan's reward and minutes from the page), then the run; each time a batch
   waits for review, the printed ``hitflow review`` command is run, every card is read against the ledger
   (the worker's answers, field by field) and a person clears the queue through the page's own forms
   (one flagged assignment rejected against the rules' advice); the server stopped; the run again.
3. Each campaign's ``hitflow status`` (text, ``--json``), ``hitflow ui`` and report.html in the route's
   words (no HIT or assignment on Prolific), decision counts compared between the run's lines, status and
   the queue, what needs a person compared across every view (bench/newcomer.compare_views), and
   ``hitflow aggregate runs/NAME/dataset.csv --field F`` against the campaign's answers.csv on every item.
4. The sentiment page on Prolific on a schedule: a Prefect server (``prefect server start``), ``hitflow
   deploy --platform prolific``, and exactly the ``hitflow serve-schedules`` command it printed, run until
   the campaign is done (then stopped); the deployment's name and the status words checked.

Prints PASS/FAIL per check; exits 1 on any FAIL. Run: ``make bench-newcomer-own-pages``
(``python -m bench.newcomer_own_pages``); ``NEWCOMER_VENV=/path/.venv`` (or ``--venv``) chooses the venv
(default this checkout's ``.venv``); ``--keep`` leaves the folder and its log; ``--no-schedule`` skips step 4."""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shlex
import shutil
import tempfile
import time
from pathlib import Path

import httpx

from bench import newcomer_own_kit as own
from bench.newcomer import compare_views, free_port
from bench.newcomer_kit import Checks, Shell, edit_config

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"batches": "2", "assignments_per_image": "3", "control_share": "0.2"}


def import_page(sh: Shell, name: str, kind: str, c: Checks, extra: dict[str, str] | None = None) -> Path:
    """``hitflow new NAME --from PAGE --items CSV``; controls and review on; the budget raised as the dry run says."""
    page, items, controls = own.write_page(sh.cwd, kind)
    made = sh.run("hitflow", "new", name, "--from", page.name, "--items", items.name)
    config = sh.cwd / "config" / f"{name}.toml"
    c.check(f"{name}: hitflow new --from {page.name} --items {items.name}", made.code == 0 and config.is_file(),
            "" if made.code == 0 else (made.err or made.out).strip()[-200:])
    shutil.copyfile(controls, sh.cwd / "config" / f"{name}_controls.csv")
    missing = edit_config(config, {**KEYS, "controls": f'"{name}_controls.csv"', **(extra or {})})
    text = config.read_text(encoding="utf-8").replace("[policy]\n", '[policy]\nreview = "flagged"\n', 1)
    config.write_text(text, encoding="utf-8")
    c.check(f"{name}: the scaffold has the keys the docs say to set", not missing, f"missing: {missing}")
    for platform in ("mturk", "prolific"):  # the docs: raise the budget as the dry run says
        dry = sh.run("hitflow", "run", f"config/{name}.toml", "--dry-run", "--platform", platform)
        if short := re.search(r"SHORT by ([\d.]+) USD", dry.out):
            budget = float(re.search(r'(?m)^budget = "([\d.]+) USD"', config.read_text())[1])  # type: ignore[index]
            edit_config(config, {"budget": f'"{budget + float(short[1]) + 5:.2f} USD"'})
    return config


def dry_runs(sh: Shell, name: str, c: Checks) -> None:
    mturk = sh.run("hitflow", "run", f"config/{name}.toml", "--dry-run")
    prolific = sh.run("hitflow", "run", f"config/{name}.toml", "--dry-run", "--platform", "prolific")
    c.check(f"{name}: both dry runs pass with the control items counted", mturk.code == prolific.code == 0 and
            "control items:" in mturk.out and "control items:" in prolific.out, f"exit {mturk.code}, {prolific.code}"
            + ("" if mturk.code == prolific.code == 0 else f"; {(mturk.err + prolific.err).strip()[-300:]}"))
    plan = re.search(r"Prolific: reward ([\d.]+) GBP \(([^)]*)\), estimated (\d+) min \(([^)]*)\), maximum (\d+) min "
                     r"\(([^)]*)\)", prolific.out)
    studies = re.findall(r"reward=([\d.]+) GBP \([\d.]+ GBP/hour on (\d+) min, max (\d+) min\)", prolific.out)
    c.check(f"{name}: the Prolific plan comes from the page (not the demo's 0.90 GBP on 6 min)", plan is not None
            and {plan[2], plan[4], plan[6]} == {"from the page"} and bool(studies) and all(
                s == (plan[1], plan[3], plan[5]) for s in studies) and (plan[1], plan[3]) != ("0.90", "6"),
            plan[0] if plan else prolific.out.strip()[-300:])


def run_with_review(sh: Shell, name: str, platform: str, endpoint: str, c: Checks) -> list[str]:
    """The run, and after each stop for review the printed command, the cards, a person's pass; the run's
    outputs (stdout and stderr of each)."""
    outputs, clicked, kept, cards_ok = [], set(), 0, []  # type: ignore[var-annotated]
    ledger = sh.cwd / "runs" / "hitflow.db"
    field = "rating" if "rat" in name else "sentiment"
    for _ in range(6):
        run = sh.run("hitflow", "run", f"config/{name}.toml", "--no-prefect", "--platform", platform,
                     "--endpoint-url", endpoint)
        outputs.append(run.out + run.err)
        waits = re.search(r"`(hitflow review [^`]+)`", run.err)
        if run.code != 0 or not waits:
            c.check(f"{name} ({platform}): the run ends (exit 0) after {len(outputs) - 1} review(s)", run.code == 0
                    and len(outputs) > 1, f"exit {run.code}; {(run.err or run.out).strip()[-300:]}")
            break
        if len(outputs) == 1:  # while batch 1 waits: every view counts what the run said is open
            open_now = re.search(r"waits for review \((\d+) item\(s\) open\)", run.err)
            compare_views(sh, name, c, outputs, expect=int(open_now[1]) if open_now else -1)
        with sh.background([*shlex.split(waits[1]), "--reviewer", "newcomer"], ready="token=") as lines:
            link = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", "".join(lines))
            if not c.check(f"{name} ({platform}): `{waits[1]}` as printed serves the review page", link is not None,
                           "" if link else "".join(lines)[-300:]):
                break
            web = own.sign_in(link[0])  # type: ignore[index]
            try:
                cards_ok.append(own.cards_show_answers(own.every_card(web), ledger, name, field))
                done = own.decide_queue(web, clicked)
            finally:
                web.close()
            kept += done.get("keep", 0)
            print(f"      {name}: a person decided {done}", flush=True)
    ok = [good for good, _ in cards_ok]
    c.check(f"{name} ({platform}): every review card shows the worker's answers, as the ledger holds them",
            bool(ok) and all(ok), "; ".join(detail for _, detail in cards_ok))
    agree_on_decisions(sh, name, outputs, clicked, kept, c)
    return outputs


def agree_on_decisions(sh: Shell, name: str, outputs: list[str], clicked: set[tuple[str, str]], kept: int,
                       c: Checks) -> None:
    """Items a person decided: the run's lines, ``status``, ``status --json``, the report and the ui's queue agree;
    and they are the person's clicks plus the later cards of a worker they kept (the keep spares them after)."""
    said = [int(n) for out in outputs for n in re.findall(r"(\d+) item\(s\) decided by a person", out)]
    text = sh.run("hitflow", "status", name).out
    in_text = re.search(r"decided by people: ([^\n]*)", text)
    data = sh.run("hitflow", "status", name, "--json").out
    review = json.loads(data)[0]["review"] if data.strip().startswith("[") else {}
    with sh.background(["hitflow", "ui", "--port", str(free_port())], ready="token=") as lines:
        link = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=\S+", "".join(lines))
        with httpx.Client(base_url=link[1] if link else "http://127.0.0.1:9", timeout=300,
                          follow_redirects=True) as web:
            web.get(link[0]) if link else None
            cards = own.every_card(web, f"/review/{name}/") if link else []
    in_queue, unclicked = own.decided_by_a_person(cards, clicked)
    figures = {"the run's lines": sum(said) if said else None,
               "status text": sum(int(n) for n in re.findall(r"(\d+) item\(s\)", in_text[1])) if in_text else None,
               "status --json items": sum(review.get("items_decided_by_people", {}).values()) or None,
               "report's People and the rules": own.reviewed_in_report(sh.cwd / "runs" / name / "report.html"),
               "ui queue's cards decided by a person": in_queue}
    c.check(f"{name}: items decided by a person agree (the run, status, report, the ui's queue)",
            len(set(figures.values())) == 1, ", ".join(f"{k} {v}" for k, v in figures.items())
            + (f"; status: {in_text[0]}" if in_text else ""))
    spared = [u for u in unclicked if u.endswith(": keep") and " w:" in u]
    c.check(f"{name}: those items are the person's clicks ({len(clicked)}) and the later cards of a worker they kept",
            in_queue == len(clicked) + len(spared) and len(spared) == len(unclicked),
            f"{in_queue} in the queue; not clicked: {unclicked}")
    if kept:
        c.check(f"{name}: the person's \"keep worker\" is recorded as keep (status text and --json)", bool(in_text)
                and "keep" in in_text[0] and "unblock" not in in_text[0] + json.dumps(review.get(
                    "decided_by_people", {})), in_text[0] if in_text else text[-200:])


def views_in_words(sh: Shell, name: str, platform: str, c: Checks) -> None:
    """status, ui (the campaign's part of the overview) and report.html in the route's words."""
    texts = {"status": sh.run("hitflow", "status", name).out}
    report = sh.cwd / "runs" / name / "report.html"
    texts["report"] = report.read_text(encoding="utf-8") if report.is_file() else ""
    with sh.background(["hitflow", "ui", "--port", str(free_port())], ready="token=") as lines:
        link = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=\S+", "".join(lines))
        with httpx.Client(base_url=link[1] if link else "http://127.0.0.1:9", timeout=300,
                          follow_redirects=True) as web:
            texts["ui"] = own.ui_section(web.get(link[0]).text, name) if link else ""
            texts["ui's review queue"] = web.get(f"/review/{name}/", params={"show": "all"}).text if link else ""
    for view, text in texts.items():
        ok, detail = own.route_words(text, platform, every=view in ("status", "ui"))
        c.check(f"{name} ({platform}): {view} in the route's words", bool(text) and ok, detail)


def answers_from_aggregate(sh: Shell, name: str, fields: tuple[str, ...], c: Checks) -> None:
    """``hitflow aggregate runs/NAME/dataset.csv --field F`` equals answers.csv's rows of F on every item."""
    def read(path: Path, field: str) -> dict[str, tuple[str, str]]:
        with path.open(encoding="utf-8", newline="") as f:
            return {r["item_id"]: (r["label"], r["confidence"]) for r in csv.DictReader(f) if r["field"] == field}

    answers = sh.cwd / "runs" / name / "answers.csv"
    for field in fields:
        out = sh.cwd / f"aggregate_{name}_{field}.csv"
        done = sh.run("hitflow", "aggregate", f"runs/{name}/dataset.csv", "--field", field, "--out", out.name)
        if field != fields[0] and done.code != 0:  # a free-text field has no answers: said in one line
            c.check(f"{name}: aggregate --field {field} (free text) refused in one line", done.code == 2 and
                    len(done.err.strip().splitlines()) == 1, done.err.strip()[-200:])
            continue
        mine = read(out, field) if done.code == 0 and out.is_file() else {}
        theirs = read(answers, field) if answers.is_file() else {}
        differ = [i for i in set(mine) | set(theirs) if mine.get(i) != theirs.get(i)]
        c.check(f"{name}: aggregate dataset.csv --field {field} equals answers.csv on every item",
                bool(theirs) and not differ, f"exit {done.code}; {len(mine)} vs {len(theirs)} item(s); differ on "
                f"{len(differ)}: {differ[:3]} {done.err.strip()[-200:]}")


def campaign(sh: Shell, name: str, kind: str, platform: str, endpoint: str, c: Checks) -> None:
    import_page(sh, name, kind, c)
    dry_runs(sh, name, c)
    outputs = run_with_review(sh, name, platform, endpoint, c)
    views_in_words(sh, name, platform, c)
    compare_views(sh, name, c, outputs, expect=0)
    answers_from_aggregate(sh, name, own.PAGES[kind][2], c)


def scheduled(sh: Shell, endpoint: str, c: Checks) -> None:
    """A Prefect server, ``hitflow deploy --platform prolific``, exactly the printed serve command until done; each
    time a batch waits for review (its flow run paused), the review command the run printed, a person's pass."""
    name = "reviews_scheduled"
    config = import_page(sh, name, "sentiment", c)
    config.write_text(config.read_text(encoding="utf-8") + "\n[schedule]\ninterval_s = 10\n", encoding="utf-8")
    port = str(free_port())
    env = {**sh.env, "PREFECT_HOME": str(sh.cwd / "prefect-home"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false", "PREFECT_SERVER_API_PORT": port,
           "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}
    shp = Shell(sh.cwd, env, sh.log)
    with shp.background(["prefect", "server", "start", "--port", port], ready="Uvicorn running", timeout=300):
        deploy = shp.run("hitflow", "deploy", f"config/{name}.toml", "--platform", "prolific", "--endpoint-url",
                         endpoint, timeout=600)
        named = f"hitflow-next-batch/{name}"
        command = re.search(r"`(hitflow serve-schedules [^`]+)`", deploy.out + deploy.err)
        c.check(f"{name}: hitflow deploy names the deployment for the campaign ({named})", deploy.code == 0 and
                named in deploy.out, (deploy.out + deploy.err).strip()[-400:])
        c.check(f"{name}: the printed serve command keeps the platform", command is not None and
                "--platform prolific" in command[1], command[1] if command else "no `hitflow serve-schedules` line")
        if command is None:
            return
        started, finished, output, reviews, kept = time.perf_counter(), "", "", 0, 0
        clicked: set[tuple[str, str]] = set()
        with shp.background(shlex.split(command[1]), ready="", timeout=5) as served:
            while time.perf_counter() - started < 900 and not finished:
                time.sleep(10)
                state = json.loads(shp.run("hitflow", "status", name, "--json").out or "[{}]")[0]
                if state.get("review", {}).get("open"):
                    printed = re.findall(r"`(hitflow review [^`]+)`", "".join(served))
                    done = review_on_schedule(shp, name, printed[-1] if printed else "", clicked, c)
                    reviews, kept = reviews + 1, kept + done.get("keep", 0)
                elif state.get("status") == "done":
                    finished = shp.run("hitflow", "status", name).out
            output = "".join(served)  # the flow runs' lines, as the serve command printed them
        c.check(f"{name}: the printed serve command runs the campaign to its end ({reviews} review(s) on the way)",
                bool(finished) and reviews > 0, f"{time.perf_counter() - started:.0f} s; "
                f"{shp.run('hitflow', 'status', name).out.strip()[:300]}")
        c.check(f"{name}: status says the scheduled campaign is done, not waiting for a next run", "(done)" in
                finished and "next scheduled run" not in finished, finished.strip()[:200])
        agree_on_decisions(shp, name, [output], clicked, kept, c)
        views_in_words(shp, name, "prolific", c)


def review_on_schedule(sh: Shell, name: str, printed: str, clicked: set[tuple[str, str]],
                       c: Checks) -> dict[str, int]:
    """The review command the paused run printed (in the serve command's output), the cards, a person's pass."""
    c.check(f"{name}: the paused run's output names the review command", bool(printed),
            printed or f"none printed: ran `hitflow review {name} --db runs/hitflow.db`")
    command = shlex.split(printed) if printed else ["hitflow", "review", name, "--db", "runs/hitflow.db"]
    with sh.background([*command, "--reviewer", "newcomer"], ready="token=") as lines:
        link = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", "".join(lines))
        if not c.check(f"{name}: the review page starts beside the paused run", link is not None,
                       "".join(lines)[-300:]):
            return {}
        web = own.sign_in(link[0])  # type: ignore[index]
        try:
            ok, detail = own.cards_show_answers(own.every_card(web), sh.cwd / "runs" / "hitflow.db", name, "sentiment")
            c.check(f"{name}: every review card of the scheduled batch shows the worker's answers", ok, detail)
            done = own.decide_queue(web, clicked)
        finally:
            web.close()
    print(f"      {name}: a person decided {done}", flush=True)
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", default=os.environ.get("NEWCOMER_VENV", str(ROOT / ".venv")))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and its log")
    parser.add_argument("--no-schedule", action="store_true", help="skip the Prefect server and the schedule")
    parser.add_argument("--only", choices=["rating_mturk", "sentiment_mturk", "rating_prolific", "sentiment_prolific",
                                           "schedule"], action="append", default=[], help="run these parts alone")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="hitflow-own-pages-"))
    log, c, started = tmp / "own-pages.log", Checks(), time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "HITFLOW_DB", "HITFLOW_OUT",
                                                            "PREFECT_API_URL")}
    venv = Path(args.venv).resolve()
    env.update(PATH=f"{venv / 'bin'}:{env['PATH']}", VIRTUAL_ENV=str(venv), PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT))
    (tmp / "project").mkdir()
    sh = Shell(tmp / "project", env, log)
    print(f"{ROOT} with {venv}, in {sh.cwd}", flush=True)
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    parts = [("rating_mturk", "rating", "mturk"), ("sentiment_mturk", "sentiment", "mturk"),
             ("rating_prolific", "rating", "prolific"), ("sentiment_prolific", "sentiment", "prolific")]
    try:
        with sh.background(["hitflow", "sim", "serve", "--port", str(port), "--state", "runs/sim/served.db"],
                           ready="Ctrl-C stops it"):
            for name, kind, platform in [p for p in parts if not args.only or p[0] in args.only]:
                try:
                    campaign(sh, name, kind, platform, endpoint, c)
                except Exception as exc:  # one part's surprise is its FAIL; the others still run
                    c.check(f"{name}: ended early", False, f"{type(exc).__name__}: {exc}")
            if not args.no_schedule and (not args.only or "schedule" in args.only):
                try:
                    scheduled(sh, endpoint, c)
                except Exception as exc:
                    c.check("schedule: ended early", False, f"{type(exc).__name__}: {exc}")
    finally:
        kept = Path(tempfile.gettempdir()) / "hitflow-own-pages-last.log"
        if log.is_file():
            shutil.copyfile(log, kept)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(c.results) - len(c.failed)} passed, {len(c.failed)} failed in {time.perf_counter() - started:.0f} s; "
          + (f"kept {tmp}" if args.keep else f"commands and output: {kept}"))
    for failed in c.failed:
        print(f"FAILED: {failed}")
    return 1 if c.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Server CPU time of the `hitflow ui` pages people wait on (at most 1 s each on a
40,000-image ledger, first load and reload): the overview (``/``, loaded again by the page every 5 s while a
run goes on), its data (``/status.json``), and per campaign its report (``/report/NAME``), its review queue
(``/review/NAME/``: the first page of cards; its first load builds the queue), the queue's last page and one
worker's cards (``?worker=W``, the first card's worker). The review pages read the ledger alone: the
campaign's platform (an embedded simulator, whose reopening replays its whole marketplace) is opened only
when a decision is sent, which the bench does not do. The server is `hitflow ui`'s own
(flows/review/overview_app.py) on a thread of this process, so the CPU (user + system of the process,
``resource.getrusage``) around one request is the server's, plus a few ms of the HTTP client's. Each page is
asked ``--repeat`` times after its first load; the median is shown beside the first load. The ledger's size
and the host's load average (before and after) are printed with the figures.

Run: ``make bench-ui-pages LEDGER=path/to/ledger.db`` (``python -m bench.ui_pages --db PATH``). The ledger's
campaigns are read as `hitflow ui` reads them, from the folder the run was started in (``--cwd``, by
default the ledger's folder's parent, where a relative ``config_path`` and ``runs/`` are found). The
ledger is not written to (a copy is made first unless ``--in-place``). A 40,000-image ledger is made by
``hitflow run config/vizwiz_full_scale.toml --no-prefect --db X`` (about 15 minutes on a quiet 2-core
machine; 39,181 images); without ``LEDGER`` the bench makes a 10-image campaign's ledger (seconds), which
shows the pages work but not their speed at scale.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0


def cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


@contextlib.contextmanager
def overview_server(db: Path) -> Iterator[tuple[httpx.Client, list[str]]]:
    """`hitflow ui`'s server on ``db`` (as flows/cli/ui_command.py builds it), signed in, and its campaigns."""
    from flows.core.ledger.store import Store
    from flows.driver.campaign_status import campaign_status
    from flows.driver.operations import ledger_run, open_campaign_run
    from flows.review.overview_app import OverviewServer, OverviewSite

    site = OverviewSite(db_path=db, out_root="runs", read_status=campaign_status, reviewer="bench",
                        open_run=lambda name: open_campaign_run(str(db), name, progress=lambda _: None),
                        read_run=lambda name: ledger_run(str(db), name))
    names = [r["name"] for r in Store(db).rows("SELECT name FROM campaigns ORDER BY name")]
    with site.opened, OverviewServer(site) as server, httpx.Client(base_url=server.url, timeout=600) as client:
        signed = client.get(f"/?token={site.login_token}", follow_redirects=False)
        if signed.status_code != 303:
            raise SystemExit(f"could not sign in to the overview: {signed.status_code} {signed.text[:200]}")
        yield client, names


def timed(client: httpx.Client, path: str) -> tuple[float, str]:
    before = cpu()
    reply = client.get(path)
    used = cpu() - before
    if reply.status_code != 200:
        raise SystemExit(f"{path} answered {reply.status_code}: {reply.text[:300]}")
    return used, reply.text


def one_page(client: httpx.Client, path: str, repeat: int) -> tuple[bool, str]:
    """Print the page's first load and the median of ``repeat`` reloads; (over the target?, the page)."""
    try:
        first, text = timed(client, path)
    except httpx.TimeoutException:  # said, and the other pages still measured
        print(f"{path:<52} no answer in {client.timeout.read:.0f} s (wall)  OVER the {TARGET_S} s target", flush=True)
        return True, ""
    runs = [timed(client, path)[0] for _ in range(repeat)]
    median = statistics.median(runs) if runs else first
    over = max(first, median) > TARGET_S
    print(f"{path:<52} {first:6.2f} {median:7.2f}   ({', '.join(f'{r:.2f}' for r in runs)})  "
          f"{f'OVER the {TARGET_S} s target' if over else 'ok'}", flush=True)
    return over, text


def review_pages(name: str, queue: str) -> list[str]:
    """A campaign's queue's last page and the first card's worker's cards, from its first page."""
    base = f"/review/{quote(name, safe='')}/"
    last = re.search(r"\(page \d+ of (\d+)\)", queue)
    worker = re.search(r'<code class="worker">([^<]+)</code>', queue)
    return ([f"{base}?page={last[1]}"] if last else []) + ([f"{base}?worker={quote(worker[1])}"] if worker else [])


def measure(db: Path, repeat: int, review: bool = True) -> int:
    from flows.core.outputs.output_mirror import has_output

    over = 0
    with overview_server(db) as (client, names):
        print(f"{'page':<52} {'first':>6} {'reload':>7}   (each reload; CPU s)", flush=True)
        for path in ["/", "/status.json"]:
            over += one_page(client, path, repeat)[0]
        for name in names:
            if has_output("runs", name, "report.html"):  # the overview's out_root (overview_server)
                over += one_page(client, f"/report/{name}", repeat)[0]
            if not review:
                continue
            late, queue = one_page(client, f"/review/{quote(name, safe='')}/", repeat)
            over += late
            for path in review_pages(name, queue):
                over += one_page(client, path, repeat)[0]
    return over


def ledger_size(db: Path) -> str:
    from flows.core.ledger.store import Store

    store = Store(db)
    counts = {t: store.rows(f"SELECT count(*) AS n FROM {t}")[0]["n"] for t in ("campaigns", "items", "assignments")}
    return (f"{counts['campaigns']} campaign(s), {counts['items']:,} images, {counts['assignments']:,} assignments, "
            f"{db.stat().st_size / 1e6:,.0f} MB")


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def private_copy(ledger: Path, folder: Path) -> Path:
    """A copy of the ledger and of each embedded simulator's state file it names (absolute paths: a decision
    sent from the review page would open the campaign's simulator, which writes to its file), the copy
    pointing at them."""
    from flows.core.ledger.store import Store

    db = folder / ledger.name
    shutil.copyfile(ledger, db)
    store = Store(db)
    for row in store.rows("SELECT name, config_json FROM campaigns"):
        info = json.loads(row["config_json"] or "{}")
        if info.get("sim_state") and Path(info["sim_state"]).is_file():
            copy = folder / f"sim-{len(list(folder.glob('sim-*')))}-{Path(info['sim_state']).name}"
            shutil.copyfile(info["sim_state"], copy)
            store.execute("UPDATE campaigns SET config_json = ? WHERE name = ?",
                          [json.dumps({**info, "sim_state": str(copy)}), row["name"]])
    store.close()
    return db


def small_ledger(folder: Path) -> Path:
    db = folder / "runs" / "h.db"
    subprocess.run([sys.executable, "-m", "flows.cli", "run", str(ROOT / "config" / "vizwiz_captions.toml"),
                    "--no-prefect", "--limit", "10", "--db", str(db), "--out", str(folder / "runs")],
                   cwd=folder, check=True, capture_output=True)
    return db


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="the ledger (default: a 10-image campaign's, made first)")
    parser.add_argument("--cwd", type=Path, help="where its run was started (default: the ledger's folder's parent)")
    parser.add_argument("--repeat", type=int, default=3, help="loads of each page after the first")
    parser.add_argument("--no-review", action="store_true", help="leave out the review pages")
    parser.add_argument("--in-place", action="store_true", help="read the ledger where it is (no copy)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hitflow-ui-pages-") as tmp:
        if args.db is None:
            db, cwd = small_ledger(Path(tmp)), Path(tmp)
        else:
            cwd = (args.cwd or args.db.resolve().parent.parent).resolve()
            db = args.db.resolve()
            if not args.in_place:  # opening a ledger may migrate it; the bench leaves the original as it was
                db = private_copy(args.db, Path(tmp))
        os.chdir(cwd)
        started = time.perf_counter()
        print(f"ledger {args.db or db} (read in {cwd}): {ledger_size(db)}", flush=True)
        print(f"server CPU per page, target {TARGET_S} s; {load()}", flush=True)
        over = measure(db, args.repeat, not args.no_review)
        print(f"({time.perf_counter() - started:.0f} s wall in all; {load()})")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""CPU a run pays again and again (suite CPU): the CLI's parser (built per ``main()``), the
crowd's caption bank (read per simulator), the telemetry placement on every rendered page, an image URL's
check, and the simulator's clock call; each timed the old way against the new in one process, with the
load average. Target: each at least 2x cheaper (min of 5 repeats; CPU of the process, so the simulator's
threads count for the clock); a row marked * (a page whose text field must still be parsed to) only no
slower than before (within 10%). Run: ``make bench-per-run-cpu`` (``python -m bench.per_run_cpu``); the
Flickr8k bank row needs ../shared/data/flickr8k-text.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from flows.cli import parser as cli_parser
from flows.core.pages import page_telemetry
from flows.core.pages.templates import allowed_url, render, safe_url, sample_context, task_templates
from flows.core.run.run_context import Target
from flows.platforms.clock_line import _through_urllib
from flows.platforms.targets import advance_sim_clock
from flows.sim.people import crowd
from flows.sim.service.server import SimServer
from tests.test_page_telemetry_same import _old_with_telemetry

ROOT = Path(__file__).resolve().parents[1]
FLICKR_BANK = ROOT.parent / "shared" / "data" / "flickr8k-text" / "Flickr8k.token.txt"
DEMO_BANK = ROOT / "config" / "items" / "vizwiz_demo_captions.csv"
TARGET = 2.0


def cpu_ms(call: Callable[[], object], number: int) -> float:
    """Process CPU of one call in ms: the least of 5 rounds of ``number`` calls."""
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(number):
            call()
        best = min(best, (time.process_time() - start) / number * 1000)
    return best


def _fresh_bank(path: Path) -> Callable[[], object]:
    def load() -> object:
        crowd._KEPT_BANKS.clear()
        return crowd.load_bank(path)
    return load


def rows() -> list[tuple[str, Callable[[], object], Callable[[], object], int]]:
    argv = ["run", "config/vizwiz_captions.toml", "--limit", "10"]
    pages = [render(f"{t}.html.j2", sample_context(t)) for t in task_templates()]
    urls = [f"https://example.org/images/{i}.jpg" for i in range(200)]
    radios = "".join(f"<label><input type='radio' name='q{i}' value='{v}'>{v}</label>" for i in range(30) for v in "ab")
    mixed = f"<html><body><form>{radios}<textarea name='c'></textarea></form></body></html>"
    out = [("CLI parse (per main())", lambda: cli_parser._built_parser.__wrapped__("u").parse_args(argv),
            lambda: cli_parser._parser().parse_args(argv), 50),
           ("caption bank, VizWiz demo CSV", _fresh_bank(DEMO_BANK), lambda: crowd.load_bank(DEMO_BANK), 20),
           ("telemetry on every built-in page", lambda: [_old_with_telemetry(p, "n") for p in pages],
            lambda: [page_telemetry.with_telemetry(p, "n") for p in pages], 10),
           ("telemetry, 60 radios then a text area*", lambda: _old_with_telemetry(mixed, "n"),
            lambda: page_telemetry.with_telemetry(mixed, "n"), 20),
           ("safe_url, 200 image URLs", lambda: [u if allowed_url(u) else "" for u in urls],
            lambda: [safe_url(u) for u in urls], 20)]
    if FLICKR_BANK.is_file():
        out.insert(2, ("caption bank, Flickr8k tokens", _fresh_bank(FLICKR_BANK),
                       lambda: crowd.load_bank(FLICKR_BANK), 3))
    return out


def main() -> int:
    print(f"load average {os.getloadavg()[0]:.2f}; ms of CPU per call, least of 5 rounds")
    failed = 0
    with SimServer(seed=1) as sim:
        body = json.dumps({"advance_seconds": 0}).encode()
        clock = [("simulator clock call", lambda: _through_urllib(f"{sim.url}/_sim/clock", body, 30),
                  lambda: advance_sim_clock(Target("sim", sim.url), 0), 300)]
        for name, old, new, number in rows() + clock:
            before, after = cpu_ms(old, number), cpu_ms(new, number)
            ok = before / max(after, 1e-9) >= TARGET or (name.endswith("*") and after <= before * 1.1)
            failed += not ok
            print(f"{name:38s} old {before:8.3f}  new {after:8.3f}  {before / max(after, 1e-9):6.1f}x  "
                  f"{'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What the text-telemetry recorder (hit_templates/text_telemetry.js) costs a keystroke, in Debian's
Chromium (``make bench-telemetry``): real keystrokes from Playwright's keyboard into the VizWiz caption
page, and ``performance.now()`` read just before and just after the recorder's listeners for each event.

How: a capture listener on ``window`` (added before the page's scripts) stamps each event as it starts;
a capture listener on ``document`` added after the recorder (listeners of one node and phase run in the
order they were added) reads the clock again. The difference is the recorder's handler time for that
event, plus the two stamps' own cost, which the same run on the page without the recorder
(``[telemetry] record = false``) measures. The page is served cross-origin isolated (COOP + COEP), where
Chromium's ``performance.now()`` resolves 5 microseconds rather than 100. Also measured: the recorder's
``write()`` (the JSON to the hidden field and sessionStorage), which runs 400 ms after the last event,
never inside a keystroke. Writes bench/results-telemetry.json.
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from flows.campaigns.task_pages import task_page
from flows.core.config.config import load_config

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
OUT = Path(__file__).resolve().parent / "results-telemetry.json"
EVENTS = ("keydown", "beforeinput", "input", "keyup")
ISOLATED = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}
NAMES = json.dumps(list(EVENTS))
BEFORE = ("window.__stamp = {t: 0, ms: {}};"
          "NAMES.forEach(function (k) { window.__stamp.ms[k] = [];"
          "  window.addEventListener(k, function () { window.__stamp.t = performance.now(); }, true); });"
          ).replace("NAMES", NAMES)
AFTER = ("NAMES.forEach(function (k) { document.addEventListener(k, function (ev) {"
         "  window.__stamp.ms[ev.type].push(performance.now() - window.__stamp.t); }, true); });"
         ).replace("NAMES", NAMES)
TEXT = "A red mug with a white handle sits on a wooden kitchen table near a window. "


def _page(record: bool) -> str:
    cfg = load_config(ROOT / "config" / "vizwiz_captions.toml")
    if not record:
        cfg = dataclasses.replace(cfg, telemetry_notice="")
    rows = [{"item_id": str(k), "file_name": f"{k}.jpg", "url": "about:blank"} for k in range(5)]
    return task_page(cfg, rows)


def _quantiles(values: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50_us": round(cuts[49] * 1000, 1), "p99_us": round(cuts[98] * 1000, 1),
            "max_us": round(max(values) * 1000, 1)}


def _run(browser: Any, html: str, keystrokes: int) -> dict[str, Any]:
    context = browser.new_context()
    page = context.new_page()
    page.route("http://localhost:9/**", lambda route: route.fulfill(
        status=200, content_type="text/html; charset=utf-8", body=html, headers=ISOLATED))
    page.add_init_script(BEFORE)
    page.goto("http://localhost:9/task?assignmentId=BENCH1&hitId=H&workerId=W")
    assert page.evaluate("crossOriginIsolated"), "the page must be cross-origin isolated for 5 us clocks"
    page.evaluate(AFTER)
    page.click("#caption_0")
    page.keyboard.type((TEXT * (keystrokes // len(TEXT) + 1))[:keystrokes])
    samples: dict[str, list[float]] = page.evaluate("window.__stamp.ms")
    per_key = [sum(v) for v in zip(*(samples[e] for e in ("keydown", "beforeinput", "input")), strict=True)]
    out = {"keystrokes": len(per_key), "per_keystroke": _quantiles(per_key),
           **{e: _quantiles(samples[e]) for e in EVENTS if samples[e]}}
    has_recorder = page.evaluate("!!window.hitflowTelemetry")
    if has_recorder:
        writes = page.evaluate("""() => { const ms = [];
            for (let i = 0; i < 500; i++) { const t = performance.now(); window.hitflowTelemetry.write();
                                            ms.push(performance.now() - t); }
            return ms; }""")
        out["write"] = _quantiles(writes)
        out["record_bytes"] = len(page.input_value("#hitflow_telemetry"))
    context.close()
    return out


def bench_telemetry(keystrokes: int = 3000) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: make browser-deps (as root)")
    out: dict[str, Any] = {"load_average_1min": round(os.getloadavg()[0], 2)}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        out["without_recorder"] = _run(browser, _page(False), keystrokes)
        out["with_recorder"] = _run(browser, _page(True), keystrokes)
        browser.close()
    out["chromium"] = CHROMIUM
    return out


if __name__ == "__main__":
    result = bench_telemetry(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))

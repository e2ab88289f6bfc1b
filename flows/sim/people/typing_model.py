"""How a simulated worker's text arrives in a field, written as the page's telemetry record (v1)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from dataclasses import field as default
from typing import Any

from flows.sim.people.careless_answers import COPIED, stock_origin
from flows.sim.people.crowd_model import Worker, normalise

MEAN_WPM, SD_WPM = 51.56, 20.20  # Dhakal et al. 2018
SPEEDS = {"fast_typist": (95.0, 12.0, 75.0, 140.0), "slow_typist": (22.0, 5.0, 10.0, 32.0)}
ERROR_RATE = 0.04  # share of typed characters corrected with Backspace
PASTE_FROM_NOTES = 0.35  # note_paster: the share of captions drafted in another window
ORIGINS = ("typed", "page", "notes", "assistant", "partial", "clipboard", "list", "button")
# Where a pasting profile's text comes from (the clipboard holds one text from HIT to HIT; "list": stock sentences
# in another window); the profiles not named here type every caption.
PASTED_FROM = {"assistant_paster": "assistant", "partial_paster": "partial", "copy_paster": "clipboard",
               "template_paster": "clipboard", "template_ring": "clipboard", "generic_praise": "list"}


def typing_cps(worker: Worker) -> float:
    """The worker's typing speed in characters a second (drawn once, from the worker's own seed)."""
    mean, sd, low, high = SPEEDS.get(worker.profile, (MEAN_WPM, SD_WPM, 15.0, 120.0))
    wpm = min(high, max(low, random.Random(f"typing|{worker.worker_id}").gauss(mean, sd)))
    return wpm * 5 / 60


def caption_origin(worker: Worker, image_id: str, text: str, canned: bool) -> str:
    """How this worker's caption of this image arrives (the simulator's truth, one of :data:`ORIGINS`)."""
    if canned:
        return "button"  # the page's canned-answer button sets the value
    kind = worker.profile
    if kind == "canned_abuser" and (stock := stock_origin(text)):
        return stock
    if f"{COPIED}{normalise(text)}" in worker.memory:
        return "page"  # the item's own text, selected and copied on the page
    if kind in PASTED_FROM:
        return PASTED_FROM[kind]
    if kind == "instruction_echo" and "\n" not in text:
        return "page"  # an instruction selected and copied on the page (the banned-openings list is typed)
    if kind == "note_paster" and _rng(worker, image_id, "origin").random() < PASTE_FROM_NOTES:
        return "notes"
    return "typed"


def _rng(worker: Worker, image_id: str, what: str) -> random.Random:
    return random.Random(f"{what}|{worker.worker_id}|{image_id}")


def field_record(worker: Worker, image_id: str, text: str, origin: str, start_ms: int, span_ms: int,
                 vis: list[list[Any]]) -> dict[str, Any]:
    """One field's telemetry: ``start_ms`` when the image was shown, ``span_ms`` its time, tab changes in ``vis``."""
    rng, cps, size = _rng(worker, image_id, "typing"), typing_cps(worker), len(text)
    field: dict[str, Any] = {"typed": 0, "del": 0, "keys": 0, "first_ms": None, "active_ms": 0, "paste": [],
                             "paste_n": 0, "paste_x": 0, "paste_p": 0, "drop": 0, "copy": 0, "cut": 0,
                             "focus": [], "len": size}
    now = start_ms + int(rng.uniform(1500, 6000))  # looking at the image before anything else
    field["focus"].append([now, "f"])
    typed_part = {"typed": size, "partial": int(size * rng.uniform(0.25, 0.45))}.get(origin, 0)
    if typed_part:
        now = _type(field, rng, typed_part, cps, now)
    if origin in ("notes", "assistant", "partial", "list"):
        now = _fetch(field, rng, vis, size - typed_part, origin, cps, now)
    elif origin in ("clipboard", "page"):
        now += int(rng.uniform(300, 1500))
        where = "p" if origin == "page" else "x"
        field["paste"].append([now, size, where])
        field["paste_n"] += 1
        field["paste_" + where] += size
    field["focus"].append([max(now + 400, start_ms + span_ms - 800), "b"])
    return field


def typing_time(rng: random.Random, chars: int, cps: float) -> tuple[int, int, int]:
    """Typing ``chars`` characters at about ``cps``: (mistakes corrected, keystroke ms, pauses ms)."""
    mistakes = sum(1 for _ in range(chars) if rng.random() < ERROR_RATE)
    strokes = chars + 2 * mistakes  # each mistake: a wrong character and a Backspace
    active = int(1000 * strokes / (cps * rng.uniform(0.95, 1.25)))  # bursts run a little above the mean
    pauses = int(rng.uniform(0, 3) * chars / 20) * int(rng.uniform(2000, 5000))  # thinking between words
    return mistakes, active, pauses


def _type(field: dict[str, Any], rng: random.Random, chars: int, cps: float, now: int) -> int:
    """Type ``chars`` characters into the field, correcting the usual share of mistakes."""
    mistakes, active, pauses = typing_time(rng, chars, cps)
    field["first_ms"] = now if field["first_ms"] is None else field["first_ms"]
    field["typed"] += chars + mistakes
    field["del"] += mistakes
    field["keys"] += chars + 2 * mistakes + int(chars * rng.uniform(0.03, 0.08))  # Shift, an arrow or two
    field["active_ms"] += active
    return now + active + pauses


def _fetch(field: dict[str, Any], rng: random.Random, vis: list[list[Any]], chars: int, origin: str, cps: float,
           now: int) -> int:
    """Leave the page, come back with ``chars`` characters and paste them (from outside the page)."""
    leave = now + int(rng.uniform(200, 1200))
    field["focus"].append([leave, "b"])
    if len(vis) < 40:
        vis.append([leave + 50, "h"])
    if origin == "notes":  # the worker's own words, typed in the other window as they type anywhere
        away = sum(typing_time(rng, chars, cps)[1:]) + rng.uniform(2000, 6000)
    elif origin == "list":  # a stock sentence: find it, copy it
        away = rng.uniform(1500, 5000)
    else:  # an assistant: the image in, a saved prompt, the answer back, copied
        away = rng.lognormvariate(2.2, 0.35) * 1000  # median 9 s, most within 5 to 16 s
    back = leave + int(away)
    if len(vis) < 40:
        vis.append([back - 100, "v"])
    field["focus"].append([back, "f"])
    paste_at = back + int(rng.uniform(150, 900))
    field["paste"].append([paste_at, chars, "x"])
    field["paste_n"] += 1
    field["paste_x"] += chars
    return paste_at


def page_record(worker: Worker, captions: list[tuple[str, str, str]], accept_s: float, submit_s: float,
                canned_text: str) -> str:
    """The page's ``hitflow_telemetry`` value: ``captions`` are (field name, image id, text) in page order."""
    step = int(1000 * (submit_s - accept_s) / max(1, len(captions)))
    vis: list[list[Any]] = []
    fields = {}
    free = 0  # one image at a time: an image that took longer than its share pushes the next one on
    for i, (name, image_id, text) in enumerate(captions):
        origin = caption_origin(worker, image_id, text, bool(canned_text) and text == canned_text)
        start = max(i * step, free)
        fields[name] = field_record(worker, image_id, text, origin, start, step, vis)
        free = int(fields[name]["focus"][-1][0]) + 500  # where its last focus ends
    loads = 2 if random.Random(f"loads|{worker.worker_id}|{accept_s}").random() < 0.02 else 1  # a reload
    return json.dumps({"v": 1, "loads": loads, "vis": vis, "f": fields}, separators=(",", ":"))


# In a real browser: a paste as Chromium delivers one (event, then text); False when cancelled.
PASTE_JS = """([el], text) => { const data = new DataTransfer(); data.setData("text/plain", text);
  return el.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true})); }"""
PARTIAL_TYPED = 0.35  # a partial paster types about this share before pasting the rest (as field_record has it)
BURST_S = 1.5  # keys are sent in bursts of this many seconds' worth, the page's clock moved on after each


@dataclass
class Hand:
    """How one worker's text arrives in a browser page's boxes: typed key by key, or pasted where they paste."""

    worker: Worker | None
    seed: str
    pasted: list[tuple[Any, str]] = default(default_factory=list)

    def origin(self, name: str, value: str) -> str:
        return "typed" if self.worker is None else caption_origin(self.worker, f"{self.seed}|{name}", value, False)

    def enter(self, page: Any, box: Any, name: str, value: str) -> None:
        if box.evaluate_all("([e]) => e.tagName") == "INPUT":  # one call (a locator's evaluate: three)
            value = value.replace("\n", " ")  # Enter in a one-line box would submit the form
        origin = self.origin(name, value)
        typed = {"typed": len(value), "partial": int(len(value) * PARTIAL_TYPED)}.get(origin, 0)
        box.focus()
        if typed:
            self.type(page, box, value[:typed])
        if typed < len(value):
            if box.evaluate_all(PASTE_JS, value[typed:]):
                page.keyboard.insert_text(value[typed:])
                self.pasted.append((box, value))
            else:  # the page blocks pasting: the person types it
                self.type(page, box, value[typed:])

    def type(self, page: Any, box: Any, text: str) -> None:
        cps = typing_cps(self.worker) if self.worker is not None else MEAN_WPM * 5 / 60
        burst = max(1, int(cps * BURST_S))
        for at in range(0, len(text), burst):  # the box has focus after the first burst: keys alone, not its lookup
            (page.keyboard.type if at else box.press_sequentially)(text[at:at + burst])  # delay 0: the clock moves
            page.clock.fast_forward(int(1000 * min(burst, len(text) - at) / cps))

    def retype(self) -> None:
        """Clear every box this worker pasted into and type its text instead."""
        for box, value in self.pasted:
            self.replace(box, value)
        self.pasted.clear()

    def replace(self, box: Any, text: str) -> None:
        """Clear ``box`` as a person does (select all, delete) and type ``text`` in its place."""
        box.focus()
        box.press("ControlOrMeta+a")
        box.press("Backspace")
        self.type(box.page, box, text)

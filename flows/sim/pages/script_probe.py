"""Which answers a page's script requires: run offline in Chromium, each field blanked and each choice value tried."""

from __future__ import annotations

import functools
import json
import random
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.radio_buttons import BUTTONS
from flows.sim.pages.browser_check import chromium, failure, missing
from flows.sim.pages.browser_thread import FLAGS, kill_marked
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.pages.probe_reads import boxes_together, condition, one_box_groups, word_ranges, words
from flows.sim.pages.probe_refused import as_asked, blank_refusals
from flows.sim.people.crowd_model import Worker

PAGE_URL = "https://page.probe.invalid/hit"
JQUERY = Path("/usr/share/javascript/jquery/jquery.min.js")  # Debian's libjs-jquery (make browser-deps)
LIBRARY = re.compile(r"/jquery(?:-\d[\w.]*|-latest)?(?:\.min)?\.js(?:[?#]|$)", re.I)  # not a plugin (jquery-ui)
SESSION = {"assignmentId": "PROBE", "hitId": "PROBE", "workerId": "APROBEHONEST01",
           "turkSubmitTo": "https://www.mturk.com"}
MAX_TRIES = 1500  # submits pressed on one page at most (40 fields and 5 choices of 4: ~700, ~10 ms each)
LIMIT_S = 60.0  # real time one page may take before its Chromium is ended (a script that never returns)
SENTENCE = "A short honest answer about what this item shows."
LONGER = (0, 12, 25, 45)  # words in a box left open, tried in turn where the page refuses fewer (0: as it is)
CHOICES = ("radio", "select")  # what a box may be required by (data-required-when="choice=value")
# Runs before the page's scripts: records alerts and submits, keeps submits on the page, sets answers with events fired.
PROBE_SCRIPT = """(() => {
  const HOSTS = "crowd-input, crowd-text-area, crowd-checkbox, crowd-radio-button, crowd-slider, crowd-classifier, "
    + "crowd-image-classifier, crowd-classifier-multi-select, crowd-image-classifier-multi-select";
  const seen = {sent: false, said: []};
  window.alert = (m) => { seen.said.push(String(m)); };
  window.confirm = (m) => { seen.said.push(String(m)); return true; };
  HTMLFormElement.prototype.submit = function () { seen.sent = true; };
  window.addEventListener("submit", (e) => { if (!e.defaultPrevented) seen.sent = true; e.preventDefault(); });
  window.turkSetAssignmentID = () => {};  // MTurk's externalHIT_v1.js, not loaded offline (hitflow's has the session)
  const SKIP = ["submit", "button", "reset", "image", "file"];
  const form = () => document.getElementById("hit-form") || document.getElementById("crowd-form");
  const kind = (el) => (el.tagName === "INPUT" ? el.type || "text" : el.tagName.toLowerCase());
  // a crowd element's control (hitflow's stand-in draws it unnamed) answers under the element's name
  const host = (el) => el.closest(HOSTS);
  let alias = {};  // a button of a crowd-radio-group whose buttons each have a name -> the group's field
  const own = (el) => (el.name && !el.hasAttribute("data-crowd-own") || !host(el) ? el.name
    : host(el).getAttribute("name") || "");
  const nameOf = (el) => alias[own(el)] || own(el);
  let found = null;  // the answer controls as the page loaded (a hidden field with a value is the page's)
  const controls = () => found || (found = Array.from(form().querySelectorAll("input, select, textarea"))
    .filter((el) => nameOf(el) && el.closest(".custom-item") && !SKIP.includes(kind(el))
      && !(kind(el) === "hidden" && el.value)));
  // the groups the page's HTML requires (its own rule, read from the source): one its script requires as it
  // loads is the script's, and is asked like any other
  let rules = new Set();
  const ruled = () => rules;
  // the page's own words a press shows (a red line under a box): leaves it showed or changed, not those an answer's
  // events did (a word counter); a line empty as the page loaded is emptied before each try, the last try's gone
  const leaves = () => Array.from(document.body.querySelectorAll("*")).filter((el) => !el.children.length
    && !["SCRIPT", "STYLE", "OPTION", "TEXTAREA"].includes(el.tagName));
  const look = (el) => (el.getClientRects().length ? el.textContent.trim() : "");
  let empty = [];
  const presses = () => [document.getElementById("submit-btn"),
    ...document.querySelectorAll("button[onclick]:not([type=submit]), input[type=button][onclick]")];
  function groups(aliases, stated) {
    alias = aliases || {};
    form().noValidate = true;  // no bubble in the way: each try's validity is read after the press
    empty = leaves().filter((el) => !el.textContent.trim());
    rules = new Set(stated);  // and a crowd element's own required, which its stand-in control does not carry
    for (const el of controls()) if (host(el) && host(el).hasAttribute("required")) rules.add(nameOf(el));
    const out = {};
    for (const el of controls()) {
      // a crowd page checks its controls itself on Submit: a rule of the page's own lets each try through
      if (form().tagName === "CROWD-FORM" && ruled().has(nameOf(el))) el.checkValidity = () => true;
      const name = nameOf(el), g = out[name] || (out[name] = {name, kind: kind(el), options: [], min: el.min || ""});
      if (g.kind === "radio" || g.kind === "checkbox") g.options.push(el.value);
      else if (el.tagName === "SELECT") { g.kind = "select"; g.options = Array.from(el.options, (o) => o.value); }
    }
    return Object.values(out);
  }
  function set(values) {
    const all = controls(), changed = [];
    for (const el of all) {
      const v = values[nameOf(el)] || "", k = kind(el), many = v.split("|"), was = el.checked;
      if (k === "radio") el.checked = el.value === v;
      else if (k === "checkbox") el.checked = many.includes(el.value);
      else if (el.multiple) for (const o of el.options) o.selected = many.includes(o.value);
      else el.value = v;
      // as a person's clicks: a radio tells when it is chosen, a box when it is ticked or unticked
      if (k === "radio" ? el.checked : k !== "checkbox" || el.checked !== was) changed.push(el);
    }
    for (const el of changed)  // a plain Event named click: the listeners run, the box is not toggled again
      for (const t of [...(["radio", "checkbox"].includes(kind(el)) ? ["click"] : []), "input", "change", "keyup"])
        el.dispatchEvent(new Event(t, {bubbles: true}));
  }
  function run(tries) {
    return tries.map(([values, press, also]) => {  // also: stated groups whose browser check counts here
      for (const el of empty) if (el.textContent) el.textContent = "";
      set(values);
      seen.sent = false; seen.said = [];
      const before = new Map(leaves().map((el) => [el, look(el)]));
      presses()[press].click();  // a disabled button does nothing: refused
      // what the script asks through the browser's own checks (setCustomValidity, .required set on a change)
      const invalid = Array.from(form().elements || controls()).find((el) => el.willValidate
        && (!ruled().has(nameOf(el)) || (also || []).includes(nameOf(el))) && !el.checkValidity());
      if (invalid && seen.sent) { seen.sent = false; seen.said.push(invalid.validationMessage); }
      const now = leaves();
      return [seen.sent, seen.said.slice(0, 2), now.map(look).filter((t, i) => t && t !== before.get(now[i]))];
    });
  }
  window.__hitflowProbe = {groups, presses: () => presses().length, run};
})();"""


@dataclass
class Found:
    """What the page's script refused: field -> its message; field -> (choice, value, message)."""
    required: dict[str, str] = field(default_factory=dict)
    required_when: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    boxes: list[str] = field(default_factory=list)  # the checkbox groups (required: one box at least)
    asked: list[str] = field(default_factory=list)  # every field the probe could set, blank or not
    one_of: list[str] = field(default_factory=list)  # groups whose every box the HTML requires, taken with one ticked
    together: list[str] = field(default_factory=list)  # single boxes, each its own field: at least one ticked
    words: dict[str, tuple[int, int]] = field(default_factory=dict)  # text box -> fewest, most words taken (0: any)
    listed: dict[str, str] = field(default_factory=dict)  # text box -> a refusal asking a list, met to be taken
    problem: str = ""  # why the script could not be asked ("" when it was)
    refused_honest: bool = False  # the page took no honest full answer: a person could not submit it either
    errors: list[str] = field(default_factory=list)  # raised as the page loaded (a library that never loaded)
    tries: int = 0
    cut: bool = False  # MAX_TRIES reached before every try was made


def script_requires(html: str, browser: Any = None) -> Found:
    """The rendered page's script asked in ``browser`` (None: one launched for it, and closed)."""
    if why := missing():
        return Found(problem=why)
    return _asked_in(browser, html) if browser is not None else _launched(html)


@functools.lru_cache(maxsize=8)  # a page imported again in one process (a test's routes) is not asked again
def _launched(html: str) -> Found:
    from playwright.sync_api import sync_playwright

    marker = f"--hitflow-probe={threading.get_ident()}"
    watch = threading.Timer(LIMIT_S, kill_marked, [marker])
    watch.start()
    try:
        with sync_playwright() as pw:
            launched = pw.chromium.launch(executable_path=str(chromium()), headless=True, args=[*FLAGS, marker])
            try:
                return _asked_in(launched, html)
            finally:
                launched.close()
    except Exception as exc:  # Chromium could not start, or was ended past LIMIT_S
        return Found(problem=f"Chromium failed ({failure(exc)})")
    finally:
        watch.cancel()


def _asked_in(browser: Any, html: str) -> Found:
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc).splitlines()[0][:160] if str(exc) else "error"))

        def answer(route: Any) -> None:
            url = route.request.url
            if JQUERY.is_file() and LIBRARY.search(url):  # the one library MTurk pages load most: Debian's copy
                route.fulfill(status=200, content_type="text/javascript", path=str(JQUERY))
                return
            ours = url.startswith(PAGE_URL) and route.request.method == "GET"
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html if ours else "")
        page.route("**/*", answer)
        page.add_init_script(script=PROBE_SCRIPT)
        page.goto(f"{PAGE_URL}?{urlencode(SESSION)}")
        stated = form_fields(html)  # the HTML's own requirements: not the script's, even where it keeps them
        aliases = {b: f.name for f in stated if f.attrs.get(BUTTONS) for b in json.loads(f.attrs[BUTTONS])}
        groups = page.evaluate("([a, s]) => window.__hitflowProbe.groups(a, s)",
                               [aliases, [f.name for f in stated if "required" in f.attrs]])
        loading = list(dict.fromkeys(errors))[:3]  # a check that throws on a blank answer later is the page's own
        found = _tried(page, html, groups, honest_answers(html, groups), [f.name for f in stated if f.kind == "checkbox"
                       and len(f.options) > 1 and set(f.required_options) == set(f.options)])
        found.errors = loading
        return found
    except Exception as exc:  # the page broke Playwright (a navigation, a crash): said, not raised
        return Found(problem=f"the page failed in Chromium ({failure(exc)})")
    finally:
        context.close()


def honest_answers(html: str, groups: list[dict[str, Any]]) -> dict[str, str]:
    """A diligent simulated worker's answers, every control answered (a choice it left open: its first)."""
    worker = Worker(SESSION["workerId"], "diligent", {}, 5000, 99)
    said = fill_form(worker, form_fields(html), page_rules(html), 0.0, 120.0, {}, random.Random(1), html=html)
    out = {}
    for g in groups:
        given, options = said.get(g["name"], ""), [o for o in g["options"] if o]
        if g["kind"] == "checkbox":
            given = "|".join(v for v in given.split("|") if v in options) or options[0]
        elif g["kind"] in CHOICES:
            given = given if given in options else options[0] if options else ""
        elif not given:  # a hidden field a widget writes (stars): a number, as most write
            given = (g["min"] or "1") if g["kind"] in ("number", "range", "hidden") else SENTENCE
        out[g["name"]] = given
    return out


def _tried(page: Any, html: str, groups: list[dict[str, Any]], honest: dict[str, str], every: list[str]) -> Found:
    presses = int(page.evaluate("() => window.__hitflowProbe.presses()"))
    run = functools.partial(page.evaluate, "(t) => window.__hitflowProbe.run(t)")
    found = Found(boxes=[g["name"] for g in groups if g["kind"] == "checkbox"], asked=[g["name"] for g in groups])

    def refused(variants: list[dict[str, str]], also: tuple[str, ...] = ()) -> list[tuple[bool, str] | None]:
        """Per variant: refused by a press that took the full answer, and what the page said."""
        wanted = [(v, p, also) for v in variants for p in taking][:max(0, MAX_TRIES - found.tries)]
        found.tries += len(wanted)
        found.cut = found.cut or len(wanted) < len(variants) * len(taking)
        done = run(wanted) if wanted else []
        out: list[tuple[bool, str] | None] = [None] * len(variants)  # None: not tried (MAX_TRIES reached)
        for k, (sent, said, *_shown) in enumerate(done):
            was = out[k // len(taking)] or (False, "")
            out[k // len(taking)] = was if sent else (True, was[1] or " / ".join(said))
        return out

    given = honest
    for more in LONGER:  # a box the worker left open, filled with more words where the page counts them
        honest = {k: (words(more) if v == SENTENCE and more else v) for k, v in given.items()}
        base = run([[honest, p] for p in range(presses)])
        taking = [p for p, (sent, *_said) in enumerate(base) if sent]
        if taking or SENTENCE not in given.values():
            break
    if not taking and any(g["kind"] == "hidden" for g in groups):  # a hidden field the script parses: left as it is
        groups = [g for g in groups if g["kind"] != "hidden"]
        honest = {k: v for k, v in honest.items() if any(g["name"] == k for g in groups)}
        base = run([[honest, p] for p in range(presses)])
        taking = [p for p, (sent, *_said) in enumerate(base) if sent]
    if not taking:  # a refusal that asks a list (three, separated by commas): the boxes it is about retyped so
        honest, base, found.listed = as_asked(run, html, groups, honest, base)
        taking = [p for p, (sent, *_said) in enumerate(base) if sent]
    if not taking:
        said = next((" / ".join(s) for _sent, s, *_shown in base if s), "")
        found.refused_honest = True
        found.problem = ("it refused an honest simulated worker's full answer" +
                         (f" (it said {said[:160]!r})" if said else "") + ", so each answer was tried blank only "
                         "against it (where a blank one brought a refusal of its own, that answer is required)")
        found.required = blank_refusals(run, groups, honest, base)
        return found
    _read(refused, groups, honest, found)
    held = functools.partial(_held, refused)
    found.one_of = one_box_groups(held, honest, every)
    found.together = boxes_together(held, groups, honest, found.required)
    found.words = word_ranges(held, groups, honest)
    found.words = {} if found.cut else found.words  # a search the tries ran out in reads wrong bounds
    return found


def _held(refused: Any, values: dict[str, str], also: tuple[str, ...] = ()) -> bool:
    """Whether the page refused ``values``, pressed once and again (``also``: stated groups checked too)."""
    return bool(_twice(functools.partial(refused, also=tuple(also)), [values], [0])[0])


def _twice(refused: Any, variants: list[dict[str, str]], keys: list[Any]) -> tuple[dict[Any, str], set[Any]]:
    """Keys whose variant was refused on two presses (a warning passes the second), with what it said; keys tried."""
    first = refused(variants)
    again = [k for k, done in enumerate(first) if done and done[0]]
    second = refused([variants[k] for k in again])
    return ({keys[k]: first[k][1] for k, done in zip(again, second, strict=True) if not done or done[0]},
            {keys[k] for k, done in enumerate(first) if done})


def _read(refused: Any, groups: list[dict[str, Any]], honest: dict[str, str], found: Found) -> None:
    """Each control blanked, then each choice value tried: refused always is required; refused with some values of one
    choice only is required while it has one (data-required-when)."""
    choices = [(c["name"], v) for c in groups if c["kind"] in CHOICES for v in c["options"]
               if v and v != honest.get(c["name"])]
    taken = refused([{**honest, c: v} for c, v in choices])
    choices = [cv for cv, done in zip(choices, taken, strict=True) if done and not done[0]]
    plain = [(g["name"], "", "") for g in groups]  # first, so a large page's tries are spent on these first
    keys = plain + [(g["name"], c, v) for g in groups for c, v in choices if c != g["name"]]
    blank, done = _twice(refused, [{**honest, **({c: v} if c else {}), g: ""} for g, c, v in plain], plain)
    more = _twice(refused, [{**honest, c: v, g: ""} for g, c, v in keys[len(plain):]], keys[len(plain):])
    blank, done = blank | more[0], done | more[1]
    for g in groups:
        tried = [(c, v) for name, c, v in keys if name == g["name"] and (name, c, v) in done]
        refusing = [(c, v) for c, v in tried if (g["name"], c, v) in blank]
        if refusing and refusing == tried == [(c, v) for name, c, v in keys if name == g["name"]]:
            found.required[g["name"]] = blank[(g["name"], *refusing[0])]
        elif refusing and refusing != tried and g["kind"] != "checkbox":  # HTML has no such rule for a group
            c, v = condition(refusing, tried, honest)
            found.required_when[g["name"]] = (c, v, blank[(g["name"], *refusing[0])])


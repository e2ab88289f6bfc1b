"""Whether an honest browser worker can submit a page at all (the dry run's trial); a refusal is the page's problem."""

from __future__ import annotations

import functools
import random
import re

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.sim.pages.browser_check import refused_at
from flows.sim.pages.browser_worker import TIMING, posted_by_browser
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.crowd_model import Worker

TRIAL_WORKER = "ATRIALHONEST01"


@functools.lru_cache(maxsize=8)  # the dry run's checks run again as the run starts
def honest_trial(html: str) -> str:
    """'' when a diligent worker gets one rendered HIT page submitted in Chromium, else what happened, in a sentence."""
    worker = Worker(TRIAL_WORKER, "diligent", {}, 5000, 99)
    intents = fill_form(worker, form_fields(html), page_rules(html), 0.0, 120.0, {}, random.Random(1), html=html)
    failed: list[str] = []
    hidden: list[str] = []
    session = {"assignmentId": "TRIALASSIGNMENT", "hitId": "TRIALHIT", "workerId": TRIAL_WORKER,
               "turkSubmitTo": "https://www.mturk.com"}  # as MTurk opens an accepted HIT (not its preview)
    told: list[str] = []
    posted = posted_by_browser(html, {k: v for k, v in intents.items() if k not in TIMING}, "trial", worker,
                               session, failed, hidden, told)
    if hidden:
        return unseen_required(hidden, posted is not None)
    if failed:
        return f"the page failed in Chromium before an honest simulated worker could submit it ({failed[0]})"
    if posted is None:
        box, message = [*told, "", ""][:2]
        box = box or _box_named(message, html, intents)
        said = refused_at([box, message], intents.get(box, ""))
        return ("an honest simulated worker typed its answers (key by key), clicked the page's buttons and pressed "
                f"Submit 3 times in Chromium, and the page's own script refused every time{said}: a check the "
                "simulated crowd does not meet though a person may (it meets the controls' own rules and a word "
                "minimum the page states; not a check only the script knows; or a value the simulated worker "
                "cannot write as the box asks: the simulator's limit, not the page's), a required field nothing "
                "on the page fills, or "
                "a script from elsewhere it needs that never loaded (live, [target] page_origins must list its "
                "origin); every simulated worker would hand the HIT back. Open the page in a browser and submit "
                "it as a person would: if a person gets through, the check is one the simulator cannot rehearse "
                "(state it as a control's rule, or run with sim_workers = \"form\")")
    return ""


def _box_named(message: str, html: str, intents: dict[str, str]) -> str:
    """The text box whose question shares the most words with the page's refusal, the first in page order of
    those alike ('' for none shared)."""
    said = {w[:5] for w in re.findall(r"[a-z]{4,}", message.lower())}
    questions = question_texts(read_page(html))
    boxes = {f.name for f in form_fields(html) if f.kind in ("text", "textarea")}
    typed = [n for n in intents if n in questions and n in boxes]  # (a box left empty too: often the one refused)
    scores = {n: len(said & {w[:5] for w in re.findall(r"[a-z]{4,}", questions[n].lower())}) for n in typed}
    best = max(scores, key=lambda n: scores[n], default="")
    return best if best and scores[best] else ""


def unseen_required(names: list[str], submitted: bool) -> str:
    """The trial's sentence on required controls an honest worker never saw, having pressed every "Next"."""
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    outcome = ("and the page submitted them unanswered" if submitted else
               "and the page refused the submit, so every simulated worker would hand the HIT back")
    return (f"required input(s) {shown} stayed hidden after an honest simulated worker in Chromium answered what the "
            f"page showed and pressed each \"Next\" it found (a button, or a link within the page), {outcome}: show "
            "each step's questions, or give the step a button or link named Next or Continue")

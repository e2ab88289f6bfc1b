"""Whether an honest browser worker can submit a page at all (the dry run's trial)."""

from __future__ import annotations

import functools
import random
from typing import NamedTuple

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.browser_check import TRIES, refused_at
from flows.sim.pages.browser_worker import TIMING, posted_by_browser
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.crowd_model import Worker
from flows.sim.people.refusal_asks import asked_in, lacking

TRIAL_WORKER = "ATRIALHONEST01"


class Trial(NamedTuple):
    problem: str = ""  # what would stop every worker, a person too: the page's
    warning: str = ""  # a refusal of what the simulated worker typed, which a person may get past: checked by hand


@functools.lru_cache(maxsize=8)  # the dry run's checks run again as the run starts
def trial_outcome(html: str) -> Trial:
    """How a diligent worker fared with one rendered HIT page in Chromium: '' each where it submitted."""
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
        return Trial(unseen_required(hidden, posted is not None))
    if failed:
        return Trial(f"the page failed in Chromium before an honest simulated worker could submit it ({failed[0]})")
    if posted is None:
        return refused_trial(told)
    return Trial()


def refused_trial(told: list[str]) -> Trial:
    """A page that refused the trial worker's every press (``told``: retyping.heard's): a warning where its message
    asks what the worker's last text lacked (the simulated worker fell short of it, a person may not), else the
    page's problem."""
    box, message, typed = [*told, "", "", ""][:3]
    short = lacking(typed, asked_in(message)) if box else []
    said = refused_at([box, message, typed])
    if short:
        return Trial(warning=(
            f"the page's own script refused an honest simulated worker in Chromium {TRIES} times{said}: its text "
            f"still lacked {' and '.join(short)} after it read the message, the simulator's limit (a person may well "
            "meet it). Check by hand before posting live: open the page in a browser, answer that box as a person "
            "would and submit it; in the simulator's rehearsal, workers the page keeps refusing hand the HIT back"))
    return Trial(
        "an honest simulated worker typed its answers (key by key), clicked the page's buttons and pressed "
        f"Submit {TRIES} times in Chromium, and the page's own script refused every time{said}: a check the "
        "simulated crowd does not meet though a person may (it meets the controls' own rules, a word "
        "minimum the page states and what the page's message asks; not a check only the script knows; or a value "
        "the simulated worker cannot write as the box asks: the simulator's limit, not the page's), a required "
        "field nothing on the page fills, or "
        "a script from elsewhere it needs that never loaded (live, [target] page_origins must list its "
        "origin); every simulated worker would hand the HIT back. Open the page in a browser and submit "
        "it as a person would: if a person gets through, the check is one the simulator cannot rehearse "
        "(state it as a control's rule, or run with sim_workers = \"form\")")


def unseen_required(names: list[str], submitted: bool) -> str:
    """The trial's sentence on required controls an honest worker never saw, having pressed every "Next"."""
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    outcome = ("and the page submitted them unanswered" if submitted else
               "and the page refused the submit, so every simulated worker would hand the HIT back")
    return (f"required input(s) {shown} stayed hidden after an honest simulated worker in Chromium answered what the "
            f"page showed and pressed each \"Next\" it found (a button, or a link within the page), {outcome}: show "
            "each step's questions, or give the step a button or link named Next or Continue")

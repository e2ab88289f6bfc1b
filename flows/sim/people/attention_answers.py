"""How a simulated worker answers an attention check, hitflow's or one a page writes among its own questions."""

from __future__ import annotations

import html as html_text
import random

from flows.core.pages.mturk_forms import FormField, field_base
from flows.sim.people.crowd_model import Worker

# profiles that answer without reading the question; every other profile reads it
NOT_READING = ("speeder", "canned_abuser", "copy_paster", "rule_breaker", "template_paster", "template_ring",
               "generic_praise")
CONSTANT = ("contrarian",)
# how often a careful reader misses a check set among a page's rating rows (a few percent); one standing apart
# from its neighbours is read (Prolific: checks fail where they look like the questions around them)
EMBEDDED_SLIP = 0.03


def rating_rows(fields: list[FormField]) -> set[str]:
    """Choice fields set among rows of one scale: another question of the page (not a copy on another item) offers
    the same options."""
    choices = [(f, frozenset(o for o in f.options if o)) for f in fields if f.kind in ("radio", "select", "checkbox")]
    bases: dict[frozenset[str], set[str]] = {}
    for f, scale in choices:
        bases.setdefault(scale, set()).add(field_base(f.name))
    return {f.name for f, scale in choices if len(scale) > 1 and len(bases[scale]) > 1}


def check_question(page: str, name: str) -> str:
    """The question of the check whose options are named ``name``: the legend before them, as a person reads it."""
    at = (page or "").find(f'name="{name}"')
    start = page.rfind("<legend>", 0, at) if at > 0 else -1
    end = page.find("</legend>", start, at)
    return html_text.unescape(page[start + len("<legend>"):end]).strip() if start >= 0 and end > 0 else ""


def attention_answer(worker: Worker, options: list[str], told: str | None, rng: random.Random,
                     embedded: bool = False) -> str:
    """The option given to a check instructing ``told`` (None: read and found to instruct no one option)."""
    how = str(worker.params.get("attention") or
              ("random" if worker.profile in NOT_READING else "constant" if worker.profile in CONSTANT else "follow"))
    if how == "constant" and options:
        return options[0]
    slip = float(worker.params.get("attention_slip", EMBEDDED_SLIP)) if embedded else 0.0
    # not read, read and found to name no one option, or missed (no draw without a slip: those runs unchanged)
    if how == "random" or told is None or (slip > 0 and rng.random() < slip):
        return rng.choice(options) if options else ""
    return told

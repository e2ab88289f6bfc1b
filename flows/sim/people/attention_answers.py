"""How a simulated worker answers an attention check: honest profiles read its question on the page and choose
the option it names; people who do not read the page (speeders, text pasters, rule breakers) click at random;
a contrarian gives the first option. A crowd file may set a profile's ``attention`` ("follow", "random",
"constant")."""

from __future__ import annotations

import html as html_text
import random

from flows.sim.people.crowd_model import Worker

# profiles that answer without reading the question; every other profile reads it
NOT_READING = ("speeder", "canned_abuser", "copy_paster", "rule_breaker", "template_paster", "template_ring",
               "generic_praise")
CONSTANT = ("contrarian",)


def check_question(page: str, name: str) -> str:
    """The question of the check whose options are named ``name``: the legend before them, as a person reads it."""
    at = (page or "").find(f'name="{name}"')
    start = page.rfind("<legend>", 0, at) if at > 0 else -1
    end = page.find("</legend>", start, at)
    return html_text.unescape(page[start + len("<legend>"):end]).strip() if start >= 0 and end > 0 else ""


def attention_answer(worker: Worker, options: list[str], question: str, rng: random.Random) -> str:
    how = str(worker.params.get("attention") or
              ("random" if worker.profile in NOT_READING else "constant" if worker.profile in CONSTANT else "follow"))
    if how == "constant" and options:
        return options[0]
    from qc.attention_checks import named_option  # here: the simulator's service loads no pandas (qc's frames)

    told = named_option(question, options)
    if how == "random" or told is None:  # not read, or read and found to name no one option
        return rng.choice(options) if options else ""
    return told

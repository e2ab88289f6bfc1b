"""How a simulated worker answers an attention check (an instructed-response item: the question names the
option to choose). Honest profiles read the question and follow it; people who do not read the page (speeders,
text pasters, rule breakers) click at random among the options, so they fail most checks; a contrarian gives
every question the same extreme (the first option). A crowd file may set a profile's ``attention`` to
"follow", "random" or "constant"."""

from __future__ import annotations

import random

from flows.sim.people.crowd_model import Worker

# profiles that answer without reading the question; every other profile reads it
NOT_READING = ("speeder", "canned_abuser", "copy_paster", "rule_breaker", "template_paster", "template_ring",
               "generic_praise")
CONSTANT = ("contrarian",)


def attention_answer(worker: Worker, options: list[str], instructed: str, rng: random.Random) -> str:
    how = str(worker.params.get("attention") or
              ("random" if worker.profile in NOT_READING else "constant" if worker.profile in CONSTANT else "follow"))
    if how == "random" and options:
        return rng.choice(options)
    if how == "constant" and options:
        return options[0]
    return instructed

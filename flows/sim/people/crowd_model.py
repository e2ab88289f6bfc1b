"""What a simulated worker is: a behaviour profile, its parameters, and what it has written."""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field
from typing import Any

PROFILE_DEFAULTS: dict[str, dict[str, Any]] = {
    "diligent": {"seconds_per_item": 55.0, "activity": 1.0},
    "typo_prone": {"seconds_per_item": 60.0, "activity": 1.0, "typo_rate": 0.12},
    "speeder": {"seconds_per_item": 9.0, "activity": 1.5},
    "slow": {"seconds_per_item": 55.0, "activity": 0.8, "park_share": 0.85},
    "caps_locker": {"seconds_per_item": 50.0, "activity": 1.0},
    "canned_abuser": {"seconds_per_item": 20.0, "activity": 1.3, "canned_rate": 0.8},
    "contrarian": {"seconds_per_item": 50.0, "activity": 1.0},
    "blur_talker": {"seconds_per_item": 50.0, "activity": 1.0, "blur_rate": 0.7},
    "copy_paster": {"seconds_per_item": 15.0, "activity": 1.3},
    "low_approval": {"seconds_per_item": 55.0, "activity": 1.0,
                     "hits_approved": 180, "percent_approved": 82},
    "rule_breaker": {"seconds_per_item": 25.0, "activity": 1.0},
    # Abuse seen in the captions VizWiz's own reviewers rejected (vizwiz-captions-v1-val, is_rejected):
    "template_paster": {"seconds_per_item": 14.0, "activity": 1.3},  # one sentence pasted everywhere
    "template_ring": {"seconds_per_item": 14.0, "activity": 1.3, "ring_size": 3},  # accounts sharing it
    "instruction_echo": {"seconds_per_item": 18.0, "activity": 1.2},  # the page's instructions, back
    "generic_praise": {"seconds_per_item": 16.0, "activity": 1.2},  # praise unrelated to the image
    # How text arrives (flows/sim/people/typing_model.py): fluent on-topic captions, pasted.
    "assistant_paster": {"seconds_per_item": 30.0, "activity": 1.3},  # leaves the tab, pastes an assistant's answer
    "partial_paster": {"seconds_per_item": 38.0, "activity": 1.2},  # types the start, pastes the rest
    # Honest ways of writing: drafting some captions in another window, typing fast or slowly.
    "note_paster": {"seconds_per_item": 60.0, "activity": 1.0},
    "fast_typist": {"seconds_per_item": 45.0, "activity": 1.1},
    "slow_typist": {"seconds_per_item": 70.0, "activity": 0.9},
}
# "slow" parks a HIT before working it and writes as honestly as "diligent" (one was blocked).
HONEST_PROFILES = ("diligent", "typo_prone", "slow", "note_paster", "fast_typist", "slow_typist")
BAD_PROFILES = tuple(p for p in PROFILE_DEFAULTS if p not in HONEST_PROFILES)
RUSHED = ("speeder", "canned_abuser")  # who clicks any choice without reading
# Profiles that paste an assistant's description (flows/sim/people/typing_model.py)
ASSISTANT_PROFILES = ("assistant_paster", "partial_paster")
# Profiles whose abuse IS the repetition; every other worker never types the same text twice.
PASTING_PROFILES = ("copy_paster", "template_paster", "template_ring", "generic_praise", "instruction_echo")

_NORM_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """What counts as "the same text": case, runs of spaces and final punctuation ignored."""
    return _NORM_SPACE.sub(" ", text.strip().lower()).rstrip(" .!?")


@dataclass
class BankEntry:
    captions: list[str]
    text_detected: int
    truth: str = ""  # evaluation studies: what a careful judge answers (an item file's sim_truth)
    answers: dict[str, str] = field(default_factory=dict)  # field -> the requester's known answer (known_answers.py)


@dataclass
class Worker:
    worker_id: str
    profile: str
    params: dict[str, Any]
    hits_approved: int
    percent_approved: int
    locale: str = "US"
    skill: float = 0.8
    # Pasters reuse one text everywhere; kept so they stay consistent.
    memory: dict[str, str] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)  # normalised texts already typed
    arrived_at: float = 0.0  # virtual time the worker joined the marketplace
    leaves_at: float = float("inf")  # virtual time after which the worker takes no more HITs

    def public(self) -> dict[str, Any]:
        return {"worker_id": self.worker_id, "profile": self.profile, "locale": self.locale,
                "hits_approved": self.hits_approved, "percent_approved": self.percent_approved,
                "skill": round(self.skill, 3),
                **({"choices": str(self.params["choices"])} if "choices" in self.params else {})}

    def present(self, now: float) -> bool:
        return now < self.leaves_at


def worker_id(rng: random.Random) -> str:
    alphabet = string.ascii_uppercase + string.digits
    return "A" + "".join(rng.choice(alphabet) for _ in range(13))


def new_worker(name: str, params: dict[str, Any], rng: random.Random) -> Worker:
    """One worker of a profile, its record and skill drawn from ``rng`` (in this order, for seeds)."""
    return Worker(
        worker_id=worker_id(rng), profile=name, params=params,
        hits_approved=int(params.get("hits_approved", rng.randint(600, 20000))),
        percent_approved=int(params.get("percent_approved", rng.randint(96, 100))),
        locale=str(params.get("locale", "US")),
        skill=rng.uniform(0.55, 0.98) if name != "typo_prone" else rng.uniform(0.4, 0.7),
    )

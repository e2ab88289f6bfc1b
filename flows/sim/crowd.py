"""The simulator's synthetic workers: a seeded population of behaviour profiles.

A crowd file (TOML, ``config/crowds/``) says how many workers of each profile there are
and may override a profile's parameters. Workers write captions by drawing on a caption
bank of real captions (CSV: ``image_id, caption, text_detected``) and then behave as their
profile says: diligent workers fix what the page would refuse, caps-lockers shout, and so on.
"""

from __future__ import annotations

import csv
import random
import re
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flows.errors import ConfigError
from qc.submit_rules import SubmitRules, is_canned, violations

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
}
BAD_PROFILES = tuple(p for p in PROFILE_DEFAULTS if p not in ("diligent", "typo_prone"))
FILLER = ("with", "a", "few", "other", "objects", "visible", "around", "it")


@dataclass
class BankEntry:
    captions: list[str]
    text_detected: int
    truth: str = ""  # evaluation studies: what a careful judge answers (an item file's sim_truth)


@dataclass
class Worker:
    worker_id: str
    profile: str
    params: dict[str, Any]
    hits_approved: int
    percent_approved: int
    locale: str = "US"
    skill: float = 0.8
    # Copy-pasters reuse one caption everywhere; kept so they stay consistent.
    memory: dict[str, str] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        return {"worker_id": self.worker_id, "profile": self.profile, "locale": self.locale,
                "hits_approved": self.hits_approved, "percent_approved": self.percent_approved,
                "skill": round(self.skill, 3)}


def worker_id(rng: random.Random) -> str:
    alphabet = string.ascii_uppercase + string.digits
    return "A" + "".join(rng.choice(alphabet) for _ in range(13))


def load_bank(path: Path) -> dict[str, BankEntry]:
    """A caption bank: CSV ``image_id, caption, text_detected``, or Flickr8k's ``Flickr8k.token.txt``."""
    if not path.is_file():
        raise ConfigError(f"caption bank {path} does not exist; point caption_bank in the crowd file at "
                          "a CSV (image_id, caption, text_detected) or a Flickr8k.token.txt")
    if path.suffix == ".txt":
        return _load_token_bank(path)
    bank: dict[str, BankEntry] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            entry = bank.setdefault(row["image_id"], BankEntry([], int(row.get("text_detected") or 0)))
            entry.captions.append(row["caption"])
    return bank


def _load_token_bank(path: Path) -> dict[str, BankEntry]:
    """Flickr8k's ``<file>.jpg#<n>\t<caption>``: keyed by the file name without ``.jpg``."""
    bank: dict[str, BankEntry] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        ref, _, caption = line.partition("\t")
        if caption:
            image = ref.split("#")[0].removesuffix(".jpg")
            # Flickr8k is tokenised ("a dog ."): join the final stop back as a worker types it.
            text = re.sub(r"\s+([.,!?'])", r"\1", caption.strip())
            bank.setdefault(image, BankEntry([], 0)).captions.append(text)
    return bank


def truth_key(row: dict[str, str]) -> str:
    """Where a study item's truth is kept: per sentence of a crowd-selection image, per system of
    a pairwise image, else per item."""
    if row.get("sentence_id"):
        return f"{row['image_id']}#{row['sentence_id']}"
    if row.get("system"):
        return f"{row['image_id']}#{row['system']}"
    return row.get("item_id") or row.get("image_id", "")


def load_truth(paths: list[Path]) -> dict[str, BankEntry]:
    truth: dict[str, BankEntry] = {}
    for path in paths:
        if not path.is_file():
            raise ConfigError(f"judgement_truth file {path} does not exist; fix the crowd file's list")
        with path.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row.get("sim_truth", "") != "":
                    truth[truth_key(row)] = BankEntry([], 0, row["sim_truth"])
    return truth


def load_crowd(path: Path, seed: int | None = None) -> tuple[list[Worker], dict[str, BankEntry]]:
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"crowd file {path}: {exc}; fix the file or pass another --crowd") from exc
    bank_path = (path.parent / spec["caption_bank"]) if "caption_bank" in spec else None
    if bank_path and not bank_path.is_file() and spec.get("caption_bank_optional"):
        bank_path = None  # e.g. ../shared/data absent: workers write the fallback sentence
    bank = load_bank(bank_path) if bank_path else {}
    bank.update(load_truth([path.parent / p for p in spec.get("judgement_truth", [])]))
    rng = random.Random(spec.get("seed", 1) if seed is None else seed)
    workers: list[Worker] = []
    for prof in spec.get("profile", []):
        name = prof.get("name")
        if name not in PROFILE_DEFAULTS:
            raise ConfigError(f"crowd file {path}: unknown profile {name!r}; "
                              f"use one of {', '.join(PROFILE_DEFAULTS)}")
        params = {**PROFILE_DEFAULTS[name], **{k: v for k, v in prof.items() if k not in ("name", "count")}}
        for _ in range(int(prof.get("count", 0))):
            workers.append(Worker(
                worker_id=worker_id(rng), profile=name, params=params,
                hits_approved=int(params.get("hits_approved", rng.randint(600, 20000))),
                percent_approved=int(params.get("percent_approved", rng.randint(96, 100))),
                locale=str(params.get("locale", "US")),
                skill=rng.uniform(0.55, 0.98) if name != "typo_prone" else rng.uniform(0.4, 0.7),
            ))
    return workers, bank


def _pass_rules(text: str, rules: SubmitRules, rng: random.Random) -> str:
    """Edit a caption the way a worker does when the page refuses it."""
    for _ in range(6):
        broken = {v[0] for v in violations(text, rules)}
        if not broken:
            return text
        if "banned_prefix" in broken:
            words = text.split()
            text = "A view of " + " ".join(words[2:] or ["something"])
        if "one_sentence" in broken:
            text = re.split(r"[.!?]\s+", text.strip())[0].rstrip(".") + "."
        if "min_words" in broken or "required" in broken:
            text = text.rstrip(". ") + " " + " ".join(FILLER[: max(1, rules.min_words - len(text.split()))]) + "."
        if "max_chars" in broken and rules.max_chars:
            text = text[: rules.max_chars - 1].rsplit(" ", 1)[0] + "."
    return text


def _add_typos(text: str, rate: float, rng: random.Random) -> str:
    words = text.split(" ")
    for i, w in enumerate(words):
        if len(w) > 4 and w.isalpha() and w.islower() and rng.random() < rate:
            j = rng.randrange(1, len(w) - 2)
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def write_caption(worker: Worker, item_id: str, bank: dict[str, BankEntry],
                  rules: SubmitRules, rng: random.Random) -> str:
    """The caption this worker types for this image."""
    fallback = BankEntry(["A small object on a table in a room with a wall behind it."], 0)
    entry = bank.get(item_id.split("~")[0]) or fallback
    real = [c for c in entry.captions if not is_canned(c)] or ["An object that is hard to make out on a surface."]
    canned_share = sum(is_canned(c) for c in entry.captions) / max(1, len(entry.captions))
    p, kind = worker.params, worker.profile
    if not rules.canned_text:  # the page has no canned answer: canned-abusers rush instead
        kind = "speeder" if kind in ("canned_abuser", "contrarian") else kind
    if kind == "canned_abuser" and rng.random() < p["canned_rate"]:
        return rules.canned_text
    if kind == "contrarian":
        return rules.canned_text if canned_share < 0.5 else _pass_rules(rng.choice(real), rules, rng)
    if kind not in ("rule_breaker", "copy_paster") and rules.canned_text and rng.random() < canned_share:
        return rules.canned_text
    text = rng.choice(real).strip()
    if kind == "speeder":
        text = min(real, key=len).strip()
    if kind == "copy_paster":
        # Chosen from the worker's own seed, not from whichever HIT came first, so a run is
        # reproducible whatever order its HITs are posted in.
        if "text" not in worker.memory:
            own = random.Random(worker.worker_id)
            pick = own.choice(bank[own.choice(sorted(bank))].captions) if bank else text
            worker.memory["text"] = _pass_rules(pick, rules, own)
        return worker.memory["text"]
    if kind == "rule_breaker":
        return rng.choice(["This is " + " ".join(text.split()[:3]), "a thing", "It's " + text.lower()])
    if kind == "blur_talker" and rng.random() < p["blur_rate"]:
        text = rng.choice(["A blurry photo of ", "A low quality, blurred shot of "]) + text[0].lower() + text[1:]
    text = _pass_rules(text, rules, rng)
    if kind == "caps_locker":
        text = text.upper()
    if kind == "typo_prone":
        text = _add_typos(text, p["typo_rate"], rng)
    return text


def says_text_present(worker: Worker, item_id: str, bank: dict[str, BankEntry], rng: random.Random) -> str:
    base = item_id.split("~")[0]  # scaled-up demos repeat items as id~k
    truth = bank[base].text_detected if base in bank else 0
    correct = rng.random() < (0.5 + worker.skill / 2)
    return "yes" if bool(truth) == correct else "no"


def work_seconds(worker: Worker, n_items: int, duration_s: int, rng: random.Random) -> float:
    """Seconds from accept to submit on the virtual clock."""
    if worker.profile == "slow":
        return duration_s * rng.uniform(worker.params["park_share"] - 0.1, worker.params["park_share"])
    mean = float(worker.params["seconds_per_item"])
    return sum(rng.lognormvariate(0, 0.35) * mean for _ in range(max(1, n_items)))


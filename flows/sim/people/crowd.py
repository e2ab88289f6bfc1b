"""The simulator's synthetic workers: a seeded population of behaviour profiles."""

from __future__ import annotations

import csv
import io
import random
import re
import threading
import tomllib
from pathlib import Path

from flows.core.config.config_file import MAX_CONFIG_BYTES
from flows.core.errors import ConfigError, InputFormatError
from flows.core.inputs.contained_paths import contained
from flows.core.inputs.text_files import read_text
from flows.sim.people.captions import image_entry, write_caption
from flows.sim.people.crowd_model import BAD_PROFILES, HONEST_PROFILES, PROFILE_DEFAULTS, BankEntry, Worker, worker_id
from flows.sim.people.roster import Crowd, counted_crowd, parse_spec, shared_crowd

__all__ = ["BAD_PROFILES", "HONEST_PROFILES", "PROFILE_DEFAULTS", "BankEntry", "Crowd", "Worker",
           "load_bank", "load_crowd", "load_truth", "says_text_present", "work_seconds", "worker_id",
           "write_caption"]


def load_bank(path: Path) -> dict[str, BankEntry]:
    """A caption bank (CSV ``image_id, caption, text_detected``, or Flickr8k's token file), parsed once a process."""
    if not path.is_file():
        raise ConfigError(f"caption bank {path} does not exist; point caption_bank in the crowd file at "
                          "a CSV (image_id, caption, text_detected) or a Flickr8k.token.txt")
    text, tokens = _read(path, "the caption bank"), path.suffix == ".txt"
    kept = _KEPT_BANKS.get((tokens, text))  # keyed by the whole text: an edited bank is parsed again
    if kept is None:
        parsed = _token_bank(text) if tokens else _csv_bank(path, text)
        kept = {image: (tuple(e.captions), e.text_detected) for image, e in parsed.items()}
        with _KEPT_LOCK:
            while len(_KEPT_BANKS) >= MAX_KEPT_BANKS:
                del _KEPT_BANKS[next(iter(_KEPT_BANKS))]
            _KEPT_BANKS[(tokens, text)] = kept
    return {image: BankEntry([*captions], flag) for image, (captions, flag) in kept.items()}


# (Flickr8k token file?, the bank's text) -> its entries, frozen in tuples: never handed out themselves
_KEPT_BANKS: dict[tuple[bool, str], dict[str, tuple[tuple[str, ...], int]]] = {}
_KEPT_LOCK = threading.Lock()
MAX_KEPT_BANKS = 4


def _csv_bank(path: Path, text: str) -> dict[str, BankEntry]:
    bank: dict[str, BankEntry] = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        if not row.get("image_id") or row.get("caption") is None:
            raise ConfigError(f"caption bank {path}: a row without image_id or caption; the bank's columns are "
                              "image_id, caption, text_detected")
        entry = bank.setdefault(row["image_id"], BankEntry([], _flag(row.get("text_detected"))))
        entry.captions.append(row["caption"])
    return bank


def _flag(value: str | None) -> int:
    """``text_detected``: 0 or 1 (empty is 0); anything else is a one-line error, not a ValueError."""
    if (value or "0").strip() not in ("0", "1"):
        raise ConfigError(f"caption bank: text_detected {str(value)[:20]!r} is not 0 or 1; fix the bank")
    return int((value or "0").strip())


def _read(path: Path, what: str, max_bytes: int | None = None) -> str:
    """A crowd's file, read with the size limit every input file has (flows/core/inputs/text_files.py)."""
    try:
        return read_text(path, what, max_bytes)
    except InputFormatError as exc:
        raise ConfigError(f"{exc}; fix the crowd file or pass another --crowd") from exc


def _token_bank(text: str) -> dict[str, BankEntry]:
    """Flickr8k's ``<file>.jpg#<n>\t<caption>``: keyed by the file name without ``.jpg``."""
    bank: dict[str, BankEntry] = {}
    for line in text.splitlines():
        ref, _, caption = line.partition("\t")
        if caption:
            image = ref.split("#")[0].removesuffix(".jpg")
            # Flickr8k is tokenised ("a dog ."): join the final stop back as a worker types it.
            typed = _TOKEN_GAP.sub(r"\1", caption.strip())
            bank.setdefault(image, BankEntry([], 0)).captions.append(typed)
    return bank


_TOKEN_GAP = re.compile(r"\s+([.,!?'])")


def truth_key(row: dict[str, str]) -> str:
    """Where a study item's truth is kept: per sentence, per system of a pairwise image, else per item."""
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
        for row in csv.DictReader(io.StringIO(_read(path, "a judgement_truth file"), newline="")):
            if row.get("sim_truth", "") != "":
                truth[truth_key(row)] = BankEntry([], 0, row["sim_truth"])
    return truth


def load_crowd(path: Path, seed: int | None = None) -> tuple[Crowd, dict[str, BankEntry]]:
    """The crowd file's workers and the caption bank they draw on."""
    try:
        spec = tomllib.loads(_read(path, "the crowd file", MAX_CONFIG_BYTES))
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise ConfigError(f"crowd file {path}: not valid TOML ({str(exc)[:200]}); fix the file or pass another "
                          "--crowd") from exc
    bank_path = _named(path, spec, "caption_bank") if "caption_bank" in spec else None
    if bank_path and not bank_path.is_file() and spec.get("caption_bank_optional"):
        bank_path = None  # e.g. ../shared/data absent: workers write the fallback sentence
    bank = load_bank(bank_path) if bank_path else {}
    truth = spec.get("judgement_truth", [])
    bank.update(load_truth([_named(path, {"judgement_truth": p}, "judgement_truth") for p in truth]))
    rules = parse_spec(path, spec, seed)
    return (shared_crowd(rules) if rules.by_share else counted_crowd(rules)), bank


def _named(path: Path, spec: dict[str, object], key: str) -> Path:
    """A file the crowd file names, kept inside the config folder (``config/`` for ``config/crowds/*.toml``)."""
    if not isinstance(spec[key], str):
        raise ConfigError(f"crowd file {path}: {key} must be a file name; fix the crowd file")
    folder = path.parent.parent if path.parent.name == "crowds" else path.parent
    return contained(path.parent / str(spec[key]), folder, f"crowd file {path}: {key}")


def says_text_present(worker: Worker, item_id: str, bank: dict[str, BankEntry], rng: random.Random) -> str:
    truth = image_entry(item_id, bank)[0].text_detected  # a generated image shows what it adopted
    correct = rng.random() < (0.5 + worker.skill / 2)
    return "yes" if bool(truth) == correct else "no"


def work_seconds(worker: Worker, n_items: int, duration_s: int, rng: random.Random,
                 parts: list[float] | tuple[float, ...] = ()) -> float:
    """Seconds from accept to submit on the virtual clock, at the worker's pace and speed."""
    if worker.profile == "slow":
        return duration_s * rng.uniform(worker.params["park_share"] - 0.1, worker.params["park_share"])
    mean = float(worker.params["seconds_per_item"])
    units = max(1, n_items) if not parts else n_items
    speed = mean / PROFILE_DEFAULTS["diligent"]["seconds_per_item"]
    # a part's seconds are people's median for its control (flows/sim/pages/page_filling.py)
    return sum(rng.lognormvariate(0, 0.35) * (mean if i < units else speed * parts[i - units])
               for i in range(units + len(parts)))


"""What a simulated worker types into a caption box, by profile."""

from __future__ import annotations

import random
import re
import zlib

from flows.sim.people.crowd_model import ASSISTANT_PROFILES, PASTING_PROFILES, BankEntry, Worker, normalise
from flows.sim.people.unseen_images import blind_descriptions, uncaptioned
from qc.submit_rules import SubmitRules, is_canned, violations

FILLER = ("with", "a", "few", "other", "objects", "visible", "around", "it")
FALLBACK = BankEntry(["A small object on a table in a room with a wall behind it."], 0)
# Pasted on many images by the accounts VizWiz rejected (verbatim from is_rejected captions).
TEMPLATES = (
    "A very wonderful view and worth seeing at all times, my friend",
    "Beautiful view from behind the walls hidden under dark mist",
    "A wonderful view of the fog windows in the room is very thick",
    "Nicely taken the picture and focus point of the object is nice.",
)
PRAISE = (
    *TEMPLATES[:3],
    "A very nice view that anyone would be happy to look at for a while.",
    "What a lovely sight, really worth seeing with your own eyes some day.",
    "Such a beautiful scene, it makes me feel calm every time I see it.",
    "An amazing and pleasant view that is worth seeing for all of us.",
)
PAGE_ECHOES = (
    "Describe all parts of the image that may be important to a person who is blind.",
    "Describe the image in one sentence for a person who is blind.",
    "imagine how you would describe this image on the phone to a friend.",
)
_RELATIONS = ("next to", "beside", "in front of", "behind", "near", "under", "on top of", "close to",
              "to the left of", "to the right of")
_COLOURS = ("red", "blue", "green", "white", "black", "grey", "brown", "yellow", "orange", "pink",
            "purple", "silver", "beige", "dark blue")
_THINGS = ("mug", "book", "phone", "lamp", "chair", "box", "bag", "towel", "plate", "bottle", "remote",
           "cushion", "jar", "tin", "pen", "cup", "shoe", "blanket", "keyboard", "bowl", "spoon", "clock",
           "basket", "folder", "candle", "plant", "sock", "envelope", "glass", "notebook", "toy", "hat",
           "wallet", "card", "napkin", "tray", "charger", "comb", "magazine", "scarf")
_ANGLES = ("seen from above", "seen up close", "seen from the side", "photographed at an angle",
           "against a plain background", "on a cluttered surface", "held in someone's hand",
           "in a small room", "near a window", "on a kitchen counter", "on a wooden table",
           "on a carpeted floor")
SYNONYMS = {"small": "little", "large": "big", "big": "large", "little": "small", "photo": "picture",
             "picture": "photo", "sitting": "resting", "holding": "carrying", "bottle": "container",
             "box": "package", "table": "surface", "white": "pale", "person": "someone"}
_BANK_KEYS: dict[tuple[int, int], list[str]] = {}


def image_entry(item_id: str, bank: dict[str, BankEntry]) -> tuple[BankEntry, str]:
    """The bank's captions for an image; a made-up scene for an image it lacks; adopted ones for a generated item."""
    base = item_id.split("~")[0]
    if base in bank and bank[base].captions:
        return bank[base], ""
    if uncaptioned(item_id, bank):  # content-blind, and said so: never another image's captions as this one's
        return BankEntry(blind_descriptions(base), 0), ""
    keys = _BANK_KEYS.get((id(bank), len(bank)))
    if keys is None:
        keys = _BANK_KEYS.setdefault((id(bank), len(bank)), sorted(k for k, e in bank.items() if e.captions))
    n = zlib.crc32(item_id.encode())
    adopted = bank[keys[n % len(keys)]] if keys else FALLBACK
    n //= max(1, len(keys))
    scene = (f"{_RELATIONS[n % 10]} a {_COLOURS[n // 10 % 14]} "
             f"{_THINGS[n // 140 % len(_THINGS)]}")
    return adopted, scene


def _with_scene(caption: str, scene: str) -> str:
    return f"{caption.strip().rstrip('.!?')}, {scene}." if scene else caption


def pass_rules(text: str, rules: SubmitRules) -> str:
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


def add_typos(text: str, rate: float, rng: random.Random) -> str:
    words = text.split(" ")
    for i, w in enumerate(words):
        if len(w) > 4 and w.isalpha() and w.islower() and rng.random() < rate:
            j = rng.randrange(1, len(w) - 2)
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def variation(text: str, attempt: int) -> str:
    """The ``attempt``-th rewording of a caption; distinct attempts give distinct texts."""
    words = text.strip().rstrip(".!?").split(" ")
    if attempt % 2:
        words = [SYNONYMS.get(w, w) for w in words]
    k = attempt // 2
    angle = _ANGLES[k % len(_ANGLES)]
    k //= len(_ANGLES)
    extra = f" {_RELATIONS[k % 10]} a {_COLOURS[k // 10 % 14]} {_THINGS[k // 140 % len(_THINGS)]}" if k else ""
    return f"{' '.join(words)}, {angle}{extra}."


def write_caption(worker: Worker, item_id: str, bank: dict[str, BankEntry],
                  rules: SubmitRules, rng: random.Random) -> str:
    """The caption this worker types for this image."""
    entry, scene = image_entry(item_id, bank)
    real = [_with_scene(c, scene) for c in entry.captions if not is_canned(c)] or [
        _with_scene("An object that is hard to make out on a surface.", scene)]
    canned_share = sum(is_canned(c) for c in entry.captions) / max(1, len(entry.captions))
    p, kind = worker.params, worker.profile
    if not rules.canned_text:  # the page has no canned answer: canned-abusers rush instead
        kind = "speeder" if kind in ("canned_abuser", "contrarian") else kind
    if kind in PASTING_PROFILES:
        return pasted(worker, kind, real, bank, rules, rng)
    if kind == "canned_abuser" and rng.random() < p["canned_rate"]:
        return rules.canned_text
    if kind == "contrarian":
        if canned_share < 0.5:
            return rules.canned_text
        return _unrepeated(worker, rng.choice(real), real, rules, rng)
    # an assistant describes every image, even one a person would call unrecognisable (a guess)
    if kind not in ("rule_breaker", *ASSISTANT_PROFILES) and rules.canned_text and rng.random() < canned_share:
        return rules.canned_text
    draft = rng.choice(real).strip()
    if kind in ASSISTANT_PROFILES:
        draft = _assistant_answer(draft, real, rng)
    if kind == "speeder":
        draft = min(real, key=len).strip()
    if kind == "rule_breaker":
        return rng.choice(["This is " + " ".join(draft.split()[:3]), "a thing", "It's " + draft.lower()])
    return _unrepeated(worker, draft, real, rules, rng)


def styled(worker: Worker, text: str, rng: random.Random, rules: SubmitRules | None = None, exact: bool = False) -> str:
    """``text`` as the worker's profile types it, within the page's ``rules``; ``exact``: words copied as they stand
    (no typos)."""
    kind = worker.profile
    if kind == "blur_talker" and rng.random() < worker.params.get("blur_rate", 0.7):
        text = rng.choice(["A blurry photo of ", "A low quality, blurred shot of "]) + text[:1].lower() + text[1:]
    text = pass_rules(text, rules) if rules is not None else text
    if kind == "caps_locker":
        text = text.upper()
    if kind == "typo_prone" and not exact:
        text = add_typos(text, worker.params.get("typo_rate", 0.12), rng)
    return text


def _unrepeated(worker: Worker, draft: str, real: list[str], rules: SubmitRules, rng: random.Random) -> str:
    """The worker's text for this draft, reworded until it is one they have not typed before."""
    text = styled(worker, draft, rng, rules)
    others = [c for c in real if c != draft]
    attempt = 0
    while normalise(text) in worker.written:
        attempt += 1
        if attempt > 20000:
            raise RuntimeError(f"worker {worker.worker_id} ran out of new wordings for {draft!r}")
        retry = others[attempt - 1] if attempt <= len(others) else variation(draft, attempt - len(others))
        text = styled(worker, retry, rng, rules)
    worker.written.add(normalise(text))
    return text


def pasted(worker: Worker, kind: str, real: list[str], bank: dict[str, BankEntry],
            rules: SubmitRules, rng: random.Random) -> str:
    """Abuse by repetition: one caption, a template, praise, or the page's own words."""
    if kind == "generic_praise":
        return pass_rules(rng.choice(PRAISE), rules)
    if kind == "instruction_echo":
        return _echo(real, rules, rng)
    if "text" not in worker.memory:
        # From the worker's own seed, so a run is reproducible whatever order its HITs are posted in.
        own = random.Random(worker.worker_id)
        if kind == "copy_paster":
            described = sorted(k for k, e in bank.items() if e.captions)  # not an entry of known answers only
            pick = own.choice(bank[own.choice(described)].captions) if described else real[0]
        elif kind == "template_ring":  # every account of a ring pastes the ring's template
            pick = TEMPLATES[int(worker.params.get("ring", 0)) % len(TEMPLATES)]
        else:
            pick = own.choice(TEMPLATES)
        worker.memory["text"] = pass_rules(pick, rules)
    return worker.memory["text"]


def _echo(real: list[str], rules: SubmitRules, rng: random.Random) -> str:
    """An instruction of the page, or its banned openings listed around a word of the image."""
    if not rules.banned_prefixes or rng.random() < 0.5:
        return pass_rules(rng.choice(PAGE_ECHOES), rules)
    thing = max(re.findall(r"[a-z]+", min(real, key=len).lower()) or ["item"], key=len)
    pairs = [rules.banned_prefixes[i:i + 2] for i in range(0, min(8, len(rules.banned_prefixes)), 2)]
    return "\n".join(f'-"{"/".join(pair)} {thing}"' for pair in pairs)


def _assistant_answer(draft: str, real: list[str], rng: random.Random) -> str:
    """An assistant's one-sentence description of the image: two of its captions, fluent and long."""
    others = [c for c in real if c.strip() != draft]
    if not others:
        return draft
    extra = rng.choice(others).strip().rstrip(".!?")
    return f"{draft.rstrip('.!?')}, and {extra[:1].lower()}{extra[1:]}."

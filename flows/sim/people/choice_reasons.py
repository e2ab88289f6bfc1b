"""A reason for the worker's own choice, naming the option and the criterion asked about."""

from __future__ import annotations

import random
import re

from flows.sim.people.own_readings import short
from flows.sim.people.summaries import _main_clause, main_text, sentences, shortened, third_person

WHICH = re.compile(r"\bwhich\b(?:\s+[\w-]+){0,4}?\s+(?P<c>(?:is|are|looks?|seems?|"
                   r"sounds?|reads?|would|could|will|has|have|makes?|gives?|shows?|do you|did you)\b[^?.!]*)", re.I)
# "how clear is it", and "how clearly the main object is visible" (its own verb and word: "is clearly visible")
HOW = re.compile(r"\bhow (?P<c>[a-z]+) (?:(?:the|its|this|that|each|your) [\w' ]{1,30}? (?P<v>is|are|looks?|seems?) "
                 r"(?P<d>[a-z]+)|is|are|was|does|do|would)\b", re.I)
# a scale's ends as a page words them: "1 = very blurry", "5: perfectly clear", "(1 - painfully slow)"
ANCHOR = re.compile(r"\b(?P<n>\d{1,2})\s*(?:=|:|-|–|—)\s*(?P<w>[A-Za-z][A-Za-z' -]{1,40}?)\s*(?=\d|[,;.()/…]|$)")
ME = {"you": "me", "your": "my", "yours": "mine", "you're": "I'm"}
CAN = re.compile(r"\b(?:can|could) you (?P<c>[^?.!]+)", re.I)  # "Can you read the sign?": "lets me read the sign"
# a choice that says no, or only in part ("Not at all", "Only partly", "Very unclear")
NAY = re.compile(r"\b(?:not|no|never|hardly|barely|partly|partially|poorly|only)\b|n't\b|\bun(?!der|til|ion|it)\w{3}|"
                 r"difficult|\bhard\b", re.I)
# criterion words -> item kind, grounds for a yes (or high) and for a no (or low)
GROUNDS: tuple[tuple[re.Pattern[str], str, tuple[str, ...], tuple[str, ...]], ...] = (
    (re.compile(r"\bread|legib|letter|writing|\b(?:the|its|any) (?:words|text)\b", re.I), "image",
     ("the letters are large and sharp", "the words of {t} stand out clearly against the background", "the "
      "lettering faces the camera in good light", "the writing near {t} is close enough to make out every letter"),
     ("the letters are small and blurred", "glare hides some of the letters near {t}", "the writing is at an angle, "
      "so the letters are squashed", "the photo is too dark to pick out the words of {t}", "part of the writing "
      "is cut off or covered")),
    (re.compile(r"sharp|focus|blur|crisp|clear|\bread|legib|\bsee\b|visib|make out|recogni|detail", re.I), "image",
     ("the edges around {t} are crisp", "you can make out fine detail in {t}", "in the other one {t} looks soft and "
      "a bit blurred", "nothing is smeared or out of focus near {t}", "the outlines of {t} stay sharp",
      "the letters and shapes stand out well against the background"),
     ("{t} looks soft and smeared, as if the camera moved", "the part that matters is small and far from the camera",
      "glare and shadow hide part of {t}", "the photo is too dark to pick out the detail", "{t} is cut off at the "
      "edge of the frame", "{t} is seen at an awkward angle, so the shapes run together")),
    (re.compile(r"bright|dark|\blight\b|exposure", re.I), "image",
     ("{t} is well lit and easy to see", "the other one is too dim around {t}", "the light on {t} is even"),
     ("{t} sits in deep shadow", "the photo is dim around {t}", "bright light washes out {t}")),
    (re.compile(r"clear|understand|confus|vague|ambig|make sense|meaning|plain|readab", re.I), "text",
     ("{t} says plainly what it is about", "a reader knows at once what {t} refers to", "{t} uses plain everyday "
      "words", "nothing in {t} can be read two ways"),
     ("{t} could be read two ways", "it never says who or what {t} refers to", "{t} reads oddly, so I had to guess "
      "at the meaning", "the words {t} leave the main point vague", "{t} repeats itself and hides what happened")),
    (re.compile(r"click|read|interest|curious|attention|catch|appeal", re.I), "",
     ("it makes me curious about {t}", "{t} promises something I want to find out", "next to it the other one reads "
      "like a dry notice, while {t} does not", "{t} speaks to the reader directly", "{t} leaves a question open that "
      "I would click to answer"),
     ("{t} gives me little reason to read on", "{t} sounds flat and tells me nothing new")),
    (re.compile(r"quick|fast|time|easy|simple", re.I), "",
     ("{t} takes minutes rather than hours", "{t} needs no long waiting", "the other one needs hours or an "
      "overnight step, unlike {t}", "there are only a few short steps in {t}", "with {t} I could be done in well "
      "under half an hour"), ()),
    (re.compile(r"help|useful|inform", re.I), "",
     ("it gives a concrete detail, {t}", "a reader learns something real from {t}", "with {t} it explains what "
      "happened instead of just a feeling"), ("{t} tells a reader very little", "{t} is a feeling rather than a fact")),
)
GENERAL = ("{t} says it plainly", "{t} matches the rest", "{t} is the main point", "{t} decides it",
           "{t} leaves little doubt", "{t} is hard to miss", "the difference shows most in {t}",
           "{t} is where it is clearest", "{t} points that way", "you can see it in {t}")
RATED = ("I gave it {o} because it {c}.", "I rated it {o}, as it {c}.", "{O}, because it {c}.")
PLURAL = re.compile(r" and ")  # several ticked ("Students and Developers"), a group ("Managers and team leads")
THEY = {"is": "are", "has": "have", "was": "were", "would": "would", "could": "could", "should": "should"}
OPENINGS = ("I chose {o} because it {c}.", "I picked {o}, as it {c}.", "{O}, because it {c}.",
            "I went with {o} since it {c}.")
ASKING = re.compile(r"^(?:please|can|could|would|will)\b", re.I)
ALSO = ("They also say ", "It also says ", "On top of that, ", "Besides, they mention ")
# the option, and the item's own clause as the ground: enough words of the reader's own around the quoted part
TOLD = ("I chose {o} because {c}.", "I went with {o}, since {c}.", "I picked {o}: as I read it, {c}.",
        "{O}, because from what they write, {c}.", "I would say {o}, since {c}.", "My choice is {o}, because {c}.")


def said_together(options: list[str]) -> str:
    """Several ticked options as a person lists them ("Students, Developers and Managers")."""
    return ", ".join(options[:-1]) + (" and " if len(options) > 1 else "") + (options[-1] if options else "")


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())} - {"these", "those", "which", "what", "that",
                                                                      "this", "your", "would", "does", "tick"}


def named_choice(choices: list[tuple[str, str]], question: str) -> tuple[str, str] | None:
    """Of the worker's choices on an item, the one a reason's question names by its words ("Why did you pick those
    groups?" -> the choice asked as "Which of these groups ...", "none of them" if nothing was ticked), or None."""
    scored = [(len(_stems(asks) & _stems(question)), k) for k, (asks, _chosen) in enumerate(choices)]
    best = max(scored, default=(0, 0))
    asks, chosen = choices[best[1]]
    return None if not best[0] else (asks, chosen) if chosen else ("", "none of them")  # (none: no criterion met)


# a quoted sentence on the page is an example answer, never the question's criterion
EXAMPLE = re.compile(r"(?:\b(?:e\.g\.|for example|for instance|such as|like)[,:]?\s*)?[\"“](?:[^\"“”]+\s){3,}"
                     r"[^\"“”]*[\"”]", re.I)


def criterion(question: str) -> str:
    """The verb phrase the choice's question asks about, said of the option ("is in better focus"), or ""."""
    question = EXAMPLE.sub("", question)
    asks = [s for s in re.split(r"(?<=[?.!:])\s+", question) if s.strip()] or [question]
    for sentence in reversed(asks):
        if m := WHICH.search(sentence):
            said = " ".join(ME.get(w.lower(), w) for w in m["c"].split())
            return re.sub(r"^(?:do|did) me (\w+)", r"is what I \1", said).strip(" ,;:")
        if m := HOW.search(sentence):
            return f"is {m['c'].lower()}" if not m["d"] else f"{m['v'].lower()} {m['c'].lower()} {m['d'].lower()}"
        if m := CAN.search(sentence):
            return "lets me " + " ".join(ME.get(w.lower(), w) for w in m["c"].split())
    return ""


def anchors(texts: list[str]) -> str:
    """The words of a scale's two ends in the options or the question, lowest first; "" when they name none."""
    ends = sorted((int(m["n"]), m["w"].strip(" -").lower()) for t in texts for m in ANCHOR.finditer(t))
    return f"{ends[0][1]}|{ends[-1][1]}" if len(ends) > 1 and ends[0][0] < ends[-1][0] else ""


def _on_scale(ends: str, level: float) -> str:
    low, high = ends.split("|")
    near, far = (high, low) if level > 0.5 else (low, high)
    return f"is {near}" if abs(level - 0.5) > 0.4 else f"is between {low} and {high}" if level == 0.5 else \
        f"is closer to {near} than to {far}"


def _option(label: str) -> str:
    return label[:1].lower() + label[1:] if label.split()[0].lower() in ("the", "a", "an") else label


def _grounds(said: str, asks: str, low: bool, image: bool) -> tuple[str, ...]:
    """Grounds of the kind the choice asks about (its question's words, not the text around it), for this kind of
    item, on the chosen side."""
    parts = re.split(r"(?<=[.!?])\s+", EXAMPLE.sub("", asks))
    asks = " ".join(p for p in parts if p.rstrip().endswith("?")) or asks
    for pattern, kind, yes, no in GROUNDS:
        if pattern.search(f"{said} {asks}") and kind in ("", "image" if image else "text"):
            found = [g for g in (no if low else yes) if WHICH.search(asks) or "other" not in g]
            return tuple(found) or GENERAL
    return GENERAL


def told_grounds(texts: list[str]) -> list[str]:
    """What the item's main text says, a clause a sentence, as its reader tells it ("the kettle stopped heating")."""
    prose = [t for t in texts if t.count(":") < 2] or texts  # (a line of labelled fields is a record, not prose)
    source = main_text(prose)
    names = set(re.findall(r"(?<=[\w,] )[A-Z][\w'-]*", source))  # capitals mid-sentence: names keep theirs
    told = [third_person(shortened(s)).strip("\"'“”‘’ ").rstrip(".!") for s in sentences(source)
            if not ASKING.match(s)]  # (what the writer asks for is no ground for a choice about it)
    return [t if t.split()[0] in names | {"I"} else t[:1].lower() + t[1:] for t in told if len(t.split()) >= 3
            and not t.endswith("?")]


def _told_reason(option: str, told: list[str], rng: random.Random, least: int, most: int | None) -> str:
    """The option, and what in this item's own text decided it (the grounds a person points to on a text), the
    quoted part cut to leave room for it within ``most`` words."""
    size = {f: len(f.format(o=option, O=option, c="x").split()) - 1 for f in TOLD}
    frame = rng.choice([f for f in TOLD if size[f] + 4 <= (most or 99)] or [min(TOLD, key=size.__getitem__)])
    # under half of a short box's words quoted, so the answer stays the worker's own
    room = max(3, min((most or 99) - size[frame], (most or 99) // 2 - 1))
    picked = [short(_main_clause(t, 9), min(11, room)) for t in rng.sample(told, len(told))]  # a part, not its text
    text = frame.format(o=option, O=option[:1].upper() + option[1:], c=picked[0])
    for more in picked[1:]:
        if len(text.split()) >= least:
            break
        text += f" {rng.choice(ALSO)}{more}."
    return text


def choice_reason(chosen: str, asks: str, spans: list[str], rng: random.Random, least: int = 0,
                  level: float = 1.0, ends: str = "", image: bool = False, most: int | None = None,
                  told: list[str] | None = None) -> str:
    """Why the worker chose ``chosen`` for ``asks``, in ``least`` to ``most`` words, on the item's ``spans``
    (``told``: the item's own clauses, the grounds for a choice whose question names no criterion nor kind of
    ground)."""
    said, option = criterion(asks), _option(chosen) if chosen.strip() else ""
    if not said and told and option and _grounds(ends, asks, False, image) is GENERAL:
        return _told_reason(re.sub(r"\s*\([^)]*\)", "", option).strip() or option, told, rng, least, most)
    scaled = bool(ends or HOW.search(asks) or re.match(r"\d", option))
    low = bool(NAY.search(option)) or (scaled and level < 0.4)
    if said.startswith("is ") and HOW.search(asks) and level < 0.6:
        said = f"is {'not very' if level < 0.4 else 'only somewhat'} {said[3:]}"
    if said.startswith("lets me ") and low:
        said = f"{'does not let' if re.search(r'not|no|never', option, re.I) else 'only partly lets'} {said[5:]}"
    if ends and (number := re.match(r"\d+", option)):  # "5 = perfectly clear": said as "5, as it is perfectly clear"
        said, option = _on_scale(ends, level), number[0]
    grounds = _grounds(f"{said} {ends}", asks, low, image)
    if said and option:
        frames = RATED if option.isdigit() else OPENINGS
        text = rng.choice(frames).format(o=option, O=option[:1].upper() + option[1:], c=said)
        if PLURAL.search(option):  # several ticked, or a group: "they would", "they are"
            text = re.sub(r"\bit (is|has|was|would|could|will|can|should|might|may|\w+s)\b",
                          lambda m: "they " + THEY.get(m[1], m[1] if len(m[1]) < 5 else m[1][:-1]), text, count=1)
    else:
        text = rng.choice(("I chose {o}.", "I went with {o}.", "{O}.")).format(o=option, O=option[:1].upper() +
                                                                             option[1:]) if option else ""
    ways = rng.sample(grounds, len(grounds))
    if spans:  # what in this item decided it, first: a ground no other item's reason shares
        ways = sorted(ways, key=lambda g: "{t}" not in g)
    for k, way in enumerate(ways):
        if k and len(text.split()) >= max(least, 1):
            break
        ground = way.format(t=f"\"{spans[k % len(spans)]}\"" if spans else "the item")
        if not k and most and len(f"{text} {ground}".split()) > most and option:
            text = f"{option[:1].upper()}{option[1:]}."
        text = f"{text} {ground[:1].upper()}{ground[1:]}.".strip()
    while len(text.split()) < least:  # a criterion with few grounds of ours: said again in other words
        text = f"{text} That is why I chose {option or 'it'}, more than the other option."
    return text

"""Free text a person writes in their own voice about an item, of the kind the question asks."""

from __future__ import annotations

import random
import re

from flows.sim.people.asked_details import WHEN, WRONG, remedy, thing
from flows.sim.people.item_lookups import claim_point
from flows.sim.people.own_readings import checked, clauses, named, short, swapped, untold
from flows.sim.people.summaries import main_text

ASKS = (("reply", r"\bhow (?:would|will|might|do) you (?:reply|respond|answer)|\b(?:write|draft) (?:a |an |your )?"
                  r"(?:reply|response|answer) to\b|\bwhat would you (?:say|write) (?:to|back)\b"),
        ("opinion", r"\b(?:would|do|will) you (?:support|back|vote for|recommend|welcome|accept)\b|\bwhy or why not\b"),
        ("change", r"\bwhat (?:\w+ )?would you (?:change|improve|alter|add|remove)\b|\bhow would you (?:change|improve)"
                   r"\b|\bwhat (?:changes?|improvements?) would you\b|\bif you could change\b|"
                   r"\bhow (?:could|can|should|might) (?:the |they |we |it |this |he |she )?(?:[\w']+ ){0,3}?"
                   r"(?:make|improve|change)\b"),
        ("deed", r"\bwhat\b(?:,? if anything,?)? (?:would|will|could|might|should) you (?:\w+ )?do\b|\bhow would you "
                 r"(?:handle|deal with|react)\b|\bwhat do you do\b"),
        ("checked", r"\bhow (?:did|do|would|could|can) you (?:check|verify|confirm|test|work (?:\w+ )?out|calculate|"
                    r"get|arrive)\b|\bshow (?:your working|how you)\b"),
        ("meaning", r"\bwhat (?:does|do|did) (?:the |this |that )?(?:[\w'-]+ ){0,3}(?:mean|stand for)\b|\bexplain\b"
                    r"[^?.]{0,40}\bwhat\b[^?.]{0,40}\bmeans?\b|\b(?:define|definition of|meaning of)\b"),
        ("opinion", r"\bgood idea\b|\bwhat do you think (?:of|about)\b|\b(?:your|an) (?:opinion|view)\b|"
                    r"\bdo you (?:agree|support|approve)\b|"
                    r"\bin favou?r\b|\bfor or against\b"),
        ("untold", r"\b(?:does|do|did)(?: ?n[o']t|\b[^?.]{0,40}\bnot) (?:tell|say|mention|include|give|state|explain|"
                   r"cover)\b|\bnot "
                   r"(?:given|stated|mentioned|included|explained|said|told)\b|\bwould (?:most )?(?:want|like|need) "
                   r"to know\b"),
        ("feeling", r"\bhow (?:would|do|did|might) you feel\b|\bhow does (?:this|it|that) make you feel\b|\byour "
                    r"(?:feelings?|reaction)\b"),
        ("who", r"\bwho\b[^?.]{0,30}\b(?:affected|impacted|hit|helped|hurt|harmed|benefits?|loses?|gains?|suffers?)\b|"
                r"\bwhich (?:people|groups?)\b"),
        ("weigh", r"\b(?:benefits?|advantages?|upsides?|drawbacks?|disadvantages?|downsides?|risks?|dangers?|"
                  r"worr(?:y|ies)|concerns?|(?:counter-?)?arguments?|objections?|case (?:for|against))\b"))
PLAN = re.compile(r"\b(?:this|the) (change|plan|proposal|rule|policy|decision|scheme|idea|announcement|project)\b",
                  re.I)
GOOD_SIDE = re.compile(r"\b(?:benefits?|advantages?|upsides?|(?:argument|case) (?:for|in favou?r))\b", re.I)
OWN_KINDS = frozenset(kind for kind, _p in ASKS)
ASKED = tuple((kind, re.compile(pattern, re.I)) for kind, pattern in ASKS)
RECAST = re.compile(r"\b(?:reword|rewrite|rephrase|kinder|politer|polite|friendlier|gentler)\b", re.I)
PEOPLE = re.compile(r"\b(?:neighbou?rs?|couple|family|people|man|woman|friends?|colleagues?|boss|manager|cashier|"
                    r"driver|guests?|kids|children|students?|staff|employees|workers|landlord|owner|tenants?|"
                    r"visitors|residents|customers|passengers|drivers|pupils|members|commuters|travell?ers|shoppers|"
                    r"patients|readers|users|parents|teachers|fans|owners|locals|cyclists|walkers)\b", re.I)
IN_CHARGE = re.compile(r"\b(?:council|landlord|manager|management|police|company|school|agent|owner|staff|shop|"
                       r"driver|bank|boss)\b", re.I)


def own_kind(question: str) -> str:
    """The kind of own-voice answer ``question`` asks for, or "" (one the caller reads otherwise)."""
    if RECAST.search(question):
        return ""
    return next((kind for kind, pattern in ASKED if pattern.search(question)), "")


def own_answer(kind: str, question: str, texts: list[str], rng: random.Random, least: int, page: str = "") -> str:
    """An answer of ``kind`` about the item's ``texts``, of at least ``least`` words where it can; "" if no words."""
    if not texts or not main_text(texts).strip():
        return ""
    said = WRITERS[kind](texts, rng, question, page)
    text = said[0] if said else ""
    for more in said[1:]:
        if len(text.split()) >= least:
            break
        text = f"{text} {more}"
    return text

def _trouble(texts: list[str]) -> tuple[list[str], str]:
    """The clauses of the item's main text that tell of trouble (else all of them), and the thing at fault."""
    parts = clauses(main_text(texts))
    told = [c for c in parts if WRONG.search(c)] or parts or [main_text(texts)]
    return told, named(main_text(texts)) or thing(told + parts)

def _todo(told: list[str], what: str, instead: str) -> str:
    """What to do about the trouble (asked_details.remedy), or ``instead`` where no remedy fits it."""
    todo = remedy(told, what)
    return instead.format(t=what) if todo == remedy([""], what) else todo


def _reply(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    told, what = _trouble(texts)
    worst = swapped(short(told[-1] if len(told) > 1 else told[0], 9))
    todo = _todo(told, what, "look into what happened with {t} and get back to you")
    thanks = rng.choice(("Thank you for your message about {t}.", "Hi, thanks for letting me know about {t}.",
                         "Hello, and thank you for telling me about {t}.")).format(t=what)
    sorry = rng.choice(("I am sorry that {s}.", "Sorry to hear that {s}.", "I apologise that {s}.")).format(
        s=worst[:1].lower() + worst[1:] if not worst.startswith("I ") else worst)
    return [f"{thanks} {sorry} I will {todo} {rng.choice(WHEN)}.",
            rng.choice(("Please let me know if you need anything else.", "Thanks for your patience.",
                        "I will keep you updated."))]


def _deed(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    """What I would do about the item's trouble, whom I would go to if that failed, and why it matters to me."""
    told, what = _trouble(texts)
    item = main_text(texts)
    who = PEOPLE.search(" ".join(told))
    told = sorted(told, key=lambda c: not PEOPLE.search(c))  # the trouble's own clause first
    if who:
        first = f"I would {rng.choice(('talk to', 'have a word with', 'speak to'))} the {who[0].lower()} " \
                f"{rng.choice(('politely', 'calmly', 'first'))} and ask them to sort it out, as {_told(told)}."
    else:
        first = f"I would report {what} to someone who can deal with it, as {_told(told)}."
    charge = IN_CHARGE.search(item)
    then = f"If that did not work, I would contact {'the ' + charge[0].lower() if charge else 'whoever is in charge'}."
    mine = [swapped(short(c, 10)) for c in clauses(item) if re.search(r"\byou(?:r)?\b", c, re.I)]
    why = [f"It matters to me because {mine[0][:1].lower() + mine[0][1:]}."] if mine else []
    return [first, then, *why, f"I would not just ignore {what}."]


def _told(told: list[str]) -> str:
    """The trouble, in a few of the item's words, as I would tell it."""
    said = swapped(short(told[0], 9))
    return said[:1].lower() + said[1:] if not said.startswith("I ") else said


def _change(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    parts = clauses(main_text(texts))
    strict = [c for c in parts if re.search(r"\b(?:must|only|at least|never|not|all|every|loses?|cannot|no|"
                                            r"more than|less than)\b", c, re.I)] or parts
    part = short(strict[0], 7)
    people = PEOPLE.search(main_text(texts))
    who = people[0].lower() if people else "the people it affects"
    change = rng.choice(("I would change the part where {p}, so that it is less strict.",
                         "I would relax the rule that {p} and allow some exceptions.",
                         "I would make \"{p}\" more flexible.")).format(p=part[:1].lower() + part[1:])
    return [change + rng.choice((" This is because it is too strict for {w}.", " It would be fairer to {w} that way.",
                                 " That way {w} would have more choice, as needs differ.")).format(w=who),
            f"As it stands, it does not allow for emergencies or for {who} with different needs."]


def _aim(item: str) -> str:
    """What the item says it is for, as a clause ("it would save money on heating"); "" where it says none."""
    aim = re.search(r"\b(?:so that|in order to|to)\s+(?P<a>(?:save|help|make|stop|reduce|allow|give|let|protect|keep|"
                    r"improve|cut|raise|pay|fund|cover|avoid)\b[^,.;]*|(?<=so that )[^,.;]+)", item)
    return "" if not aim else aim["a"] if aim[0].startswith("so that") else f"it would {aim['a']}"


def _opinion(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    item = main_text(texts)
    what = named(item) or thing(clauses(item))
    if rng.random() < 0.6:
        reason = _aim(item) or f"it would make {what} better for the people who use it"
        return [f"Yes, I think it is a good idea, because {reason}.",
                f"I would support it as long as {what} is looked after."]
    return [f"No, I do not think it is a good idea, because it would be hard on people who rely on {what}.",
            "The money and effort could be spent on something more useful."]


def because(texts: list[str], rng: random.Random, question: str, _page: str) -> list[str]:
    """Why, as the item's text says it (its "because", "so that", "to ..." clause), when no choice was asked."""
    item = main_text(texts)
    why = re.search(r"\b(?:because|since|as|due to)\s+([^,.;]+)", item)
    told, what = _trouble(texts)
    what = named(question) or what  # what the question asks about: "Why is the shop closing?"
    said = swapped(short(why[1], 12)) if why else _aim(item)
    if said:
        return [f"{rng.choice(('Because', 'Mainly because', 'It says it is because'))} {said}. "  # (not a copy alone)
                f"{rng.choice(('That is the reason given for', 'As I read it, that explains'))} {what}."]
    return [f"It does not say exactly, but probably because {_told(told)}. That would explain {what}."]


def _feeling(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    told, what = _trouble(texts)
    bad = any(WRONG.search(c) for c in told)
    mood = rng.choice(("annoyed", "worried", "upset", "fed up") if bad else ("pleased", "a bit unsure", "hopeful"))
    return [f"I would feel {mood} about {what}, because {_told(told)}.", f"I would have to plan my days around {what}.",
            "I think most people would feel the same way."]


def _who(texts: list[str], rng: random.Random, _question: str, _page: str) -> list[str]:
    told, what = _trouble(texts)
    people = list(dict.fromkeys(m[0].lower() for m in PEOPLE.finditer(main_text(texts))))
    who = f"the {' and the '.join(people[:2])}" if people else f"the people who rely on {what}"
    return [f"{rng.choice(('Mostly', 'Mainly', 'I think'))} {who}, because {_told(told)}.",
            f"They would notice the difference with {what} every day."]


def _counter(item: str, rng: random.Random) -> list[str]:
    """A reply to a claim's own point: the claim doubted in its words, then its "because" weighed (or its evidence
    asked for)."""
    claim, why = claim_point(item), re.split(r"[.!?](?:\s|$)", item.strip())[0].partition(" because ")[2]
    why = " ".join(why.split()[:12]).rstrip(",;")
    opening = rng.choice(("I am not convinced that", "I doubt that it is true that", "It is not clear that"))
    rest = (f"Even if {why}, that alone does not prove it, and it depends a lot on how things are done." if why else
            rng.choice(("The claim gives no evidence for this, and there are plenty of cases where it is not so.",
                        "It depends on the situation, and the evidence I have seen points both ways.")))
    return [f"{opening} {claim}. {rest}"]


def _weigh(texts: list[str], rng: random.Random, question: str, _page: str) -> list[str]:
    if re.search(r"\bcounter-?argument|\bdisagree|\brebut|\bobjection", question, re.I):
        return _counter(main_text(texts), rng)  # a reply to the claim, not the item's risks
    told, what = _trouble(texts)
    if GOOD_SIDE.search(question):
        good = _aim(main_text(texts)) or f"{what} would work better for the people who use it"
        return [f"{rng.choice(('The main benefit is that', 'The best part is that'))} {good}.",
                f"That would make a real difference to the people who rely on {what}."]
    return [f"{rng.choice(('My main worry is', 'The biggest risk is'))} that it could make things harder for the "
            f"people who rely on {what}.", f"It says {_told(told)}, and that might not work out as planned."]


def advice(texts: list[str], rng: random.Random, question: str, page: str) -> list[str]:
    """Advice on an item that tells of no trouble (a plan, an announcement): how to bring people along."""
    item = main_text(texts)
    people = PEOPLE.search(item)
    plan = PLAN.search(question) or PLAN.search(page)  # what the page calls it: "this change", "the proposal"
    what = f"the {plan[1].lower()}" if plan else named(item) or thing(clauses(item))
    return [f"I would advise them to explain {what} clearly to {'the ' + people[0].lower() if people else 'everyone'}"
            f" {rng.choice(('first', 'early on', 'in good time'))} and to listen to any concerns.",
            "Giving people time to get used to it would help too."]


WRITERS = {"reply": _reply, "deed": _deed, "change": _change, "opinion": _opinion, "checked": checked,
           "untold": untold, "feeling": _feeling, "who": _who, "weigh": _weigh, "advice": advice,
           "because": because}

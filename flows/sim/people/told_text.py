"""What an item itself tells its reader to do, and what it leaves unsaid, as a person retells or points it out."""

from __future__ import annotations

import random
import re

from flows.sim.people.summaries import FIRST, main_text, reword, sentences, third_person

# an instruction: an order, a "do not", or what someone "should" / "must" do; the verbs are those of advice
VERBS = (r"stop|return|take|bring|contact|call|phone|ring|email|write|check|keep|boil|avoid|throw|put|place|bin|"
         r"dispose|discard|use|wait|ask|get|read|register|send|unplug|switch|turn|close|open|visit|go|remove|store|"
         r"leave|tell|follow|apply|book|cancel|wash|clean|cook|drink|eat|look|report|make|see|find|stay|move|"
         r"park|lock|collect|claim|pay|fill|cover|wear|charge|dry|seek|consult|speak|talk|arrange")
ORDER = re.compile(rf"^(?:please\s+)?(?:(?:do not|don't|never|always|only)\s+)?(?:{VERBS})\b", re.I)
MODAL = re.compile(r"^(?P<who>.*?)\b(?P<m>should|must|need to|needs to|are (?:asked|advised|urged) to|"
                   r"is (?:asked|advised|urged) to|ought to|have to|has to|can)\s+(?P<do>\S.*)$", re.I)
PASSIVE = re.compile(r"^be (?P<v>[a-z]+ed)\b\s*(?P<rest>.*)$", re.I)  # "pupils must be collected" -> "collect pupils"
CONDITION = re.compile(r"^(?:if|once|when|as soon as)\b[^,;]*,\s*", re.I)  # "If you have bought it, do not ..."
YOURS = {"you": "they", "your": "their", "yours": "theirs", "yourself": "themselves"}
OPENINGS = ("{D}", "{D}", "They should {d}", "It says to {d}", "Best to {d}", "{D}, as it says", "They need to {d}")


def instructions(texts: list[str]) -> list[str]:
    """The item's own instructions, each as an order ("Stop using the heater", "do not eat it"), in order."""
    found, item = [], main_text(texts)
    for sentence in sentences(item):
        sentence = re.sub(r"^[^:]{1,60}:\s+(?=\S)", "", sentence.strip())  # a heading ("Recall:") orders nothing
        for part in re.split(r";\s*|\s*\.\s*", CONDITION.sub("", sentence.rstrip(".!"))):
            part = CONDITION.sub("", part.strip())
            if part.endswith("?"):  # a question asks; it orders nothing
                continue
            m = MODAL.match(part)  # "Customers should stop ...": what they should do, as an order
            who = re.sub(r"^.*,\s*", "", m["who"]).strip() if m else ""  # (not "Due to roadworks, ...")
            if m and re.search(r"\b(?:not|n't|never)$", m["who"].strip(), re.I):  # "You do not need to leave ..."
                if m["m"].lower().startswith("need"):
                    found.append(f"No need to {m['do']}")
                continue
            if m and (m["m"].lower() != "can" or who.lower() in ("you", "")):  # (not "the gritters can get through")
                part = re.sub(r"^not\s+", "do not ", _active(m["do"], who, item), flags=re.I)  # ("must not X")
            elif not ORDER.match(part):
                continue
            part = re.sub(r"^please\s+", "", part, flags=re.I)
            found.append(part[:1].upper() + part[1:])
    return found


def _active(do: str, who: str, said: str) -> str:
    """What someone is to do, as an order: "be collected from the gate" of "Pupils" -> "collect pupils from ..."."""
    if not (m := PASSIVE.match(do)) or not who:
        return do
    first = who.split()[0]
    who = who if re.search(rf"\w\s+{re.escape(first)}\b", said) else first.lower() + who[len(first):]  # (a name)
    v = m["v"].lower()
    base = next((b for b in (v[:-3] + "y" if v.endswith("ied") else "", v[:-1], v[:-2]) if re.fullmatch(VERBS, b)),
                v[:-2])
    return f"{base} {who} {m['rest']}".strip()


# what a writer asks of someone: "We ask the council to keep it open", "we call for speed bumps", "Can you move ...?"
PLEA = re.compile(r"\b(?:I|we)(?: would|'d)? (?:ask|urge|call on|request|want|like|need|beg)"
                  r"(?: (?P<who>the [\w -]{2,30}?|you|them))? to (?P<do>[^.;!?]+)|"
                  r"\b(?:I|we) (?:ask|call|are asking|campaign|petition) for (?P<what>[^.;!?]+)|"
                  r"^(?:(?:so |and )?(?:can|could|would|will) you (?:please )?|please )(?P<order>[a-z][^.;!?]*)", re.I)
ASKED = ("{D}", "{D}, as they ask", "{D} as requested", "{D}, as the message asks")
# a question the writer asks ("Can I add a landline?", "How do I cancel?"): the reader tells them the answer
QUESTION = re.compile(r"^(?:also,? |and |so |but )?(?:(?P<wh>how|what|when|where|why|which|who)\s+)?(?P<aux>can|could|"
                      r"may|will|would|should|do|does|did|is|are|was|were|has|have)\s+(?P<who>I|we|you|they|it|there|"
                      r"(?:the|my|our|this|that) [\w'-]+)\s+(?P<rest>[^?]+)\?$", re.I)


def whether(question: re.Match[str]) -> str:
    """A writer's question told of them: "Can I add a landline?" -> "whether they can add a landline"."""
    aux, who = question["aux"].lower(), third_person(question["who"])
    who = {"you": "we", "You": "we"}.get(who, who[:1].lower() + who[1:] if who.split()[0] != "I" else who)
    verb = "" if aux in ("do", "does", "did") else f" {aux}"
    return f"{(question['wh'] or 'whether').lower()} {who}{verb} {third_person(question['rest'])}"


def requests(texts: list[str]) -> list[str]:
    """What the item's writer asks its reader to do, as orders told of the writer ("Move their broadband")."""
    item = main_text(texts)
    if not FIRST.search(item):  # (a notice's "please" is advice to its readers, retold as instructions are)
        return []
    said, found = sentences(item), []
    parts = (p.strip() + "?" * (s.endswith("?") and not p.endswith("?")) for s in said
             for p in re.split(r"[;,]\s*(?:and )?(?=(?:can|could|please|do|does|is|are|will|should)\b)", s, flags=re.I))
    for k, part in enumerate(parts):
        if (m := PLEA.search(part)) and not m["what"] and (m["order"] or not part.endswith("?")):
            do = third_person(m["do"] or m["order"])
            if len(do.split()) <= 3 and re.search(r"\b(?:it|them|this|that)$", do) and k:  # "fix it": what "it" is
                do += f", since {third_person(said[0].rstrip('.!?'))[:1].lower()}{third_person(said[0])[1:]}"
            found.append(do.rstrip(".!?"))
        elif q := QUESTION.match(part):
            found.append(f"{'explain' if q['wh'] else 'tell them'} {whether(q)}")
    return found


PLEAS = ("They ask for {w}", "What they want is {w}", "They ask {o} to {d}", "They want {o} to {d}",
         "They are asking {o} to {d}")
ASKS_OF = re.compile(r"\bwhat (?:does|do|did|is) (?:the |this |that |their |its )?[\w' -]{0,30}?\b(?:ask(?:ing)?|want|"
                     r"request|call(?:ing)? for|demand|propos|urg)\w*(?: (?P<who>the [\w-]+|you|them))?", re.I)


def asked_of(texts: list[str], question: str, rng: random.Random) -> str:
    """What the item's writer asks for, told of them ("They ask the council to keep the pool open"), where the
    question asks what it asks; "" otherwise."""
    if not (asks := ASKS_OF.search(question)):
        return ""
    said = sentences(main_text(texts))
    thing = next((m[0][:1].lower() + m[0][1:] for m in re.finditer(r"\b(?i:the|our|my) (?:[A-Z][\w'-]* )*[\w'-]{3,}",
                                                                    " ".join(said))), "")
    for sentence in said:
        if m := PLEA.search(sentence.strip()):
            who = third_person(m["who"] or asks["who"] or "them")
            do = re.sub(r"\bit\b", third_person(thing), m["do"] or m["order"] or "", count=1) if thing else \
                m["do"] or m["order"] or ""
            told = rng.choice(PLEAS[:2] if m["what"] else PLEAS[2:]).format(w=third_person(m["what"] or ""), o=who,
                                                                             d=third_person(do))
            return told.rstrip(" ,") + "."
    return ""


def retold_advice(texts: list[str], rng: random.Random, least: int, most: int | None) -> str:
    """What the item's writer asks for, else its own instructions, retold within ``least``..``most`` words; ""
    where it gives none."""
    told = requests(texts)
    frames = ASKED if told else OPENINGS
    told = told or instructions(texts)
    if not told:
        return ""
    text, frame = "", rng.choice(frames) if not told[0].startswith("No need") else "{D}"
    for k, order in enumerate(told):
        verb, _, rest = order.partition(" ")
        said = f"{verb} {reword(rest, rng, 0.5)}".strip()  # (its verb as the item has it: "use", not "employ")
        if frame[:3] != "{D}":  # told of them, not to them: "They should not eat it, and return it to ..."
            said = re.sub(r"\b(?:you|your|yours|yourself)\b", lambda m: YOURS[m[0].lower()], said, flags=re.I)
            said = re.sub(r"^(?:do not|don't)\b", "not", said, flags=re.I)
        said = said[:1].lower() + said[1:]
        joined = frame.format(d=said, D=said[:1].upper() + said[1:]) if not k else f"{text.rstrip('.')}, and {said}"
        if k and most and len(joined.split()) > most:
            break
        text = joined.rstrip(".") + "."
        if len(text.split()) >= max(least, 12):  # the whole advice, as far as the box takes it
            break
    return text


# a word that leaves its measure to the reader: "a good reason", "a fair trade", "a reasonable time"
SMALL_WORD = r"(?:and|or|but|to|in|on|at|of|for|with|from|by|as|it|is|are|the|a|an)\b"
VAGUE = re.compile(r"\b(?:(?i:a|an|the|any|their|its|your)\s+)?(?<!as )(?:good|fair|reasonable|proper|suitable|"
                   r"appropriate|serious|usual|normal|regular|bright|busy|dark|late|early|enough|sensible|acceptable|"
                   r"safe|minor|major|small|large|long|short|heavy|quick|valid|genuine|special|certain|some|several|"
                   rf"extra|full|free|few)\s+(?:[a-z]+(?:ed|al|ful|less|ous|ive|able|ible|ic)\s+)?(?!{SMALL_WORD})[a-z][\w'-]+|"
                   r"\b(?:well in advance|in good time|as soon as possible|promptly|fairly|properly|regularly|"
                   r"appropriately|reasonably|(?<!as )soon|quickly|often|occasionally|from time to time)\b")
# (a date, a clock time or a numbered name, "Year 4 class", is no count)
COUNTED = re.compile(r"\b(?:half(?: (?:the|a|an|their) [a-z]+(?: [a-z]+)?)?|(?:once|twice|(?<!year )(?<!room )"
                     r"(?<!class )(?<!at )(?<!by )(?:one|two|three|four|five|six|ten|\d+)\s+(?!(?:jan|feb|mar|apr|may|"
                     r"jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|(?:am|pm|o'clock|and|or|to|until|towards|each|of)\b)"
                     r"[a-z]+)(?:\s+(?:per|a|each|in a)\s+[a-z]+)?)\b", re.I)
CONDITIONS = re.compile(r"(?<=[\w,] )(?P<c>unless|as long as|provided|subject to|except|if|when|until)\s+"
                        r"(?P<r>[^,.;]{6,80}\s[^,.;]*\s[^,.;]+)(?=[,.;]|$)", re.I)
THINGS = re.compile(rf"\b(?:the|their|its|your)\s+(?!(?:same|other|one|first|rest)\b)(?:(?!{SMALL_WORD})[a-z]"
                    rf"[\w'-]+\s){{0,2}}(?!{SMALL_WORD})[a-z][\w'-]{{3,}}", re.I)
VERB_LAST = re.compile(r"\s+(?:runs?|gets?|goes|is|are|was|has|have|can|will|may|must|and|or|but|who|that|which|"
                       r"to|in|on|at|of|for|with|from|by|\w+ed)$", re.I)
OPEN_WORD = ("It does not say what counts as {p}.", "\"{P}\" is never defined, so people could argue about it.",
             "Who decides what {p} means? It does not say.", "It is not clear what \"{p}\" means here.",
             "\"{P}\" is vague: it needs a clear measure.")
OPEN_COUNT = ("It is not clear how \"{p}\" is counted, or over what period.",
              "It does not say whether \"{p}\" starts again at some point.",
              "\"{P}\" is unclear: counted from when, and does it ever reset?")
OPEN_IF = ("It does not say who decides whether {r}.", "The part \"{c} {r}\" leaves out what happens if people "
           "disagree about it.", "It is not clear how anyone checks that {r}.",
           "\"{C} {r}\": it does not say what happens then.")
OPEN_THING = ("It does not say what happens to {p} afterwards.", "{P} is mentioned but never explained.",
              "It is unclear which {q} it means, or how many.", "It never says who deals with {p}.")


def left_unclear(texts: list[str], rng: random.Random, least: int = 0) -> str:
    """A part of the item named in its own words and what it does not say about it (a few, varied per person)."""
    item = main_text(texts)
    found: list[tuple[tuple[str, ...], str | re.Match[str]]] = [(OPEN_WORD, m[0]) for m in VAGUE.finditer(item)]
    found += [(OPEN_COUNT, m[0]) for m in COUNTED.finditer(item)]
    found += [(OPEN_IF, m) for m in CONDITIONS.finditer(item)] + [(OPEN_THING, m[0]) for m in THINGS.finditer(item)]
    if not found:
        return ""
    rng.shuffle(found)
    found.sort(key=lambda f: f[0] is OPEN_THING)  # a measure or a condition left open before a thing left unexplained
    text = " ".join(_unsaid(frames, said, rng) for frames, said in found[:1 + (least > 10)])
    lead = rng.choice(("", "", "Mainly this: ", "For me, ", "One gap: ", "I think ", "As I read it, "))
    return lead + (text if not lead or text[:1] == "\"" else text[:1].lower() + text[1:])


def _unsaid(frames: tuple[str, ...], said: str | re.Match[str], rng: random.Random) -> str:
    if isinstance(said, re.Match):
        c, r = said["c"].lower(), said["r"].strip()
        return rng.choice(frames).format(c=c, C=c[:1].upper() + c[1:], r=r)
    p = said.strip()
    while (cut := VERB_LAST.sub("", p)) != p and len(cut.split()) >= 2:  # "the draw pile runs" -> "the draw pile"
        p = cut
    q = p.split(" ", 1)[-1] if p.lower().startswith(("the ", "their ", "its ", "your ")) else p
    return rng.choice(frames).format(p=p, P=p[:1].upper() + p[1:], q=q)

"""Free text of the kind a box asks for, in its own item's words."""

from __future__ import annotations

import random
import re

from flows.sim.people.comparisons import asks_comparison
from flows.sim.people.item_lookups import lookup_kind
from flows.sim.people.own_answers import own_kind
from flows.sim.people.own_readings import named, short
from flows.sim.people.summaries import BREAKS, CLAUSES, LOOSE_ENDS, main_text
from flows.sim.people.summaries import STOP as SUMMARY_STOP

# a box that asks a whole text put plainly, not a slip in it corrected ("Rewrite ... in plain English", "explain it to
# a friend"): told in short
PLAIN_ASK = re.compile(r"\bplain (?:english|language|words|terms)\b|\beveryday (?:words|language)\b|"
                       r"\bexplain it to a (?:friend|child|neighbour)\b|\bsimple (?:words|language)\b|\bfor a (?:child|"
                       r"\d+-year-old|friend|neighbour)\b|\bsimpler\b", re.I)
SUMMARY = re.compile(r"summar|\bsum (?:it |this |them )?up\b|tl;?dr|main (?:point|issue|idea|message|complaint)|gist|"
                     r"shorten|abstract|\btweet\b|\b(?:social media|short) (?:post|message)|\bblurb\b|"
                     r"\bwhat (?:does|do|did) (?:the |this |that )?\w+ (?:want|ask for|expect|request|need)\b", re.I)
# the form of a summary, which a reason for a choice may be asked in too ("justify it in a sentence or two")
IN_SHORT = re.compile(r"in (one|a) (short )?sentence|(?:in|use) your own words", re.I)
JUSTIFY = re.compile(r"\bwhy\b|justif|reason|what made you|explain (?:your|the|why)", re.I)
WORD = re.compile(r"\b(?:word|term|phrase|expression)\b\s*[:\-]?\s*[\"'“‘«]?(?P<w>[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*)?)"
                  r"[\"'”’»]?", re.I)
CLARIFY = re.compile(r"clarif|elaborat|specify|which (part|words?)|what (part|exactly)|what (might|could|would) be|"
                     r"point out|identify", re.I)
REASON = re.compile(r"\bwhy\b|reason|explain|justif|because|rationale|what made you|what makes? (?:it|this|that|the)\b|"
                    r"\bclues?\b|\bevidence\b|\b(?:go|went|going) on\b|\bbased? (?:it|this|that|your \w+) on\b|"
                    r"gave it away|tipped you|how (?:did|do) you (?:know|tell|decide)", re.I)
MISSING = re.compile(r"missing|left out|leaves? out|\bomit|does ?n[o']t (say|mention|include)|what else", re.I)
ANSWER = re.compile(r"\banswer\b|\bresponse\b|\breply\b", re.I)
TITLE = re.compile(r"\btitle\b|\bheadline\b|\bsubject line\b|\bheading\b|\b(?:label|name|slogan|tagline) for (?:a|the|"
                   r"this)\b|\bslogan\b|\btagline\b", re.I)
CAPTION = re.compile(r"caption|describ|description|\btitle\b|alt[\s_-]?text|what (do you see|is in)", re.I)
WORDING = re.compile(r"\b(?:wording|phrasing|worded|phrased|word choice|choice of words|tone)\b", re.I)
AUDIENCE = re.compile(r"\bwho\b[^.]{0,90}\b(?:why|what makes|how come)\b|\bwho (?:would|might|could|should) you "
                      r"(?:give|buy|recommend|gift|send|suggest|lend)\b|\baudience\b|\b(?:aimed|meant) (?:at|for)\b|"
                      r"\b(?:intended|target) (?:users?|customers?|readers?|market)|"
                      r"\bwho (?:is|was|'s) (?:it|this|that)\b[^?.]{0,40}\bfor\b|\bwho(?: [\w']+){0,3}? (?:would|might|"
                      r"could|will|should) (?:use|buy|want|need|like|enjoy|benefit|find|love|get)|"
                      r"\b(?:kind|sort|type)s? of (?:person|people|customers?|users?|readers?|buyers?|households?|"
                      r"famil(?:y|ies)|homes?|owners?|travell?ers?|students?|workers?)", re.I)
ASK_BACK = re.compile(r"\b(?:what|which) (?:question )?(?:would|might|could|do|will) you (?:like to )?ask\b|\bask "
                      r"(?:the )?(?:author|writer|seller|reviewer|poster|speaker|owner)|\bquestion for the\b|"
                      r"\b(?:write|suggest|think of|pose) (?:a|one|your) (?:follow-up )?question\b", re.I)
# a box that asks for a question someone would ask about the item ("What question would a patient still want
# answered?", "Write one question a buyer might have"), not one put to its author (ASK_BACK)
READER_ASKS = re.compile(r"\b(?:what|which) (?:\w+ )?questions? (?:would|might|could|should|do|does|did|will|is|are|"
                         r"remains?|still|[a-z]+ (?:would|might|could|will|still))\b|\b(?:write|ask|suggest|think of|"
                         r"pose|give|list|add|come up with|name|type) (?:a|one|two|three|any|an?other|some|your own) "
                         r"(?:\w+ ){0,2}questions?\b|\bone question\b|\bwhat (?:\w+ ){0,5}(?:would|might|could|will|"
                         r"should) (?:\w+ ){0,5}(?:ask|wonder)\b", re.I)
AUTHOR = re.compile(r"\b(?:author|writer|reviewer|poster|speaker|seller|owner|you ask|ask (?:them|him|her))\b", re.I)
FIX = re.compile(r"\bcorrect(?:ed|ion)(?! answer)|\brewrite\b|\bre-?type\b|\bfix(?:ed)?\b|\bcorrect (?:it|"
                 r"the|them|this)\b|\bedit the (?:sentence|text)", re.I)
OPEN = re.compile(r"\b(?:what|where|how|when)\b[^?]*\band\s+(?:what|where|how|when)\b", re.I)  # two asked parts
POLITER = re.compile(r"\b(?:polite|politer|kinder|friendlier|nicer|gentler|softer|courteous|tactful|less (?:rude|"
                     r"harsh|blunt|bossy|aggressive))\b", re.I)
RECAST = re.compile(r"\b(?:re-?write|rephrase|reword|make|say|turn|put|change|fix|edit|write)\b", re.I)  # ... it more X
# what is wrong with the item, and what someone should do about it (an instruction)
FAULT = re.compile(r"\bwhat(?:'s| is| was) (?:wrong|incorrect|inaccurate|off|the (?:problem|mistake|error|issue|fault))"
                   r"\b|\b(?:describe|name|explain|identify|point out|state) (?:the|what|its) (?:problem|mistake|error|"
                   r"issue|fault|inconsisten|discrepanc)|\bdo(?:es)? ?n[o']t match|disagree|mismatch|contradict|"
                   r"inconsisten|discrepanc", re.I)
# "what (do you think) <any subject> should do", read as a parse: the modal, then "do" as its clause's last verb
# (only a time, a purpose or an "about it" after it), however long the subject between them
TO_ACT = re.compile(r"\bwhat\b[^?.;]*?\b(?:should|would|could|must|ought(?: to)?|needs? to|is (?:best|wise) to)"
                    r"\b[^?.;]*?\bdo\b(?!\s+(?:not|you|they|we|it|so)\b)(?=\s*(?:$|[?.!;:,(]|(?:now|next|first|then|"
                    r"about|with|in|if|when|after|before|here|instead|to|once|until)\b))|"
                    r"\bhappen next|\b(?:next|first|best) (?:step|"
                    r"thing to do|action|move)|\b(?:suggest|recommend|propose)\w* (?:an? |the |one )?(?:action|step|"
                    r"fix|solution|remedy|course)|\bwhat (?:action|steps?) (?:should|would|could|to)|\bhow should\b"
                    r"[^?.]{0,40}\b(?:handle|respond|deal|proceed|fix)|\bwhat (?:would you )?advi[cs]e\b|"
                    r"\byour advice\b|\badvi[cs]e (?:the|them|him|her)\b", re.I)
# what a text leaves unclear ("What is unclear or missing in this rule?", "Which part is vague?")
UNCLEAR_ASK = re.compile(r"\b(?:what|which|any(?:thing)?|something|parts?|where|leaves?|left)\b[^?.]{0,40}\b(?:unclear|"
                         r"vague|ambiguous|not clear|confusing|open to (?:interpretation|argument)|undefined|unsaid|"
                         r"loopholes?)\b", re.I)
REMARK = re.compile(r"comment|remark|\bnotes?\b|anything else|observations?|feedback", re.I)
NOT_THE_WORD = frozenset(("is", "in", "the", "a", "an", "of", "and", "or", "to", "this", "that", "used", "below",
                          "above", "here", "means", "mean", "for", "it", "on", "how", "as", "these", "those", "bold",
                          "italics", "italic", "highlighted", "underlined", "marked", "shown", "correctly", "usage",
                          "use", "s", "was", "are", "be", "with", "at", "by", "from", "you", "we", "they"))
QUOTED_WORD = re.compile(r"[\"“‘«](?P<w>[A-Za-z][\w'-]{1,30})[\"”’»]")
CAPITALS = re.compile(r"(?<![A-Z] )\b(?P<w>[A-Z]{3,})\b(?! [A-Z]{2})")
ASKS_WORD = re.compile(r"\b(?:word|term)\b.{0,40}\b(?:mean|use|used|usage|sense|comment)|"
                       r"\b(?:comment|mean|use|usage|sense)\b.{0,40}\b(?:word|term)\b", re.I)
STOP = SUMMARY_STOP | {"i", "my", "me", "you", "your", "they", "he", "she", "his", "her", "has", "have", "had", "not",
                      "all", "next", "over", "into", "then", "than", "there", "some", "very", "just", "also", "after",
                      "when"}
# Each text joins one of these with runs of its own item's words: the frames alone are never the text.
WORD_COMMENTS = ("\"{w}\" in \"{a}\" is used in its everyday sense.", "In \"{a}\", {w} fits, I would keep it.",
                 "{W} reads naturally in \"{a}\".", "In \"{a}\", {w} is a little informal but clear.",
                 "\"{a}\" uses {w} the way most readers expect.", "{W} could be simpler in \"{a}\", but it is right.",
                 "Here {w} means what it usually does: \"{a}\".", "The {w} of \"{a}\" is the ordinary meaning.")
CLARIFICATIONS = ("The phrase \"{a}\" {c}.", "It is \"{a}\": {c}.", "Mainly the words \"{a}\", which {c}.",
                  "\"{a}\" {c}, and \"{b}\" too.", "I mean \"{a}\"; it {c}.")
UNCLEAR = ("could be read two ways", "needs more context", "is vague on its own", "could be taken the wrong way",
           "is the part I would reword", "assumes something about the people it names", "may mean more than one thing")
REMARKS = ("\"{a}\" {c}.", "The part about \"{a}\" {c}.", "I noticed \"{a}\"; it {c}.", "Mostly \"{a}\", which {c}.",
           "\"{a}\" {c}, more than \"{b}\".")
REACTIONS = ("stood out to me", "made the answer easy", "was the clearest part", "is worded well",
             "was unclear at first", "decided it for me", "was the key part", "is what I looked at")
BENEFITS = ("because {t}", "since {t}", "as {t}", "because {t}, which {g}", "since {t}, and that {g}")
OPENINGS = ("I think {w} would get the most out of it", "Mainly {w}", "I'd say {w}", "It is aimed at {w}",
            "Probably {w}", "{W} would like it", "Most likely {w}")
GAINS = ("means less hassle for them", "is exactly what they keep needing", "saves them time every week",
         "makes their day a bit easier", "solves a problem they have often")
# what an item does, as its text says it: "a mug that keeps coffee hot ...", "PlantPal reminds you when ..."
DOES = re.compile(r"(?:\b(?:that|which|it)\s+|^[A-Z][\w-]*(?: [A-Z][\w-]*)?\s+)(?P<v>(?:[a-z]+ly )?[a-z]+s)\s+"
                  r"(?P<rest>[^,;.!?]+)")
YOU = {"I": "you", "I'm": "you're", "me": "you", "my": "your", "My": "your", "we": "you", "We": "you", "us": "you",
       "our": "your", "Our": "your", "am": "were"}
CUT = frozenset(("so", "while", "and", "but", "when", "before", "after", "because", "if", "until", "even", "you"))
# a reader's question about the item, in its words (not one put to its author)
WONDERS = ("What exactly does \"{a}\" mean for someone like me?", "Is there more detail about \"{a}\", and where "
           "could I find it?", "Would \"{a}\" also apply to me, or only to the people it describes?",
           "How sure can we be about \"{a}\", and how was that found out?",
           "What happens after \"{a}\", and is there any follow-up?",
           "Why does it say \"{a}\", and what would that mean for me in practice?",
           "How long does it take before \"{a}\", and does it last?")
ASKS = ("When you wrote \"{a}\", what did you mean exactly?", "Could you say more about \"{a}\"?",
        "Was \"{a}\" the main reason for your opinion?", "How much did \"{a}\" matter to you overall?",
        "Would you still recommend it, given that {y}?", "Did anyone do anything about \"{a}\"?",
        "What happened after \"{a}\"?")
WORDINGS = ("The phrasing of \"{a}\" is {c}.", "\"{a}\" is worded in a way that is {c}.",
            "I like how \"{a}\" reads: {c}.", "The wording \"{a}\" sounds {c}.")
QUALITIES = ("short and easy to remember", "a bit awkward to read aloud", "clear and simple",
             "catchy, it has a nice rhythm", "a little flat, it could be snappier", "friendly and plain")
FRAMED = {"remark": (REMARKS, REACTIONS), "clarification": (CLARIFICATIONS, UNCLEAR), "wording": (WORDINGS, QUALITIES),
          "question": (ASKS, ("",)), "ask": (WONDERS, ("",)), "word": (WORD_COMMENTS, ("",))}


def asked(question: str, name: str) -> str:
    """What a text box asks for ("summary", "correction", "title", "reason", ... or "" for a free answer)."""
    question = re.sub(r"^\s*\d{1,2}[.)]\s+", "", question)  # "4. Write a headline ...": its number says nothing
    ask = next((s for s in re.split(r"(?<=[.?!])\s+", question) if s.endswith("?")), "") or \
        re.split(r"(?<=[.!])\s+", question)[0]
    head = ask.split(":")[0]  # "Describe the shelf: what is on it and how ...": what follows the colon says how
    kind = (head != ask and _kind(head, "")) or (ask != question and _kind(ask, "")) or _kind(question, name) \
        or ("comparison" if asks_comparison(question) else "")
    if kind == "correction" and PLAIN_ASK.search(question) and \
            not re.search(r"\b(?:sentence|line|phrase)\b", question, re.I):  # the whole text, simpler: in short
        return "summary"
    return kind


def _kind(question: str, name: str) -> str:
    said = f"{question} {name.replace('_', ' ')}"
    if the_word(question):  # a word it names, commented on in its sentence
        return "word"
    if UNCLEAR_ASK.search(question):
        return "unclear"
    if READER_ASKS.search(question) or ASK_BACK.search(question):  # a question a reader, or its author, is asked
        return "question" if AUTHOR.search(question) else "ask"
    if (found := lookup_kind(question)) in ("bearing", "listed", "check"):  # the sentence bearing on a question, the
        return found  # things it names, what to look up
    if own := own_kind(question):  # a reply, what you would do or change, how you checked ... (own_answers.py)
        return own
    if FAULT.search(question) and not FIX.search(said):
        return "fault"
    if SUMMARY.search(said) or (IN_SHORT.search(said) and not JUSTIFY.search(question)):
        return "summary"
    if POLITER.search(question) and RECAST.search(question):
        return "politer"
    for kind, pattern, text in (("audience", AUDIENCE, said), ("question", ASK_BACK, said), ("open", OPEN, said),
                                ("correction", FIX, said), ("action", TO_ACT, said), ("wording", WORDING, question),
                                ("missing", MISSING, said), ("word", ASKS_WORD, question)):  # (the_word: above)
        if pattern.search(text):
            return kind
    if TITLE.search(said) and not CAPTION.search(TITLE.sub("", said)):  # a title for a text, not a photo's caption
        return "title"
    for kind, pattern in (("clarification", CLARIFY), ("reason", REASON), ("answer", ANSWER), ("caption", CAPTION),
                          ("remark", REMARK)):
        if pattern.search(said):
            return kind
    return lookup_kind(question)  # a fact the item states ("What is the date of the meeting?")


def the_word(question: str) -> str:
    """The word a question asks about ("Comment on the word 'bank'" -> bank), or ""."""
    if (quoted := QUOTED_WORD.search(question)) and WORD.search(question):
        return quoted["w"]
    for match in WORD.finditer(question.replace("'s ", " ")):
        words = [w for w in match["w"].split() if w.lower() not in NOT_THE_WORD]
        if words:
            return words[0]
    return ""


def marked_word(texts: list[str]) -> str:
    """A word the item's text sets apart in quotes or capitals ("the \"bank\" of the river"), or ""."""
    for text in texts:
        if (quoted := QUOTED_WORD.search(text)) or (quoted := CAPITALS.search(text)):
            return quoted["w"]
    return ""


def spans(texts: list[str], rng: random.Random, n: int = 2) -> list[str]:
    """``n`` different runs of two to four of the item's words, opening and closing on content words."""
    found = []
    for part in (p for text in texts for p in re.split(r"[.,;:!?()]+\s", f"{text} ")):  # never across a sentence
        words = [w.strip(".,;:!?\"'()") for w in part.split()]
        for k, w in enumerate(words):
            if len(w) < 3 or w.lower() in STOP:
                continue
            for size in (2, 3, 4):
                run = words[k:k + size]
                if len(run) == size and run[-1].lower() not in STOP | LOOSE_ENDS | BREAKS and len(run[-1]) >= 3 \
                        and run[0].lower() not in BREAKS:  # (no run from "through" to "main", none to "but")
                    found.append(" ".join(run) if k else run[0][:1].lower() + " ".join(run)[1:])
    if not found:
        return []
    picked = rng.sample(found, min(n, len(found)))
    return picked + picked[:1] * (n - len(picked))


def framed(kind: str, texts: list[str], rng: random.Random, word: str = "") -> str:
    """A remark, question or comment quoting the item's words (a clause, or around ``word``); "" if none."""
    frames, fills = FRAMED[kind]
    stem = word.lower().rstrip("s")[:max(3, len(word))]
    if kind in ("question", "ask"):
        quoted = [" ".join(c.split()) if kind == "question" else short(c, 7) for c in CLAUSES.split(main_text(texts))
                  if 3 <= len(c.split()) <= (12 if kind == "question" else 40)]  # (a reader quotes a few words)
        quoted = [c for c in quoted if re.search(r"[A-Za-z]{7}", c)] or quoted  # one that names something
        q = rng.choice(quoted) if quoted else ""
        quoted = [q if q.split()[0] in ("I", "I'm") else q[:1].lower() + q[1:]] * 2 if q else spans(texts, rng)
    elif kind == "word" and (around := [" ".join(ws[max(0, k - 1):k + 3]).strip(".,;:") for ws in (
            t.rstrip(".!?").split() for t in texts) for k, w in enumerate(ws) if w.strip(".,;:!?\"'").lower()
            .startswith(stem)]):
        quoted = around[:1] * 2
    else:  # (the word is not in the item's text: the text it comments on quoted anyway)
        quoted = spans([main_text(texts)] if kind == "wording" and texts else texts, rng) or [word] * 2 * bool(word)
    if not quoted:
        return ""
    a, b = quoted
    frame = rng.choice([f for f in frames if a != b or "{b}" not in f])
    you = " ".join(YOU.get(w, w) for w in a.split())  # the author's own words, said back to them
    text = frame.format(a=a, b=b, c=rng.choice(fills), y=you, w=word, W=word[:1].upper() + word[1:])
    return text if text.startswith("\"") else text[:1].upper() + text[1:]  # quoted words stay as the item has them


def audience(texts: list[str], rng: random.Random, least: int = 0) -> str:
    """Who would use the item and why, in at least ``least`` words, from what its text says."""
    thing = named(main_text(texts)).removeprefix("the ")  # who needs the thing it names, else anyone busy
    a = "" if thing.endswith("s") else "an " if thing[:1] in ("a", "e", "i", "o", "u") else "a "
    whos = [f"anyone who needs {a}{thing}"] * bool(thing) + ["busy people"]
    does = [f"it {m['v']} {_phrase(m['rest'])}" for t in texts for m in DOES.finditer(t)
            if m["v"].split()[-1] not in STOP and not m["v"].endswith("ss")]
    has = [f"it {'comes' if c.lower().startswith('with ') else 'has'} {_phrase(c[:1].lower() + c[1:])}"
           for c in CLAUSES.split(main_text(texts)) if len(c.split()) >= 3]  # what its text says it has
    points = does or has or [f"\"{s}\" {rng.choice(GAINS)}" for s in spans(texts, rng, 4)] or ["it is handy"]
    rng.shuffle(points)
    text = ""
    for k in range(8):
        who, why = whos[k % len(whos)], rng.choice(BENEFITS).format(t=points[k % len(points)], g=rng.choice(GAINS))
        text += (rng.choice(OPENINGS).format(w=who, W=who[:1].upper() + who[1:]) + f", {why}." if not k else
                 f" It would also suit {who}, {why}." if k < len(whos) else f" Also, {why}.")
        if len(text.split()) >= least:
            break
    return text


def _phrase(words: str, most: int = 8) -> str:
    """The head of a run of words: up to ``most``, cut where a new clause starts, ending on no small word."""
    kept = words.split()[:most]
    kept = kept[:next((k for k, w in enumerate(kept) if k >= 2 and w.lower() in CUT), len(kept))]
    while len(kept) > 1 and kept[-1].lower() in STOP:
        kept.pop()
    return " ".join(kept)

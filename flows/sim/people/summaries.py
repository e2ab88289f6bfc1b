"""A summary of an item's text at the length the page asks."""

from __future__ import annotations

import random
import re

WORDS_ASKED = re.compile(r"(\d{1,4})\s*(?:-|to\s+\d{1,4}\s*)?\s*words?\b", re.I)
ONE_SENTENCE = re.compile(r"\b(?:one|a single|1) (?:short )?(?:sentence|line)\b|\bone-(?:sentence|line)", re.I)
CHARS_A_WORD = 6  # an English word and its space, roughly
NAMED_OPENERS = ("According to the text, ", "The text reports that ", "It says that ", "In short: ")
OPENERS = ("In short, ", "Basically, ", "", "", "", "The text says ", "In brief, ")
QUOTES = "\"'“”‘’ "
CLAUSES = re.compile(r"[,;:.!?()\"]+ ?(?:(?:but|although|though|yet|while|so)\b )?|\s(?:but|although|though|yet|"
                     r"while|and then|and(?= (?:the|it|we|they|I|my|our)\b))\s")  # where a sentence's clauses part
FIRST = re.compile(r"^(?:I|We|My|Our)\b|\b(?:I|we|us|our)\b(?! said)")
THIRD = {"i was": "they were", "i am": "they are", "i'm": "they're", "i": "they", "me": "them", "my": "their",
         "we": "they", "us": "them", "our": "their"}
CORE_WORDS = 9  # the most of the source's words in a row a summary keeps: the rest is in new words
LINKS = (". Also, ", ", and ", "; then ", ". Besides, ", "; also, ")  # a word between two of the source's sentences
# what a clause that adds detail starts with: a summary drops it
TRAILING = re.compile(r",\s*(?:which|who|whose|where|while|although|though|but|as|after|because|since|and)\b.*$|"
                      r"\s\((?:[^)]*)\)|\s+-\s+.*$", re.I)
SAID_BY = re.compile(r",\s*(?:[\w'-]+\s){0,4}(?:said|says|announced|reported|added|explained)\s*$|,?\s+according "
                     r"to [^,;]+$", re.I)
WHEN = re.compile(r"\s(?:on (?:mon|tues|wednes|thurs|fri|satur|sun)day|this (?:year|month|week|autumn|spring|summer|"
                  r"winter)|overnight|at the weekend|(?:from )?next (?:week|month|year)|last (?:week|month|year))\b",
                  re.I)
REWORD = {"said": "stated", "says": "states", "announced": "said", "reported": "said",
          "after": "following", "because": "as", "about": "around", "help": "aid",
          "new": "fresh", "old": "former", "big": "large", "large": "big", "small": "little", "begin": "start",
          "start": "begin", "buy": "purchase", "show": "reveal", "found": "discovered", "built": "made",
          "closed": "shut", "close": "shut", "returned": "come back", "plans": "intends", "hope": "expect",
          "children": "kids", "people": "residents", "money": "funds", "use": "employ",
          "tests": "exams", "percent": "per cent", "scored": "got", "twice": "two times", "kinds": "types",
          "fell": "dropped", "households": "homes", "rubbish": "waste", "almost": "nearly",
          "linked": "tied", "under": "below", "whole": "entire", "suggest": "propose", "common": "frequent",
          "higher": "better", "nights": "evenings", "recorded": "noted", "habits": "routines"}
PHRASE_STARTS = frozenset(("after", "before", "when", "because", "while", "which", "that", "with", "for", "in", "on",
                           "at", "by", "from", "and", "but", "so", "if", "near", "during", "since", "following"))
LOOSE_ENDS = frozenset(("two", "three", "four", "five", "six", "old", "new", "former", "fresh", "big", "large", "small",
                        "little", "early", "most", "more", "very", "first", "last", "than", "not", "into", "over",
                        "those", "these", "every", "each", "their", "your", "his", "her", "my", "some", "any", "third",
                        "second", "few"))
BREAKS = PHRASE_STARTS | {"along", "to", "has", "have", "had", "will", "would", "is", "are", "was", "were", "can",
                         "could", "should", "may", "might", "across", "through", "into", "about"}
RESULT = re.compile(r"\b(?:found|finds|show(?:s|ed)?|result(?:s|ed)?|linked|fell|rose|grew|drop(?:ped)?|"
                    r"increased?|decreased?|doubled|halved|higher|lower|more|fewer|less|than|twice|half|quarter|"
                    r"percent|per cent|voted|approved|decided|won|lost)\b|%", re.I)
FINITE = frozenset(("is", "are", "was", "were", "has", "have", "had", "will", "can", "could", "would", "should",
                    "may", "might", "must", "says", "said", "made", "became", "began", "brought"))
REPORTING = frozenset(("said", "says", "stated", "reported", "announced", "explained", "added"))
ASIDE = re.compile(r",\s*(?:which|who|whose|where)\b[^,]*,")  # "the mill, which buys the crop, has ..."
LEAD_INS = re.compile(r"^(?:until then|meanwhile|however|also|in addition|as a result|even so),\s*", re.I)
STOP = frozenset(("the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "that", "this", "is",
                  "are", "was", "were", "be", "been", "it", "its", "as", "by", "from", "we", "our", "their", "which"))


def words_asked(question: str, low_chars: int, high_chars: int | None) -> int | None:
    """The summary's length in words: the question's own figure, else what the box's limits allow."""
    if m := WORDS_ASKED.search(question):
        return int(m[1])
    if low_chars:
        return max(low_chars // CHARS_A_WORD + 2, 8)
    if high_chars:
        return max(min(high_chars // (2 * CHARS_A_WORD), 60), 5)
    return None


def third_person(text: str) -> str:
    """``text`` told of its writer ("I was charged" -> "they were charged")."""
    return re.sub(r"\b(?:I was|I am|I'm|I|me|my|[Ww]e|us|[Oo]ur|My)\b", lambda m: THIRD[m[0].lower()], text)


def main_text(texts: list[str]) -> str:
    """The item's main text: the longest of its texts (a passage beside its title)."""
    return max(texts, key=len) if texts else ""


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def reword(sentence: str, rng: random.Random, share: float = 0.5) -> str:
    """The sentence with some of its words swapped for others that mean the same."""
    out = []
    for word in sentence.split():
        bare = word.strip(".,;:!?").lower()
        if bare in REWORD and rng.random() < share:
            swapped = REWORD[bare]
            swapped = swapped[:1].upper() + swapped[1:] if word[:1].isupper() else swapped
            out.append(word.lower().replace(bare, swapped, 1) if word[:1].islower() else swapped + word[len(bare):])
        else:
            out.append(word)
    return " ".join(out)


def shortened(sentence: str) -> str:
    """The sentence without its trailing clauses, asides, who said it and when."""
    body = ASIDE.sub("", sentence.rstrip(".!?"))
    cut = SAID_BY.sub("", TRAILING.sub("", body)).strip()
    cut = WHEN.sub("", cut).strip()
    return " ".join(cut.split()) if len(cut.split()) >= 4 else body


def summary(texts: list[str], rng: random.Random, wanted: int | None = None, low_chars: int = 0,
            one: bool = False) -> str:
    """A summary of the item's main text of about ``wanted`` words (``one``: one sentence), in the third person."""
    source = main_text(texts).strip(QUOTES)
    if FIRST.search(source):
        source = re.sub(r"(^|[.!?] )(\w)", lambda m: m[1] + m[2].upper(), third_person(source))
    parts = sentences(source)
    turn = [c for c in CLAUSES.split(parts[0]) if len(c.split()) >= 3] if len(parts) == 1 else []
    if len(turn) > 1:  # one long sentence: its first clause and its last, where it turns ("..., but ...")
        parts = [turn[0], turn[-1]]
    if not parts:
        return ""
    total = len(source.split())
    target = wanted or max(6, round(total * rng.uniform(0.35, 0.6)))
    target = min(target, max(6, total - 2)) if not low_chars else target
    core = max(CORE_WORDS, min(2 * CORE_WORDS, target // max(1, len(parts))))
    key = key_sentence(parts) if len(turn) < 2 else 1
    longer = target > 2 * core  # the key sentence at more length (it says what the text found), if there is room
    short = [reword(_main_clause(LEAD_INS.sub("", shortened(s)), core * (1 + (k == key and longer))), rng, 0.9)
             for k, s in enumerate(parts)]
    kept = {0, key}
    for k in (k for k in range(1, len(parts)) if k not in kept):  # whole sentences while they fit
        if sum(len(short[j].split()) for j in kept) + len(short[k].split()) / 2 > target:
            break
        kept.add(k)
    chosen = [short[k] for k in sorted(kept)]
    if len(chosen) == 1 and len(chosen[0].split()) > target:  # one long sentence: its main clause
        chosen = [_main_clause(chosen[0], target)]
    text = _joined(chosen, rng, one)  # (too short for the box's minimum: lengthened as any text, at_least_words)
    if words_of(text)[:3] == words_of(source)[:3]:  # a person opens a summary in their own way
        named = text.split()[0] in {w for p in parts for w in p.split()[1:]}  # a name keeps its capital
        opener = rng.choice(NAMED_OPENERS if named else [o for o in OPENERS if o])
        text = f"{opener}{text[:1] if named else text[:1].lower()}{text[1:]}"
    while len(text) >= len(source) and len(text.split()) > 6 and not low_chars:  # a summary is shorter than its text
        shorter = _main_clause(text, len(text.split()) - 3) + "."
        text = shorter if len(shorter) < len(text) else " ".join(text.split()[:-3]).rstrip(",;.") + "."
    return text


def key_sentence(parts: list[str]) -> int:
    """The index of the sentence that says what the text found or decided, else its first."""
    scores = [len(RESULT.findall(p)) * 2 + bool(re.search(r"\d", p)) for p in parts]
    return max(range(len(parts)), key=lambda k: (scores[k], -k)) if parts else 0


# what opens a notice before its news: "Please note that", "Good news for gardeners:", "After twenty years of ..., "
LEAD = re.compile(r"^(?:(?P<who>[^.:]{0,60}?)\b(?:note|report|announce|remind|inform|confirm|share|know|aware|"
                  r"pleased|delighted|sorry|happy|proud|sad|glad|told|said|says|heard|learn|warn|reveal|claim|expect|"
                  r"believ|fear|hope|agree|decid|clear|likely)\w*\b[^.:]{0,30}?\bthat|[^:]{1,40}:|(?:after|following|"
                  r"due to|because of|thanks to|as of|despite|since|during|ahead of|owing to|as part of|with|from|on|"
                  r"in|at|for)\b(?:[^,]|,(?=\d)){0,80},)\s+", re.I)
TOLD_OF = re.compile(r"^(?:it|they|he|she|its|their|his|her)\b", re.I)  # "..., that it will close": "it" is in the lead


# an invitation ("Join us ... for our annual quiz night"): its news is the event it names, and when
INVITE = re.compile(r"^(?:please\s+)?(?:join|come|bring|visit|help|book|enjoy|meet|drop|pop|celebrate|support|"
                    r"don't miss|do not miss|save the date)\b", re.I)
EVENT = re.compile(r"\b(?:for|to|at)\s+(?:our|the|this|a|an|their)\s+(?P<e>(?:(?!(?:with|at|on|in|from|and|for|to|by)"
                   r"\b)[\w'-]+\s*){1,4})", re.I)
DATE = re.compile(r"\bon (?:(?:mon|tues|wednes|thurs|fri|satur|sun)day(?: \d{1,2}(?: [A-Z][a-z]+)?)?|"
                  r"\d{1,2} [A-Z][a-z]+)", re.I)


def _news(sentence: str) -> str:
    """The sentence without what leads into its news, a pronoun the lead explains named ("it" -> "the pub")."""
    if INVITE.match(sentence) and (event := EVENT.search(sentence)):
        when = DATE.search(sentence)
        return f"{event['e'].strip()} {when[0] if when else ''}".strip()
    for _ in range(2):
        if not (m := LEAD.match(sentence)):
            break
        sentence = sentence[m.end():]
        who = re.sub(r"\s+(?:have|has|had|were|was|are|is|will)\s*$", "", m["who"] or "").split(" of ")[-1]
        if who.strip() and not TOLD_OF.match(who.strip()):
            sentence = TOLD_OF.sub(who.strip(), sentence, count=1)
    return LEAD_INS.sub("", sentence)


# a headline's grammar: "will be closed" -> "closed", "will rise" -> "to rise", "is holding a" -> "holding"
HEADLINE_FORM = ((re.compile(r"\bwill be (?=\w)", re.I), ""),
                 (re.compile(r"\b(?:will|is to|are to) (?=\w)", re.I), "to "),
                 (re.compile(r"\b(?:is|are|was|were|has been|have been|had been|has|have)\s+(?=\w+(?:ing|ed|en)\b)",
                             re.I), ""), (re.compile(r"\b(?:a|an|the)\s+(?!(?-i:[A-Z]))", re.I), ""))


def headline(texts: list[str], rng: random.Random, least: int = 3, most: int | None = None) -> str:
    """A title of the item's news: who or what and what happens to it, as a headline says it, within the limits."""
    parts = [_news(s) for s in sentences(main_text(texts))]
    news = next((p for p in parts if len(p.split()) >= 4), parts[0] if parts else "")
    news = SAID_BY.sub("", TRAILING.sub("", ASIDE.sub("", news.rstrip(".!?"))))
    news = re.sub(r"^(?:a|an|the|our|their|your)\s+", "", news, flags=re.I)  # (a headline drops its article)
    said = news.split()
    verb = next((k for k, w in enumerate(said) if k and (w.lower() in FINITE or (w.islower() and w.endswith("ed")))), 0)
    words = [" ".join(said[:verb]), " ".join(said[verb:])]  # (what it is about, and what happens to it)
    for pattern, form in HEADLINE_FORM:
        words = [pattern.sub(form, part) for part in words]
    verb, words = len(words[0].split()), " ".join(words).split()
    most = most or 8  # (a title with no stated limit: as long as most are)
    target = rng.randint(max(least, 4), max(least, 4, most))
    edges = BREAKS | LOOSE_ENDS | STOP  # where a phrase starts: a title ends before one, after what happens is said
    ends: list[int] = []
    for lo in (verb + 2 + (verb < len(words) and words[verb].lower() == "to"), verb + 1):  # the verb and what follows
        ends = ends or [k for k in range(max(1, least, lo if lo <= most else 0), min(most, len(words)) + 1)
                        if (k == len(words) or (words[k].lower() in edges and (words[k].lower() != "of" or
                                                                                 words[k - 1].endswith("s"))))
                        and words[k - 1].lower().strip(",;") not in edges]
    kept = words[:max([k for k in ends if k <= target] or ends[:1] or [target])]
    while len(kept) > least and kept[-1].lower().strip(",;") in edges:
        kept.pop()
    text = " ".join(kept).strip(",;:.!?")
    return text[:1].upper() + text[1:]


def _main_clause(sentence: str, target: int) -> str:
    """The sentence up to where a phrase starts at or before ``target`` words, never fewer than four."""
    words = sentence.rstrip(".!?").split()
    if len(words) <= target + 1:  # nearly short enough: a cut would lose more than it saves
        return " ".join(words)
    finite = [k for k, w in enumerate(words) if k and (w.lower() in FINITE or w.lower().endswith("ed"))] + [0]
    verb = finite[1] if finite[0] and words[finite[0]].lower() in REPORTING and len(finite) > 2 else finite[0]
    for j in range(min(target, len(words) - 1), max(3, verb), -1):  # never cut before the sentence says anything
        if words[j].lower() in PHRASE_STARTS and words[j - 1].lower() not in STOP:
            return " ".join(words[:j]).rstrip(",;")
    kept = words[:max(4, target, verb + 3)]
    if len(words) - len(kept) <= 5:  # the verb comes late and little follows: the whole of it
        return " ".join(words)
    while len(kept) > max(4, verb + 1) and (kept[-1].lower().strip(",;") in LOOSE_ENDS | STOP | BREAKS
                                            or kept[-1][:1].isdigit()):
        kept.pop()  # never "... the harvest two" nor "... to the": end on a word that closes a phrase
    return " ".join(kept).rstrip(",;")


def at_least_words(text: str, wanted: int, texts: list[str], rng: random.Random) -> str:
    """``text`` lengthened to ``wanted`` words with the item's sentences not yet said, reworded, never repeated."""
    if len(text.split()) >= wanted:
        return text
    said = set(words_of(text))
    for sentence in (s for t in texts for s in sentences(t)):
        new = set(words_of(sentence)) - said
        if len(new) < max(3, 0.4 * len(set(words_of(sentence)))):  # said already, if in other words
            continue
        if (rest := _unsaid_rest(sentence, text)) != " ".join(sentence.split()):  # its head is said already (a
            if len(rest.split()) >= 3:  # summary's point): the rest of it
                text = f"{text.rstrip().rstrip('.')}, {reword(rest, rng, 0.8).rstrip('.!?')}."
        else:
            text = f"{text.rstrip()} {reword(sentence, rng, 0.8)}"
        said |= set(words_of(sentence))
        if len(text.split()) >= wanted:
            return text
    found = list(dict.fromkeys(re.findall(r"[\w'-]{6,}", " ".join(texts))))
    picked = sorted(sorted(found, key=len, reverse=True)[:5], key=found.index)  # the longest words, named in order
    return f"{text.rstrip()} Key points: {', '.join(picked)}." if picked else text


def _unsaid_rest(sentence: str, text: str, n: int = 5) -> str:
    """The words of ``sentence`` after the last run of ``n`` it shares with ``text``."""
    words, said = sentence.split(), words_of(text)
    runs = {tuple(said[k:k + n]) for k in range(len(said) - n + 1)}
    bare = [w.strip(".,;:!?\"'()").lower() for w in words]
    last = max((k + n for k in range(len(bare) - n + 1) if tuple(bare[k:k + n]) in runs), default=0)
    return " ".join(words[last:])


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def _plain(text: str) -> bool:
    """The text opens with a common word ("The", "A"), not a name: it may lose its capital."""
    return bool(text.split()) and text.split()[0].lower() in STOP


def _joined(chosen: list[str], rng: random.Random, one: bool = False) -> str:
    names = {w for c in chosen for w in c.split()[1:] if w[:1].isupper()}  # capitals mid-sentence: names
    opener = rng.choice(OPENERS) if _plain(chosen[0]) else ""  # "In short, the council", never "In short, Local"
    body = opener + chosen[0][:1].lower() + chosen[0][1:] if opener else chosen[0]
    links = [x for x in LINKS if not one or ". " not in x]  # in one sentence: no full stop between
    links = rng.sample(links, len(links))  # linked as a person links points, not by one word every time
    for k, c in enumerate(chosen[1:]):
        link = links[k % len(links)]
        opens = c[:1].upper() if link.endswith(". ") else c[:1].lower() if _plain(c) or c.split()[0] not in names \
            else c[:1]
        body = body.rstrip(".!?") + link + opens + c[1:]
    return body[:1].upper() + body[1:].rstrip(".!?") + "."

"""The seed's text limits as a page states them to its workers (fewest words, forbidden openings, one sentence,
the item's words asked back or in one's own; docs/custom_pages.md), from the requester's words only (items' values
masked); an answer under half a target length is far from it. Scans read at most :data:`MAX_READ` characters, in
linear time."""

from __future__ import annotations

import re
from collections.abc import Iterable

NUMBER_WORDS = {w: n for n, w in enumerate((
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))} | {
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100}
_NUMBER = r"(\d{1,4}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")"
AT_LEAST = re.compile(r"\b(?:at least|not? fewer than|not? less than|a minimum of|minimum of|min\.?)\s+" + _NUMBER
                      + r"\s+words\b|\b" + _NUMBER + r"\s+(?:words\s+or\s+more|or\s+more\s+words)\b", re.IGNORECASE)
# "between 15 and 40 words", "15-40 words", "ten to twenty words", "one or two words": the fewest is the first
# ("twenty-one" is one number)
RANGE = re.compile(r"\b(?:between\s+" + _NUMBER + r"\s+and\s+" + _NUMBER + r"|(\d{1,4})\s*[-–]\s*(\d{1,4})|" + _NUMBER
                   + r"\s+(?:to|or)\s+" + _NUMBER + r")\s+words\b", re.IGNORECASE)
TARGET = re.compile(r"\b(?:about|around|roughly|approximately|some|in)\s+" + _NUMBER + r"\s+words\b|\b" + _NUMBER
                    + r"[- ]word\b", re.IGNORECASE)
FORBIDS_OPENING = re.compile(r"\b(?:do not|don[’']t|never|avoid)\s+(?:start|begin|starting|beginning|open|opening)\b",
                             re.IGNORECASE)
SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")
# clauses and what each speaks of: a count in a clause about the shown text alone describes that text, not the answer
CLAUSE = re.compile(r"[^.;!?\n]+(?:[.;!?](?!\s|$)[^.;!?\n]*)*")
CLAUSE_JOIN = re.compile(r"(?<!\d),?\s+(?:and|then)\s+", re.IGNORECASE)
SHOWN = re.compile(r"\b(?:read|reading|shown|displayed|listen|watch|passage|article|excerpt|story|document|paragraph|"
                   r"transcript|review|post|text(?!\s*(?:box|field|area)))s?\b", re.IGNORECASE)
ANSWER = re.compile(r"\b(?:write|writing|summari[sz]e|describe|explain|answer|respond|reply|type|give|provide|compose|"
                    r"tell|justify|your|you write|summary|description|response|caption|reason|explanation|comment)s?\b",
                    re.IGNORECASE)
MAX_READ = 50_000  # characters of a page's words read (a requester's instructions are far shorter)
MAX_SENTENCE = 300  # characters after "do not start" read for the quoted openings
NAMED_COUNT = re.compile(r"(?<![\w-])" + _NUMBER + r"\s*-?\s*words?\b", re.IGNORECASE)  # "8 words", "eight-word"
QUOTED = re.compile(r"[\"“‘']([^\"“”‘’']{2,40})[\"”’']")


FORBIDS_TALK = re.compile(r"\b(?:do not|don[’']t|never|avoid)\s+(?:describe|describing|mention|mentioning|talk "
                          r"about|comment on|write about)\b", re.IGNORECASE)
QUALITY = re.compile(r"\b(?:quality|blur|blurry|blurred)\b", re.IGNORECASE)


def _rests(forbids: re.Pattern[str], text: str) -> list[str]:
    """What follows each match of ``forbids`` in its sentence, at most :data:`MAX_SENTENCE` characters."""
    text, found = (text or "")[:MAX_READ], []
    for m in forbids.finditer(text):
        rest = text[m.end():m.end() + MAX_SENTENCE]
        end = SENTENCE_END.search(rest)
        found.append(rest[:end.start()] if end else rest)
    return found


def forbids_quality_talk(text: str) -> bool:
    """Whether the text tells workers not to describe image quality."""
    return any(QUALITY.search(rest) for rest in _rests(FORBIDS_TALK, text))


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def about_answer(text: str) -> str:
    """The clauses of ``text`` (its first :data:`MAX_READ` characters) that speak of the answer, or not of the text."""
    clauses = (c for m in CLAUSE.finditer((text or "")[:MAX_READ]) for c in CLAUSE_JOIN.split(m.group()))
    return "\n".join(c for c in clauses if ANSWER.search(c) or not SHOWN.search(c))


def _spans(said: str) -> list[tuple[int, int]]:
    """Each stated range of words, (fewest, most): "between 15 and 40 words", "15-40 words", "ten to twenty words",
    "one or two words"."""
    return [(_number(a or c or e), _number(b or d or f)) for a, b, c, d, e, f in RANGE.findall(said)]


def stated_min_words(text: str) -> int:
    """The fewest words the text asks for (0: none); a target length without a minimum counts for half."""
    said = about_answer(text)
    least = [n for n in (_number(a or b) for a, b in AT_LEAST.findall(said)) if 0 < n <= 10000]
    least += [low for low, high in _spans(said) if 0 < low < high <= 10000]
    targets = [n // 2 for n in (_number(a or b) for a, b in TARGET.findall(said)) if 0 < n <= 10000]
    found = least or targets
    return max(found) if found else 0


AT_MOST = re.compile(r"\b(?:at most|no more than|not more than|up to|maximum of|max\.?)\s+" + _NUMBER
                     + r"\s+words\b|\b" + _NUMBER + r"\s+words\s+(?:or\s+(?:fewer|less)|at\s+most|max(?:imum)?)\b",
                     re.IGNORECASE)
# N itself is over; "no fewer than 15 words" is a least
UNDER = re.compile(r"(?<!\bno )(?<!\bnot )\b(?:under|fewer than|less than)\s+" + _NUMBER + r"\s+words\b", re.IGNORECASE)
ONE_WORD = re.compile(r"\b(?:in|with|as|using)\s+(?:just\s+|only\s+)?(?:one|a\s+single)\s+(?:single\s+)?word\b|"
                      r"\b(?:one|a)\s+single\s+word\b|\bsingle[- ]word\b|\bone[- ]word\s+(?:answer|reply|response)\b",
                      re.IGNORECASE)  # "in one word", "one single word": at most one


# an answer asked as a list ("three sounds, separated by commas"): a clause's limit on "each" is a part's, not its own
LISTED = re.compile(r"\bseparated\s+(?:by|with)\s+(?:an?\s+)?(?:commas?|semicolons?)\b|"
                    r"\b(?:comma|semicolon)[- ]separated\b", re.IGNORECASE)
EACH = re.compile(r"[^.;!?]*\beach\b[^.;!?]*", re.IGNORECASE)  # its sentence, across the page's line breaks


def stated_max_words(text: str) -> int:
    """The most words the text allows the answer (0: none stated): "no more than 25 words", "1 to 6 words"; not a
    list's part's ("three sounds, separated by commas ... each up to 3 words")."""
    said = about_answer(EACH.sub("", text) if LISTED.search(text) else text)
    most = [_number(a or b) for a, b in AT_MOST.findall(said)] + [_number(n) - 1 for n in UNDER.findall(said)]
    most += [1] * bool(ONE_WORD.search(said))
    most += [high for low, high in _spans(said) if low < high]
    return min((n for n in most if 0 < n <= 10000), default=0)


# "in one sentence", "a single-sentence summary"; not "at least one sentence", "one or two sentences", "one sentence
# or more", nor a sentence of the shown text ("read the one sentence below": about_answer leaves that clause out)
ONE_SENTENCE = re.compile(r"(?<!\bleast )(?<!\bmore than )\b(?:one|a single|1|only one|just one)\s*-?\s*"
                          r"(?:short |brief |clear |simple |plain )?sentence\b(?!\s+or\s+(?:two|more|so)\b)|"
                          r"\bsingle[- ]sentence\b",
                          re.IGNORECASE)


def stated_one_sentence(text: str) -> bool:
    """Whether the text asks for the answer in one sentence (not a listed part's: "three causes, separated by commas,
    each in one sentence")."""
    return bool(ONE_SENTENCE.search(about_answer(EACH.sub("", text) if LISTED.search(text) else text)))


def named_word_counts(text: str) -> set[int]:
    """Every number the text names as a word count of the answer ("8 words", "eight words", "a 100-word summary")."""
    return {_number(n) for n in NAMED_COUNT.findall(about_answer(text))}


def stated_banned_openings(text: str) -> tuple[str, ...]:
    """The quoted openings the text forbids, in order, each once."""
    found = [q.strip() for rest in _rests(FORBIDS_OPENING, text) for q in QUOTED.findall(rest) if q.strip()]
    return tuple(dict.fromkeys(found))


RUN_WORDS = 3  # "a few words" a quote may take: shorter runs are words any two texts share ("of the")


def word_runs(texts: Iterable[list[str]]) -> set[tuple[str, ...]]:
    """Every run of :data:`RUN_WORDS` words in the texts' word lists (a quote's unit; pandas-free for the simulator)."""
    return {tuple(said[k:k + RUN_WORDS]) for said in texts for k in range(len(said) - RUN_WORDS + 1)}


def copied_words(said: list[str], runs: set[tuple[str, ...]]) -> tuple[int, int, str]:
    """(the answer's words inside a copied run, its words, its longest copied stretch as text)."""
    covered = [False] * len(said)
    for k in range(len(said) - RUN_WORDS + 1):
        if tuple(said[k:k + RUN_WORDS]) in runs:
            covered[k:k + RUN_WORDS] = [True] * RUN_WORDS
    run, best = 0, (0, 0)
    for k, c in enumerate(covered):
        run = run + 1 if c else 0
        if run > best[1] - best[0]:
            best = (k - run + 1, k + 1)
    return sum(covered), len(said), " ".join(said[best[0]:best[1]])
# what a question says when it asks for the item's own words back, not the worker's
COPY_ASKED = re.compile(r"\b(transcribe|transcription|copy|retype|re-type|type (?:out|in|exactly)|correct(?:ed)? "
                        r"(?:the|this|each|any)|rewrite|re-write|proofread|fix (?:the|this|any)|edit (?:the|this)|"
                        r"quote|verbatim|word for word|exactly as)\b", re.IGNORECASE)


NEGATED = re.compile(r"\b(not|never|avoid|without|no)\b|n't\b", re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


OWN_WORDS = re.compile(r"\b(own words|your words|own sentences?|(?:words|sentences?|phrases?) of your own|paraphrase|"
                       r"paraphrasing|reword|restate)\b", re.IGNORECASE)


def asks_own_words(question: str) -> bool:
    """Whether a field's question (with the instructions) asks for own words, not the item's words back."""
    return bool(OWN_WORDS.search(question or "")) and not asks_for_copy(question)


def asks_for_copy(question: str) -> bool:
    """Whether a field's question asks for the item's text back (copied or corrected), not forbidding copying."""
    return any(COPY_ASKED.search(s) and not NEGATED.search(s) for s in SENTENCE_END.split(question or ""))

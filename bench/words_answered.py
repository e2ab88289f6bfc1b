"""``python -m bench.words_answered``: does an honest simulated worker's free text answer the question asked, within
the limits the page states, on pages written fresh for this bench (bench/words_pages/)? Each page is imported as a
user would (``hitflow new --from PAGE --items CSV``, here ``scaffold_from``) and every item's page is filled by
each honest profile (``--seeds`` workers each) the way the simulator fills a page it has no hints for, knowing
the page's own words (those most of the other items' pages show, as a run's workers learn them); per page,
the share of honest answers that pass the page's judge below. The bad profiles' pass share is printed beside it:
their defects (copies, canned text, blanks) should keep many of them failing.

The judges were written with the pages, before any simulated answer was read, and use no table of the simulator
(words: lower-case runs of letters, digits and apostrophes; content words: 4+ letters outside STOP, matched on
their first 4 letters; a copied run: the longest run of the item's words the answer repeats in order):

- clarity (a 1-5 select "how easy is it to make out", anchors "1 = very blurry" .. "5 = perfectly clear";
  "explain the score you picked, at least 8 words"): 8+ words, talks about visibility (SEEING);
- tone (a select whose options read Friendly / Annoyed / Matter-of-fact, valued t1..t3; "what made you pick
  that, 10 to 40 words"): 10-40 words, names the picked option's visible text, never its value code;
- gift ("who would you give this to, and what makes it a good fit, 15 to 50 words"): 15-50 words, names people
  (WHO) and a reason (WHY), a content word of the item, copied run <= 10, no question;
- polite ("rewrite the note so it sounds kinder, at most 200 characters"): <= 200 characters, not the note,
  keeps half of the note's content words, has a politeness marker (POLITE);
- typos ("type out the line with the error corrected"): the item's ``right`` word present, its ``wrong`` word
  absent, 70% of the line's other words kept;
- complaint ("what is the customer unhappy about, and what should the shop do, 12 to 60 words"): 12-60 words,
  2+ content words of the review (the what), an action (ACTION: the what-to-do), copied run <= 10;
- speed (radio 1-5, anchors "1 = painfully slow  5 = lightning fast"; "justify the number, minimum 10 words"):
  10+ words, talks about time (TIMING);
- notice ("in no more than 20 words, what is this notice telling residents"): 4-20 words, 2+ content words of
  the notice, copied run <= 10.

Second group (written after the simulator was changed for the eight above; held apart then). Their first run
is recorded as ``held-apart-first-run``; two gaps it showed were then closed in general terms ("the sort of
household" asks who; a "where" part names the place the item's text gives), so after that run household and
event are tuned to too:

- noise (radio 1-4, labels "1 – unbearably loud" .. "4 – silent"; "what led to your score, 15 words minimum"):
  15+ words, talks about sound (HEARING);
- household ("describe the sort of household that would find it most useful and explain your reasoning,
  20-45 words"): 20-45 words, names people or a household (WHO or HOME), a reason (WHY), a content word of the
  item, copied run <= 10;
- soften ("write a gentler version of it, under 180 characters"): as polite, at most 180 characters;
- proof ("spot the mistake and give the sentence back with it fixed"): as typos;
- event ("what is being organised, and where will it take place? below 30 words"): at most 30 words, the
  item's ``place`` named, 2+ content words of the item, copied run <= 10.

Third group (written before any run on the simulator they measure; ``before-words4`` is that first run, on the
code before it was changed for them). Four tuned to:

- helpdesk (a ticket; "what should the technician do first? Give one instruction in a single sentence of 6 to
  30 words"): 6-30 words, one sentence, an instruction (INSTRUCTION: a verb of DO opening the answer or a clause,
  or after should / must / then ...), a content word of the ticket, copied run <= 8, no question;
- headline (radio "Very unclear" .. "Very clear", "how clear is this headline"; "why did you pick that rating?
  Minimum 10 words"): 10+ words, about clarity (CLEAR_TALK), a low pick says why not (LOW), a high one why
  (HIGH), a content word of the headline, copied run <= 6;
- summary_fault (an article and a trainee's summary that contradicts it; "what is wrong with it? no more than
  150 characters"): <= 150 characters, names the summary's ``wrong`` or the article's ``right`` words, says it
  is a fault (FAULT), copied run of the summary <= 8;
- sign (a photo of a sign; radio "Yes, easily" / "Only partly" / "Not at all"; "explain what makes the sign easy
  or hard to read, between 5 and 25 words"): 5-25 words, grounds of sight on the picked side (SIGHT_GOOD for yes,
  SIGHT_BAD for no, either for partly).

After the first run two judges were made stricter and ``before-words4-strict`` records the unchanged code under
them: headline and sign no longer count the picked option's own words ("Only partly") as a reason, and a
headline's reason may not speak of a photo's edges or focus, nor of "the other one" (the first run passed such
answers). Held apart (never tuned to; their first run after the simulator's change is
``held-apart-first-run-words4``):

- repair (a tenant's request; "suggest the landlord's next step", placeholder "one sentence, at least 8
  words"): as helpdesk, 8+ words;
- listing (a listing whose title and details disagree; "describe the problem, under 120 characters"): as
  summary_fault, under 120 characters, against the details.

Fourth group, held apart: kitchen, booking, shelf and logged (then gig and parking), whose judges are
bench/words_pages5.py's (a box asked "if no" is judged only where the worker said no). A blank answer fails
(every box is required). Figures go to bench/results-words-answered.json under ``--label`` (default: the code's
commit). Run: ``make bench-words``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.words_pages5 import judges
from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import common_among, page_chunks
from flows.sim.people.crowd_model import BAD_PROFILES, HONEST_PROFILES, new_worker

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "bench" / "words_pages"
RESULTS = ROOT / "bench" / "results-words-answered.json"
WORDS = re.compile(r"[a-z0-9']+")
STOP = frozenset(("this", "that", "with", "from", "they", "their", "there", "have", "what", "your", "were", "will",
                  "when", "which", "would", "about", "into", "them", "than", "then", "some", "only", "also", "just",
                  "been", "more", "most", "very"))
SEEING = re.compile(r"clear|blur|sharp|focus|fuzz|crisp|detail|dark|bright|light|grain|nois|\bsee\b|seen|visib|"
                    r"make out|exposure|pixel|smudg|hazy|haze|murky|dim|contrast|shak|soft|recogni|outline", re.I)
TIMING = re.compile(r"fast|slow|quick|\bdays?\b|weeks?|hours?|late|\btime|wait|prompt|delay|arriv|deliver|took|"
                    r"soon|speed|rapid|overnight|next morning|same day|ages", re.I)
WHO = re.compile(r"\b(people|anyone|someone|parents|families|friends?|students|children|kids|workers|cyclists|"
                 r"commuters|fans|owners|users|travellers|beginners|who|person|teachers|readers|gardeners|players|"
                 r"grandparents?|mum|dad|mother|father|sister|brother|niece|nephew|son|daughter|colleague|"
                 r"partner|cook|riders?|couriers?|retirees|adults|teenagers?|gamers|anybody|uncle|aunt)\b", re.I)
WHY = re.compile(r"\b(because|since|as (it|they|he|she)|so (that|they|he|she|it)|which (helps|means|lets|makes)|"
                 r"that way|thanks to|given|loves?|enjoys?|needs?)\b", re.I)
POLITE = re.compile(r"please|could you|would you|thank|kindly|appreciate|grateful|would be great|if you (can|could|"
                    r"don't mind)|sorry|do you mind|would you mind|when you (get a|have a) (chance|moment)", re.I)
ACTION = re.compile(r"should|could|ought|need to|needs to|must|offer|refund|replac|repair|apolog|send|reply|"
                    r"respond|contact|train|fix|compensat|discount|return|pack|check|answer", re.I)


def words(text: str) -> list[str]:
    return WORDS.findall(text.lower())


def content(text: str) -> set[str]:
    return {w[:4] for w in words(text) if len(w) >= 4 and w not in STOP}


def copied_run(text: str, source: str) -> int:
    a, b = words(text), words(source)
    runs = {tuple(b[i:i + n]) for n in range(1, 30) for i in range(len(b) - n + 1)}
    return max((n for n in range(1, 30) for i in range(len(a) - n + 1) if tuple(a[i:i + n]) in runs), default=0)


def count(text: str, least: int, most: int = 10**6) -> bool:
    return least <= len(text.split()) <= most


def clarity(row: dict, a: dict) -> bool:
    return count(a["clarity_note"], 8) and bool(SEEING.search(a["clarity_note"]))


def tone(row: dict, a: dict) -> bool:
    label = {"t1": "friendly", "t2": "annoyed", "t3": "matter.of.fact"}.get(a["tone"], "(?!)")
    text = a["tone_why"]
    return count(text, 10, 40) and bool(re.search(label, text, re.I)) and not re.search(r"\bt[123]\b", text)


def gift(row: dict, a: dict) -> bool:
    text = a["giftee"]
    return count(text, 15, 50) and bool(WHO.search(text)) and bool(WHY.search(text)) and "?" not in text \
        and bool(content(text) & content(row["name"] + " " + row["blurb"])) and copied_run(text, row["blurb"]) <= 10


def polite(row: dict, a: dict) -> bool:
    text, note = a["kinder"], row["note"]
    kept = content(text) & content(note)
    return 0 < len(text) <= 200 and words(text) != words(note) and len(kept) >= 0.5 * len(content(note)) \
        and bool(POLITE.search(text))


def typos(row: dict, a: dict) -> bool:
    mine, line = words(a["corrected"]), words(row["line"])
    wrong, right = row["wrong"].lower(), row["right"].lower()
    others = [w for w in line if w != wrong]
    return right in mine and wrong not in mine and sum(w in mine for w in others) >= 0.7 * len(others)


def complaint(row: dict, a: dict) -> bool:
    text = a["fix_plan"]
    return count(text, 12, 60) and len(content(text) & content(row["review"])) >= 2 \
        and bool(ACTION.search(text)) and copied_run(text, row["review"]) <= 10


def speed(row: dict, a: dict) -> bool:
    return count(a["speed_why"], 10) and bool(TIMING.search(a["speed_why"]))


def notice(row: dict, a: dict) -> bool:
    text = a["gist"]
    return count(text, 4, 20) and len(content(text) & content(row["notice"])) >= 2 \
        and copied_run(text, row["notice"]) <= 10


HEARING = re.compile(r"loud|quiet|nois|silen|sound|hear|heard|traffic|music|peace|calm|racket|din|buses|party|"
                     r"disturb|woke|sleep|slept", re.I)
HOME = re.compile(r"\b(?:households?|homes?|flats?|famil(?:y|ies)|couples?|single|living alone|live alone)\b", re.I)


def noise(row: dict, a: dict) -> bool:
    return count(a["led_to"], 15) and bool(HEARING.search(a["led_to"]))


def household(row: dict, a: dict) -> bool:
    text = a["household"]
    return count(text, 20, 45) and bool(WHO.search(text) or HOME.search(text)) and bool(WHY.search(text)) \
        and bool(content(text) & content(row["appliance"])) and copied_run(text, row["appliance"]) <= 10


def soften(row: dict, a: dict) -> bool:
    return len(a["gentler"]) <= 180 and polite({"note": row["message"]}, {"kinder": a["gentler"]})


def proof(row: dict, a: dict) -> bool:
    return typos({**row, "line": row["sentence"]}, {"corrected": a["back"]})


def event(row: dict, a: dict) -> bool:
    text = a["what_where"]
    return count(text, 1, 30) and row["place"].lower() in text.lower() and copied_run(text, row["announcement"]) <= 10 \
        and len(content(text) & content(row["announcement"])) >= 2


# An instruction: one of these verbs opens the answer or a clause, or follows should / must / needs to / is to.
DO = (r"ask|check|restart|reboot|reset|replace|send|call|contact|phone|update|reinstall|install|run|open|clear|"
      r"remove|move|plug|unplug|reconnect|connect|turn|switch|log|sign|confirm|verify|escalate|book|schedule|"
      r"arrange|give|offer|tell|email|try|look|test|restore|disable|enable|order|swap|visit|fix|repair|inspect|"
      r"clean|set|change|unlock|review|get|have|fit|treat|tighten|seal|bleed|lubricate|oil|board|cover|assess|"
      r"examine|investigate|attend|go|walk|hire|dispatch|organi[sz]e|forget|delete|recreate|re-?enter|apply")
INSTRUCTION = re.compile(rf"(?:^|[.;:,]\s*|\b(?:should|must|needs? to|ought to|has to|is to|be to|best to|"
                         rf"first|then|please)\s+)(?:{DO})\b", re.I)
FAULT = re.compile(r"\b(?:says?|said|but|not|instead|wrong|incorrect(?:ly)?|actually|should|mistake|error|claims?|"
                   r"while|whereas|differ\w*|contradict\w*|rather than|isn't|doesn't|aren't|mismatch\w*|conflict\w*|"
                   r"only|no)\b", re.I)
LOW = re.compile(r"unclear|confus|vague|hard|difficult|ambig|\bnot\b|n't|\bno\b|nothing|missing|lack|odd|strange|"
                 r"garbl|repeat|mislead|puzzl|unsure|cannot|hardly|doubl|twice|messy|clumsy|awkward|guess", re.I)
HIGH = re.compile(r"\bclear|easy|easily|plain|obvious|straightforward|simple|direct|understand|tells|specific|"
                  r"precise|immediately|at once|exactly|know", re.I)
CLEAR_TALK = re.compile(rf"{LOW.pattern}|{HIGH.pattern}|sense|mean|story|about|word|read", re.I)
SIGHT_GOOD = re.compile(r"\bclear|sharp|large|big|bold|easy|easily|close|contrast|bright|well.lit|legible|plain|"
                        r"visible|in focus|straight|lit|daylight|clean|readable", re.I)
SIGHT_BAD = re.compile(r"blur|dark|small|tiny|far|angle|cut off|covered|faded|worn|dirt|shadow|glare|hard|can't|"
                       r"cannot|unreadable|illegible|\bnot\b|too|hidden|block|rain|fog|night|dim|out of focus|"
                       r"shak|reflect|distan|obscur|partly|partial|half", re.I)

PHOTO_TALK = re.compile(r"blur|crisp|sharp|focus|smear|outline|edges|pixel|the other one", re.I)


def one_sentence(text: str) -> bool:
    return re.search(r"[.!?]\s+\S", text.strip()) is None


def names(text: str, terms: str) -> bool:
    """Does ``text`` name one of the ``|``-separated ``terms`` (a word starting with it)?"""
    return any(re.search(rf"(?<![a-z0-9]){re.escape(t)}", text, re.I) for t in terms.split("|"))


def helpdesk(row: dict, a: dict) -> bool:
    text = a["first_step"]
    return count(text, 6, 30) and one_sentence(text) and bool(INSTRUCTION.search(text)) and "?" not in text \
        and bool(content(text) & content(row["report"])) and copied_run(text, row["report"]) <= 8


def unlabelled(text: str, label: str) -> str:
    """``text`` without the picked option's own words: saying the option again is no reason for it."""
    return re.sub(re.escape(label), " ", text, flags=re.I)


def headline(row: dict, a: dict) -> bool:
    label = {"1": "very unclear", "2": "unclear", "3": "okay", "4": "clear", "5": "very clear"}.get(a["clear"], "")
    text, pick = unlabelled(a["rating_reason"], label), a["clear"]
    if PHOTO_TALK.search(text):  # the item is a line of text: no edges, focus or "other one" to speak of
        return False
    tied = bool(LOW.search(text)) if pick in ("1", "2") else bool(HIGH.search(text)) if pick in ("4", "5") else True
    return count(a["rating_reason"], 10) and tied and bool(CLEAR_TALK.search(text)) \
        and copied_run(text, row["headline"]) <= 6 and bool(content(text) & content(row["headline"]))


def summary_fault(row: dict, a: dict) -> bool:
    text = a["problem"]
    return 0 < len(text) <= 150 and (names(text, row["wrong"]) or names(text, row["right"])) \
        and bool(FAULT.search(text)) and copied_run(text, row["summary"]) <= 8


def sign(row: dict, a: dict) -> bool:
    label = {"yes": "yes, easily", "partly": "only partly", "no": "not at all"}.get(a["readable"], "")
    text, pick = unlabelled(a["what_makes"], label), a["readable"]
    tied = {"yes": SIGHT_GOOD, "no": SIGHT_BAD}.get(pick, re.compile(f"{SIGHT_GOOD.pattern}|{SIGHT_BAD.pattern}", re.I))
    return count(a["what_makes"], 5, 25) and bool(tied.search(text))


def repair(row: dict, a: dict) -> bool:
    text = a["next_step"]
    return count(text, 8) and one_sentence(text) and bool(INSTRUCTION.search(text)) and "?" not in text \
        and bool(content(text) & content(row["request"])) and copied_run(text, row["request"]) <= 8


def listing(row: dict, a: dict) -> bool:
    text = a["issue"]
    return 0 < len(text) < 120 and (names(text, row["wrong"]) or names(text, row["right"])) \
        and bool(FAULT.search(text)) and copied_run(text, row["details"]) <= 8


HELD = frozenset(("repair", "listing", "kitchen", "booking", "shelf", "logged", "gig", "parking"))
JUDGES: dict[str, Callable[[dict, dict], bool | None]] = {
    "helpdesk": helpdesk, "headline": headline, "summary_fault": summary_fault, "sign": sign, "repair": repair,
    "listing": listing,
    "noise": noise, "household": household, "soften": soften, "proof": proof, "event": event,
    "clarity": clarity, "tone": tone, "gift": gift, "polite": polite, "typos": typos, "complaint": complaint,
    "speed": speed, "notice": notice, **judges(FAULT)}


def answers(tmp: Path, page: str, profiles: tuple[str, ...], seeds: int,
            folder: Path = PAGES) -> list[tuple[dict, dict]]:
    """(item row, one worker's answers) for every item of ``page`` (in ``folder``), every profile of ``profiles``,
    ``seeds`` each."""
    scaffold_from(page, folder / f"{page}.html", tmp, items=folder / f"{page}_items.csv")
    cfg = load_campaign(tmp / "config" / f"{page}.toml")
    rows = read_custom_items(cfg)
    pages = [custom_page(cfg, [{**row, "image_id": row["item_id"]}]) for row in rows]
    refs = [(row["item_id"], page_chunks(html)) for row, html in zip(rows, pages, strict=True)]
    out = []
    for k, (row, html) in enumerate(zip(rows, pages, strict=True)):
        common = common_among(refs, row["item_id"])  # the page's own words, as a run's workers learn them
        for p, profile in enumerate(profiles):
            for s in range(seeds):
                worker = new_worker(profile, {}, random.Random(7000 + 1000 * p + s))
                values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(70 * k + 10 * p + s),
                                       common=common)
                out.append((row, {n.rsplit("_", 1)[0]: str(v) for n, v in values.items() if n.endswith("_0")}))
    return out


def shares(page: str, seeds: int) -> dict:
    """The honest and bad profiles' pass shares on ``page`` and a few failing honest answers."""
    out: dict = {}
    for side, profiles in (("honest", HONEST_PROFILES), ("bad", BAD_PROFILES)):
        with tempfile.TemporaryDirectory() as d:
            got = answers(Path(d), page, profiles, seeds)
        judged = [(a, ok) for row, a in got if (ok := JUDGES[page](row, a)) is not None]  # (None: not asked)
        out[side] = round(sum(ok for _a, ok in judged) / max(1, len(judged)), 3)
        if side == "honest":
            out["failing"] = [a for a, ok in judged if not ok][:3]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="workers per profile and item")
    ap.add_argument("--label", default=None, help="name of this measurement (default: the commit)")
    ap.add_argument("pages", nargs="*", default=sorted(JUDGES))
    args = ap.parse_args()
    label = args.label or subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                         capture_output=True, text=True).stdout.strip()
    got = {page: shares(page, args.seeds) for page in args.pages}
    for page, r in got.items():
        print(f"{page:10s} {'held apart' if page in HELD else 'tuning':10s} honest {r['honest']:.2f}  bad "
              f"{r['bad']:.2f}", *map(repr, r["failing"]), sep="\n  ")
    for side, pages in (("tuning", [p for p in got if p not in HELD]), ("held apart", [p for p in got if p in HELD])):
        if pages:
            print(f"mean honest share, {side}: {sum(got[p]['honest'] for p in pages) / len(pages):.2f}")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.setdefault(label, {}).update({p: {k: v for k, v in r.items() if k != "failing"} for p, r in got.items()})
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""``python -m bench.words_answered3``: three shapes of question on pages written fresh for them
(bench/words_pages3/), filled as bench/words_answered.py fills its pages: what someone should do (the item's own
advice retold), what a rule leaves unclear (a part of this item named, and what is not said of it), and a title
for a notice (its key content, not its first words cut off). The pages and these judges were written before any
simulated answer on them was read. TUNE may be looked at while changing the simulator; KEPT only at the end
(the first two kept trios, water_advice .. club_headline and school_parents .. local_news, have been seen since).

Words, content words and copied runs as bench/words_answered.py reads them.

- recall_advice ("what should a customer who already has one of these at home do? 5 to 25 words"), and kept,
  water_advice ("what would you advise a household living in the affected area to do? between 6 and 20 words"):
  within the range, no question, a content word of the notice, no invented inspection ("send someone",
  "inspect"); where the notice gives advice (``gold_do``), one of its words; where it gives none, an instruction
  (ADVICE opening the answer or a clause, or after should / must / to / please ...). Copied run <= 20.
- rule_unclear ("which part of this house rule is unclear or left out? 5 to 30 words"), and kept, club_vague
  ("what does this rule leave vague or unsaid? 8 to 30 words"): within the range, a content word of the rule,
  says what is not said (UNSAID), copied run <= 10. Beside the share: ``variety``, the share of distinct opening
  three words among the page's honest answers (a template opens them all alike).
- Kept out after those had been seen (written, with their judges, before any run on them): school_parents ("what
  should parents of children in the classes mentioned do now? 5 to 25 words", as the advice pages),
  leave_policy ("what is missing or unclear in this policy? 6 to 30 words", as the rule pages), local_news
  ("headline for this news item (max 8 words, no full stop)", as the title pages, 2 to 8 words). Those were
  measured twice, then seen; a third kept trio, written with its judges before any run: hotel_notice ("according
  to the note, what should a guest staying in one of the affected rooms do? between 5 and 20 words"),
  tenancy_clause ("point out something this clause leaves unclear (5-25 words)"), event_listing ("suggest a short
  title for this listing (2 to 6 words)").
- Beside held-out set 12's shapes, written with these judges before any run: sign_translation ("only if it needs a
  fix: write the English version as it should read (at most 15 words); leave the box empty if it is right"): given
  exactly when the worker's own verdict is needs_fix, then 1 to 15 words, not the English shown (letters compared),
  a content word of the sign; recipe_diets ("why did you tick those diets? 5 to 30 words"): names one of the
  worker's own ticked diets and a content word of the recipe. Kept out: help_chat ("what did the staff member need
  help with? own words, do not copy, 4 to 14 words"): within the range, a content word of the chat, copied run <= 5,
  no speaker label opening it; notice_confusing (optional "is anything in the wording confusing?"): over the answers
  given, a content word of the notice, says what is unclear (UNSAID, confus, unclear, vague), no praise (PRAISE).
- newsletter_title ("Title (3 to 10 words, one line, no full stop)"), and kept, club_headline ("4 to 9 words,
  without a full stop"): within the range, one line, no full stop at its end, names the notice's ``key``, 2+
  content words of the notice, no small word last (DANGLING), and not the notice's opening words cut short.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.words_answered import ROOT, answers, content, copied_run, count, names, words
from flows.sim.people.crowd_model import HONEST_PROFILES

PAGES = ROOT / "bench" / "words_pages3"
RESULTS = ROOT / "bench" / "results-words-answered3.json"
TUNE = ("recall_advice", "rule_unclear", "newsletter_title", "water_advice", "club_vague", "club_headline",
        "school_parents", "leave_policy", "local_news", "sign_translation", "recipe_diets")
# written after the second three kept pages had been seen; then a pair beside set 12's shapes (help_chat ..)
KEPT = ("hotel_notice", "tenancy_clause", "event_listing", "help_chat", "notice_confusing")
ADVICE = (r"stop|return|contact|call|phone|ring|check|keep|boil|avoid|take|bring|throw|bin|use|wait|ask|get|look|"
          r"put|do not|don't|stay|report|follow|read|register|send|unplug|switch|turn|close|find|visit|go|email|"
          r"write|empty|store|leave|tell|warn|claim|apply|book|cancel|replace|remove")
INSTRUCTION = re.compile(rf"(?:^|[.;:,]\s*|\b(?:should|must|to|then|and|please|best to|advise (?:them|you|it) to)"
                         rf"\s+)(?:{ADVICE})\b", re.I)
INVENTED = re.compile(r"\bsend someone\b|\binspect", re.I)
UNSAID = re.compile(r"\bnot (?:say|said|stated?|clear|defined|explain|specif|mention|given|covered|told)|does ?n[o']t|"
                    r"\bis ?n[o']t\b|\bnever\b|unclear|vague|what counts|\bhow (?:many|much|long|often|soon)\b|"
                    r"\bwhich\b|\bwhether\b|\bwho (?:decides|counts|judges)|\bwhat (?:happens|if|is|does|about)\b|"
                    r"\bno (?:mention|limit|rule|definition|detail)|left out|leaves out|missing|undefined|ambiguous|"
                    r"\bunsaid\b|\bsilent on\b", re.I)
PRAISE = re.compile(r"\b(?:catchy|rhythm|i like|nice|snappier|flat|well written|reads well|"
                    r"sounds (?:good|great|fine))\b", re.I)
DIETS = {"vegetarian": "vegetarian", "vegan": "vegan", "gluten_free": "gluten", "low_sugar": "sugar"}
DANGLING = frozenset(("the", "a", "an", "of", "to", "and", "or", "on", "at", "for", "in", "with", "from", "by", "will",
                      "is", "are", "be", "that", "this", "has", "have", "our", "their", "its", "as", "new", "but"))


def _advice(row: dict, text: str, least: int, most: int, source: str) -> bool:
    told = names(text, row["gold_do"]) if row["gold_do"] else bool(INSTRUCTION.search(text))
    return count(text, least, most) and "?" not in text and told and not INVENTED.search(text) \
        and bool(content(text) & content(row[source])) and copied_run(text, row[source]) <= 20


def _unclear(text: str, rule: str, least: int, most: int) -> bool:
    return count(text, least, most) and bool(content(text) & content(rule)) and bool(UNSAID.search(text)) \
        and copied_run(text, rule) <= 10


def _title(row: dict, text: str, least: int, most: int, source: str) -> bool:
    mine, notice = words(text), words(row[source])
    cut_short = len(mine) >= 2 and notice[:len(mine)] == mine
    return count(text, least, most) and "\n" not in text and not text.rstrip().endswith(".") \
        and names(text, row["key"]) and len(content(text) & content(row[source])) >= 2 \
        and bool(mine) and mine[-1] not in DANGLING and not cut_short


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def _fix(row: dict, a: dict) -> bool:
    """Given exactly when the worker's own verdict says the line needs a fix; then not the English shown."""
    text = a.get("better_english", "").strip()
    if a["verdict"] != "needs_fix":
        return not text
    return count(text, 1, 15) and _letters(text) != _letters(row["english"]) \
        and bool(content(text) & (content(row["english"]) | content(row["original"])))


def _ticked_reason(row: dict, a: dict) -> bool:
    """Names one of the worker's own ticked diets and a word of the recipe."""
    ticked = [DIETS[v] for v in a["diets"].split("|") if v in DIETS]
    text = a["diet_reason"]
    return count(text, 5, 30) and any(names(text, t) for t in ticked) \
        and bool(content(text) & content(f"{row['title']} {row['ingredients']}"))


def _need(row: dict, a: dict) -> bool:
    text = a["need"]
    return count(text, 4, 14) and bool(content(text) & content(row["chat"])) and copied_run(text, row["chat"]) <= 5 \
        and not re.match(r"\s*(?:user|helpdesk)\s*:", text, re.I)


def _confusing(row: dict, a: dict) -> bool | None:
    """(None: left blank, as the page allows) names a part of the notice and what is unclear about it, no praise."""
    text = a.get("confusing_part", "").strip()
    if not text:
        return None
    return count(text, 1, 25) and bool(content(text) & content(row["notice"])) and not PRAISE.search(text) \
        and bool(UNSAID.search(text) or re.search(r"confus|unclear|vague", text, re.I))


JUDGES: dict[str, Callable[[dict, dict], bool | None]] = {
    "sign_translation": _fix, "recipe_diets": _ticked_reason, "help_chat": _need, "notice_confusing": _confusing,
    "recall_advice": lambda r, a: _advice(r, a["owner_step"], 5, 25, "notice"),
    "water_advice": lambda r, a: _advice(r, a["advice"], 6, 20, "message"),
    "rule_unclear": lambda r, a: _unclear(a["gap"], r["rule"], 5, 30),
    "club_vague": lambda r, a: _unclear(a["vague"], r["rule"], 8, 30),
    "newsletter_title": lambda r, a: _title(r, a["title"], 3, 10, "notice"),
    "school_parents": lambda r, a: _advice(r, a["parents_do"], 5, 25, "message"),
    "leave_policy": lambda r, a: _unclear(a["unclear"], r["policy"], 6, 30),
    "local_news": lambda r, a: _title(r, a["headline"], 2, 8, "story"),
    "hotel_notice": lambda r, a: _advice(r, a["guest_should"], 5, 20, "note"),
    "tenancy_clause": lambda r, a: _unclear(a["leaves_unclear"], r["clause"], 5, 25),
    "event_listing": lambda r, a: _title(r, a["listing_title"], 2, 6, "listing"),
    "club_headline": lambda r, a: _title(r, a["headline"], 4, 9, "announcement")}


def measured(page: str, seeds: int, show: int) -> tuple[float, float]:
    """The share of honest answers on ``page`` its judge passes, and the share of distinct openings."""
    with tempfile.TemporaryDirectory() as d:
        got = answers(Path(d), page, HONEST_PROFILES, seeds, folder=PAGES)
    judged = [(row, a, ok) for row, a in got if (ok := JUDGES[page](row, a)) is not None]  # (None: left blank)
    failing = [(row["item_id"], a) for row, a, ok in judged if not ok]
    for item, a in random.Random(1).sample(failing, min(show, len(failing))):
        print(f"   x {item}: {a}")
    openings = [" ".join(words(next(iter(a.values()), ""))[:3]) for _r, a in got]
    return round(sum(ok for _r, _a, ok in judged) / max(1, len(judged)), 3), \
        round(len(set(openings)) / max(1, len(openings)), 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="workers per honest profile and item")
    ap.add_argument("--show", type=int, default=0, help="failing answers shown per page")
    ap.add_argument("--kept", action="store_true", help="measure the kept-out half too (only at the end)")
    ap.add_argument("--label", default="", help="record the shares in bench/results-words-answered3.json under it")
    ap.add_argument("pages", nargs="*", default=None)
    args = ap.parse_args()
    pages = args.pages or [*TUNE, *(KEPT if args.kept else ())]
    got = {}
    for page in pages:
        share, variety = measured(page, args.seeds, args.show)
        got[page] = {"honest": share, "variety": variety}
        print(f"{page:16s} {'kept out' if page in KEPT else 'tuned':9s} honest {share:.2f}  variety {variety:.2f}",
              flush=True)
    for side, half in (("tuned", TUNE), ("kept out", KEPT)):
        if shares := [got[p]["honest"] for p in half if p in got]:
            print(f"mean honest share, {side}: {sum(shares) / len(shares):.2f}")
    if args.label:
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        results.setdefault(args.label, {}).update(got)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""``python -m bench.words_answered6``: does an honest simulated worker's free text answer the question asked, within
the page's stated limits, on eight pages written fresh for it (bench/words_pages6/) by someone who had not read the
simulator? Each page is imported as a user would (``scaffold_from``, as ``hitflow new NAME --from PAGE --items CSV``)
and every item's page filled by each honest profile (``--seeds`` workers each, seeded) as bench/words_answered.py
fills its pages. Per page: ``honest``, the share of honest answers the page's judge passes, and ``variety``, the
share of distinct opening three words among those answers (a template opens them all alike).

The pages and judges were written before any simulated answer on them was read. TUNE may be looked at while
changing the simulator; KEPT only at the end. Words, content words (4+ letters, first four matched), copied runs
and ``names`` (a word starting with one of a gold column's ``|``-separated stems) as bench/words_answered.py reads
them; a sentence is a run ending in . ! or ? followed by a space or the end.

TUNE:

- student_fit (MTurk ``${column}`` fragment: a shop product; radio "would this suit a student?" yes / no / it
  depends; "why would this product suit or not suit a student? (10-30 words)"): 10-30 words, no question, a content
  word of the product, copied run <= 10, a reason (REASON: a because / since / as / so / for / which / that clause,
  or a property: price, size, weight, space, use); agrees with the worker's own pick (no: says what is against it,
  NEGATIVE; yes: never "would not suit"; it depends: a condition, CONDITION).
- complaint_summary (crowd elements: a ``crowd-text-area``; "summarise this complaint in one sentence (no more than
  25 words)"): 4-25 words, one sentence, no question, the complaint's ``issue`` named, 2+ content words of it,
  copied run <= 8, not in the customer's voice (opening I / my / we / our).
- seller_question (a whole Prolific page; "what question would you ask the seller before buying? one question of 5
  to 20 words, ending with ?"): 5-20 words, one sentence that ends with ?, an interrogative opening it or a clause
  (ASKING), a content word of the listing, copied run <= 8, not the price the listing states unless bargaining.
- plan_risk (Bootstrap fragment with a script counting words; select "how risky" low / medium / high; "what is the
  main risk in this plan? (at most 15 words)"): 2-15 words, no question, a content word of the plan, copied run <=
  8, names a risk (RISK: what could fail, be short, late, unsafe ...) and does not deny one (NO_RISK).
- customer_reply (fragment; "write a reply to this customer (2-3 sentences)"): 2-3 sentences, 10-90 words,
  speaks to the customer (you / your / their first name), a content word of the message, a reply's act (REPLY_ACT:
  sorry, thanks, will, refund, send ...), copied run <= 8, not in the customer's voice ("I ordered", "my order").

KEPT:

- photo_title (crowd elements: a ``crowd-input``; "give this photo a short title (3-6 words)", no full stop):
  3-6 words, one line, no full stop at its end, the photo's ``key`` named, not the description's opening words
  cut short, no small word last (DANGLING).
- job_missing (fragment; "list two things missing from this job advert", one a line): at most 30 words, two
  distinct kinds of information (TOPICS) both among the advert's ``missing`` ones, and at least two parts (lines,
  commas, semicolons or "and").
- rule_plain (a whole Prolific page; radio "is this rule fair?"; "explain the rule to a new member in plain
  words, 8-20 words, do not copy the rule's wording"): 8-20 words, no question, the rule's ``key`` named, copied
  run <= 6, tells the member what to do or not (EXPLAIN), no verdict on the rule (OPINION).

Run: ``python -m bench.words_answered6 --label L --results FILE [--kept] [--show N] [--dump FILE] [pages]``
(bench/results-words-answered6.json holds ``main`` and ``lean``). Some judges pass answers a requester would not
accept (read after the first run): bench/words_hand6.md sets a reading by hand of 20 answers a page beside them.
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

PAGES = ROOT / "bench" / "words_pages6"
TUNE = ("student_fit", "complaint_summary", "seller_question", "plan_risk", "customer_reply")
KEPT = ("photo_title", "job_missing", "rule_plain")
FIELD = {"student_fit": "why", "complaint_summary": "summary", "seller_question": "seller_q",
         "plan_risk": "main_risk", "customer_reply": "reply", "photo_title": "title", "job_missing": "missing",
         "rule_plain": "plain"}
REASON = re.compile(r"\b(?:because|since|as (?:it|they|its|the|a|most|students?)|so (?:that|it|they|you|a)|for "
                    r"(?:a|an|the|someone|students?|anyone|people|their|studying|revision|lectures|exams?)|which|"
                    r"that (?:is|are|has|have|would|makes?|means?|lets?)|too|cheap|expensive|pric|cost|afford|"
                    r"budget|small|compact|large|huge|big|heavy|light|portable|space|room|useful|practical|handy|"
                    r"need|unnecessary|waste|energy|battery|quiet|noisy)", re.I)
NEGATIVE = re.compile(r"\bnot\b|n't\b|\bno\b|\bnever\b|\btoo\b|unnecessary|useless|overkill|impractical|expensive|"
                      r"pricey|costly|heavy|bulky|huge|wasteful|cannot|\bhardly\b|\brarely\b", re.I)
NOT_SUIT = re.compile(r"(?:not|n't|never) (?:be )?(?:suit|fit|right|good|a good)|unsuitable|not for (?:a )?student",
                      re.I)
CONDITION = re.compile(r"\bif\b|depend|whether|unless|\bbut\b|\bonly\b|might|could|\bmay\b|some students|"
                       r"\bsome\b", re.I)
ASKING = re.compile(r"(?:^|[,;:]\s*|\band\s+)(?:what|why|how|when|where|which|who|whose|is|are|was|were|do|does|did|"
                    r"can|could|would|will|has|have|had|should|may|might|any|have you)\b", re.I)
PRICE_ASKED = re.compile(r"how much|what(?:'s| is) the (?:asking )?price|what does it cost", re.I)
BARGAIN = re.compile(r"lower|offer|accept|negotia|discount|less|reduc|best price|deal|flexib", re.I)
RISK = re.compile(r"risk|could|might|\bmay\b|\bif\b|fail|not enough|too (?:many|few|much|little|late|early|long|"
                  r"short|tired|dark|busy)|\bno\b|without|lack|short|run out|rain|weather|storm|delay|late|"
                  r"overbook|over|under|unsafe|danger|accident|injur|hurt|tired|fatigue|exhaust|los[est]|crash|"
                  r"bug|break|broke|fall|debt|shortage|won't|can't|cannot|unable|nobody|no one|depend|rel[yi]|"
                  r"single|only|dark|cold|burn|fire|asbestos|dehydrat|sick|ill|never|missing|collapse|disrupt|"
                  r"chaos|error|glitch|not (?:pay|come|turn|show|have|able|attend)|unpaid|scam|fraud|die|dry|"
                  r"stranded|lost|unreliable|alienat|exclud", re.I)
NO_RISK = re.compile(r"\bno (?:real |major |big |obvious )?risks?\b|\bnothing\b|\bnone\b|looks (?:fine|good)|"
                     r"good plan|solid plan|well planned", re.I)
REPLY_ACT = re.compile(r"sorry|apolog|thank|will|we'll|i'll|refund|replac|send|sent|arrange|cancel|check|look into|"
                       r"happy to|glad|pleased|can|could|please|update|chang|return|offer", re.I)
CUSTOMER_VOICE = re.compile(r"\bI (?:ordered|bought|received|placed|paid|just placed|found one)\b|"
                            r"\bmy (?:order|bank|parcel|sister)\b", re.I)
OWN_VOICE = re.compile(r"^\W*(?:i|my|we|our|i'm|i've)\b", re.I)
DANGLING = frozenset(("the", "a", "an", "of", "to", "and", "or", "on", "at", "for", "in", "with", "from", "by", "is",
                      "are", "its", "his", "her", "their", "as", "into", "under", "over"))
TOPICS = {"pay": r"\bpay|salary|wage|£|\brate\b|money|earn|remunerat|per hour|an hour",
          "hours": r"\bhours|shifts?\b|full.time|part.time|schedule|working (?:days|time|pattern)|days a week|rota|"
                   r"\bdays\b",
          "location": r"location|where|address|based|\btown\b|\bcity\b|\barea\b|\bsite\b|office|remote|place",
          "start": r"start|begin|\bwhen\b",
          "contract": r"contract|permanent|temporary|fixed.term|duration|how long|length of",
          "experience": r"experience|qualif|skills?\b|requirement|licen[cs]e|certif|degree|\bdbs\b|driving",
          "apply": r"apply|application|contact|e-?mail|phone|deadline|closing date|\bcv\b|how to",
          "benefits": r"benefit|holiday|pension|\bleave\b|perks|sick"}
EXPLAIN = re.compile(r"\byou\b|\byour\b|\bmembers?\b|\bcan\b|can't|cannot|must|have to|has to|need to|needs to|"
                     r"should|allowed|\bonly\b|no more|don't|do not|\bif\b|every|always|never|\bnot\b|\bno\b", re.I)
OPINION = re.compile(r"\b(?:unfair|fair|unclear|confusing|i think|i agree|i disagree|good rule|bad rule|"
                     r"reasonable|sensible|strict)\b", re.I)
SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def sentences(text: str) -> int:
    """How many sentences: runs of words ended by . ! ? (a decimal point or £3.50 ends none)."""
    return sum(1 for part in SENTENCE_END.split(text.strip()) if words(part))


def one_question(text: str) -> bool:
    t = text.strip()
    return t.endswith("?") and sentences(t) == 1


def student_fit(row: dict, a: dict) -> bool:
    text = a["why"]
    picked = a.get("suits", "")
    agrees = (picked == "no" and bool(NEGATIVE.search(text))) or (picked == "yes" and not NOT_SUIT.search(text)) \
        or (picked == "depends" and bool(CONDITION.search(text)))
    item = f"{row['product']} {row['description']}"
    return count(text, 10, 30) and "?" not in text and bool(content(text) & content(item)) \
        and copied_run(text, item) <= 10 and bool(REASON.search(text)) and agrees


def complaint_summary(row: dict, a: dict) -> bool:
    text = a["summary"]
    return count(text, 4, 25) and sentences(text) == 1 and "?" not in text and names(text, row["issue"]) \
        and len(content(text) & content(row["complaint"])) >= 2 and copied_run(text, row["complaint"]) <= 8 \
        and not OWN_VOICE.search(text)


def seller_question(row: dict, a: dict) -> bool:
    text = a["seller_q"]
    listing = f"{row['title']} {row['condition']} {row['details']}"
    price_known = bool(PRICE_ASKED.search(text)) and not BARGAIN.search(text)
    return count(text, 5, 20) and one_question(text) and bool(ASKING.search(text)) \
        and bool(content(text) & content(listing)) and copied_run(text, listing) <= 8 and not price_known


def plan_risk(row: dict, a: dict) -> bool:
    text = a["main_risk"]
    return count(text, 2, 15) and "?" not in text and bool(content(text) & content(row["plan"])) \
        and copied_run(text, row["plan"]) <= 8 and bool(RISK.search(text)) and not NO_RISK.search(text)


def customer_reply(row: dict, a: dict) -> bool:
    text = a["reply"]
    first = row["customer"].split()[0]
    addressed = bool(re.search(rf"\byou\b|\byour\b|\b{re.escape(first)}\b", text, re.I))
    message = f"{row['subject']} {row['message']}"
    return 2 <= sentences(text) <= 3 and count(text, 10, 90) and addressed \
        and bool(content(text) & content(message)) and bool(REPLY_ACT.search(text)) \
        and copied_run(text, message) <= 8 and not CUSTOMER_VOICE.search(text)


def photo_title(row: dict, a: dict) -> bool:
    text = a["title"].strip()
    mine, described = words(text), words(row["description"])
    cut_short = len(mine) >= 2 and described[:len(mine)] == mine
    return count(text, 3, 6) and "\n" not in text and not text.endswith(".") and names(text, row["key"]) \
        and bool(mine) and mine[-1] not in DANGLING and not cut_short


def job_missing(row: dict, a: dict) -> bool:
    text = a["missing"]
    parts = [p for p in re.split(r"\n|[,;]|\band\b|^\s*\d[.)]|\s\d[.)]\s", text) if words(p)]
    named = {t for t, pattern in TOPICS.items() if re.search(pattern, text, re.I)}
    return count(text, 2, 30) and len(parts) >= 2 and len(named & set(row["missing"].split("|"))) >= 2


def rule_plain(row: dict, a: dict) -> bool:
    text = a["plain"]
    return count(text, 8, 20) and "?" not in text and names(text, row["key"]) \
        and copied_run(text, row["rule"]) <= 6 and bool(EXPLAIN.search(text)) and not OPINION.search(text)


JUDGES: dict[str, Callable[[dict, dict], bool]] = {
    "student_fit": student_fit, "complaint_summary": complaint_summary, "seller_question": seller_question,
    "plan_risk": plan_risk, "customer_reply": customer_reply, "photo_title": photo_title,
    "job_missing": job_missing, "rule_plain": rule_plain}


def measured(page: str, seeds: int, dump: Path | None = None) -> dict:
    """The share of honest answers on ``page`` its judge passes, the share of distinct openings, a few examples;
    every judged answer appended to ``dump`` (JSON lines) for reading by hand."""
    with tempfile.TemporaryDirectory() as d:
        got = answers(Path(d), page, HONEST_PROFILES, seeds, folder=PAGES)
    judged = [(row["item_id"], a, JUDGES[page](row, a)) for row, a in got]
    if dump:
        with dump.open("a") as f:
            f.writelines(json.dumps({"page": page, "item": i, "answer": a, "judged": ok}) + "\n" for i, a, ok in judged)
    openings = [" ".join(words(a.get(FIELD[page], ""))[:3]) for _r, a in got]
    pick = random.Random(1)
    good = [(i, a) for i, a, ok in judged if ok]
    bad = [(i, a) for i, a, ok in judged if not ok]
    return {"honest": round(len(good) / max(1, len(judged)), 3),
            "variety": round(len(set(openings)) / max(1, len(openings)), 3), "answers": len(judged),
            "good": pick.sample(good, min(3, len(good))), "bad": pick.sample(bad, min(3, len(bad)))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="workers per honest profile and item")
    ap.add_argument("--show", type=int, default=3, help="good and bad answers printed per page (at most 3)")
    ap.add_argument("--kept", action="store_true", help="measure the kept-out pages too (only at the end)")
    ap.add_argument("--label", default="", help="record the shares in --results under this label")
    ap.add_argument("--results", type=Path, default=None, help="JSON file the shares are added to")
    ap.add_argument("--dump", type=Path, default=None, help="append every judged answer to this JSON-lines file")
    ap.add_argument("pages", nargs="*", default=None)
    args = ap.parse_args()
    pages = args.pages or [*TUNE, *(KEPT if args.kept else ())]
    got = {}
    for page in pages:
        got[page] = r = measured(page, args.seeds, args.dump)
        print(f"{page:18s} {'kept out' if page in KEPT else 'tuned':9s} honest {r['honest']:.2f}  "
              f"variety {r['variety']:.2f}  ({r['answers']} answers)", flush=True)
        for mark in ("good", "bad"):
            for item, a in r[mark][:args.show]:
                print(f"   {'+' if mark == 'good' else 'x'} {item}: {a}")
    for side, half in (("tuned", TUNE), ("kept out", KEPT)):
        if shares := [got[p]["honest"] for p in half if p in got]:
            print(f"mean honest share, {side}: {sum(shares) / len(shares):.3f}")
    if args.label and args.results:
        results = json.loads(args.results.read_text()) if args.results.exists() else {}
        results.setdefault(args.label, {}).update(got)
        args.results.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

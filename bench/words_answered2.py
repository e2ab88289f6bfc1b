"""``python -m bench.words_answered2``: does an honest simulated worker's free text answer the *kind* of question a
page asks (a reply, what is not said, what you would change or do, how you checked, what a term means, an opinion
with a reason, a summary), within the page's stated word limits, on twelve pages written fresh for it
(bench/words_pages2/), filled as bench/words_answered.py fills its pages?

The pages and these judges were written before any simulated answer on them was read. Every page is text only, so
no answer may speak of a picture (UNSEEN). Words, content words and copied runs as bench/words_answered.py reads
them. The pages are split before any run: TUNE (the code may be changed while looking at them) and KEPT (never
looked at until the end; their figures are reported apart).

- refund_reply ("how would you reply to this customer? 15 to 40 words"): speaks to them (you/your), offers or
  does something (OFFER), a content word of the message, copied run <= 8;
- menu_missing ("what does this menu description not tell a diner? no more than 15 words"): names a detail a
  diner asks about (DINER), or a what/which/how question about one of the dish's own words; copied run <= 6;
- policy_change ("what would you change about this rule, and why? 15 to 45 words"): a change (CHANGE), a reason
  (WHY), a content word of the rule, copied run <= 10;
- fractions_check ("how did you check the answer? 5 to 20 words"): a verb of working or checking (METHOD), a
  number or a content word of the problem, copied run of the problem <= 5;
- explain_term ("explain in your own words what this term means, 10 to 30 words"): a defining phrase (DEFINE),
  the term or "it", copied run of the sentence <= 6;
- opinion_park ("is this a good idea? your opinion and one reason, 10 to 35 words"): a stance (STANCE), a reason
  (WHY), a content word of the proposal, copied run <= 10;
- tenant_note ("how would you respond to your neighbour? under 30 words"): first person (ME), a response (REPLY),
  a content word of the note, copied run <= 8;
- steps_missing ("what important information is not given in these instructions? at most 12 words"): a detail
  instructions give (STEP_DETAIL), or a what/which/how question about the steps' own words; copied run <= 6;
- slogan_pick (A or B; "why did you choose it? 8 to 30 words"): points at the chosen slogan (a content word of it,
  its letter, first/second) and gives grounds (QUALITY);
- letter_summary ("summarise this letter in between 10 and 25 words"): 2+ content words of the letter, copied run
  <= 8;
- found_wallet ("what would you do in this situation? 15 to 40 words"): first person (ME), a deed (DEED), a content
  word of the situation, copied run <= 10;
- units_check ("how did you check it? 5 to 25 words"): as fractions_check, over the conversion, copied run <= 4.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.words_answered import ROOT, answers, content, copied_run, count
from flows.sim.people.crowd_model import HONEST_PROFILES

PAGES = ROOT / "bench" / "words_pages2"
RESULTS = ROOT / "bench" / "results-words-answered2.json"
TUNE = ("refund_reply", "menu_missing", "policy_change", "fractions_check", "explain_term", "opinion_park")
KEPT = ("tenant_note", "steps_missing", "slogan_pick", "letter_summary", "found_wallet", "units_check")
UNSEEN = re.compile(r"\b(?:picture|photo\w*|image|camera|shot|blurr?y|pixel\w*|in the background|in focus)\b", re.I)
YOU = re.compile(r"\b(?:you|your|yours)\b", re.I)
OFFER = re.compile(r"refund|replac|send|sort|look into|check|fix|money back|credit|arrange|return|cancel|"
                   r"investigat|collect|compensat|voucher|discount|repair|reimburs|chase|track|apolog|sorry", re.I)
DINER = re.compile(r"price|cost|how much|£|portion|size|serv(?:es|ing|ed)|allerg|\bnuts?\b|gluten|dairy|vegan|"
                   r"vegetarian|meat|spic|\bhot\b|calori|ingredient|side|comes with|cooked|sugar|halal|chicken|lamb|"
                   r"beef|\bveg|cream|custard|fish|wait|how long|which|what kind|what type", re.I)
ASKS_ABOUT = re.compile(r"\b(?:what|which|how|whether|if)\b", re.I)
CHANGE = re.compile(r"\b(?:would|should|change|let|allow|instead|remove|drop|scrap|make|replace|extend|shorten|"
                    r"reduce|add|more|less|flexib\w*|only if|rather|longer|shorter|warning|first)\b", re.I)
WHY = re.compile(r"\b(?:because|since|so|as|that way|which would|otherwise|would help|fairer|this would|it would|"
                 r"means|due to|given)\b", re.I)
METHOD = re.compile(r"\b(?:multipl|divid|add|subtract|tak|took|count|work|calculat|check|compar|drew|draw|"
                    r"estimat|convert|round|halv|doubl|used|using|times|minus|plus|subtract)\w*", re.I)
DEFINE = re.compile(r"\bmeans?\b|meaning|\bis (?:when|where|a|an|the|how|what|money|something|being)\b|refers? to|"
                    r"describes?|it's when|to be|you (?:can|have|get|must)", re.I)
STANCE = re.compile(r"good idea|bad idea|great idea|poor idea|\bagree|disagree|support|oppose|against|in favour|"
                    r"\bi think|\bi believe|\bi like|\bi don't|\bi do not|not a good|\byes\b|\bno\b|worth|sensible|"
                    r"unfair|\bfair\b|\bi would|i'd|\bwise\b|mistake", re.I)
ME = re.compile(r"\b(?:i|i'd|i'll|i'm|i've|me|my|we|we'll|we'd|us|our)\b", re.I)
REPLY = re.compile(r"sorry|apolog|\bwill\b|'ll|thank|of course|happy to|no problem|move|bring|cut|trim|ask|tell|"
                   r"sort|put|take|clear|get", re.I)
STEP_DETAIL = re.compile(r"how (?:long|much|many|hot|often|big|far)|\btime|temperature|degrees|minutes|hours|oven|"
                         r"amount|quantit|measure|weight|grams|size|which|tool|screw|order|where|safety|password|"
                         r"username|how to|what kind|what type|\bsteps?\b", re.I)
QUALITY = re.compile(r"catch|memorab|short|snappy|clear|simple|punchy|stick|remember|boring|plain|dull|flat|excit|"
                     r"appeal|promis|tells|says|sounds|friendl|fresh|benefit|because|since|while|whereas|rather|"
                     r"better|worse|vague|bland|obvious|strong|weak|history|tradition|cheap|saving|rhym", re.I)
DEED = re.compile(r"\b(?:hand|give|return|take|tell|ask|say|speak|talk|call|contact|report|keep|lend|refus|offer|"
                  r"check|point|pay|leave|explain|let|raise|mention|bring|find|look|post|email|drive|go|say|"
                  r"decline|suggest|speak|walk)\w*", re.I)


def _plain(text: str) -> bool:
    return bool(text.strip()) and not UNSEEN.search(text)


def refund_reply(row: dict, a: dict) -> bool:
    t, src = a["reply"], row["message"]
    return count(t, 15, 40) and _plain(t) and bool(YOU.search(t)) and bool(OFFER.search(t)) \
        and bool(content(t) & content(src)) and copied_run(t, src) <= 8


def menu_missing(row: dict, a: dict) -> bool:
    t, src = a["untold"], f"{row['dish']} {row['description']}"
    asks = bool(ASKS_ABOUT.search(t)) and bool(content(t) & content(src))
    return count(t, 1, 15) and _plain(t) and (bool(DINER.search(t)) or asks) and copied_run(t, src) <= 6


def policy_change(row: dict, a: dict) -> bool:
    t, src = a["change_why"], row["rule"]
    return count(t, 15, 45) and _plain(t) and bool(CHANGE.search(t)) and bool(WHY.search(t)) \
        and bool(content(t) & content(src)) and copied_run(t, src) <= 10


def _checked(t: str, src: str, most_copied: int) -> bool:
    grounded = bool(re.search(r"\d", t)) or bool(content(t) & content(src))
    return _plain(t) and bool(METHOD.search(t)) and grounded and copied_run(t, src) <= most_copied


def fractions_check(row: dict, a: dict) -> bool:
    t = a["checked_how"]
    return count(t, 5, 20) and _checked(t, row["problem"], 5)


def explain_term(row: dict, a: dict) -> bool:
    t, term = a["meaning"], row["term"].lower()
    names = term[:5] in t.lower() or bool(re.search(r"\bit\b", t, re.I))
    return count(t, 10, 30) and _plain(t) and bool(DEFINE.search(t)) and names and copied_run(t, row["sentence"]) <= 6


def opinion_park(row: dict, a: dict) -> bool:
    t, src = a["opinion"], row["proposal"]
    return count(t, 10, 35) and _plain(t) and bool(STANCE.search(t)) and bool(WHY.search(t)) \
        and bool(content(t) & content(src)) and copied_run(t, src) <= 10


def tenant_note(row: dict, a: dict) -> bool:
    t, src = a["response"], row["note"]
    return count(t, 1, 29) and _plain(t) and bool(ME.search(t)) and bool(REPLY.search(t)) \
        and bool(content(t) & content(src)) and copied_run(t, src) <= 8


def steps_missing(row: dict, a: dict) -> bool:
    t, src = a["not_given"], f"{row['task']} {row['steps']}"
    asks = bool(ASKS_ABOUT.search(t)) and bool(content(t) & content(src))
    return count(t, 1, 12) and _plain(t) and (bool(STEP_DETAIL.search(t)) or asks) and copied_run(t, src) <= 6


def slogan_pick(row: dict, a: dict) -> bool:
    t, pick = a["why_better"], a.get("better", "")
    chosen = row.get(f"slogan_{pick}", "")
    points = bool(content(t) & content(chosen)) or bool(re.search(
        rf"\b(?:slogan )?{pick}\b|{'first' if pick == 'a' else 'second'}", t, re.I))
    return count(t, 8, 30) and _plain(t) and bool(chosen) and points and bool(QUALITY.search(t))


def letter_summary(row: dict, a: dict) -> bool:
    t, src = a["in_short"], row["letter"]
    return count(t, 10, 25) and _plain(t) and len(content(t) & content(src)) >= 2 and copied_run(t, src) <= 8


def found_wallet(row: dict, a: dict) -> bool:
    t, src = a["you_do"], row["situation"]
    return count(t, 15, 40) and _plain(t) and bool(ME.search(t)) and bool(DEED.search(t)) \
        and bool(content(t) & content(src)) and copied_run(t, src) <= 10


def units_check(row: dict, a: dict) -> bool:
    t = a["how_check"]
    return count(t, 5, 25) and _checked(t, row["conversion"], 4)


JUDGES: dict[str, Callable[[dict, dict], bool]] = {
    "refund_reply": refund_reply, "menu_missing": menu_missing, "policy_change": policy_change,
    "fractions_check": fractions_check, "explain_term": explain_term, "opinion_park": opinion_park,
    "tenant_note": tenant_note, "steps_missing": steps_missing, "slogan_pick": slogan_pick,
    "letter_summary": letter_summary, "found_wallet": found_wallet, "units_check": units_check}


def honest_share(page: str, seeds: int, show: int) -> float:
    """The share of honest answers on ``page`` its judge passes; ``show`` failing ones printed."""
    with tempfile.TemporaryDirectory() as d:
        got = answers(Path(d), page, HONEST_PROFILES, seeds, folder=PAGES)
    judged = [(row, a, JUDGES[page](row, a)) for row, a in got]
    failing = [(row["item_id"], a) for row, a, ok in judged if not ok]
    for item, a in random.Random(1).sample(failing, min(show, len(failing))):
        print(f"   x {item}: {a}")
    return round(sum(ok for _r, _a, ok in judged) / max(1, len(judged)), 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="workers per honest profile and item")
    ap.add_argument("--show", type=int, default=0, help="failing answers shown per page")
    ap.add_argument("--kept", action="store_true", help="measure the kept-out half too (only at the end)")
    ap.add_argument("--label", default="", help="record the shares in bench/results-words-answered2.json under it")
    ap.add_argument("pages", nargs="*", default=None)
    args = ap.parse_args()
    pages = args.pages or [*TUNE, *(KEPT if args.kept else ())]
    got = {}
    for page in pages:
        got[page] = honest_share(page, args.seeds, args.show)
        print(f"{page:16s} {'kept out' if page in KEPT else 'tuned':9s} honest {got[page]:.2f}", flush=True)
    for side, half in (("tuned", TUNE), ("kept out", KEPT)):
        if shares := [got[p] for p in half if p in got]:
            print(f"mean honest share, {side}: {sum(shares) / len(shares):.2f}")
    if args.label:
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        results.setdefault(args.label, {}).update(got)
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()

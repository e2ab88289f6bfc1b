"""``make bench-gate-heldout4``: bench/gate_heldout.py's gate and rehearsal on a fourth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by a tester who read only the
user docs and the earlier held-out sets' format (bench/gate_heldout4/), each with a 30-item file and a truth
column where the task has a right answer:

- tree_cover: one item a page, two aerial tiles of a street side by side, "which has more tree canopy?"
  (A / B / about the same) and a required "What made you pick that answer? ... somewhere between 5 and 40
  words" (10 separate control items mixed in at a share of 0.2);
- trail_hazards: two hiker notes a page, "Select all that apply (at least one)" over six fixed hazard boxes
  (checked only by the form's onsubmit script), and "What should the rangers do about this note? One short
  sentence, no more than 25 words";
- parcel_addresses: five addresses a page, a yes/no "deliverable as written?" that no ``required`` guards
  (the submit button's onclick script checks every address, and that each "No" names the missing part), and
  "which part is missing or wrong? (just name it, 1 to 6 words)" (10 separate controls at a share of 0.2);
- sign_legibility: one street photo a page, a 1-5 star widget whose script writes the rating into a hidden
  field ``legibility`` and refuses the submit while it is empty, and "Describe the sign briefly ... Three to
  twelve words is plenty";
- hotel_replies: a guest complaint and the manager's reply, "does the reply deal with the complaint?"
  (fully / partly / not at all), an attention question among the questions ("Please choose 'Rarely'"), and
  a 0-10 politeness number (controls: 10 of its own items).

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the default
crowd, 3 batches, 3 workers an item). The free-text judges, written before any run and without reading the
simulator's code:

- tree_cover ``reason`` (stated: 5 to 40 words): answers the question when it speaks of what is seen: a word
  of CANOPY (tree, canopy, crown, leaves, foliage, green, shade, vegetation, hedge, bushes, cover...) and a
  comparison or a tile named (tile, A, B, left, right, more, less, fewer, denser, bigger, same, both, than...).
- trail_hazards ``ranger_action`` (stated: one short sentence, at most 25 words): answers when it names an
  action as an instruction (bench/gate_heldout3.py's ACTION verbs plus the park's: cut, saw, grit, salt,
  divert, reroute, fence, warn, rebuild...) and refers to its note (a word sharing its first four letters
  with a 4+ letter word of the note or the trail's name); on notes with no hazard ("none"), "no action /
  nothing needed" answers too.
- parcel_addresses ``missing`` (stated: 1 to 6 words), on the items that are not deliverable: answers when it
  names the part the item's ``gold_missing`` column says is missing (house number, postcode, street,
  town, flat) by one of its words (number, no., postcode, zip, street, road, town, city, flat, apartment,
  unit, floor...).
- sign_legibility ``sign_description`` (stated: three to twelve words): answers when it describes a sign:
  a word of SIGN (sign, letters, lettering, font, logo, written, says, reads, painted, neon, board, awning,
  colours...) or a 4+ letter word of the shop's name.

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit
(minimum and maximum, one sentence where the page says so) and the share of honest answers within it that
also answer the question. parcel_addresses also counts approved assignments with a "no" whose box is blank
(the script's conditional requirement); hotel_replies counts its attention question by honest and bad
profile, and the bad work that failed it yet went unnoticed.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages`` and ``--label`` as bench/gate_heldout.py;
``--results PATH`` writes elsewhere (parts run side by side, then ``--merge PART...`` folds them into
bench/results-gate-heldout4.json under one key); ``--table [KEY]`` prints the results file's rows.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.gate_bench import share
from bench.gate_heldout import HONEST, ROOT, HeldoutPage, TextField, pct, words
from bench.gate_heldout import main as heldout_main
from bench.gate_heldout3 import STOP, VERBS, _done_answers, attention_tally, one_sentence

PAGES_DIR = ROOT / "bench" / "gate_heldout4"
RESULTS = ROOT / "bench" / "results-gate-heldout4.json"

CANOPY = re.compile(r"\b(trees?|treed|tree-lined|canopy|canopies|crowns?|leaf|leaves|leafy|foliage|green\w*|shade|"
                    r"shaded|shady|vegetation|woods?|wooded|woodland|hedges?|hedgerows?|bush\w*|shrubs?|cover\w*|"
                    r"branches|planting|planted|forest\w*|parks?|garden\w*|verges?)\b", re.I)
COMPARE = re.compile(r"\b(tiles?|[ab]|left|right|first|second|one|other|more|most|less|fewer|denser|dense|thicker|"
                     r"thinner|bigger|larger|smaller|wider|same|similar|both|equal|than|compared|versus|vs|"
                     r"lost|gained|removed|grown|fuller|sparser|barer|bare|patch\w*|gaps?)\b", re.I)
PARK_VERBS = r"(cut|saw|chainsaw|grit|salt|divert|reroute|re-route|fence|rope|tape|warn|rebuild|shore|drain|lay|" \
             r"signpost|sign|post|patrol|monitor|relocate|herd|fix|replace|repair|clear|close|inspect|check)\w*"
ACTION = re.compile(r"(?:^|[.;:,!]\s*|\b(?:should|must|needs? to|ha(?:ve|s) to|to|will|please|then|first|"
                    r"immediately|urgently|and|can|rangers?)\s+)(?:\w+ly\s+)?\b(?:" + VERBS + "|" + PARK_VERBS
                    + r")\b", re.I)
NO_ACTION = re.compile(r"\b(nothing|no action|none needed|no need|not needed|no hazard|no further action|"
                       r"nothing to do|no follow[- ]up)\b", re.I)
PARTS = {"number": r"(house|building|street|door)?\s*(number|no\.?|#)|numbers?",
         "postcode": r"post\s?codes?|postal codes?|zip( codes?)?|plz|eircode",
         "street": r"streets?|roads?|street names?|avenues?|rue|via|calle",
         "town": r"towns?|city|cities|locality|place names?|suburbs?",
         "flat": r"flats?|apartments?|apt\.?|units?|floors?|suites?|storey|stockwerk|og|piso"}
SIGN = re.compile(r"\b(signs?|signage|signboard|letter\w*|fonts?|logos?|text|written|writing|words?|says|saying|"
                  r"reads|reading|painted|paint|neon|lit|illuminated|board|awning|fascia|banner|script|capitals?|"
                  r"serif|gold|golden|red|blue|green|black|white|yellow|orange|purple|pink|brown|grey|gray|cream|"
                  r"silver|faded|peeling|bold|large|small|tiny|big|name)\b", re.I)

LIMITS = {"reason": (5, 40, False), "ranger_action": (1, 25, True), "missing": (1, 6, False),
          "sign_description": (3, 12, False)}


def _items(name: str, folder: Path = PAGES_DIR) -> dict[str, dict[str, str]]:
    with (folder / f"{name}_items.csv").open(encoding="utf-8") as f:
        return {r["item_id"]: r for r in csv.DictReader(f)}


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in STOP}


def reason_answers(text: str, _item: dict[str, str]) -> bool:
    """A word of what is seen (canopy) and a comparison or a tile named."""
    return bool(CANOPY.search(text) and COMPARE.search(text))


def action_answers(text: str, item: dict[str, str]) -> bool:
    """An instruction about the note (its words by their first four letters), or "nothing needed" where the
    note names no hazard."""
    if item.get("gold_hazards") == "none" and NO_ACTION.search(text):
        return True
    about = _stems(f"{item.get('note', '')} {item.get('trail_name', '')}")
    return bool(ACTION.search(text)) and any(w.lower()[:4] in about for w in words(text) if len(w) >= 4)


def missing_answers(text: str, item: dict[str, str]) -> bool:
    """Names the part the item lacks (its ``gold_missing``) by one of that part's words."""
    part = PARTS.get(item.get("gold_missing", ""))
    return bool(part and re.search(rf"(?<!\w)({part})(?!\w)", text, re.I))


def sign_answers(text: str, item: dict[str, str]) -> bool:
    """A word describing a sign, or a 4+ letter word of the shop's name."""
    name = {w.lower() for w in words(item.get("shop_name", "")) if len(w) >= 4}
    return bool(SIGN.search(text)) or bool(name & {w.lower() for w in words(text)})


def whole_limit(page: str, fld: str, judge: Callable[[str, dict[str, str]], bool],
                applies: Callable[[dict[str, str]], bool] = lambda _i: True,
                limit: tuple[int, int, bool] | None = None, folder: Path = PAGES_DIR) -> Callable[..., dict[str, Any]]:
    """Honest answers of one field against the page's whole stated limit (``limit``: fewest and most words, one
    sentence or not; default this set's LIMITS), and those that also answer."""
    low, high, sentence = limit or LIMITS[fld]

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, folder)
        given = [(i, t) for _a, w, i, t in _done_answers(db, campaign, fld)
                 if profiles.get(w) in HONEST and i in items and applies(items[i])]
        within = [(i, t) for i, t in given if low <= len(words(t)) <= high and (not sentence or one_sentence(t))]
        good = [(i, t) for i, t in within if judge(t, items[i])]
        return {f"honest_{fld}": len(given), f"{low}_to_{high}_words" + ("_one_sentence" if sentence else ""):
                len(within), f"over_{high}_words": sum(len(words(t)) > high for _i, t in given),
                "and_answers": len(good), "all_share": share(len(good), len(given))}
    return extra


def parcel_extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """The whole limit of ``missing``, and approved assignments with a "no" whose box was left blank."""
    out = whole_limit("parcel_addresses", "missing", missing_answers,
                      lambda i: i.get("gold_deliverable") == "no")(db, campaign, profiles)
    approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                         "'approve'", [campaign])}
    said_no = {(a, i) for a, _w, i, v in _done_answers(db, campaign, "deliverable") if v.strip().lower() == "no"}
    blank = {(a, i) for a, _w, i, v in _done_answers(db, campaign, "missing") if not v.strip()}
    shown = {(a, i) for a, _w, i, _v in _done_answers(db, campaign, "missing")}
    no_box = said_no & (blank | (said_no - shown))
    return {**out, "approved_no_with_blank_missing": len({a for a, _i in no_box if a in approved}),
            "no_with_blank_missing": len({a for a, _i in no_box})}


# the page's attention question ("choose Rarely")
attention_question = attention_tally("attention_check", lambda value: value.strip().lower() == "rarely")


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    _page("tree_cover", 1, ("more_canopy", "reason"), texts={"reason": TextField(
        5, reason_answers, "a word of CANOPY (tree, canopy, crown, leaves, green, shade...) and a comparison or a "
        "tile named (tile, A, B, left, right, more, less, denser, same, than...)")},
          keys={"controls": '"tree_cover_controls.csv"', "control_share": "0.2"},
          truth='{more_canopy = "gold_more"}', controls=True,
          extra=whole_limit("tree_cover", "reason", reason_answers)),
    # "at least one" is the form's onsubmit script's check over each note's boxes
    _page("trail_hazards", 2, ("hazards", "ranger_action"), texts={"ranger_action": TextField(
        1, action_answers, "an action as an instruction (ACTION verbs: clear, cut, close, warn, repair, inspect...) "
        "and a word of its note (first four letters); on notes with no hazard, 'nothing needed' too")},
          truth='{hazards = "gold_hazards"}', extra=whole_limit("trail_hazards", "ranger_action", action_answers)),
    # every yes/no is required by the submit button's onclick script only, and "missing" when the answer is no
    _page("parcel_addresses", 5, ("deliverable",), texts={"missing": TextField(
        1, missing_answers, "names the part gold_missing says is missing (number, postcode, street, town, flat) "
        "by one of its words", lambda item: item.get("gold_deliverable") == "no")},
          keys={"controls": '"parcel_addresses_controls.csv"', "control_share": "0.2"},
          truth='{deliverable = "gold_deliverable"}', controls=True, extra=parcel_extra),
    # the rating is a hidden field the star widget's script writes, and the script refuses a submit without it
    _page("sign_legibility", 1, ("legibility", "sign_description"), texts={"sign_description": TextField(
        3, sign_answers, "a word describing a sign (sign, letters, font, logo, painted, neon, colours...) or a 4+ "
        "letter word of the shop's name")}, extra=whole_limit("sign_legibility", "sign_description", sign_answers)),
    _page("hotel_replies", 1, ("addresses", "attention_check", "politeness"),
          keys={"controls": '"hotel_replies_controls.csv"'}, truth='{addresses = "gold_addresses"}', controls=True,
          extra=attention_question),
)


def merge(parts: list[str], results: Path = RESULTS) -> int:
    """Fold part files (one key each, some pages each) into the results file under one key without ', pages'."""
    whole: dict[str, Any] = json.loads(results.read_text(encoding="utf-8")) if results.exists() else {}
    for part in parts:
        for key, run in json.loads(Path(part).read_text(encoding="utf-8")).items():
            into = whole.setdefault(key.split(", pages ")[0], {**run, "pages": {}})
            into["pages"].update(run["pages"])
    results.write_text(json.dumps(whole, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def row(page: str, route: str, r: dict[str, Any]) -> str:
    """One page and route of the report's table."""
    if "gate" not in r:
        return f"| {page} | {route} | failed at {r.get('failed', '?')} |"
    g, h, c = r["gate"], r["rehearsal"], r.get("controls")
    caught = f"{c['blocked']}/{c['workers_2plus_pages']} blocked, {c['noticed']} noticed" if c else "no controls"
    texts = "; ".join(f"{n} {pct(r['extra']['all_share']) if 'all_share' in r.get('extra', {}) else '-'} "
                      f"(min only {pct(t['both_share'])})" for n, t in h["text"].items()) or "-"
    shown = g.get("defect_shown", {})
    return (f"| {page} | {route} | {g['unnoticed']}/{g['bad_assignments']} | {shown.get('unnoticed', '-')}/"
            f"{shown.get('assignments', '-')} | " + ", ".join(f"{p} {v['unnoticed']}/{v['assignments']}"
                                                            for p, v in g["by_profile"].items())
            + f" | {g['honest_blocked']}/{g['honest_workers']} | {g['honest_rejected']} | "
            f"{g['approved_required_blank']} | {caught} | {h['honest_timed_out']}/{h['honest_submissions']} | "
            f"{h['honest_median_s']} s / {h['plan_minutes']} min (x{h['median_vs_plan']}) | {texts} |")


def table(key: str = "", results: Path = RESULTS) -> int:
    """The results file's table (its last key, or KEY) as markdown rows."""
    runs = json.loads(results.read_text(encoding="utf-8"))
    run = runs[key or list(runs)[-1]]
    print("| page | route | bad unnoticed | defect shown unnoticed | by profile | honest blocked | honest rejected "
          "| required blank approved | contrarian+speeder 2+ pages | honest timed out | median / plan "
          "| words share (whole stated limit) |")
    for page, routes in run["pages"].items():
        for route, r in routes.items():
            print(row(page, route, r))
    return 0


def cli(argv: list[str] | None, pages: tuple[HeldoutPage, ...], results: Path) -> int:
    """A held-out set's command line: ``--merge PART...``, ``--table [KEY]``, or a run (``--results PATH``
    writes elsewhere; the rest as bench/gate_heldout.py)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--merge"]:
        return merge(args[1:], results)
    if args[:1] == ["--table"]:
        return table(" ".join(args[1:]), results)
    if "--results" in args:
        at = args.index("--results")
        results = Path(args[at + 1])
        del args[at:at + 2]
    return heldout_main(args, pages, results)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())

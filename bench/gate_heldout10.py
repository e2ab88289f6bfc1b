"""``make bench-gate-heldout10``: bench/gate_heldout.py's gate and rehearsal on a tenth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' harness docstrings (bench/gate_heldout10/), each with a 30-item file:

- recall_notices: one product recall notice a page, a full HTML document in an old table layout with MTurk's
  ``externalHIT_v1.js`` and its own form (no script of its own beyond ``turkSetAssignmentID()``): "What kind
  of product is being recalled?" (six radios, ``required``; truth ``gold_type``), "On what date was the notice
  issued?" (``<input type="date" required>``) and "What should someone who already owns or bought this product
  do? ... Write 8 to 40 words." (a ``required`` textarea; nothing enforces the range); controls: 10 of its own
  items on ``product_type``, no share;
- lost_pet_posts: three noticeboard posts a page, a fragment loading jQuery from code.jquery.com with its own
  ``#submitButton``: "This post is about a pet that was..." (lost / found / seen roaming radios, ``required``;
  truth ``gold_kind``) and "Which details does the post give? Tick all that apply. At least one box." over
  seven boxes and "None of these" (truth ``gold_details``), the "at least one" enforced only by a jQuery
  ``$('#submitButton').click`` handler looping ``$('.post-block').each`` and counting
  ``$(this).find('input.detail:checked')`` (the boxes found by class, not by name); 10 separate controls on
  ``kind`` at a share of 0.2;
- shop_hours: one shop's door sign a page on MTurk's crowd HTML elements (a ``<crowd-form>`` with
  ``<crowd-instructions>``): "What time does the shop close on Saturday?" (``<crowd-input type="time"
  name="sat_close">``) or a ``<crowd-checkbox name="sat_closed">`` "closed all day on Saturday", and "Is the
  shop open at any time on Sunday?" (a ``crowd-radio-group id="sunday"`` of three ``crowd-radio-button``s
  named ``sunday_open``, ``sunday_closed``, ``sunday_unknown``); nothing carries ``required``: a script,
  attached on ``all-crowd-elements-ready``, sets ``document.querySelector('crowd-form').onsubmit`` to refuse
  a submit with no time and the box unticked, or with no Sunday button checked; no truth the crowd follows
  (``gold_sat_close`` and ``gold_sunday`` kept for the figures below), no controls;
- science_headlines: two headline/study pairs a page on Bootstrap 5 markup (cards, ``form-check``): "The
  headline..." overstates / states it fairly / understates (radios, ``required``; truth ``gold_verdict``)
  and "Why? (10 to 50 words)" (a textarea ``required minlength="50" maxlength="400"``: characters, while the
  words state words); the form is ``class="needs-validation" novalidate`` with Bootstrap's own validation
  snippet (a ``submit`` listener calling ``form.checkValidity()``); 10 separate controls on ``verdict`` at a
  share of 0.2;
- charity_websites: one charity a page, a Prolific-style study fragment with a "Next" button: "Did you find
  the charity's own website?" (yes / only a social media page / no radios), "Paste the address (URL) of its
  website or page" (``<input type="url">``) and "Can you donate online from that page?" (yes / no / not
  applicable radios), each marked "*" and none ``required`` in the HTML: a ``DOMContentLoaded`` script sets
  ``.required = true`` on every radio of ``found_site`` and ``can_donate`` (the comment: "our survey tool
  strips the required attribute"), and sets the URL's ``.required`` from a ``change`` listener on
  ``found_site``: required unless the answer is "no" (and required while nothing is chosen); no truth, no
  controls.

"Required" for the gate's required-blank figure is the page as written, its script included, as a person's
browser enforces it: recall_notices product_type, issued, owner_action; lost_pet_posts kind, details (at
least one box a post, the jQuery handler's); shop_hours none unconditionally (sat_close is required unless
sat_closed is ticked, and the Sunday group's three buttons are stored as the ledger stores them: both counted
off the ledger instead, ``no_saturday_answer`` and ``sunday_blank``); science_headlines verdict, explanation;
charity_websites found_site, can_donate (the URL off the ledger: ``url_blank_unless_no``).

The free-text judges and limits, written before any run and without reading the simulator's, the import's or
QC's code:

- recall_notices ``owner_action`` (stated: 8 to 40 words; required): answers the question when it tells the
  owner to do something (a word of DO: stop, use, eat, drink, wear, ride, drive, return, bring, take, back,
  refund, replace, replacement, exchange, contact, call, phone, ring, email, register, book, check, inspect,
  unplug, bin, throw, dispose, discard, remove, store, keep, away, dealer, shop, store, pharmacy, doctor,
  hospital, recycle...) and refers to the notice (a word sharing its first four letters with a 4+ letter
  word of the brand, the product or the notice, common words aside).
- science_headlines ``explanation`` (stated: 10 to 50 words; required, the page's minlength in characters):
  answers when it weighs the claim against the study (a word of WEIGH: study, studies, research, trial,
  claim, claims, says, said, suggests, shows, showed, found, proves, cause, causes, link, linked, associated,
  correlation, observational, mice, rats, animals, cells, dish, lab, people, humans, sample, small, large,
  only, just, overstate, exaggerate, misleading, accurate, fair, fairly, understate, modest, slightly,
  certain, may, might, could, not...) and refers to this pair (a word sharing its first four letters with a
  4+ letter word of its headline or summary, common words aside).

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit (8 to
40 and 10 to 50 words) and the share within it that also answers. Further figures, off the ledger:
recall_notices, honest product types equal to ``gold_type`` and honest dates equal to ``gold_date``, approved
assignments with a date not written YYYY-MM-DD; lost_pet_posts, approved assignments with a post given no box
(the script's rule) or no kind, honest kinds and tick sets equal to the item's; shop_hours, approved
assignments with neither a Saturday time nor the box (the script's rule), with no Sunday button (the
script's rule), with a time not written HH:MM, and honest Saturday answers equal to ``gold_sat_close`` (the
box ticked for "closed"); science_headlines, approved assignments under 10 or over 50 words or under 50
characters, honest verdicts equal to ``gold_verdict``; charity_websites, approved assignments with no
found_site or can_donate, with the URL blank where found_site is not "no" (the script's rule), and with a
URL that is not http(s)://host.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout10.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout10.py``) it finds
its own bench package, so a checkout without this set (an older commit) can be measured from its own folder.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout: this set's bench package first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gate_bench import share
from bench.gate_heldout import HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout3 import STOP
from bench.gate_heldout4 import _items, cli, whole_limit
from bench.gate_heldout5 import _given, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout10"
RESULTS = ROOT / "bench" / "results-gate-heldout10.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other",
                       "product", "products", "which", "because", "will", "does", "headline", "study"}
DO = re.compile(
    r"\b(stop\w*|use|using|eat\w*|drink\w*|wear\w*|rid\w*|driv\w*|return\w*|bring|brought|take|taking|back|"
    r"refund\w*|replac\w*|exchang\w*|contact\w*|call\w*|phon\w*|ring|email\w*|register\w*|book\w*|check\w*|"
    r"inspect\w*|unplug\w*|bin|throw\w*|dispos\w*|discard\w*|remov\w*|stor\w*|keep|kept|away|dealer\w*|shop|"
    r"pharmac\w*|doctor|gp|hospital|recycl\w*|don't|do not|avoid\w*|get|claim\w*|request\w*|fit\w*|"
    r"destroy\w*|bag|seal\w*)\b", re.I)
WEIGH = re.compile(
    r"\b(stud(y|ies)|research\w*|trials?|claims?|claimed|says?|said|suggest\w*|shows?|showed|shown|found|"
    r"finds?|prov\w*|caus\w*|links?|linked|associat\w*|correlat\w*|observational|mice|mouse|rats?|animals?|"
    r"worms?|yeast|cells?|dish\w*|lab\w*|people|humans?|patients?|participants?|adults|children|samples?|small|"
    r"large|only|just|overstat\w*|exaggerat\w*|mislead\w*|accurate\w*|fair\w*|understat\w*|modest\w*|slight\w*|"
    r"certain\w*|may|might|could|not|no|evidence|results?|data)\b", re.I)
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
TIME = re.compile(r"\d{2}:\d{2}(:\d{2})?")
URL = re.compile(r"https?://[^\s/]+\.[^\s/]+(/\S*)?", re.I)
SUNDAY = ("sunday_open", "sunday_closed", "sunday_unknown")
OFF = ("", "false", "0", "off", "no")


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON_WORDS}


def _shares_stem(text: str, source: str) -> bool:
    return bool(_stems(text) & _stems(source))


def tells_owner(text: str, item: dict[str, str]) -> bool:
    """Something for the owner to do, and a word of the notice (first four letters)."""
    notice = f"{item.get('brand', '')} {item.get('product', '')} {item.get('notice', '')}"
    return bool(DO.search(text)) and _shares_stem(text, notice)


def weighs_claim(text: str, item: dict[str, str]) -> bool:
    """The claim weighed against the study, and a word of this headline or summary (first four letters)."""
    pair = f"{item.get('headline', '')} {item.get('study_summary', '')}"
    return bool(WEIGH.search(text)) and _shares_stem(text, pair)


def right_share(page: str, fld: str, gold: str, same: Any = None, read: Any = None) -> Any:
    """Honest answers of ``fld`` (``read``: from an item's fields) equal to the item's ``gold`` column."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())
    value = read or (lambda f: f.get(fld))

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, value(f)) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and value(f) is not None]
        right = sum(equal(v, items[i].get(gold, "")) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def _on(value: str) -> bool:
    return value.strip().lower() not in OFF


def _sunday(fields: dict[str, str]) -> str:
    """The Sunday button chosen, whether the ledger keeps the group as one field or one field a button."""
    for key in ("sunday", "sunday_group"):
        if fields.get(key, "").strip():
            return fields[key].strip()
    chosen = [b for b in SUNDAY if _on(fields.get(b, ""))]
    return chosen[0].removeprefix("sunday_") if chosen else ""


def _saturday(fields: dict[str, str]) -> str | None:
    """The Saturday answer: "closed" when the box is ticked, else the time given (None: not on the ledger)."""
    if "sat_close" not in fields and "sat_closed" not in fields:
        return None
    return "closed" if _on(fields.get("sat_closed", "")) else fields.get("sat_close", "").strip()


def _same_time(said: str, known: str) -> bool:
    return said[:5] == known if known != "closed" else said == "closed"


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def _blank(fld: str) -> Any:
    return lambda f: not f.get(fld, "").strip()


def _same_ticks(said: str, known: str) -> bool:
    return _ticks(said) == _ticks(known)


recall_extra = _combine(
    whole_limit("recall_notices", "owner_action", tells_owner, limit=(8, 40, False), folder=PAGES_DIR),
    approved_breaking({"issued_not_yyyy_mm_dd": lambda f: "issued" in f and not DATE.fullmatch(f["issued"].strip()),
                       "owner_action_outside_8_40": lambda f: "owner_action" in f
                       and not 8 <= _n_words(f, "owner_action") <= 40}),
    right_share("recall_notices", "product_type", "gold_type"),
    right_share("recall_notices", "issued", "gold_date"))
pets_extra = _combine(approved_breaking({"no_box": lambda f: not _ticks(f.get("details", "")),
                                         "kind_blank": _blank("kind")}),
                      right_share("lost_pet_posts", "kind", "gold_kind"),
                      right_share("lost_pet_posts", "details", "gold_details", _same_ticks))
shop_extra = _combine(approved_breaking({"no_saturday_answer": lambda f: not _saturday(f),
                                         "sunday_blank": lambda f: not _sunday(f),
                                         "time_not_hh_mm": lambda f: bool(f.get("sat_close", "").strip())
                                         and not TIME.fullmatch(f["sat_close"].strip())}),
                      right_share("shop_hours", "saturday", "gold_sat_close", _same_time, _saturday),
                      right_share("shop_hours", "sunday", "gold_sunday", read=lambda f: _sunday(f) or None))
science_extra = _combine(
    whole_limit("science_headlines", "explanation", weighs_claim, limit=(10, 50, False), folder=PAGES_DIR),
    approved_breaking({"explanation_outside_10_50_words": lambda f: "explanation" in f
                       and not 10 <= _n_words(f, "explanation") <= 50,
                       "explanation_under_50_chars": lambda f: "explanation" in f
                       and len(f["explanation"].strip()) < 50}),
    right_share("science_headlines", "verdict", "gold_verdict"))
charity_extra = approved_breaking({
    "found_site_blank": _blank("found_site"), "can_donate_blank": _blank("can_donate"),
    "url_blank_unless_no": lambda f: f.get("found_site", "").strip() != "no" and not f.get("site_url", "").strip(),
    "url_not_http_host": lambda f: bool(f.get("site_url", "").strip()) and not URL.fullmatch(f["site_url"].strip())})


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # plain required fields and a date input; the 8-40 word range is only stated
    _page("recall_notices", 1, ("product_type", "issued", "owner_action"), texts={"owner_action": TextField(
        8, tells_owner, "something to do (stop, return, refund, contact, unplug, bin, check, book...) and a word "
        "of the brand, product or notice (first four letters)")},
          keys={"controls": '"recall_notices_controls.csv"'}, truth='{product_type = "gold_type"}', controls=True,
          extra=recall_extra),
    # "at least one box" is a jQuery click handler's, finding the boxes by class
    _page("lost_pet_posts", 3, ("kind", "details"), keys={"controls": '"lost_pet_posts_controls.csv"',
                                                          "control_share": "0.2"},
          truth='{kind = "gold_kind", details = "gold_details"}', controls=True, extra=pets_extra),
    # crowd-form: both rules are the onsubmit set on all-crowd-elements-ready
    _page("shop_hours", 1, (), extra=shop_extra),
    # Bootstrap's needs-validation: required and minlength in characters, the words only stated
    _page("science_headlines", 2, ("verdict", "explanation"), texts={"explanation": TextField(
        10, weighs_claim, "the claim weighed against the study (study, claim, shows, cause, linked, mice, small, "
        "only, overstates, may...) and a word of the headline or summary (first four letters)")},
          keys={"controls": '"science_headlines_controls.csv"', "control_share": "0.2"},
          truth='{verdict = "gold_verdict"}', controls=True, extra=science_extra),
    # required set by a DOMContentLoaded script; the URL's required follows found_site
    _page("charity_websites", 1, ("found_site", "can_donate"), extra=charity_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())

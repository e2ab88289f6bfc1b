"""``make bench-gate-heldout8``: bench/gate_heldout.py's gate and rehearsal on an eighth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' format (bench/gate_heldout8/), each with a 30-item file:

- customer_reply: one message a page, a full HTML document (a research team's study of customer care at a
  coach company): "What is the customer mainly asking for?" (five radios, ``required``; truth
  ``gold_intent``), "How upset does the customer sound?" (1-5 radios, ``required``) and "How would you reply
  to this customer? Write the reply you would actually send them, 20 to 60 words." (a ``required``
  textarea; the page's script only shows a word counter that turns green inside 20-60, it refuses nothing;
  controls: 10 of its own items on ``intent``, no share);
- plant_symptoms: two houseplant forum posts a page, plain fragment: "Which problems does the owner
  describe? (tick all that apply)" over six boxes and "None of these", at least one box a post enforced only
  by the page's script through the browser's own validity API (``setCustomValidity`` on each post's first
  box, refreshed on every box's ``change``: no submit handler at all), and "What is the most likely cause?"
  (a ``<select required>`` with an empty first option; truth ``gold_cause``, 10 separate controls on
  ``cause`` at a share of 0.2);
- chart_summary: one chart a page on MTurk's crowd HTML elements (a ``<crowd-form>`` fragment): the trend
  over the period (a ``crowd-radio-group id="trend"`` of five ``crowd-radio-button``s, each named as its
  value, no ``required``), "In which year is the value highest?" (``<crowd-input type="number"
  required>``) and "Explain this chart in one sentence ... (10 to 30 words)" (a ``crowd-text-area`` without
  ``required``); a ``submit`` listener on the crowd-form, attached in ``window.onload``, refuses a submit
  with no trend button checked or with fewer than 10 or more than 30 words (truth ``gold_trend`` and
  ``gold_peak_year``, 10 separate controls on ``trend`` at a share of 0.2);
- library_returns: five returned library books a page, plain: "Back on the shelf / Send for repair /
  Withdraw" (radios, ``required``; truth ``gold_outcome``) and "If repair, what needs fixing?" (a text
  input the instructions ask for in 2 to 10 words), required only when "Send for repair" is chosen: the
  page's script sets the box's ``required`` property from each radio's ``change`` listener (10 separate
  controls on ``outcome`` at a share of 0.2);
- seller_question: three second-hand marketplace listings a page, a Prolific-style study fragment: "Would
  you consider buying this?" (yes / maybe / no radios, ``required``), "What would you offer, as a share of
  the asking price?" (``<input type="range" min="50" max="110" step="5" value="100">``) and "What would you
  ask the seller before buying? Write one question, 5 to 20 words." (a ``required`` text input); a
  ``submit`` listener on ``document.forms[0]`` refuses a question under 5 or over 20 words or not ending
  in "?" (no truth, no controls: the answers are opinions).

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the default
crowd, 3 batches, 3 workers an item). "Required" for the gate's required-blank figure is the page as written,
its script's rules included: customer_reply intent, upset, reply; plant_symptoms symptoms, cause;
chart_summary peak_year, explanation (the trend, a crowd radio group whose ledger field name the tester does
not assume, is counted off the ledger instead: ``trend_blank``); library_returns outcome (the conditional
box off the ledger: ``repair_without_note``); seller_question buy, question.

The free-text judges and limits, written before any run and without reading the simulator's or QC's code:

- customer_reply ``reply`` (stated: 20 to 60 words; required): answers the customer when it speaks as the
  company about their matter: a word of SERVICE (sorry, apologise, thank, refund, reimburse, replace, help,
  assist, arrange, check, look into, contact, team, booking, ticket, reference, compensation, lost property,
  found, investigate, feedback, understand, will, can...) and a word sharing its first four letters with a
  4+ letter word of the customer's message (common words aside).
- chart_summary ``explanation`` (stated: one sentence of 10 to 30 words; required by the script only):
  answers when it says how the values move (a word of MOVE: rise, rose, increase, grew, climb, up, fall,
  fell, drop, decline, decrease, down, steady, stable, flat, same, constant, unchanged, peak, highest,
  lowest, doubled, halved, recover...) and names what the chart is about (a 4+ letter word of the chart's
  title by its first four letters, common words aside, or a year of its data).
- library_returns ``repair_note`` (stated: 2 to 10 words; required only when "repair" is chosen), on the
  items whose ``gold_outcome`` is repair: answers when it names a part of the book or a repair (a word of
  PART: spine, cover, jacket, page, binding, hinge, corner, barcode, label, sticker, pocket, slip, plastic,
  tape, glue, stick, sew, rebind, mend, fix, repair, replace, reattach, erase, rub out, pencil, clean,
  wipe, tear, torn, loose...) or a 4+ letter word of the desk note (first four letters, common words aside).
- seller_question ``question`` (stated: one question of 5 to 20 words; required, the range and the "?" the
  script's): answers when it is a question (a "?" or an opening interrogative or auxiliary: what, how, when,
  where, why, which, who, is, are, does, do, did, can, could, would, will, has, have, any...) and asks
  about the listing (a 4+ letter word of its title or description by the first four letters, common words
  aside, or a word of BUY: condition, price, offer, negotiable, collect, deliver, post, age, old, years,
  bought, selling, work, damage, scratch, receipt, warranty, original, box, size, measure, battery,
  service, tested, available, pick up, van...).

The runner's limit is each field's stated minimum; each page's extra line adds the whole stated limit (20 to
60, one sentence of 10 to 30, 2 to 10, one question of 5 to 20 words) and the share within it that also
answers. Further figures, off the ledger: customer_reply, honest intents equal to ``gold_intent``;
plant_symptoms, approved assignments with a post given no box (the script's rule) or no cause, and honest
causes and tick sets equal to the item's; chart_summary, approved assignments with no trend or an
explanation outside 10-30 words (the script's rules), honest peak years and trends equal to the item's;
library_returns, approved assignments with a book sent for repair and its box blank (the script's
conditional rule), honest outcomes equal to ``gold_outcome``; seller_question, approved assignments with a
question outside 5-20 words or not ending in "?" (the script's rule), and offers left at the slider's 100,
honest and not.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout8.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout8.py``) it finds
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
from bench.gate_heldout5 import _given, _same_amount, _ticks, approved_breaking
from bench.gate_heldout6 import _combine

PAGES_DIR = ROOT / "bench" / "gate_heldout8"
RESULTS = ROOT / "bench" / "results-gate-heldout8.json"

COMMON_WORDS = STOP | {"about", "would", "could", "should", "just", "your", "yours", "very", "really", "please",
                       "them", "than", "only", "also", "like", "more", "most", "much", "each", "every", "other"}
SERVICE = re.compile(
    r"\b(sorry|apolog\w*|thank\w*|refund\w*|reimburs\w*|replac\w*|help\w*|assist\w*|arrang\w*|check\w*|"
    r"look(ing)? into|contact\w*|team|booking|ticket|reference|ref|compensat\w*|lost property|found|"
    r"investigat\w*|feedback|understand\w*|will|can|we'll|we've|we're)\b", re.I)
MOVE = re.compile(
    r"\b(ris\w*|rose|increas\w*|grew|grow\w*|climb\w*|up|upward\w*|fall\w*|fell|drop\w*|declin\w*|decreas\w*|"
    r"down|downward\w*|steady|steadily|stable|flat|same|constant|unchanged|level|peak\w*|highest|lowest|"
    r"doubl\w*|halv\w*|recover\w*|bounc\w*|dipp?\w*|shrank|shrink\w*|went)\b", re.I)
PART = re.compile(
    r"\b(spines?|covers?|jackets?|pages?|binding|bound|hinges?|corners?|barcodes?|labels?|stickers?|pockets?|"
    r"slips?|plastic|tape|taped|glue\w*|stick\w*|sew\w*|stitch\w*|rebind\w*|mend\w*|fix\w*|repair\w*|"
    r"replac\w*|reattach\w*|re-attach\w*|eras\w*|rub out|rubber|pencil|clean\w*|wipe\w*|tears?|torn|rip\w*|"
    r"loose\w*|cracked|split)\b", re.I)
ASKS = re.compile(
    r"^\s*(what|how|when|where|why|which|who|whose|is|are|was|were|does|do|did|can|could|would|will|has|have|"
    r"had|any|may|should)\b", re.I)
BUY = re.compile(
    r"\b(condition|price|prices|offer\w*|negotiab\w*|lower|cheaper|discount|collect\w*|deliver\w*|post\w*|age|"
    r"old|years?|bought|buy|purchas\w*|selling|sell|work\w*|damage\w*|scratch\w*|marks?|receipt|warranty|"
    r"guarantee|original|box|size|measure\w*|dimensions?|battery|service\w*|tested|available|pick up|van|"
    r"smok\w*|pets?|faults?|issues?|problems?|wear|used)\b", re.I)
TRENDS = ("rising", "falling", "flat", "up_then_down", "down_then_up")


def _stems(text: str) -> set[str]:
    return {w.lower()[:4] for w in words(text) if len(w) >= 4 and w.lower() not in COMMON_WORDS}


def _shares_stem(text: str, source: str) -> bool:
    return bool(_stems(text) & _stems(source))


def answers_customer(text: str, item: dict[str, str]) -> bool:
    """A word of customer service and a word of the customer's own message (first four letters)."""
    return bool(SERVICE.search(text)) and _shares_stem(text, item.get("message", ""))


def explains_chart(text: str, item: dict[str, str]) -> bool:
    """How the values move, and what the chart is about (a title word by its first four letters, or a year)."""
    years = set(re.findall(r"\b(?:19|20)\d\d\b", item.get("data", "")))
    about = _shares_stem(text, item.get("chart_title", "")) or bool(years & set(re.findall(r"\b\d{4}\b", text)))
    return bool(MOVE.search(text)) and about


def names_repair(text: str, item: dict[str, str]) -> bool:
    """A part of the book or a repair, or a word of the desk note (first four letters)."""
    return bool(PART.search(text)) or _shares_stem(text, item.get("note", ""))


def asks_seller(text: str, item: dict[str, str]) -> bool:
    """A question, about the listing (its title or description by first four letters, or a word of buying)."""
    listing = f"{item.get('listing_title', '')} {item.get('description', '')}"
    question = "?" in text or bool(ASKS.search(text))
    return question and (bool(BUY.search(text)) or _shares_stem(text, listing))


def right_share(page: str, fld: str, gold: str, same: Any = None) -> Any:
    """Honest answers of ``fld`` equal to the item's ``gold`` column (``same``: how two answers compare)."""
    equal = same or (lambda said, known: said.strip().lower() == known.strip().lower())

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        items = _items(page, PAGES_DIR)
        given = [(i, f[fld]) for (_a, w, i), f in _given(db, campaign).items()
                 if profiles.get(w) in HONEST and i in items and fld in f]
        right = sum(equal(v, items[i].get(gold, "")) for i, v in given)
        return {f"honest_{fld}_right": f"{right}/{len(given)}", f"honest_{fld}_right_share": share(right, len(given))}
    return extra


def _trend(fields: dict[str, str]) -> str:
    """The trend chosen, whether the ledger keeps the group as one field or one field a button."""
    if fields.get("trend", "").strip():
        return fields["trend"].strip()
    chosen = [t for t in TRENDS if fields.get(t, "").strip().lower() not in ("", "false", "0", "off")]
    return chosen[0] if chosen else ""


def _n_words(fields: dict[str, str], fld: str) -> int:
    return len(words(fields.get(fld, "")))


def honest_trend_right(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Honest trends equal to the item's ``gold_trend`` (read either way the ledger keeps the group)."""
    items = _items("chart_summary", PAGES_DIR)
    given = [(i, _trend(f)) for (_a, w, i), f in _given(db, campaign).items()
             if profiles.get(w) in HONEST and i in items]
    right = sum(t == items[i].get("gold_trend") for i, t in given)
    return {"honest_trend_right": f"{right}/{len(given)}", "honest_trend_right_share": share(right, len(given))}


def slider_at_start(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Offers equal to the slider's starting 100, honest and not."""
    tally = {"honest": [0, 0], "bad": [0, 0]}
    for (_a, w, _i), fields in _given(db, campaign).items():
        if "offer_pct" in fields:
            row = tally["honest" if profiles.get(w) in HONEST else "bad"]
            row[0] += 1
            row[1] += fields["offer_pct"].strip() == "100"
    return {f"offer_{k}_at_100": f"{v[1]}/{v[0]}" for k, v in tally.items()}


def _question_broken(fields: dict[str, str]) -> bool:
    if "question" not in fields:
        return False
    said = fields["question"].strip()
    return not 5 <= _n_words(fields, "question") <= 20 or not said.endswith("?")


def _same_ticks(said: str, known: str) -> bool:
    return _ticks(said) == _ticks(known)


reply_extra = _combine(whole_limit("customer_reply", "reply", answers_customer, limit=(20, 60, False),
                                   folder=PAGES_DIR),
                       right_share("customer_reply", "intent", "gold_intent"))
plant_extra = _combine(approved_breaking({"no_box": lambda f: not _ticks(f.get("symptoms", "")),
                                          "cause_blank": lambda f: not f.get("cause", "").strip()}),
                       right_share("plant_symptoms", "cause", "gold_cause"),
                       right_share("plant_symptoms", "symptoms", "gold_symptoms", _same_ticks))
chart_extra = _combine(whole_limit("chart_summary", "explanation", explains_chart, limit=(10, 30, True),
                                   folder=PAGES_DIR),
                       approved_breaking({"trend_blank": lambda f: not _trend(f),
                                          "words_outside_10_30": lambda f: not 10 <= _n_words(f, "explanation")
                                          <= 30}),
                       right_share("chart_summary", "peak_year", "gold_peak_year", _same_amount),
                       honest_trend_right)
library_extra = _combine(whole_limit("library_returns", "repair_note", names_repair,
                                     lambda i: i.get("gold_outcome") == "repair", limit=(2, 10, False),
                                     folder=PAGES_DIR),
                         approved_breaking({"repair_without_note": lambda f: f.get("outcome", "").strip() == "repair"
                                            and not f.get("repair_note", "").strip(),
                                            "outcome_blank": lambda f: not f.get("outcome", "").strip()}),
                         right_share("library_returns", "outcome", "gold_outcome"))
seller_extra = _combine(whole_limit("seller_question", "question", asks_seller, limit=(5, 20, True),
                                    folder=PAGES_DIR),
                        approved_breaking({"question_outside_5_20_or_no_mark": _question_broken}),
                        slider_at_start)


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # plain required fields; the 20-60 word range is only shown (a counter), nothing refuses it
    _page("customer_reply", 1, ("intent", "upset", "reply"), texts={"reply": TextField(
        20, answers_customer, "a customer-service word (sorry, thank, refund, replace, help, arrange, check, "
        "booking, will, can...) and a word of the customer's message (first four letters)")},
          keys={"controls": '"customer_reply_controls.csv"'}, truth='{intent = "gold_intent"}', controls=True,
          extra=reply_extra),
    # "at least one box" is the script's, through setCustomValidity on each post's first box
    _page("plant_symptoms", 2, ("symptoms", "cause"), keys={"controls": '"plant_symptoms_controls.csv"',
                                                            "control_share": "0.2"},
          truth='{cause = "gold_cause", symptoms = "gold_symptoms"}', controls=True, extra=plant_extra),
    # crowd-form: the trend and the 10-30 word range are the submit listener's
    _page("chart_summary", 1, ("peak_year", "explanation"), texts={"explanation": TextField(
        10, explains_chart, "a word of how values move (rise, fell, increase, drop, steady, peak, highest...) "
        "and a word of the chart's title (first four letters) or a year of its data")},
          keys={"controls": '"chart_summary_controls.csv"', "control_share": "0.2"},
          truth='{trend = "gold_trend", peak_year = "gold_peak_year"}', controls=True, extra=chart_extra),
    # the repair box is required only once "repair" is chosen, by a change listener setting .required
    _page("library_returns", 5, ("outcome",), texts={"repair_note": TextField(
        2, names_repair, "a part of the book or a repair (spine, cover, page, barcode, label, tape, glue, "
        "erase, clean...) or a word of the desk note (first four letters)",
        lambda item: item.get("gold_outcome") == "repair")},
          keys={"controls": '"library_returns_controls.csv"', "control_share": "0.2"},
          truth='{outcome = "gold_outcome"}', controls=True, extra=library_extra),
    # a slider starting at 100; the question's 5-20 words and "?" are the form submit listener's
    _page("seller_question", 3, ("buy", "question"), texts={"question": TextField(
        5, asks_seller, "a question ('?' or an opening what/how/is/does/can...) about the listing (a word of "
        "it by first four letters, or condition, price, collect, work, damage, receipt, battery...)")},
          extra=seller_extra),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())

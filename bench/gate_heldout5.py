"""``make bench-gate-heldout5``: bench/gate_heldout.py's gate and rehearsal on a fifth held-out set of pages.

Five pages written fresh, as requesters write them for MTurk and Prolific, by an independent tester who read
only the user docs and the earlier sets' format (bench/gate_heldout5/), each with a 30-item file and a truth
column:

- job_ads: one job advert a page, a full HTML document: "Which of these does the ad actually state? Select
  all that apply." over five boxes and "None of these" (at least one, and "None" alone, checked only by the
  form's ``submit`` listener), and a required "What is the one thing a job seeker would most want to know
  that this ad does not tell them? ... no more than 20 words" (a live word counter; the listener refuses
  over 20);
- meter_readings: four customer meter photos a page, a ``<select>`` "matches / wrong / can't read" with an
  empty first option and no ``required``, and "If wrong, type the reading you see (5 digits)"; both checked
  only by a loop in the form's ``onsubmit`` (12 separate control items at a share of 0.25);
- podcast_clips: one clip a page (audio and transcript), who it suits (radio), an attention select ("For
  quality purposes, please select "Purple""), and a required "what are the speakers talking about? ... at
  least 12 words", the submit button starting ``disabled`` until the script counts 12 words (controls: 10
  of its own items);
- duplicate_questions: three forum question pairs a page on Bootstrap markup, "Would one answer solve
  both?" yes/no (required) and a 0-100 confidence slider that starts at 50 (10 separate controls at a
  share of 0.2);
- receipt_totals: an HTMLQuestion XML wrapper (``--from receipt_totals.xml``), one scanned receipt a page,
  the total as ``<input type="number" step="0.01">`` that the script requires with pence (``\\d+\\.\\d{2}``)
  and how it was paid (radio); its controls are the ones ``hitflow new`` proposes from ``gold_payment``.

and two variants, written after the first run at a6b98805 as a user would leave the page after what the tool
said (the same items and controls): meter_readings_rules (the select ``required``, the reading
``pattern="\\d{5}" data-required-when="verdict=wrong"``, the page rules the import's UNCHECKED note names) and
duplicate_questions_noslider (the confidence slider taken out, after the rehearsal flagged every answer to it
``not_a_number`` and held every batch).

The definitions are bench/gate_heldout.py's (per page and route, MTurk and Prolific simulators, the default
crowd, 3 batches, 3 workers an item). The free-text judges and limits, written before any run and without
reading the simulator's or QC's code:

- job_ads ``missing_info`` (stated: no more than 20 words; required, so 1 to 20): answers the question when
  it names a detail of a job a seeker asks about, a word of JOB_DETAIL (pay, salary, wage, rate, money,
  hours, shifts, schedule, days, part-time, full-time, location, where, address, based, remote, contract,
  permanent, temporary, start, date, benefits, holiday, pension, experience, qualifications, requirements,
  skills, apply, application, deadline, contact, company, employer, duties, tasks, responsibilities,
  training, overtime, weekends, uniform, travel, parking, commission, tips, DBS, licence...).
- podcast_clips ``topic`` (stated: at least 12 words, no most): answers when it speaks of this clip: two
  distinct words of 5+ letters whose first five letters are those of a 5+ letter word of the clip's show
  name, episode title or transcript (common words such as "about", "their", "there", "which" not counted).

The runner's limit is each field's stated minimum (job_ads: 1); job_ads' extra line adds the whole stated
limit (1 to 20 words) and the share within it that also answers. Further figures, off the ledger, where the
page's own script states a rule the import may not carry: job_ads, approved assignments with "none" ticked
beside another box (and with no box); meter_readings, approved assignments with an item answered "wrong"
whose reading is not 5 digits; podcast_clips, its attention select by honest and bad profile and the bad
work that failed it unnoticed; duplicate_questions, the share of confidence answers left at the slider's
50; receipt_totals, approved assignments with a total not written with pence, and honest totals equal to
``gold_total``.

``--repo``, ``--items``, ``--seed``, ``--keep``, ``--pages``, ``--label``, ``--results``, ``--merge`` and
``--table`` as bench/gate_heldout4.py; figures go to bench/results-gate-heldout5.json under ``--label``
(default: the measured code's commit). Run as a file (``python /path/bench/gate_heldout5.py``) it finds
its own bench package, so a checkout without this set (an older commit) can be measured from its own folder.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file from another checkout: this set's bench package first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gate_bench import share
from bench.gate_heldout import DONE, HONEST, ROOT, HeldoutPage, TextField, words
from bench.gate_heldout3 import STOP, attention_tally
from bench.gate_heldout4 import _items, cli, whole_limit

PAGES_DIR = ROOT / "bench" / "gate_heldout5"
RESULTS = ROOT / "bench" / "results-gate-heldout5.json"

JOB_DETAIL = re.compile(
    r"\b(pay|paid|salary|salaries|wages?|rates?|money|earn\w*|£\w*|hourly|per hour|hours?|shifts?|schedule|rota|"
    r"days?|nights?|part[- ]time|full[- ]time|location|where|address|based|remote|site|town|area|contracts?|"
    r"permanent|temporary|temp|fixed[- ]term|start\w*|dates?|benefits?|holidays?|annual leave|leave|pension|"
    r"sick|experience\w*|qualifications?|qualified|requirements?|required|skills?|apply|applying|application|"
    r"deadline|closing|contact\w*|email|phone|company|employer|who|duties|tasks|role|responsibilit\w*|"
    r"training|overtime|weekends?|uniform|travel|parking|commission|tips|dbs|licence|license|car|van|"
    r"accommodation|interview)\b", re.I)
NOT_CLIP = STOP | {"about", "their", "there", "which", "would", "could", "should", "these", "those", "where",
                   "being", "really", "because", "other", "things", "thing", "people", "speakers", "speaker"}


def names_job_detail(text: str, _item: dict[str, str]) -> bool:
    """A word of a job detail a seeker asks about."""
    return bool(JOB_DETAIL.search(text))


def speaks_of_clip(text: str, item: dict[str, str]) -> bool:
    """Two distinct 5+ letter words sharing their first five letters with the clip's own 5+ letter words."""
    own = {w.lower()[:5] for w in words(f"{item.get('show_name', '')} {item.get('episode_title', '')} "
                                       f"{item.get('transcript', '')}") if len(w) >= 5 and w.lower() not in NOT_CLIP}
    said = {w.lower()[:5] for w in words(text) if len(w) >= 5 and w.lower() not in NOT_CLIP}
    return len(own & said) >= 2


def _given(db: sqlite3.Connection, campaign: str) -> dict[tuple[str, str, str], dict[str, str]]:
    """(assignment, worker, item) -> field -> value over the submitted work of the batches."""
    out: dict[tuple[str, str, str], dict[str, str]] = {}
    for a, w, i, fld, value in db.execute(
            f"SELECT a.assignment_id, a.worker_id, an.item_id, an.field, COALESCE(an.value, '') FROM answers an "
            f"JOIN assignments a ON a.assignment_id = an.assignment_id AND a.campaign = an.campaign WHERE "
            f"an.campaign = ? AND an.item_id != '' AND a.batch > 0 AND upper(a.status) IN "
            f"({','.join('?' * len(DONE))})", [campaign, *DONE]):
        out.setdefault((a, w, i), {})[fld] = value
    return out


def approved_breaking(rules: dict[str, Callable[[dict[str, str]], bool]]) -> Callable[..., dict[str, Any]]:
    """Per rule (an item's fields -> broken), the assignments with an item breaking it, approved, by honest."""

    def extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
        approved = {r[0] for r in db.execute("SELECT assignment_id FROM decisions WHERE campaign = ? AND action = "
                                             "'approve'", [campaign])}
        given = _given(db, campaign)
        out: dict[str, Any] = {}
        for name, broken in rules.items():
            hit = {(a, w) for (a, w, _i), fields in given.items() if broken(fields)}
            out[name] = {"assignments": len(hit), "approved": sum(a in approved for a, _w in hit),
                         "approved_honest": sum(a in approved and profiles.get(w) in HONEST for a, w in hit)}
        return out
    return extra


def _ticks(value: str) -> set[str]:
    return {v.strip() for v in re.split(r"[|,;]", value) if v.strip()}


def job_ads_extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """The whole stated limit of ``missing_info``, and the script's box rules broken yet approved."""
    out = whole_limit("job_ads", "missing_info", names_job_detail, limit=(1, 20, False),
                      folder=PAGES_DIR)(db, campaign, profiles)
    return {**out, **approved_breaking({
        "none_beside_another": lambda f: "none" in _ticks(f.get("stated", "")) and len(_ticks(f["stated"])) > 1,
        "no_box": lambda f: not _ticks(f.get("stated", ""))})(db, campaign, profiles)}


def _wrong_without_reading(fields: dict[str, str]) -> bool:
    return fields.get("verdict", "").strip() == "wrong" and not re.fullmatch(r"\d{5}", fields.get("reading_seen",
                                                                                                   "").strip())


meter_extra = approved_breaking({"wrong_without_5_digits": _wrong_without_reading,
                                 "verdict_blank": lambda f: not f.get("verdict", "").strip()})


def slider_untouched(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Confidence answers equal to the slider's starting 50, honest and not."""
    tally = {"honest": [0, 0], "bad": [0, 0]}
    for (_a, w, _i), fields in _given(db, campaign).items():
        if "confidence" in fields:
            row = tally["honest" if profiles.get(w) in HONEST else "bad"]
            row[0] += 1
            row[1] += fields["confidence"].strip() == "50"
    return {f"{k}_at_50": f"{v[1]}/{v[0]}" for k, v in tally.items()}


def receipt_extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    """Totals not written with pence yet approved, and honest totals equal to the receipt's."""
    items = _items("receipt_totals", PAGES_DIR)
    totals = [(i, f.get("total", "").strip()) for (_a, w, i), f in _given(db, campaign).items()
              if profiles.get(w) in HONEST and i in items and "total" in f]
    right = sum(_same_amount(t, items[i].get("gold_total", "")) for i, t in totals)
    return {**approved_breaking({"total_without_pence": lambda f: "total" in f and not re.fullmatch(
        r"\d+\.\d{2}", f["total"].strip())})(db, campaign, profiles),
        "honest_totals_right": f"{right}/{len(totals)}", "honest_totals_right_share": share(right, len(totals))}


def _same_amount(said: str, gold: str) -> bool:
    try:
        return abs(float(said) - float(gold)) < 0.005
    except ValueError:
        return False


def podcast_extra(db: sqlite3.Connection, campaign: str, profiles: dict[str, str]) -> dict[str, Any]:
    return attention_tally("colour_check", lambda value: value.strip().lower() == "purple")(db, campaign, profiles)


def _page(name: str, per_page: int, required: tuple[str, ...], **kw: Any) -> HeldoutPage:
    return HeldoutPage(name, per_page, required, folder=PAGES_DIR, **kw)


PAGES = (
    # "at least one box" and "none alone" are the form's submit listener's; the box is required, at most 20 words
    _page("job_ads", 1, ("stated", "missing_info"), texts={"missing_info": TextField(
        1, names_job_detail, "names a job detail (pay, salary, hours, shifts, location, contract, start date, "
        "benefits, experience, how to apply, training...)")}, truth='{stated = "gold_stated"}', extra=job_ads_extra),
    # every select is required only by the onsubmit loop, and the reading only when the answer is "wrong"
    _page("meter_readings", 4, ("verdict",), keys={"controls": '"meter_readings_controls.csv"',
                                                   "control_share": "0.25"},
          truth='{verdict = "gold_verdict"}', controls=True, extra=meter_extra),
    # the attention select is required; the word count is the script's, which enables a disabled Submit
    _page("podcast_clips", 1, ("audience", "colour_check", "topic"), texts={"topic": TextField(
        12, speaks_of_clip, "two distinct 5+ letter words sharing their first five letters with the clip's show, "
        "title or transcript")}, keys={"controls": '"podcast_clips_controls.csv"'},
          truth='{audience = "gold_audience"}', controls=True, extra=podcast_extra),
    _page("duplicate_questions", 3, ("same",), keys={"controls": '"duplicate_questions_controls.csv"',
                                                     "control_share": "0.2"},
          truth='{same = "gold_same"}', controls=True, extra=slider_untouched),
    # the controls are those the import proposes from gold_payment (config/receipt_totals_controls.csv)
    _page("receipt_totals", 1, ("total", "payment"), keys={"controls": '"receipt_totals_controls.csv"'},
          truth='{payment = "gold_payment", total = "gold_total"}', controls=True, extra=receipt_extra,
          source=".xml"),
    # meter_readings as a user leaves it after the UNCHECKED note: the select required, the reading
    # pattern="\d{5}" and data-required-when="verdict=wrong"
    _page("meter_readings_rules", 4, ("verdict",), keys={"controls": '"meter_readings_rules_controls.csv"',
                                                         "control_share": "0.25"},
          truth='{verdict = "gold_verdict"}', controls=True, extra=meter_extra),
    # duplicate_questions as a user leaves it after the rehearsal flagged every slider answer not_a_number
    _page("duplicate_questions_noslider", 3, ("same",), keys={
        "controls": '"duplicate_questions_noslider_controls.csv"', "control_share": "0.2"},
          truth='{same = "gold_same"}', controls=True),
)


def main(argv: list[str] | None = None) -> int:
    return cli(argv, PAGES, RESULTS)


if __name__ == "__main__":
    raise SystemExit(main())

"""Required as the page requires it, whatever says so: an imported page whose script refuses the submit until
"all three questions" are answered, or until one box of a checkbox group is ticked (or whose boxes say so:
``data-min-selections="1"``), and a page whose script
writes its own "no answer" (``<END>``, "N/A") into the hidden field it posts. Each blank is a skipped required
question: rejected on MTurk, rejected on Prolific (one of its grounds), never approved."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.pages.mturk_forms import answer_fields
from flows.custom.custom_review import _no_page_constants, from_items
from flows.custom.page_import import import_page
from flows.custom.page_scripts import left_blank, script_blanks

PAGES = Path(__file__).resolve().parent / "pages" / "required"
CROWD = """seed = 5
[size]
count = 16
[market]
balance = "100000.00"
[[profile]]
name = "diligent"
share = 0.5
[[profile]]
name = "speeder"
share = 0.25
[[profile]]
name = "rule_breaker"
share = 0.25
"""


def run_imported(tmp_path: Path, page: str, platform: str, *more: str, pages: Path = PAGES) -> sqlite3.Connection:
    """``tests/pages/required/<page>.html`` (or ``pages``') imported with ``hitflow new --from`` and run by
    form-reading workers (honest ones, speeders who skip what they may, rule breakers who post around the page)
    on ``platform`` (``more``: the run's further options)."""
    (tmp_path / f"{page}.html").write_bytes((pages / f"{page}.html").read_bytes())
    assert main(["new", page, "--from", str(tmp_path / f"{page}.html"), "--dir", str(tmp_path)]) == 0
    folder = tmp_path / "config"
    (folder / f"{page}_items.csv").write_bytes((pages / f"{page}_items.csv").read_bytes())
    (folder / "crowd.toml").write_text(CROWD, encoding="utf-8")
    config = folder / f"{page}.toml"
    text = re.sub(r'(?m)^budget = ".*?"', 'budget = "500.00 USD"', config.read_text(encoding="utf-8"))
    text = re.sub(r"(?m)^images_per_hit = \d+", "images_per_hit = 1", text)
    config.write_text(text + '\n[target]\nsim_crowd = "crowd.toml"\nsim_workers = "form"\n', encoding="utf-8")
    db = tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--platform", platform, *more]) in (0, 10)
    return sqlite3.connect(db)


def blank_decisions(con: sqlite3.Connection, fields: tuple[str, ...]) -> dict[str, list[str]]:
    """The decisions on the assignments that left any of ``fields`` unanswered, read from the ledger's answers."""
    def blank_on_an_item(got: dict[str, str]) -> bool:  # a place may hold several items (Prolific's whole minutes)
        items = {int(k.rsplit("_", 1)[1]) for k in got if k.rsplit("_", 1)[-1].isdigit()} | {0}
        return any(not got.get(f"{f}_{i}", "") for f in fields for i in items)

    blank = {a for a, xml in con.execute("SELECT assignment_id, answer_xml FROM assignments WHERE answer_xml != ''")
             if blank_on_an_item(answer_fields(xml))}
    out: dict[str, list[str]] = {}
    for a, action, reasons in con.execute("SELECT assignment_id, action, reasons FROM decisions"):
        if a in blank:
            out.setdefault(action, []).append(reasons)
    return out


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
@pytest.mark.parametrize(("page", "fields"), [("three", ("grammar", "polite", "food")), ("names", ("names",)),
                                              ("ticks", ("names",))])  # ticks: "at least one" as the controls say
def test_a_question_the_pages_script_requires_is_never_approved_blank(tmp_path: Path, platform: str, page: str,
                                                                      fields: tuple[str, ...]) -> None:
    con = run_imported(tmp_path, page, platform)
    decided = blank_decisions(con, fields)
    assert decided.get("reject") and not decided.get("approve")  # blanks met (how many: the draw), none approved
    assert all("invalid_answer" in r or "skipped_required" in r for r in decided["reject"])
    if platform == "prolific":  # a skipped required question is one of Prolific's grounds: never a person's guess
        assert all("skipped_required" in r for r in decided["reject"])
    honest = con.execute("SELECT count(*) FROM decisions WHERE action = 'approve'").fetchone()[0]
    assert honest >= 5


def test_a_check_that_asks_for_every_question_requires_the_groups_it_names() -> None:
    """A check read by what it says: its condition is a loop no reader resolves, its message asks for all the
    questions, so the radio groups its handler names become required; the optional comment stays optional."""
    page = import_page((PAGES / "loop.html").read_text(encoding="utf-8"), "loop.html")
    required = set(re.findall(r'<input required[^>]*name="(\w+)_\{\{ i \}\}"', page.body))
    assert required == {"grammar", "polite"}
    assert re.search(r'<textarea(?![^>]*required)[^>]*name="comment', page.body)
    assert any("is now the page rule required on grammar, required on polite" in n for n in page.notes)


HIDDEN = (PAGES / "hidden_end.html").read_text(encoding="utf-8")


def test_the_scripts_own_no_answer_in_a_hidden_field_is_a_skipped_question() -> None:
    """The page's script writes "<END>" (or "N/A") where a question was skipped, into the hidden field it posts,
    which starts empty: no page constant says so; the script's own words do. A value a worker may choose
    ("none" as an option) and the script's other strings ("none" as a style) are not taken for a blank."""
    blanks = script_blanks(HIDDEN, {"none", "yes", "no"})
    assert {"<END>", "N/A"} <= blanks and "none" not in blanks
    spec = {"fields": [{"name": "answers_0", "type": "text", "input": "hidden", "required": False}]}
    for posted, said in (("yes,<END>,no", "<END>"), ("<END>", "<END>"), ('{"q1": "yes", "q2": "N/A"}', "N/A"),
                         ("yes,none,no", ""), ("yes,no,yes", "")):
        rows = [{"telemetry_field": "answers_0", "answer": posted}]
        assert left_blank(posted, blanks) == said
        assert _no_page_constants(rows, {}, spec, blanks) == ([f"answers_0={said!r}"] if said else []), posted


def test_a_response_posting_the_scripts_no_answer_is_rejected_on_prolifics_ground(tmp_path: Path) -> None:
    """The imported page through the QC step: responses posted as its script posts them in a browser (what a
    form reader cannot rehearse), one answering all three questions, two with the script's "<END>" or "N/A"."""
    from flows.campaigns.campaign_plan import Run, plan_items
    from flows.campaigns.route_policy import route_policy
    from flows.campaigns.task_pages import task_page
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store
    from flows.core.pages.mturk_forms import answer_xml
    from flows.custom.custom_review import custom_qc_batch
    from flows.platforms.mturk import adapter as mturk
    from flows.platforms.prolific.grounds import ground_category

    (tmp_path / "hidden_end.html").write_text(HIDDEN, encoding="utf-8")
    assert main(["new", "hidden_end", "--from", str(tmp_path / "hidden_end.html"), "--dir", str(tmp_path)]) == 0
    (tmp_path / "config" / "hidden_end_items.csv").write_bytes((PAGES / "three_items.csv").read_bytes())
    cfg = load_config(tmp_path / "config" / "hidden_end.toml")
    store = Store(tmp_path / "h.db")
    run = Run(cfg, store, None, mturk.Target("sim", "http://unused"), progress=lambda _: None, page=task_page)
    plan_items(run)
    posted = {"P0": "yes,no,none", "P1": "yes,<END>,none", "P2": "N/A,no,yes"}
    for n, (worker, answers) in enumerate(posted.items()):
        store.table("assignments").insert({"assignment_id": f"R{n}", "hit_id": "study:u0", "campaign": cfg.name,
                                           "batch": 1, "worker_id": worker, "status": "AWAITING REVIEW",
                                           "accept_time": 0.0, "submit_time": 90.0, "parse_error": "",
                                           "answer_xml": answer_xml({"image_id_0": "s00", "answers_0": answers,
                                                                     "place_0": answers.rsplit(",", 1)[1]})})
    custom_qc_batch(run, 1)
    flags = {f["worker_id"]: f["detail"] for f in store.rows("SELECT worker_id, detail FROM qc_flags "
                                                             "WHERE rule = 'sentinel_answer'")}
    assert flags == {"P1": "required, left blank (still the page's own value): answers_0='<END>'",
                     "P2": "required, left blank (still the page's own value): answers_0='N/A'"}
    policy = route_policy(cfg, "prolific")
    assert "sentinel_answer" in policy.reject_rules and ground_category("sentinel_answer") == "NO_DATA"


@pytest.mark.parametrize(("value", "item_filled"), [
    ("Type your summary here", False),  # the page's words, holding an item's value of 4+ characters
    ("OCR: summary of a long report", True),  # the page's "OCR: " and the item's text
])
def test_an_item_value_inside_the_pages_own_words_leaves_them_the_pages(value: str, item_filled: bool) -> None:
    source = ('<input name="s_{{ i }}" value="Type your summary here">\n'
              '<input name="o_{{ i }}" value="OCR: {{ item.t }}">')
    items = [{"image_id": "a1", "t": "summary of a long report", "k": "summary"}]
    assert from_items(value, items, source) is item_filled

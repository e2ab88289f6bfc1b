"""Text telemetry's page side without a browser (docs/telemetry.md): which pages carry the notice, the
hidden ``hitflow_telemetry`` field and the recorder, where; the notice's config; the page's size against
MTurk's HTMLQuestion limit; and the field's way back, unchanged, through the task server and MTurk's
answer XML, with hostile values bounded and the answer kept."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flows.campaigns.task_pages import task_page
from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.config.telemetry_config import TELEMETRY_NOTICE
from flows.core.errors import ConfigError
from flows.core.pages.mturk_forms import answer_rows, form_fields, html_question, parse_answer_xml, parse_question
from flows.core.pages.page_telemetry import FIELD, MAX_TELEMETRY_CHARS, telemetry_refusal, with_telemetry
from flows.core.pages.templates import render, sample_context
from flows.custom.scaffold import scaffold
from tests.published_site import published_site
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
PAGES = Path(__file__).parent / "pages"
WILD = Path(__file__).parent / "pages_wild"
CAPTION = "A red mug with a white handle sits on a wooden kitchen table."
RECORD = json.dumps({"v": 1, "loads": 1, "vis": [[5, "h"], [9, "v"]], "f": {"caption_0": {
    "typed": 61, "del": 2, "keys": 66, "first_ms": 1200, "active_ms": 9000, "paste": [], "paste_n": 0, "paste_x": 0,
    "paste_p": 0, "drop": 0, "copy": 0, "cut": 0, "focus": [[1100, "f"], [12000, "b"]], "len": 61}}},
    separators=(",", ":"))


def rows(n: int) -> list[dict[str, Any]]:
    return [{"item_id": f"i{k}", "file_name": f"{k}.jpg", "url": f"https://example.org/{k}.jpg"} for k in range(n)]


def custom_rows(n: int, **payload: str) -> list[dict[str, Any]]:
    return [{**r, "payload": json.dumps({"item_id": r["item_id"], **payload})} for r in rows(n)]


def starter(tmp_path: Path) -> str:
    scaffold("mine", tmp_path)
    return task_page(load_config(tmp_path / "config" / "mine.toml"), custom_rows(3, image_url="https://e.org/a.jpg",
                                                                                  note="a note"))


def crowd(tmp_path: Path) -> str:
    scaffold("crowd", tmp_path)
    shutil.copy(PAGES / "crowd_photo.html.j2", tmp_path / "config" / "crowd.html.j2")
    return task_page(load_config(tmp_path / "config" / "crowd.toml"), custom_rows(
        1, image_url="https://ivc.ischool.utexas.edu/a.jpg", note="A red bus in the rain."))


def imported(tmp_path: Path) -> str:
    assert main(["new", "wild", "--from", str(WILD / "plain_htmlquestion.xml"), "--dir", str(tmp_path)]) == 0
    return task_page(load_config(tmp_path / "config" / "wild.toml"), custom_rows(2))


PAGES_WITH_TEXT = {
    "caption": lambda tmp: task_page(load_config(ROOT / "config" / "vizwiz_captions.toml"), rows(5)),
    "describe": lambda tmp: task_page(load_config(ROOT / "config" / "flickr8k_captions.toml"), rows(5)),
    "starter": starter, "crowd": crowd, "imported": imported,
}


def enclosing_form(page: str, needle: str) -> str:
    """The name of the form element (form / crowd-form) whose start tag comes last before ``needle``."""
    at = page.index(needle)
    opened = [(m.start(), m.group(1)) for m in re.finditer(r"<(form|crowd-form)\b", page[:at])]
    closed = [m.start() for m in re.finditer(r"</(form|crowd-form)>", page[:at])]
    assert opened and (not closed or closed[-1] < opened[-1][0]), "the field is outside every form"
    return opened[-1][1]


@pytest.mark.parametrize("name", sorted(PAGES_WITH_TEXT))
def test_a_page_with_free_text_says_so_and_carries_the_field_and_the_recorder(tmp_path: Path, name: str) -> None:
    page = PAGES_WITH_TEXT[name](tmp_path)
    fields = {f.name: f for f in form_fields(page)}
    assert fields[FIELD].kind == "hidden" and fields[FIELD].attrs["data-sim-fill"] == "telemetry"
    assert page.count(f'name="{FIELD}"') == 1
    assert page.count(TELEMETRY_NOTICE) == 1 and page.index(TELEMETRY_NOTICE) < page.index(f'name="{FIELD}"')
    assert enclosing_form(page, f'name="{FIELD}"') == ("crowd-form" if name == "crowd" else "form")
    assert page.count("hitflow_telemetry:") == 1  # the recorder, inline, once
    assert page.index("hitflow_telemetry:") > page.index(f'name="{FIELD}"')
    assert with_telemetry(page, TELEMETRY_NOTICE) == page  # never twice


@pytest.mark.parametrize("template", ["expert_rating", "crowd_selection", "pairwise_grading", "error_analysis",
                                      "severity_rating", "qualification"])
def test_a_page_without_free_text_is_left_as_it_was(template: str) -> None:
    page = render(f"{template}.html.j2", sample_context(template))
    assert with_telemetry(page, TELEMETRY_NOTICE) == page


def test_the_notice_is_the_configs_shown_as_text_and_never_empty(tmp_path: Path) -> None:
    own = small_vizwiz(tmp_path, edits={"[timing]": '[telemetry]\nnotice = "<b>We log</b> your typing."\n\n[timing]'})
    page = task_page(load_config(own), rows(2))
    assert "&lt;b&gt;We log&lt;/b&gt; your typing." in page and TELEMETRY_NOTICE not in page
    off = small_vizwiz(tmp_path, "off", edits={"[timing]": "[telemetry]\nrecord = false\n\n[timing]"})
    page = task_page(load_config(off), rows(2))
    assert FIELD not in page and "hitflow_telemetry:" not in page and TELEMETRY_NOTICE not in page
    for notice in ('""', '"   "'):
        blank = small_vizwiz(tmp_path, "blank", edits={"[timing]": f"[telemetry]\nnotice = {notice}\n\n[timing]"})
        with pytest.raises(ConfigError, match=r"\[telemetry\]\.notice must not be empty") as err:
            load_config(blank)
        assert "\n" not in str(err.value)


def test_the_largest_caption_page_fits_an_html_question() -> None:
    """MTurk refuses a Question over 65,535 bytes; the recorder adds about 7 KB."""
    for config in ("vizwiz_captions", "flickr8k_captions"):
        cfg = load_config(ROOT / "config" / f"{config}.toml")
        long_rows = [{**r, "url": "https://example.org/" + "x" * 200 + ".jpg", "file_name": "y" * 60 + ".jpg"}
                     for r in rows(cfg.images_per_hit)]
        question = html_question(task_page(cfg, long_rows))
        assert parse_question(question).html and len(question.encode()) < 65535 - 20_000


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with published_site(tmp_path, secret=b"s" * 32, study_places=5) as site:
        yield {**site, "http": httpx.Client(base_url=site["url"], follow_redirects=False)}


def answered(page: str, telemetry: str) -> dict[str, str]:
    values = {f.name: f.value for f in form_fields(page)}
    values.update({k: CAPTION for k in values if k.startswith("caption_")})
    values.update({k: "no" for k in values if k.startswith("text_present_")})
    return {**values, FIELD: telemetry}


BOMB = "[" * 20_000 + "]" * 20_000  # 120 KB urlencoded: under the body limit, far deeper than json.loads goes


@pytest.mark.parametrize(("sent", "kept_as"), [
    (RECORD, RECORD), ("not json <script>", "not json <script>"), ("", ""),
    (json.dumps({"v": 1, "pad": "x" * (MAX_TELEMETRY_CHARS + 1)}), "refused: "),
    (BOMB, "refused: "), ('{"a":"' + "[" * 20 + '"}', '{"a":"' + "[" * 20 + '"}')])
def test_the_task_server_stores_the_field_unchanged_and_refuses_what_no_recorder_writes(
        served: dict[str, Any], sent: str, kept_as: str, caplog) -> None:
    """A value over 64 KB or nested deeper than the format becomes ``refused: <why>``; brackets inside
    a JSON string are not nesting; the captions are stored as sent every time."""
    http, name = served["http"], served["cfg"].name
    page = http.get(f"/task/{name}", params={"PROLIFIC_PID": "p1", "STUDY_ID": "s" * 24, "SESSION_ID": "sess1"}).text
    assert http.post(f"/task/{name}/submit", data=answered(page, sent)).status_code == 303
    stored = {r["field"]: r["value"] for r in served["store"].rows("SELECT field, value FROM answers")}
    answer = parse_answer_xml(served["store"].rows("SELECT answer_xml FROM assignments")[0]["answer_xml"])
    assert stored["caption"] == CAPTION and answer["caption_4"] == CAPTION
    if kept_as.startswith("refused: "):
        assert stored[FIELD].startswith("refused: ") and answer[FIELD] == stored[FIELD] and len(stored[FIELD]) < 200
        assert "x" * 100 not in caplog.text and "[" * 100 not in caplog.text  # the log names why, never the value
    else:
        assert stored[FIELD] == answer[FIELD] == kept_as


def test_a_telemetry_value_over_the_body_limit_is_refused_whole_with_a_clear_page(served: dict[str, Any]) -> None:
    http, name = served["http"], served["cfg"].name
    page = http.get(f"/task/{name}", params={"PROLIFIC_PID": "p2", "STUDY_ID": "s" * 24, "SESSION_ID": "sess2"}).text
    resp = http.post(f"/task/{name}/submit", data=answered(page, "x" * 2**20))
    assert resp.status_code == 413 and "larger than any task page produces" in resp.text
    assert served["store"].db["assignments"].count == 0


def test_mturks_answer_xml_carries_the_field_unchanged_beside_the_captions(sim, client) -> None:
    """An HTMLQuestion HIT on the simulator: the page's form post reaches the answer XML, and the rows
    the collector stores (``answer_rows``) keep the telemetry as one answer without an item, the captions
    as they were, also beside a 1 MB telemetry value (the reader refuses that, not the collector)."""
    cfg = load_config(ROOT / "config" / "vizwiz_captions.toml")
    page = task_page(cfg, rows(5))
    hit = client.create_hit(Title="t", Description="d", Reward="0.10", AssignmentDurationInSeconds=3600,
                            LifetimeInSeconds=86400, MaxAssignments=2, AutoApprovalDelayInSeconds=3600,
                            Question=html_question(page))["HIT"]["HITId"]
    for worker, telemetry in (("AWORKER1", RECORD), ("AWORKER2", "y" * 2**20)):
        accept = httpx.get(f"{sim.url}/mturk/accept", params={"hitId": hit, "workerId": worker})
        assignment = accept.headers["location"].split("assignmentId=")[1].split("&")[0]
        values = {**answered(page, telemetry), "assignmentId": assignment}
        assert httpx.post(f"{sim.url}/mturk/externalSubmit", data=values).status_code == 200
    for a in client.list_assignments_for_hit(HITId=hit)["Assignments"]:
        found = answer_rows(a["AssignmentId"], a["Answer"], [r["item_id"] for r in rows(5)])
        by_field = {(r["item_id"], r["field"]): r["value"] for r in found}
        sent = RECORD if a["WorkerId"] == "AWORKER1" else "y" * 2**20
        assert by_field[("", FIELD)] == sent and by_field[("i3", "caption")] == CAPTION


@pytest.mark.parametrize(("value", "refused"), [
    (RECORD, False), ("", False), ("[[[[[[[[]]]]]]]]", False), ("[[[[[[[[[]]]]]]]]]", True),
    ('{"a":"\\"[[[[[[[[[[[["}', False), ("x" * MAX_TELEMETRY_CHARS, False), ("x" * (MAX_TELEMETRY_CHARS + 1), True)])
def test_what_the_task_server_refuses_is_measured_without_parsing(value: str, refused: bool) -> None:
    """Eight levels pass (the format nests five), nine do not; brackets inside a JSON string, after an
    escaped quote too, are text; the length limit is inclusive."""
    assert bool(telemetry_refusal(value)) is refused


FIELD_KEYS = {"typed", "del", "keys", "first_ms", "active_ms", "paste", "paste_n", "paste_x", "paste_p", "drop",
              "copy", "cut", "focus", "len"}


def test_the_record_chromium_wrote_has_exactly_format_v1s_keys() -> None:
    """tests/telemetry_records/: what the recorder wrote in a real browser, for readers to test against."""
    record = json.loads((Path(__file__).parent / "telemetry_records" / "chromium_caption_page.json").read_text())
    assert set(record) == {"v", "loads", "vis", "f"} and record["v"] == 1
    assert set(record["f"]) == {f"caption_{i}" for i in range(5)}
    assert all(set(entry) == FIELD_KEYS for entry in record["f"].values())
    recorder = (ROOT / "hit_templates" / "text_telemetry.js").read_text()
    assert all(f"{key}: " in recorder for key in FIELD_KEYS)  # the recorder still writes each of them


@pytest.mark.parametrize(("page", "form_with_field"), [
    ('<form id="a"><input type="radio" name="r"></form><form id="b"><textarea name="t"></textarea></form>', "b"),
    ('<FORM ID="a"><TEXTAREA NAME="t"></TEXTAREA></FORM>', "a"),
    ('<form id="a"><input name="t">', "a"),  # never closed, no type: a text box
    ('<crowd-form id="a"><crowd-input name="t"></crowd-input></crowd-form>', "a"),
    ('<textarea name="t"></textarea><form id="a"><input type="number" name="n"></form>', None),
    ('<form id="a"><textarea name="t" readonly></textarea><input type="email" name="e"></form>', None),
    ("<script>var s = '<form id=\"a\"><textarea name=\"t\">';</script><p>no form</p>", None),
    ('<!-- <form id="a"><textarea name="t"> --><form id="b"><textarea name="u"></textarea></form>', "b"),
])
def test_the_field_goes_into_the_first_form_holding_free_text(page: str, form_with_field: str | None) -> None:
    out = with_telemetry(f"<html><body>{page}</body></html>", TELEMETRY_NOTICE)
    if form_with_field is None:
        assert FIELD not in out
        return
    at = out.index(f'name="{FIELD}"')
    assert re.findall(r'<(?:form|crowd-form) id="(\w)"', out[:at], re.I)[-1] == form_with_field
    assert out.index("hitflow_telemetry:") < out.index("</body>")  # the recorder, inside the body

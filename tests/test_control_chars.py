"""The early platform work: answers holding characters XML 1.0 cannot carry (C0 controls but tab/LF/CR, DEL,
U+FFFE/U+FFFF, lone surrogates). The behaviour, on every route:

- an answer is stored as typed: the answer XML JSON-escapes such a value in an element marked
  ``encoding="json"`` (flows/mturk_forms.py), so it round-trips exactly, and QC sees it as typed;
- the spell-corrected caption (the dataset's ``caption``) has a space for each such character;
  ``caption_original`` keeps them;
- a participant is never refused for a character they cannot see (text pasted from a word
  processor carries ``\\x0b``); ids are: a worker id or Prolific id with control characters is
  refused with a 400 that says what to do;
- answer XML from another producer with such a character raw or as a reference (``&#11;``) is
  read with the character kept (a lone surrogate as U+FFFD), not flagged malformed;
- bytes that are not UTF-8 cannot be text: the simulator's externalSubmit refuses such a body
  (400), the task server (like a browser) reads them as U+FFFD; a percent-encoded lone surrogate
  becomes U+FFFD on both.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flows.campaigns.campaign_plan import plan_items
from flows.captions.outputs import write_outputs
from flows.core.pages.crowd_elements import TASK_ANSWERS
from flows.core.pages.mturk_forms import NS_ANSWERS, answer_rows, answer_xml, parse_answer_xml
from flows.driver.campaign import advance_batch
from flows.platforms.mturk.batch_publish import publish_batch
from tests.fuzz_support import FUZZ
from tests.test_campaign import make_run
from tests.test_task_server import answers_for, served, submit, visit  # noqa: F401  (served: a fixture)

NOT_XML = ([chr(c) for c in range(0x20) if chr(c) not in "\t\n\r"] + ["\x7f", "\ufffe", "\uffff", "\ud800",
                                                                     "\udfff"])
TYPED = [c for c in NOT_XML if not 0xD800 <= ord(c) <= 0xDFFF]  # what a form post can carry at all
any_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()))


@pytest.mark.parametrize("char", NOT_XML, ids=[f"U+{ord(c):04X}" for c in NOT_XML])
def test_each_character_round_trips_through_the_answer_xml(char: str) -> None:
    values = {f"field{char}": f"A can{char}of soup.", "plain": "A cup."}
    xml = answer_xml(values)
    xml.encode("ascii")
    assert parse_answer_xml(xml) == values


@FUZZ
@given(st.dictionaries(any_text.filter(lambda name: name != TASK_ANSWERS), any_text, max_size=5))
def test_any_text_round_trips_surrogates_included(values: dict[str, str]) -> None:
    """Any str in, the same str out, never an exception (fuzz_inputs' strategy leaves surrogates out).
    A field named taskAnswers is a crowd form's JSON, not free text: Hypothesis draws the name from the
    code's own constants, and such a field that is not JSON is a malformed answer (the test below)."""
    assert parse_answer_xml(answer_xml(values)) == values


@pytest.mark.parametrize("text", ["0", "00", "", "[1]"])
def test_a_task_answers_field_that_is_not_a_crowd_form_s_json_is_malformed(text: str) -> None:
    with pytest.raises(ET.ParseError, match="taskAnswers does not decode"):
        parse_answer_xml(answer_xml({TASK_ANSWERS: text}))


@pytest.mark.parametrize("form", ["raw", "decimal", "hex"])
@pytest.mark.parametrize("char", NOT_XML, ids=[f"U+{ord(c):04X}" for c in NOT_XML])
def test_answers_another_producer_wrote_are_read_not_lost(char: str, form: str) -> None:
    """XML that carries the character raw or as a reference (``&#11;``), as the real MTurk might:
    read with the character kept (a lone surrogate, which SQLite cannot store, as U+FFFD), where
    before the assignment was kept only raw and flagged malformed_answer."""
    written = {"raw": char, "decimal": f"&#{ord(char)};", "hex": f"&#x{ord(char):X};"}[form]
    xml = (f'<QuestionFormAnswers xmlns="{NS_ANSWERS}"><Answer><QuestionIdentifier>image_id_0</QuestionIdentifier>'
           f'<FreeText>im0</FreeText></Answer><Answer><QuestionIdentifier>caption_0</QuestionIdentifier>'
           f"<FreeText>A can{written}of soup &amp;#11; &lt;b&gt;</FreeText></Answer></QuestionFormAnswers>")
    kept = "\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char
    assert answer_rows("A1", xml, ["im0"]) == [{"assignment_id": "A1", "item_id": "im0", "field": "caption",
                                                "value": f"A can{kept}of soup &#11; <b>"}]


@FUZZ
@given(st.one_of(any_text, any_text.map(lambda t: f'<QuestionFormAnswers xmlns="{NS_ANSWERS}"><Answer>'
                                                  f"<QuestionIdentifier>q</QuestionIdentifier><FreeText>{t}</FreeText>"
                                                  "</Answer></QuestionFormAnswers>")))
def test_any_text_is_read_or_refused_with_a_parse_error(text: str) -> None:
    """What collection catches is ET.ParseError; a raw lone surrogate raised UnicodeEncodeError."""
    try:
        parsed = parse_answer_xml(text)
    except ET.ParseError as exc:
        assert str(exc)
    else:
        assert all(isinstance(v, str) and not any(0xD800 <= ord(c) <= 0xDFFF for c in v) for v in parsed.values())


def test_a_malformed_answer_stays_malformed() -> None:
    for xml in ("<a>\x0b<b></a>", f'<QuestionFormAnswers xmlns="{NS_ANSWERS}"><Answer>&#11;'):
        with pytest.raises(ET.ParseError):
            parse_answer_xml(xml)


def _fill(page: str, chars: str) -> dict[str, str]:
    """The page's fields as a person would fill them; item i's answers carry ``chars[i]``."""
    values = answers_for(page)
    for name in values:
        char = chars[int(name.rsplit("_", 1)[1]) % len(chars)] if name[-1].isdigit() else ""
        if name.startswith("caption_"):
            values[name] = f"A can{char}of soup sits on a shelf beside a jar of {name[-1]} beans{char}."
        elif name.startswith(("text_present_", "start_ms_", "end_ms_")):
            values[name] = f"{values[name] or 'yes'}{char}"
    return values


def test_worker_page_answers_reach_qc_and_the_dataset(sim, tmp_path: Path) -> None:
    """Through the simulator's worker pages (externalSubmit), collection, QC, decisions, blocks and
    the outputs: every answer as typed in the ledger and caption_original, spaces in caption."""
    run = make_run(sim, tmp_path / "h.db")
    plan_items(run, limit=50)
    run.store.set_batch(run.cfg.name, 1, status="planned")
    publish_batch(run, 1)
    run.store.set_batch(run.cfg.name, 1, status="published")
    hits = run.store.rows("SELECT hit_id FROM hits WHERE campaign = ? AND batch = 1", [run.cfg.name])
    typed: dict[str, dict[str, str]] = {}
    for n in range(0, len(TYPED), 5):  # five characters a page (one per item): 7 of the 10 assignments
        accepted = httpx.get(f"{sim.url}/mturk/accept", params={"hitId": hits[n % len(hits)]["hit_id"],
                                                                 "workerId": f"AHAND{n}"})
        values = _fill(httpx.get(f"{sim.url}{accepted.headers['location']}").text, "".join(TYPED[n:n + 5]))
        values["assignmentId"] = httpx.URL(accepted.headers["location"]).params["assignmentId"]
        assert httpx.post(f"{sim.url}/mturk/externalSubmit", data=values).status_code == 200
        typed[values.pop("assignmentId")] = values
    advance_batch(run, 1)
    for assignment, values in typed.items():
        stored = {(r["field"], r["item_id"]): r["value"] for r in run.store.rows(
            "SELECT field, item_id, value FROM answers WHERE assignment_id = ?", [assignment])}
        for i in range(5):
            for field in ("caption", "text_present", "start_ms"):
                assert stored[(field, values[f"image_id_{i}"])] == values[f"{field}_{i}"]
    decided = {r["assignment_id"] for r in run.store.rows("SELECT assignment_id FROM decisions")}
    assert decided >= set(typed)  # QC and the decision step went over every one of them
    struck = next(iter(typed))  # a reviewer strikes one caption: rejected captions are not spell-checked
    run.store.table("struck_captions").insert({"campaign": run.cfg.name, "assignment_id": struck,
                                               "image_id": typed[struck]["image_id_0"], "reviewer": "r",
                                               "reason": "test", "struck_at": 0.0})
    write_outputs(run, tmp_path / "out")
    annotations = json.loads((tmp_path / "out" / "dataset.json").read_text())["annotations"]
    mine = [a for a in annotations if a["assignment_id"] in typed]
    assert len(mine) == 5 * len(typed) and sum(a.get("is_rejected", 0) for a in mine) >= 1
    for a in mine:
        assert a["caption_original"] in {v for values in typed.values() for v in values.values()}
        assert not any(c in a["caption"] for c in NOT_XML) and "A can of soup" in a["caption"]


@pytest.mark.parametrize("char", [*NOT_XML[:3], "\x0b", "\x1b", "\x7f", "\n", " ", "é"])
def test_simulator_refuses_a_worker_id_mturk_would_not_have(sim, client, char: str) -> None:
    from tests.test_sim_contract import hit_type, post

    hit_id = post(client, hit_type(client), n=1, item="42")
    answer = httpx.get(f"{sim.url}/mturk/accept", params={"hitId": hit_id, "workerId": f"AW1{char}"})
    assert answer.status_code == 400 and "1-64 characters, A-Z and 0-9" in answer.text
    assert httpx.get(f"{sim.url}/mturk/accept", params={"hitId": hit_id, "workerId": "AW1"}).status_code == 302


def test_simulator_reads_undecodable_bodies_plainly(sim, client) -> None:
    from tests.test_sim_contract import hit_type, post

    hit_id = post(client, hit_type(client), n=2, item="42")
    ids = []
    for worker in ("ARAW1", "ARAW2"):
        accepted = httpx.get(f"{sim.url}/mturk/accept", params={"hitId": hit_id, "workerId": worker})
        ids.append(httpx.URL(accepted.headers["location"]).params["assignmentId"])
    form = {"content-type": "application/x-www-form-urlencoded"}
    raw = httpx.post(f"{sim.url}/mturk/externalSubmit", headers=form,
                     content=f"assignmentId={ids[0]}&caption_0=".encode() + b"\xed\xa0\x80\xff")
    assert raw.status_code == 400 and "form body is not UTF-8" in raw.json()["Message"]
    escaped = httpx.post(f"{sim.url}/mturk/externalSubmit", headers=form,
                         content=f"assignmentId={ids[1]}&caption_0=a%ED%A0%80b".encode())
    assert escaped.status_code == 200
    listed = {a["WorkerId"]: a for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"]}
    assert parse_answer_xml(listed["ARAW2"]["Answer"])["caption_0"] == "a\ufffd\ufffd\ufffdb"
    assert "ARAW1" not in listed  # refused, so still open: the worker can submit again


def test_task_server_stores_what_was_typed(served: dict[str, Any]) -> None:  # noqa: F811
    """Before: a 400 asking the participant to remove characters they cannot see."""
    for n in range(0, len(TYPED), 5):
        values = _fill(visit(served, f"pc{n}", f"sess-c{n}").text, "".join(TYPED[n:n + 5]))
        assert submit(served, dict(values)).status_code == 303, repr(TYPED[n:n + 5])
        rows = served["store"].rows("SELECT answer_xml FROM assignments WHERE assignment_id = ?", [f"sess-c{n}"])
        ids = [values[f"image_id_{i}"] for i in range(5)]
        stored = answer_rows(f"sess-c{n}", rows[0]["answer_xml"], ids)
        assert {(r["field"], r["item_id"], r["value"]) for r in stored if r["field"] == "caption"} == {
            ("caption", ids[i], values[f"caption_{i}"]) for i in range(5)}  # the answer XML keeps even NUL


def test_task_server_refuses_ids_with_control_characters(served: dict[str, Any]) -> None:  # noqa: F811
    """A participant id is shown in terminals and reports later: no escape sequences get in (each id and
    character on one server: a refusal stores nothing, so none sees another's)."""
    for key in ("PROLIFIC_PID", "SESSION_ID", "STUDY_ID"):
        for char in ("\x0b", "\x1b", "\x00", "\n"):
            params = {"PROLIFIC_PID": "p1", "SESSION_ID": "sess-1", "STUDY_ID": "s" * 24}
            params[key] += char + "]0;owned\x07"
            answer = served["http"].get(f"/task/{served['cfg'].name}", params=params)
            assert answer.status_code == 400 and "is not a Prolific ID" in answer.text, (key, char)
            assert served["store"].table("task_sessions").count == 0, (key, char)


def test_task_server_reads_undecodable_bytes_as_replacement_characters(served: dict[str, Any]) -> None:  # noqa: F811
    values = answers_for(visit(served, "pr", "sess-r").text)
    body = urlencode({k: v for k, v in values.items() if k != "caption_0"}).encode() + b"&caption_0=a\xffb%ED%A0%80"
    answer = served["http"].post(f"/task/{served['cfg'].name}/submit", content=body,
                                 headers={"content-type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 303
    xml = served["store"].rows("SELECT answer_xml FROM assignments WHERE assignment_id = 'sess-r'")[0]["answer_xml"]
    assert parse_answer_xml(xml)["caption_0"] == "a\ufffdb\ufffd\ufffd\ufffd"

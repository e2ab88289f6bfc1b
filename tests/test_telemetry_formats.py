"""One format, two writers: a record Chromium's recorder wrote on the real caption page and
the simulator's record for the same page pass the same check, carry the same keys per field, and QC
reads both the same way (an outside paste flagged, typing not)."""

from __future__ import annotations

import json
import random
from typing import Any

import pandas as pd
import pytest

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.page_filling import fill_form
from flows.sim.people.crowd import BankEntry
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, new_worker
from flows.taskserver.task_server import invite_link
from qc.runner import prepare, run_rules
from qc.submit_rules import SubmitRules
from qc.telemetry import parse_record
from tests.test_browser_telemetry import EXTERNAL, TYPED, from_outside, next_item, served, stored, submit, tab

pytestmark = pytest.mark.browser
__all__ = ["served", "tab"]  # the page-side test's fixtures: the task server and a Chromium tab
FIRST = "A red mug with a white handle sits on a wooden kitchen table."


def qc_frame(record: str, captions: dict[str, str]) -> pd.DataFrame:
    rows = [{"assignment_id": "a1", "worker_id": "W", "image_id": name, "caption": text, "telemetry": record,
             "telemetry_field": name} for name, text in captions.items()]
    return prepare(pd.DataFrame(rows))


def test_chromium_and_the_simulator_write_one_format(served: dict[str, Any], tab) -> None:
    tab.goto(invite_link(served["site"].secret, served["url"], served["cfg"].name, "fmt"))
    html = tab.content()
    tab.click("#caption_0")
    tab.keyboard.type(FIRST)
    next_item(tab, 0)
    from_outside(tab, EXTERNAL)
    tab.click("#caption_1")
    tab.keyboard.press("Control+V")
    next_item(tab, 1)
    texts = {"caption_0": FIRST, "caption_1": EXTERNAL}
    for i, text in zip((2, 3, 4), [*TYPED, TYPED[0].replace("dog", "cat")], strict=True):
        tab.click(f"#caption_{i}")
        tab.keyboard.type(text)
        texts[f"caption_{i}"] = text
        if i < 4:
            next_item(tab, i)
    submit(tab)
    browser_text = stored(served, "hitflow_telemetry")
    browser = parse_record(browser_text)

    fields = form_fields(html)
    items = [f.attrs["data-item"] for f in fields if f.attrs.get("data-sim-fill") == "caption"]
    bank = {item: BankEntry(["A small brown dog sleeps on a blue blanket near the window."], 0) for item in items}
    worker = new_worker("assistant_paster", PROFILE_DEFAULTS["assistant_paster"], random.Random(3))
    values = fill_form(worker, fields, SubmitRules(), 0.0, 240.0, bank, random.Random(4))
    simulated = parse_record(values["hitflow_telemetry"])

    assert set(simulated["f"]) == set(browser["f"]) == set(texts)
    for name in texts:  # the same keys, field by field (the simulator adds nothing the page does not write)
        assert set(simulated["f"][name]) == set(browser["f"][name]), name
    assert set(simulated) == set(browser)
    # (typing_cadence is left out: Playwright types at machine speed, which that rule rightly calls a script)
    flags = run_rules(qc_frame(browser_text, texts), {}, ("paste_external", "untyped_text", "switch_then_paste"))
    assert sorted(zip(flags["rule"], flags["image_id"], strict=True)) == [("paste_external", "caption_1"),
                                                                         ("untyped_text", "caption_1")]
    sim_texts = {name: values[name] for name in texts}
    sim_flags = run_rules(qc_frame(values["hitflow_telemetry"], sim_texts), {}, ("paste_external",))
    assert set(sim_flags["image_id"]) <= set(texts) and len(sim_flags) >= 4  # canned captions aside
    assert json.loads(browser_text)["v"] == json.loads(values["hitflow_telemetry"])["v"] == 1

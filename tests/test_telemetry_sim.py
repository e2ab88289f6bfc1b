"""The simulated crowd's text telemetry: the simulator fills the real page's
``hitflow_telemetry`` field with a record the shared check accepts, and its profiles behave as
modelled: honest people (note-pasters, fast and slow typists) never look like assistant pasters."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pandas as pd

from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.page_telemetry import with_telemetry
from flows.core.pages.templates import render, sample_context
from flows.sim.pages.page_filling import fill_form
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, new_worker
from flows.sim.people.typing_model import typing_cps
from qc.runner import TELEMETRY_RULES, prepare, run_rules
from qc.submit_rules import SubmitRules
from qc.telemetry import parse_record

BANK_CAPTIONS = ["A white mug of coffee on a wooden desk beside a closed laptop computer.",
                 "Someone holds a can of tomato soup above a kitchen counter with a red label.",
                 "A grey remote control lies on a patterned cushion of a brown sofa."]
PROFILES = ("diligent", "note_paster", "fast_typist", "slow_typist", "assistant_paster", "partial_paster",
            "instruction_echo", "canned_abuser")


def filled_pages(profile: str, workers: int, pages: int) -> list[tuple[str, dict[str, str], list[str]]]:
    """(worker id, submitted values, caption field names) for ``pages`` caption pages per worker."""
    from flows.sim.people.crowd import BankEntry

    context = sample_context("caption")
    html = with_telemetry(render("caption.html.j2", context), "Typing behaviour on this page is recorded.")
    fields = form_fields(html)
    names = [f.name for f in fields if f.attrs.get("data-sim-fill") == "caption"]
    items = [f.attrs.get("data-item", "") for f in fields if f.attrs.get("data-sim-fill") == "caption"]
    bank = {item: BankEntry(BANK_CAPTIONS, 0) for item in items}
    rng = random.Random(f"test|{profile}")
    out = []
    for _ in range(workers):
        worker = new_worker(profile, PROFILE_DEFAULTS[profile], rng)
        for page in range(pages):
            # each page shows other images: the sample page's, as "<image>~<page>" (the bank reads the part before ~)
            fresh = [replace(f, attrs={**f.attrs, "data-item": f"{f.attrs['data-item']}~{page}"})
                     if f.attrs.get("data-item") else f for f in fields]
            values = fill_form(worker, fresh, SubmitRules(), 1000.0 * page, 1000.0 * page + 300, bank, rng)
            out.append((worker.worker_id, values, names))
    return out


def test_the_simulator_writes_the_page_s_record_and_the_shared_check_accepts_it() -> None:
    for profile in PROFILES:
        for _worker, values, names in filled_pages(profile, 2, 1):
            record = parse_record(values["hitflow_telemetry"])  # the check every reader uses
            assert set(record["f"]) == set(names), profile
            for name in names:
                f = record["f"][name]
                assert f["len"] == len(values[name])
                assert f["paste_x"] + f["paste_p"] == sum(p[1] for p in f["paste"])
                assert f["keys"] >= f["typed"] + f["del"] if f["typed"] else f["keys"] == 0
            assert len(values["hitflow_telemetry"]) < 8000  # a page of five captions stays small
            # no text in the record: only counts, times and the p/x verdicts
            assert not any(values[name][:12] in values["hitflow_telemetry"] for name in names)


def test_typing_speeds_follow_the_published_distribution() -> None:
    rng = random.Random(7)
    speeds = {p: [typing_cps(new_worker(p, PROFILE_DEFAULTS[p], rng)) * 12 for _ in range(400)]  # words a minute
              for p in ("diligent", "fast_typist", "slow_typist")}
    mean = sum(speeds["diligent"]) / 400
    assert 47 <= mean <= 57  # Dhakal et al. 2018: 51.56 words a minute on average
    assert min(speeds["fast_typist"]) >= 75 and max(speeds["slow_typist"]) <= 32


def test_rules_on_the_simulated_crowd_flag_pasters_and_leave_honest_people_alone() -> None:
    rows = []
    for profile in PROFILES:
        for worker, values, names in filled_pages(profile, 6, 4):
            for name in names:
                rows.append({"assignment_id": f"{worker}-{len(rows)}", "worker_id": worker, "image_id": name,
                             "caption": values[name], "telemetry": values["hitflow_telemetry"],
                             "telemetry_field": name, "profile": profile})
    df = pd.DataFrame(rows)
    flags = run_rules(prepare(df.drop(columns="profile")), {}, TELEMETRY_RULES)
    profile_of = dict(zip(df["worker_id"], df["profile"], strict=True))
    counts = {(rule, p): 0 for rule in TELEMETRY_RULES for p in PROFILES}
    for (rule, worker), n in flags.groupby(["rule", "worker_id"]).size().items():
        counts[(rule, profile_of[worker])] += int(n)
    share = {key: n / (len(df) // len(PROFILES)) for key, n in counts.items()}
    for p in ("diligent", "fast_typist", "slow_typist", "instruction_echo", "canned_abuser"):
        assert all(share[(rule, p)] == 0 for rule in TELEMETRY_RULES), (p, share)
    assert share[("paste_external", "assistant_paster")] == 1.0
    assert share[("paste_external", "partial_paster")] >= 0.9  # a few came back as slowly as they type
    # a third of the note-paster's captions are drafted elsewhere and pasted: their own words, away as
    # long as they type, so no telemetry rule flags them (before: paste_external on each)
    assert all(share[(rule, "note_paster")] == 0 for rule in TELEMETRY_RULES), share
    assert share[("switch_then_paste", "note_paster")] == 0  # their own words take as long as typing them
    assert share[("switch_then_paste", "assistant_paster")] >= 0.5
    assert share[("typing_cadence", "fast_typist")] == 0
    record = json.loads(df.loc[df["profile"] == "instruction_echo", "telemetry"].iloc[0])
    assert all(f["paste_x"] == 0 for f in record["f"].values())  # copied on the page: never "external"

"""The simulator's memory per HIT: the Question and answers kept packed, replies unchanged.

At 330,000 images the simulator grew to ~8 GB (~130 KB a HIT: the page twice, its parsed form, five
answers); docs/simulator-memory.md has the figures. These tests hold the packed state to its promise:
what the requester reads back (GetHIT, listings, answers, a reloaded state file) is what was posted.
"""

from __future__ import annotations

import ctypes
import gc
import json
import sqlite3
import subprocess
import sys
import tracemalloc
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.core.pages.mturk_forms import html_question, parse_answer_xml
from flows.core.pages.templates import render, sample_context
from flows.sim.mturk.mturk_api import OPERATIONS
from flows.sim.mturk.packed_text import Packed, PagePacker, pack, pack_answer, unpack
from flows.sim.service.server import SimServer
from tests.conftest import advance
from tests.test_sim_contract import hit_type
from tests.test_sim_state import boto

CAPTION_PAGE = html_question(render("caption.html.j2", sample_context("caption")))  # ~31 KB, as a campaign posts


def _post(m, type_id: str, n: int = 5, question: str = CAPTION_PAGE, note: str = "") -> str:
    reply = OPERATIONS["CreateHITWithHITType"](m, {"HITTypeId": type_id, "MaxAssignments": n,
                                                   "LifetimeInSeconds": 86400, "Question": question,
                                                   "RequesterAnnotation": note})
    return str(reply["HIT"]["HITId"])


def _sim_bytes() -> int:
    """Bytes held now that were allocated with simulator code on the stack: another test's threads
    left running in this process (an xdist worker runs many files) do not count."""
    only_sim = tracemalloc.Filter(True, "*/flows/sim/*", all_frames=True)
    return sum(s.size for s in tracemalloc.take_snapshot().filter_traces([only_sim]).statistics("filename"))


def _caption_type(m) -> str:
    return str(OPERATIONS["CreateHITType"](m, {"Title": "Describe", "Description": "Describe five images",
                                                "Reward": "0.50", "AssignmentDurationInSeconds": 3600})["HITTypeId"])


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=0, max_size=3000), zdict=st.binary(max_size=400))
def test_packed_text_reads_back_as_written(text: str, zdict: bytes) -> None:
    assert unpack(pack(text, zdict)) == text
    assert unpack(pack_answer(text)) == text
    assert isinstance(pack(text), str) == (len(text) <= 256)  # short texts cost more packed than plain


def test_pages_of_one_hit_type_pack_against_its_first_page() -> None:
    pages = PagePacker()
    first, second = CAPTION_PAGE, CAPTION_PAGE.replace("Describe", "Portray")
    packed = [pages.pack("T1", first), pages.pack("T1", second), pages.pack("T2", second)]
    assert all(isinstance(p, Packed) for p in packed) and [unpack(p) for p in packed] == [first, second, second]
    assert isinstance(packed[1], Packed) and len(packed[1].blob) < len(zlib.compress(second.encode(), 6)) / 5


def test_a_caption_hit_costs_the_simulator_a_few_kilobytes() -> None:
    """~116 KB a HIT before (its page as XML and as HTML, its parsed form, five 4 KB answers); now 20-21 KB, which
    the order of the tests before it in one process moves by a few hundred bytes: the bound leaves room for that."""
    with SimServer(seed=2) as sim:
        m = sim.market
        type_id = _caption_type(m)
        _post(m, type_id)  # the type's first page, its imports and caches: not what a further HIT costs
        gc.collect()
        tracemalloc.start(8)
        try:
            before = _sim_bytes()
            for i in range(8):
                _post(m, type_id, note=f"item-{i}")
            m.advance(0)  # workers are chosen when the clock moves: their answers count here
            gc.collect()
            per_hit = (_sim_bytes() - before) / 8
        finally:
            tracemalloc.stop()
        assert sum(len(m.hits[h].assignment_ids) for h in m.hits) >= 30  # workers took the HITs: answers are kept
        assert per_hit < 24_000, f"{per_hit:.0f} bytes a HIT"


def test_replies_give_back_the_question_and_answers_as_posted(tmp_path: Path) -> None:
    with SimServer(seed=4, state=tmp_path / "sim.db") as sim:
        client = boto(sim)
        type_id = hit_type(client, quals=[])
        hit_ids = [client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=3, LifetimeInSeconds=86400,
                                                   Question=CAPTION_PAGE)["HIT"]["HITId"] for _ in range(2)]
        advance(sim, 6 * 3600)
        view = sim.market.hit_view(sim.market.hits[hit_ids[1]])
        assert list(view).index("Question") == list(view).index("Description") + 1  # where MTurk's model has it
        assert client.get_hit(HITId=hit_ids[1])["HIT"]["Question"] == CAPTION_PAGE
        listed = client.list_reviewable_hits(MaxResults=1)
        assert listed["HITs"][0]["Question"] == CAPTION_PAGE and listed["NextToken"]
        answers = {a["AssignmentId"]: a["Answer"] for h in hit_ids
                   for a in client.list_assignments_for_hit(HITId=h, MaxResults=100)["Assignments"]}
        assert len(answers) == 6 and all(parse_answer_xml(a) for a in answers.values())
        assert sim.market.hits[hit_ids[1]].question.html in CAPTION_PAGE  # the page, unpacked when asked for
    stored = sqlite3.connect(tmp_path / "sim.db").execute(
        "SELECT value FROM records WHERE kind = 'hit' AND key = ?", [hit_ids[1]]).fetchone()[0]
    assert json.loads(zlib.decompress(stored))["fields"]["Question"] == CAPTION_PAGE  # the file keeps the text
    with SimServer(seed=None, state=tmp_path / "sim.db") as again:  # packed again against a new dictionary
        client = boto(again)
        assert [client.get_hit(HITId=h)["HIT"]["Question"] for h in hit_ids] == [CAPTION_PAGE] * 2
        assert {aid: client.get_assignment(AssignmentId=aid)["Assignment"]["Answer"] for aid in answers} == answers
        first, second = (again.market.hits[h].fields for h in hit_ids)  # the type's values, not a copy each
        for key in ("Title", "Description", "Reward", "QualificationRequirements", "HITGroupId"):
            assert first[key] is second[key], key


def test_decided_answers_are_read_from_the_state_file_not_kept(tmp_path: Path) -> None:
    """Approving frees each answer (~4 KB of XML, ~800 bytes packed); GetAssignment still returns it,
    as does a reloaded simulator and the market's own records after the simulator stopped."""
    with SimServer(seed=5, state=tmp_path / "sim.db") as sim:
        m = sim.market
        type_id = _caption_type(m)
        _post(m, type_id, note="warm-up")  # the first HIT and first approval: imports and caches
        tracemalloc.start(8)  # from before the answers exist, so that freeing them shows
        try:
            for i in range(6):
                _post(m, type_id, note=f"item-{i}")
            sim.httpd.commit()
            m.advance(6 * 3600)
            answers = {aid: a.answer for aid, a in m.assignments.items() if m.visible(a)}
            first, *rest = answers
            OPERATIONS["ApproveAssignment"](m, {"AssignmentId": first})
            sim.httpd.commit()
            gc.collect()
            before = _sim_bytes()
            for aid in rest:
                OPERATIONS["ApproveAssignment"](m, {"AssignmentId": aid})
            sim.httpd.commit()  # once: the answers are let go when their rows are written
            gc.collect()
            freed = before - _sim_bytes()
        finally:
            tracemalloc.stop()
        assert len(rest) >= 20 and freed > 150 * len(rest), f"{freed} bytes freed by approving {len(rest)}"
        replies = {aid: OPERATIONS["GetAssignment"](m, {"AssignmentId": aid})["Assignment"] for aid in answers}
        assert {aid: r["Answer"] for aid, r in replies.items()} == answers
        assert {r["AssignmentStatus"] for r in replies.values()} == {"Approved"}
    assert {aid: m.assignments[aid].answer for aid in answers} == answers  # stopped: read from the file
    with SimServer(seed=None, state=tmp_path / "sim.db") as again:
        assert {aid: again.market.assignments[aid].answer for aid in answers} == answers
        assert again.market.assignments == m.assignments  # the records, field by field


ARENA_PROBE = """
import ctypes, sys, threading
from flows.core.run.malloc_arenas import limit_malloc_arenas
if sys.argv[1] == "capped":
    assert limit_malloc_arenas(1)
libc, all_in = ctypes.CDLL(None), threading.Barrier(6)
libc.malloc.restype = ctypes.c_void_p
def work():  # six threads alive at once, each allocating with malloc itself
    all_in.wait()
    [libc.malloc(1000) for _ in range(100)]
    all_in.wait()
threads = [threading.Thread(target=work) for _ in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc.malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "malloc_stats"), reason="not glibc: no malloc arenas to cap")
def test_sim_serve_caps_the_malloc_arenas_its_threads_make() -> None:
    def arenas(how: str) -> int:
        done = subprocess.run([sys.executable, "-c", ARENA_PROBE, how], capture_output=True, text=True, check=True)
        return sum(line.startswith("Arena ") for line in done.stderr.splitlines())
    assert arenas("capped") == 1 < arenas("free")


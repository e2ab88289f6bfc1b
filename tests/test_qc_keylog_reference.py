"""`hitflow qc` on a keystroke-logged crowd-form batch against a behaviour reference (done-when 3).

No real keystroke-logged crowd-form batch exists in ../shared/data (none of its SOURCE.md files names
one), so the batch is a fixture written in the documented shape (tests/keylog_batch.py): 200 workers
who type, paste an assistant's text whole or in part, edit a paste down, copy or cut on the page and
paste back, or paste a draft from elsewhere. The reference is each worker's behaviour replayed over a
text buffer: the share of the final text that arrived by pasting text not copied on the page."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.cli.main import main
from tests.keylog_batch import BEHAVIOURS, PAGE_HABITS, batch, write

SHARE = 0.5  # paste_external's default: at least half the final text pasted from outside the page


def test_qc_agrees_with_the_behaviour_reference_on_95_percent_of_rows(tmp_path: Path, capsys) -> None:
    rows = batch(200)
    results = write(tmp_path / "Batch_4400_batch_results.csv", rows)
    out = tmp_path / "flags.csv"
    assert main(["qc", str(results), "--out", str(out)]) == 0
    assert "unreadable" not in capsys.readouterr().err  # untimed ["copy", text] entries read
    flags = pd.read_csv(out, keep_default_na=False, dtype=str)
    flagged = set(flags.loc[flags["rule"] == "paste_external", "assignment_id"])
    reference = {r["AssignmentId"] for r in rows if float(r["Reference.external_share"]) >= SHARE}
    behaviours = {r["Reference.behaviour"] for r in rows}
    assert {"paster", "in_page", "cut_move", "edited_paste"} <= behaviours
    assert len(reference) >= 30 and len(flagged) >= 30  # both verdicts occur, often
    agree = sum((r["AssignmentId"] in flagged) == (r["AssignmentId"] in reference) for r in rows)
    assert agree / len(rows) >= 0.95, sorted(flagged ^ reference)
    rubbed_out = {r["AssignmentId"] for r in rows if r["Reference.behaviour"] == "edited_paste"
                  and float(r["Reference.external_share"]) < SHARE}
    assert rubbed_out and not rubbed_out & flagged  # a paste mostly deleted again is not the text's origin
    in_page = {r["AssignmentId"] for r in rows if r["Reference.behaviour"] in ("in_page", "cut_move")}
    assert not in_page & flagged  # text copied on the page and pasted back is never an outside paste


def test_pastes_of_the_pages_own_text_are_not_outside_pastes(tmp_path: Path) -> None:
    """The own-page rehearsal work's two habits beside the others: a passage copied on the page and pasted back with its
    surrounding whitespace differing from the copy's, and a sentence of the page's own text (the batch's
    Input.passage) pasted with no copy logged. The reference says both are from the page."""
    rows = batch(200, seed=58, behaviours=(*BEHAVIOURS, *PAGE_HABITS, *PAGE_HABITS))
    out = tmp_path / "flags.csv"
    assert main(["qc", str(write(tmp_path / "Batch_5800_batch_results.csv", rows)), "--out", str(out)]) == 0
    flags = pd.read_csv(out, keep_default_na=False, dtype=str)
    flagged = set(flags.loc[flags["rule"] == "paste_external", "assignment_id"])
    habits = {r["AssignmentId"] for r in rows if r["Reference.behaviour"] in PAGE_HABITS}
    assert len(habits) >= 40 and not habits & flagged
    reference = {r["AssignmentId"] for r in rows if float(r["Reference.external_share"]) >= SHARE}
    assert len(reference & flagged) >= 0.9 * len(reference)  # the outside pastes are still found
    agree = sum((r["AssignmentId"] in flagged) == (r["AssignmentId"] in reference) for r in rows)
    assert agree / len(rows) >= 0.95, sorted(flagged ^ reference)

"""`hitflow qc` on a keystroke-logged crowd-form batch against a behaviour reference (issue 44, done-when 3).

No real keystroke-logged crowd-form batch exists in ../shared/data (none of its SOURCE.md files names
one), so the batch is a fixture written in the documented shape (tests/keylog_batch.py): 200 workers
who type, paste an assistant's text whole or in part, edit a paste down, copy or cut on the page and
paste back, or paste a draft from elsewhere. The reference is each worker's behaviour replayed over a
text buffer: the share of the final text that arrived by pasting text not copied on the page."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.cli.main import main
from tests.keylog_batch import batch, write

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

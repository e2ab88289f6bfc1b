"""The Arrow path for plain submissions files reads exactly what the careful CSV reader
reads, or steps aside (None) so the careful reader gives its own one-line message."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import qc_reference as old
from flows.core.errors import InputFormatError
from flows.platforms.submission_formats import _plain_fast, read_submissions
from tests.fuzz_support import FUZZ
from tests.test_fuzz_csv import COLUMNS, corrupt, csv_bytes, layout, rows

HOW = ["truncate", "insert", "quote", "utf16", "latin1", "comma", "blank"]


def careful(path: Path) -> pd.DataFrame | str:
    try:
        return old.read_submissions(path)
    except InputFormatError as exc:
        return str(exc)


@FUZZ
@given(rows, layout, st.booleans())
def test_generated_files_read_the_same_either_way(tmp_path: Path, body: list[tuple], how: dict[str, bool],
                                                   canned: bool) -> None:
    path = tmp_path / "subs.csv"
    header = [*COLUMNS, "is_precanned"] if canned else COLUMNS
    path.write_bytes(csv_bytes(header, [[*r, "yes" if k % 2 else "0"] if canned else list(r)
                                        for k, r in enumerate(body)], **how))
    fast = _plain_fast(path)
    assert fast is not None  # a well-formed plain file takes the fast path
    pd.testing.assert_frame_equal(fast, old.read_submissions(path))


@FUZZ
@given(rows, st.sampled_from(HOW), st.integers(min_value=0), st.binary(min_size=1, max_size=6))
def test_damaged_files_read_the_same_or_step_aside(tmp_path: Path, body: list[tuple], how: str, at: int,
                                                    junk: bytes) -> None:
    path = tmp_path / "subs.csv"
    path.write_bytes(corrupt(csv_bytes(COLUMNS, [list(r) for r in body]), how, at, junk))
    try:
        fast = _plain_fast(path)
    except InputFormatError:  # unreadable text: read_text's own message, as on the careful path
        return
    expected = careful(path)
    if isinstance(expected, str):
        assert fast is None, expected  # the careful reader refuses it: so must the fast path
    elif fast is not None:
        pd.testing.assert_frame_equal(fast, expected)


@pytest.mark.parametrize("body", [
    '1,w,i,"a caption"x,5\n',  # text after a closing quote: csv's strict reader refuses it, Arrow would not
    '1,w,i,"never closed,5\n',  # an unterminated quote: Arrow would read to the end of the file
    "1,w,i,caption,5,extra\n",  # a ragged row
    "1,w,i,caption,\n",  # no work time: the careful path reports the line
    "1,w,i,caption,nan\n",
])
def test_malformed_rows_get_the_careful_message(tmp_path: Path, body: str) -> None:
    path = tmp_path / "subs.csv"
    path.write_text(",".join(COLUMNS) + "\n" + body, encoding="utf-8")
    assert _plain_fast(path) is None
    with pytest.raises(InputFormatError) as caught:
        read_submissions(path)
    assert str(caught.value).startswith(f"{path}:")


def test_an_id_repeated_on_many_rows_is_one_string(tmp_path: Path) -> None:
    """Each distinct worker, image and assignment id is one Python string however many rows repeat it
    (a string a row held ~30 MB more at 200,000 captions)."""
    path = tmp_path / "subs.csv"
    lines = ["assignment_id,worker_id,image_id,caption,work_time_s"]
    lines += [f"A{k // 4},W{k % 3},I{k // 2},A mug number {k % 2} on a desk.,{60 + k}" for k in range(24)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = read_submissions(path)
    for column, distinct in (("worker_id", 3), ("image_id", 12), ("assignment_id", 6)):
        assert frame[column].nunique() == distinct
        assert len({id(v) for v in frame[column].tolist()}) == distinct

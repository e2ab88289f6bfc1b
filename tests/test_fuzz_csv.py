"""Hostile CSV files, generated: every reader returns the exact text or fails with one line (exit 3)."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.campaigns.campaign_plan import checked_items
from flows.campaigns.offline import offline_qualify
from flows.cli.main import main
from flows.core.config.config import CampaignConfig, load_config
from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import FIELD_LIMIT, read_csv_table
from flows.core.inputs.csv_writing import write_csv
from flows.platforms.submission_formats import read_submissions
from tests.fuzz_support import FUZZ, assert_one_line, hostile_text
from tests.test_formula_cells import spreadsheet_runs

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ["assignment_id", "worker_id", "image_id", "caption", "work_time_s"]
cell = hostile_text.filter(lambda t: "\x00" not in t and not any(0xD800 <= ord(c) <= 0xDFFF for c in t))
rows = st.lists(st.tuples(cell, cell, cell, cell, st.floats(min_value=0, max_value=1e6)), min_size=1, max_size=6)
layout = st.fixed_dictionaries({"bom": st.booleans(), "crlf": st.booleans(), "tab": st.booleans()})


@functools.cache
def demo_config() -> CampaignConfig:
    """The demo's config, read once (each example read it again); a test takes a copy naming its own items."""
    return load_config(ROOT / "config" / "vizwiz_captions.toml")


def csv_bytes(header: list[str], body: list[list[object]], bom: bool = False, crlf: bool = False,
              tab: bool = False) -> bytes:
    out = io.StringIO(newline="")
    # csv leaves a lone CR unquoted when rows end in LF only; such exports quote every field
    writer = csv.writer(out, delimiter="\t" if tab else ",", lineterminator="\r\n" if crlf else "\n",
                        quoting=csv.QUOTE_MINIMAL if crlf else csv.QUOTE_ALL)
    writer.writerow(header)
    writer.writerows(body)
    return (b"\xef\xbb\xbf" if bom else b"") + out.getvalue().encode("utf-8")


def read_or_error(reader, path: Path):  # type: ignore[no-untyped-def]
    try:
        return reader(path)
    except InputFormatError as exc:
        return assert_one_line(exc, 3)


@FUZZ
@given(rows, layout)
def test_submissions_keep_every_caption_exactly(tmp_path: Path, body: list[tuple], how: dict[str, bool]) -> None:
    path = tmp_path / "subs.csv"
    path.write_bytes(csv_bytes(COLUMNS, [list(r) for r in body], **how))
    frame = read_submissions(path)
    assert frame["caption"].tolist() == [r[3] for r in body]
    assert frame["worker_id"].tolist() == [r[1] for r in body]
    assert frame["work_time_s"].tolist() == pytest.approx([r[4] for r in body])


def corrupt(raw: bytes, how: str, at: int, junk: bytes) -> bytes:
    at = at % (len(raw) + 1)
    return {"truncate": raw[:at], "insert": raw[:at] + junk + raw[at:], "quote": raw[:at] + b'"' + raw[at:],
            "nul": raw[:at] + b"\x00" + raw[at:], "utf16": raw.decode("utf-8").encode("utf-16"),
            "latin1": raw[:at] + b"\xe9\xff" + raw[at:], "comma": raw.replace(b"\n", b",x\n", 1),
            "empty": b"", "blank": b"\n \n"}[how]


@FUZZ
@given(rows, st.sampled_from(["truncate", "insert", "quote", "nul", "utf16", "latin1", "comma", "empty", "blank"]),
       st.integers(min_value=0), st.binary(min_size=1, max_size=6))
def test_corrupted_files_never_raise_anything_else(tmp_path: Path, body: list[tuple], how: str, at: int,
                                                   junk: bytes) -> None:
    raw = corrupt(csv_bytes(COLUMNS, [list(r) for r in body]), how, at, junk)
    for name, reader in (("subs.csv", read_submissions),
                         ("any.csv", lambda p: read_csv_table(p, ("caption",), "a table"))):
        (tmp_path / name).write_bytes(raw)
        result = read_or_error(reader, tmp_path / name)
        if how in ("utf16", "empty", "blank", "comma") or (how == "nul" and name == "any.csv"):
            assert isinstance(result, str), f"{how} must be refused"
        elif how == "nul":  # a results file: a NUL in one row is that row's fault, flagged; in the header, the file's
            assert isinstance(result, str) or "NUL" in " ".join(result["malformed"]), "a NUL must be named"


def test_a_nul_inside_a_utf8_sequence_is_named_as_a_nul(tmp_path: Path) -> None:
    """Found by the fuzz test above: a NUL that splits a two-byte character makes the row both NUL and
    not UTF-8; the row was flagged for its bad bytes only, and a NUL must be named."""
    raw = csv_bytes(COLUMNS, [["a1", "w1", "i1", "fine", 1.0], ["a2", "w2", "i2", "caf\u00e9", 2.0]])
    split = raw.replace("\u00e9".encode(), b"\xc3\x00\xa9")
    (tmp_path / "subs.csv").write_bytes(split)
    result = read_submissions(tmp_path / "subs.csv")
    assert list(result["malformed"]) == ["", "holds a NUL byte"]


@FUZZ
@given(st.lists(st.tuples(cell.filter(lambda t: t.strip() != ""), st.sampled_from(["a.jpg", "=cmd.jpg", "<b>.jpg"])),
                min_size=1, max_size=5, unique_by=lambda r: r[0].strip()), layout)
def test_item_files_with_bom_and_crlf_load(tmp_path: Path, items: list[tuple[str, str]], how: dict[str, bool]) -> None:
    path = tmp_path / "items.csv"
    body = [[image_id, name, f"https://x.org/{i}.jpg"] for i, (image_id, name) in enumerate(items)]
    path.write_bytes(csv_bytes(["image_id", "file_name", "url"], body, how["bom"], how["crlf"]))
    cfg = dataclasses.replace(demo_config(), items=path)
    loaded = list(checked_items(cfg))
    assert [r["image_id"] for r in loaded] == [i.strip() for i, _ in items]
    assert [r["file_name"] for r in loaded] == [n for _, n in items]


def test_huge_fields_work_up_to_the_limit_and_fail_in_one_line_beyond(tmp_path: Path) -> None:
    path = tmp_path / "subs.csv"
    big = "a" * 200_000  # over csv's default 128 KB limit
    path.write_bytes(csv_bytes(COLUMNS, [["a1", "W1", "i1", big, 5]]))
    assert read_submissions(path)["caption"].tolist() == [big]
    over = "b" * (FIELD_LIMIT + 1)  # one past the limit (10,000,000 cost ten times the CPU for the same lines)
    path.write_bytes(csv_bytes(COLUMNS, [["a1", "W1", "i1", over, 5]]))
    message = read_or_error(read_submissions, path)  # its only row: the file holds nothing to check
    assert isinstance(message, str) and f"over the {FIELD_LIMIT:,} a cell may hold" in message and "line 2" in message
    path.write_bytes(csv_bytes(COLUMNS, [["a1", "W1", "i1", over, 5], ["a2", "W2", "i1", "A dog.", 5]]))
    frame = read_submissions(path).set_index("assignment_id")  # beside another row: flagged, the other read
    assert f"caption holds {len(over):,} characters" in frame.loc["a1", "malformed"] and frame.loc["a1", "line"] == 2
    assert frame.loc["a2", "malformed"] == "" and frame.loc["a2", "caption"] == "A dog."
    path.write_bytes(csv_bytes(COLUMNS, [["a1", "W1", "i1", over, 5]]))
    message = read_or_error(lambda p: read_csv_table(p, ("caption",), "a table"), path)  # other files: refused
    assert isinstance(message, str) and f"longer than {FIELD_LIMIT}" in message and f"{path}:2" in message


@pytest.mark.parametrize(("content", "needle"), [
    (b"", "is empty; the item file has nothing to read: fill it in, or name the file you meant"),
    (b"image_id,file_name,url\n1,a.jpg,https://x/a.jpg,extra\n", ":2: 4 field(s), but the item file has 3"),
    (b'image_id,file_name,url\n1,"a.jpg,https://x/a.jpg\n', "check the quotes"),
    # a quote opened on line 3 and never closed: named at line 3, not where csv gave up (found by hand)
    (b'image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n2,"b.jpg,https://x/b.jpg\n3,c.jpg,https://x/c.jpg\n',
     ":3: cannot read the CSV (a quoted field opened on line 3 is never closed, read to line 4"),
    (b'image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n2,"b.jpg,https://x/b.jpg\n'
     + b"3,c.jpg,https://x/c.jpg\n" * 50_000, ":3: cannot read the CSV (a quoted field opened on line 3 runs past"),
    ("image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n".encode("utf-16"), "UTF-16"),
    (b"image_id,file_name,url\n1,\xe9.jpg,https://x/a.jpg\n", "not UTF-8 text (byte 0xe9"),
    (b"image_id,image_id,url\n1,2,https://x/a.jpg\n", "repeated column name"),
    (b"image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n2,b\x00.jpg,https://x/b.jpg\n", ":3: holds a NUL byte"),
    (b"image_id,file_name,url\n1,a\x00.jpg,https://x/a.jpg\n", "not UTF-8 text: save it as UTF-8 text"),
])
def test_item_file_problems_are_one_line(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "items.csv"
    path.write_bytes(content)
    cfg = dataclasses.replace(demo_config(), items=path)
    with pytest.raises(InputFormatError) as caught:
        list(checked_items(cfg))
    assert needle in assert_one_line(caught.value, 3)


def test_work_time_inf_is_refused_not_a_switch(tmp_path: Path) -> None:
    path = tmp_path / "subs.csv"
    for value in ("inf", "nan", "-5", "1e999"):
        path.write_bytes(csv_bytes(COLUMNS, [["a1", "W1", "i1", "A dog.", value]]))
        message = read_or_error(read_submissions, path)
        assert isinstance(message, str) and "finite number of seconds" in message, value


def run_cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    text = err.getvalue().strip()
    assert "Traceback" not in text and len(text.splitlines()) <= 1, text
    return code, text


def assert_no_formula_cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        table = list(csv.reader(fh))
    assert not [c for row in table for c in row if spreadsheet_runs(c)]  # a plain number like -1 is no formula
    return table


@pytest.mark.slow
@settings(FUZZ, max_examples=30)  # a `hitflow qc` an example; 30 found an unneutralised "@" at seeds 1-3, as 60 did
@given(rows, layout)
def test_offline_qc_flags_are_spreadsheet_safe(tmp_path: Path, body: list[tuple], how: dict[str, bool]) -> None:
    src, out = tmp_path / "subs.csv", tmp_path / "flags.csv"
    # A caption in capitals: caps_lock always flags this worker (the random sample alone could pick the
    # other row: hypothesis found such a case, flags.csv then had no row of this worker to check)
    body = [("=A1", "=HYPERLINK(\"http://evil\")", r[2], "A LOUD CAPTION ABOUT A DOG", r[4]) for r in body[:1]] + body
    src.write_bytes(csv_bytes(COLUMNS, [list(r) for r in body], **how))
    code, err = run_cli(["qc", str(src), "--out", str(out)])
    assert code == 0, err
    table = assert_no_formula_cells(out)
    assert "'=HYPERLINK(\"http://evil\")" in {row[0] for row in table}  # neutralised, not dropped


def test_qualification_answers_with_hostile_cells(tmp_path: Path) -> None:
    answers = tmp_path / "answers.csv"
    answers.write_bytes(csv_bytes(["worker_id", "item_id", "answer"],
                                  [["=1+1", "sp01", "=cmd|' /C calc'!A0"], ["@W", "nope", "-1"]], bom=True))
    workers, problems, problems_path = offline_qualify(answers, tmp_path / "scores.csv")
    assert workers == 2 and problems >= 1
    scores = assert_no_formula_cells(tmp_path / "scores.csv")
    assert_no_formula_cells(problems_path)
    assert {"'=1+1", "'@W"} <= {row[0] for row in scores}


@FUZZ
@given(st.lists(st.tuples(cell, cell), min_size=1, max_size=5))
def test_writer_neutralises_spreadsheet_files_and_keeps_data_files(tmp_path: Path, body: list[tuple]) -> None:
    frame = pd.DataFrame(body, columns=["worker_id", "caption"])
    assert_no_formula_cells(write_csv(frame, tmp_path / "flags.csv"))
    data = read_csv_table(write_csv(frame, tmp_path / "dataset.csv", for_spreadsheet=False))
    assert [r["caption"] for r in data.rows] == [c for _, c in body]
    safe = read_csv_table(tmp_path / "flags.csv")
    for row, (worker, _) in zip(safe.rows, body, strict=True):
        assert row["worker_id"] == (("'" + worker) if spreadsheet_runs(worker) else worker)


def test_unwritable_out_is_one_line(tmp_path: Path) -> None:
    src = tmp_path / "subs.csv"
    src.write_bytes(csv_bytes(COLUMNS, [["a1", "W1", "i1", "A dog.", 5]]))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, err = run_cli(["qc", str(src), "--out", str(blocker / "flags.csv")])
    assert code == 2 and "is a file, not a folder" in err
    with pytest.raises(InputFormatError, match="cannot write"):
        write_csv(pd.DataFrame({"a": ["1"]}), blocker / "x.csv")

"""The reader's quick quoting check (numpy over the bytes) never passes a file csv's strict reader refuses: every
short text over the characters that matter is checked against the regex it stands in front of, and a clean
file of quoted captions passes it without the regex."""

from __future__ import annotations

import csv
import io
import itertools

import pytest

from flows.core.inputs.csv_files import _quoting_plain, _strict_csv, fast_columns


def strict_reader_takes(text: str, delimiter: str) -> bool:
    try:
        list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True))
    except csv.Error:
        return False
    return True


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_the_quick_check_passes_only_what_the_regex_and_csv_take(delimiter: str) -> None:
    alphabet = ["a", '"', delimiter, "\n", "\r", "\u00e9"]
    regex = _strict_csv(delimiter)
    passed = 0
    for n in range(1, 6):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            if _quoting_plain(text.encode("utf-8"), delimiter):
                passed += 1
                assert regex.fullmatch(text), repr(text)
                assert strict_reader_takes(text, delimiter), repr(text)
    assert passed > 1_000  # many texts with quotes that open and close fields pass it


def test_quoted_captions_pass_the_quick_check() -> None:
    text = ('assignment_id,worker_id,caption\r\nA1,W1,"A box, with ""nuts"" inside."\r\nA2,W2,plain text\r\n'
            'A3,W3,"two\nlines"\r\nA4,W4,""\r\n')
    assert _quoting_plain(text.encode(), ",")
    header, table = fast_columns(text) or ([], None)
    assert header == ["assignment_id", "worker_id", "caption"] and table is not None
    assert table.column(2).to_pylist() == ['A box, with "nuts" inside.', "plain text", "two\nlines", ""]


def test_a_quote_inside_an_unquoted_field_is_left_to_the_regex() -> None:
    text = 'a,b\n1,say "hi"\n'
    assert not _quoting_plain(text.encode(), ",") and _strict_csv(",").fullmatch(text)
    assert fast_columns(text) is not None

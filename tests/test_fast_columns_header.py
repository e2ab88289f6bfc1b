"""``fast_columns`` reads a plain first line on its own (not a copy of the whole file) and gets the
same header, and the same verdict, as csv reading the whole file: CRLF, tabs, a quoted or
multi-line header, a carriage return inside the first line, leading blank lines."""

from __future__ import annotations

import csv
import io

import pytest

from flows.core.inputs.csv_files import fast_columns

BODY = "x,y,z\n1,2,3\n"
HEADS = ["a,b,c\n", "a,b,c\r\n", " a , b ,c\n", '"a","b,c"\n', '"a\nb",c\n', "a\rb,c\n", "\na,b,c\n", "\r\na,b,c\n",
         "a,b\n", "a,b,c,d\n", "   \na,b,c\n", "a\tb\tc\n"]


def whole_file_header(text: str, delimiter: str) -> list[str]:
    return next(r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True) if r)


@pytest.mark.parametrize("head", HEADS)
def test_header_as_csv_reads_the_whole_file(head: str) -> None:
    text = head + BODY
    got = fast_columns(text)
    if got is not None:  # a file it leaves to the careful reader (ragged, quoted header ...) is read there
        delimiter = "\t" if "\t" in head else ","
        assert got[0] == [h.strip() for h in whole_file_header(text, delimiter)]
        assert got[1].num_rows == 2 and got[1].column(0).to_pylist() == ["x", "1"]


def test_plain_first_lines_are_read_fast() -> None:
    assert sum(fast_columns(head + BODY) is not None for head in HEADS) >= 5

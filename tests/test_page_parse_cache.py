"""A page read again is not parsed again while its text fits the cache, and every reader gets its own copy."""

from __future__ import annotations

import pytest

from flows.core.pages import mturk_forms
from flows.core.pages.mturk_forms import read_page


def _page(i: int) -> str:
    return (f'<form><label>Item {i}<input type="radio" name="q" value="a" required>A</label>'
            f'<input type="radio" name="q" value="b">B<textarea name="t_{i}"></textarea></form>')


def test_a_batch_of_pages_read_twice_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []

    class Counted(mturk_forms._FormParser):
        def feed(self, data: str) -> None:
            parsed.append(data)
            super().feed(data)

    monkeypatch.setattr(mturk_forms, "_FormParser", Counted)
    pages = [_page(i) + "<!-- parse cache test -->" for i in range(200)]  # a batch's pages: more than 64
    first = [read_page(p) for p in pages]
    again = [read_page(p) for p in pages]
    assert len(parsed) == 200
    assert [list(p.fields) for p in again] == [list(p.fields) for p in first] == [["q", f"t_{i}"] for i in range(200)]


def test_each_reader_gets_its_own_fields() -> None:
    one, two = read_page(_page(7)), read_page(_page(7))
    one.fields["q"].options.append("c")
    one.fields["q"].attrs["x"] = "1"
    assert two.fields["q"].options == ["a", "b"] and "x" not in two.fields["q"].attrs
    assert read_page(_page(7)).fields["q"] == two.fields["q"]
    assert read_page(_page(7)).fields == mturk_forms._parsed(_page(7)).fields  # every field of FormField copied

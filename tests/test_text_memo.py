"""What a page's words state is read once a page and kept within a bound of characters, and a box's limits read
from the memo are what reading the words again gives."""

from __future__ import annotations

from flows.sim.people import plain_text
from flows.sim.people.plain_text import Box, _read_limits, box_limits
from flows.sim.people.text_memo import TextMemo


def test_a_page_read_again_is_not_read_again_and_the_least_recent_goes_first() -> None:
    memo: TextMemo[int] = TextMemo(max_chars=30, largest=20)
    made: list[str] = []

    def read(text: str) -> int:
        return memo.get(text, len(text), lambda: made.append(text) or len(text))

    assert [read("a" * 10), read("b" * 10), read("a" * 10), read("c" * 10)] == [10, 10, 10, 10]
    assert made == ["a" * 10, "b" * 10, "c" * 10] and len(memo) == 3
    read("d" * 10)  # 40 characters: "b"s (read least recently) dropped
    read("a" * 10)
    assert made[-1] == "d" * 10 and len(memo) == 3
    read("b" * 10)
    assert made[-1] == "b" * 10
    assert read("e" * 25) == 25 and read("e" * 25) == 25 and made[-2:] == ["e" * 25] * 2  # too long to keep


def test_a_box_read_from_the_memo_is_the_box_its_words_state() -> None:
    asked = "Describe the photo in 10-30 words, in one sentence. Do not start with 'This image'."
    first = box_limits(asked, {"maxlength": 200, "minlength": 20})
    assert first == box_limits(asked, {"maxlength": 200, "minlength": 20}) == _read_limits(asked, 20, 200, 0)
    assert first == Box(10, 30, 20, 200, (1, 1), 0, False, False, ("This image",), 0, False)
    assert box_limits(asked, {"maxlength": 100}).high == 100  # the field's own attributes are part of the key
    assert box_limits(asked, {}, 40).least == 40
    page = "x" * (plain_text._BOXES.largest + 1) + " At least 12 words."
    assert box_limits(page, {}).least == 12  # a page too long to keep is read each time

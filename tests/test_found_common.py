"""A page's common text found once for its workers is what finding it again gives, and changes with its references
(a reference page opened again under its key with other text, another task address, the page itself missing)."""

from __future__ import annotations

from flows.sim.pages.page_common import FoundCommon, common_among

SHARED = frozenset({"Describe the photo in one sentence.", "Say whether it shows text."})


def _refs(n: int, extra: str = "") -> list[tuple[str, frozenset[str]]]:
    return [(f"item{k}", SHARED | {f"Item {k} own words {extra}"}) for k in range(n)]


def test_found_common_text_is_common_among_its_references() -> None:
    found, asked = FoundCommon(), []

    def mine() -> frozenset[str]:
        asked.append(1)
        return SHARED | {"Its own words"}

    for refs, own in ((_refs(4), "item1"), (_refs(4), "item1"), (_refs(4, "again"), "item1"), (_refs(3), "item9"),
                      (_refs(3), "item9"), (_refs(1), "item0"), ([], "item0")):
        expected = common_among(refs, own, None if any(k == own for k, _ in refs) else mine())
        assert found.among("task", refs, own, mine) == expected
    assert found.among("task", _refs(4), "item1", mine) == SHARED
    assert found.among("other", [("item1", frozenset({"x y z"})), ("item2", frozenset({"x y z"}))], "item1",
                       mine) == frozenset({"x y z"})  # another address's references: not the first one's answer
    assert FoundCommon().among("task", _refs(3), "item9", lambda: None) == common_among(_refs(3), "item9")

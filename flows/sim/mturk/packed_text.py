"""Big texts the simulator keeps, zlib-compressed (docs/explanation/simulator-memory.md)."""

from __future__ import annotations

import zlib

from flows.core.pages.mturk_forms import NS_ANSWERS

PACK_OVER = 256  # shorter texts (ids, empty answers) cost more packed than plain
LEVEL = 6  # level 9 packs a page 0.1% smaller for more CPU; level 1 ~12% bigger
WINDOW = 32768  # zlib uses at most the last 32 KB of a preset dictionary
# Every answer is QuestionFormAnswers XML, whose boilerplate as preset dictionary packs it ~5x.
ANSWER_DICT = (f'<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="{NS_ANSWERS}">'
               "<Answer><QuestionIdentifier></QuestionIdentifier><SelectionIdentifier></SelectionIdentifier>"
               "<FreeText></FreeText></Answer></QuestionFormAnswers>").encode()


class Packed:
    """A text kept compressed; ``str(packed)`` is the text."""

    __slots__ = ("blob", "zdict")

    def __init__(self, blob: bytes, zdict: bytes):
        self.blob, self.zdict = blob, zdict

    def __str__(self) -> str:
        inflate = zlib.decompressobj(zdict=self.zdict) if self.zdict else zlib.decompressobj()
        return (inflate.decompress(self.blob) + inflate.flush()).decode("utf-8")

    def __repr__(self) -> str:
        return f"Packed({len(self.blob)} bytes)"


def pack(text: str, zdict: bytes = b"") -> str | Packed:
    """``text`` packed with the preset dictionary ``zdict``; a short text stays as it is."""
    if len(text) <= PACK_OVER:
        return text
    deflate = zlib.compressobj(LEVEL, zdict=zdict) if zdict else zlib.compressobj(LEVEL)
    return Packed(deflate.compress(text.encode("utf-8")) + deflate.flush(), zdict)


def unpack(value: object) -> str:
    """The text of a packed value (or of anything whose ``str()`` is its text, flows/sim/service/state_rows.py)."""
    return value if isinstance(value, str) else str(value)


def pack_answer(text: str) -> str | Packed:
    return pack(text, ANSWER_DICT)


class PagePacker:
    """One marketplace's page dictionaries, one per HIT type (its first page)."""

    def __init__(self) -> None:
        self.dicts: dict[str, bytes] = {}

    def pack(self, hit_type_id: str, page: str) -> str | Packed:
        zdict = self.dicts.setdefault(hit_type_id, page.encode("utf-8")[-WINDOW:])
        return pack(page, zdict)

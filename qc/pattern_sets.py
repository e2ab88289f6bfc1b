"""Character sets a page's pattern names, as a class RE2 and ``re`` read alike: code point ranges (JavaScript's
``\\d``, ``\\w``, ``\\s``, ``.``) and Unicode properties (``\\p{L}``, RE2's alone)."""

from __future__ import annotations

from dataclasses import dataclass

TOP = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)  # not characters of UTF-8 text: kept out of every class
Ranges = list[tuple[int, int]]
DIGIT: Ranges = [(48, 57)]
WORD: Ranges = [(48, 57), (65, 90), (95, 95), (97, 122)]
# JavaScript's \s: WhiteSpace and LineTerminator (ECMA-262, "CharacterClassEscape"); \t \n \v \f \r in 9-13
SPACE: Ranges = [(9, 13), (32, 32), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
                 (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF)]
LINE_ENDS: Ranges = [(10, 10), (13, 13), (0x2028, 0x2029)]  # what "." does not match without the s flag


def complement(ranges: Ranges) -> Ranges:
    """Every code point outside ``ranges``."""
    out, low = [], 0
    for a, b in sorted(ranges):
        if a > low:
            out.append((low, a - 1))
        low = max(low, b + 1)
    return out + ([(low, TOP)] if low <= TOP else [])


def code_point(cp: int) -> str:
    """One code point in a form RE2 and ``re`` read alike, in or out of a class."""
    if cp < 128:
        return chr(cp) if chr(cp).isalnum() else f"\\x{cp:02x}"
    return chr(cp)


def _merged(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def class_text(ranges: Ranges, properties: tuple[str, ...] = (), negated: bool = False) -> str:
    """``[...]`` (``[^...]`` when ``negated``) of ``ranges`` and ``properties``, surrogates (never UTF-8) left out."""
    parts = list(properties)
    for a, b in _merged(ranges):
        for lo, hi in ((a, min(b, SURROGATES[0] - 1)), (max(a, SURROGATES[1] + 1), b)):
            if lo <= hi:
                parts.append(code_point(lo) if lo == hi else f"{code_point(lo)}-{code_point(hi)}")
    if not parts:  # [] matches nothing, [^] anything
        return f"[{'' if negated else '^'}\\x00-{chr(TOP)}]"
    return f"[{'^' if negated else ''}{''.join(parts)}]"


@dataclass
class CharSet:
    """What one class escape or class item stands for: code point ranges, or a property RE2 names."""
    ranges: Ranges
    properties: tuple[str, ...] = ()

"""Unicode format characters (Cf), invisible on a page, taken out before captions are compared (``duplicate_text``);
ranges checked against ``unicodedata`` in tests/test_qc_rules.py."""

from __future__ import annotations

FORMAT_RANGES = ((0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
                 (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
                 (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
                 (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                 (0xE0001, 0xE0001), (0xE0020, 0xE007F))
INVISIBLE = {code: None for low, high in FORMAT_RANGES for code in range(low, high + 1)}


def visible(text: str) -> str:
    """``text`` without format characters (ASCII text has none, and is returned as it is)."""
    return text if text.isascii() else text.translate(INVISIBLE)

"""Untrusted text inside Markdown that Prefect's UI renders, shown as the literal text."""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md_text(value: object, limit: int = 200) -> str:
    """``value`` as inert Markdown: HTML and Markdown punctuation escaped, lines flattened, cut to ``limit``."""
    flat = " ".join(str(value).split())[:limit]
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(flat, quote=True))

"""MkDocs hook: fills the generated parts of the reference pages from the code (flows/cli/reference_pages.py)."""

from __future__ import annotations

from typing import Any

from flows.cli.reference_pages import render


def on_page_markdown(markdown: str, **_: Any) -> str:
    return render(markdown)

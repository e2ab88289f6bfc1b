"""The ``probing`` fixture the probe's test modules share: a page imported and asked in the session's Chromium."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def probing(browser) -> Callable[[str], tuple[str, list[str], str]]:
    """(the item block, notes, rendered page) of a page imported and asked in the module's one Chromium."""
    # imported here, not at the top: every pytest process loads this plugin, the xdist controller too (~0.5 s)
    from flows.custom.page_import import import_page
    from flows.custom.scaffold_import import sample_page, template_text, with_probed_rules

    def probe(source: str) -> tuple[str, list[str], str]:
        imported = import_page(source, "own.html")
        template = template_text(imported, Path("own.html"), source)
        template = with_probed_rules(imported, template, Path("own.html"), source, browser=browser)
        return imported.body, imported.notes, sample_page(template, imported, Path("own.html"))
    return probe

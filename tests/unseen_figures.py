"""A module's runs draw no report figure: imported by test files that never read a report's plots (each
campaign's four to six figures were a quarter or more of its CPU). The report still gets written, with ""
where a plot would be, as a dry run's rehearsal writes it (flows/driver/dry_rehearsal.py); the plots
themselves are tests/test_report_figures.py's and tests/figure_checks.py's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flows.core.outputs.figures import UNSEEN


@pytest.fixture(scope="module", autouse=True)
def figures_unseen_in_this_module() -> Iterator[None]:
    """Autouse where imported: set before the module's own campaign fixtures run, reset after its last test."""
    token = UNSEEN.set(True)
    try:
        yield
    finally:
        UNSEEN.reset(token)

"""A module's runs draw no report figure: imported by test files whose campaigns' reports nobody in the module
looks at the plots of (a run's four to six figures were a quarter or more of its CPU). Every output is still
written, with "" where a plot would be, as a dry run's rehearsal writes it; the plots themselves are checked by
tests/test_figure_png.py, tests/test_report_figures.py, tests/test_answers_campaign.py and tests/test_studies.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flows.core.outputs.figures import UNSEEN


@pytest.fixture(scope="module", autouse=True)
def figures_unseen() -> Iterator[None]:
    """Autouse where imported: set before the module's own campaign fixtures run, reset after its last test."""
    token = UNSEEN.set(True)
    try:
        yield
    finally:
        UNSEEN.reset(token)

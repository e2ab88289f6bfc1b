"""An autouse fixture for modules whose campaigns' reports nobody in the module looks at the figures of: imported
into such a module, its tests' runs write every output but draw no figure ("" where a PNG would be, as the dry
run's rehearsal writes its report). A run's figures cost ~0.3 s of CPU; tests/test_figure_png.py,
tests/test_answers_campaign.py and tests/test_studies.py check them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def figures_unseen() -> Iterator[None]:
    from flows.core.outputs.figures import UNSEEN  # here: it imports matplotlib

    token = UNSEEN.set(True)
    yield
    UNSEEN.reset(token)

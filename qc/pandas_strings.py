"""Where pandas keeps hitflow's text columns: in Python strings, not Arrow (pandas 3's default).

hitflow's frames are small and many (a batch's flags, one item's answers, one worker's runs): pandas 3
keeps a ``str`` column in pyarrow by default, and each small operation on it (build, take, factorize,
to_numpy) pays Arrow's per-call overhead. In Python storage the same operations are plain object
arrays: an in-process campaign's test files (tests/test_control_items.py, tests/test_answer_agreement.py)
took 31.0 s of CPU with Arrow, 27.3 s without. The values, dtype name (``str``), missing value (NaN)
and every output byte stay the same (tests/test_pandas_strings.py, tests/test_determinism.py). The rules
that want Arrow's regexes on 40,000 captions build their Arrow arrays themselves (qc/text_features.py).

Importing ``qc``, ``postprocess`` or ``flows`` runs :func:`use_python_strings`, so the CLI, the Prefect
flows and every library function get it; a program that chose a storage itself
(``pd.set_option("mode.string_storage", "pyarrow")`` before importing hitflow) keeps its choice.
"""

from __future__ import annotations

import pandas as pd

OPTION = "mode.string_storage"


def use_python_strings() -> None:
    """Python storage for ``str`` columns, unless the program already chose one (``auto``: it did not)."""
    if pd.get_option(OPTION) == "auto":
        pd.set_option(OPTION, "python")


use_python_strings()

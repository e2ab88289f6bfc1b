"""qc/pandas_strings.py: importing hitflow keeps pandas' str columns in Python storage (set the moment
pandas loads, so a command that needs no pandas still loads none), unless the program chose a storage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import postprocess  # noqa: F401  (sets it, as qc and flows do)
from qc.pandas_strings import OPTION, use_python_strings

ROOT = Path(__file__).resolve().parents[1]


def in_a_fresh_process(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return done.stdout.strip()


def test_importing_hitflow_stores_str_columns_in_python() -> None:
    column = pd.Series(["a", None, "b"])
    assert pd.get_option(OPTION) == "python"
    assert column.dtype == pd.StringDtype("python", na_value=np.nan)
    assert str(column.dtype) == "str" and column.isna().tolist() == [False, True, False]


def test_a_program_that_chose_a_storage_keeps_it() -> None:
    with pd.option_context(OPTION, "pyarrow"):
        use_python_strings()
        assert pd.get_option(OPTION) == "pyarrow"
    with pd.option_context(OPTION, "auto"):
        use_python_strings()
        assert pd.get_option(OPTION) == "python"


@pytest.mark.parametrize("first", ["flows.cli.main", "qc.campaign_state", "postprocess"])
def test_set_when_pandas_loads_after_hitflow(first: str) -> None:
    """The CLI and the ledger's status load no pandas; a frame built later is in Python storage all the same."""
    said = in_a_fresh_process(f"import sys, {first}\nprint('pandas' in sys.modules)\n"
                              "import pandas as pd\nprint(pd.Series(['a']).dtype.storage)")
    assert said.splitlines() == ["False", "python"]


def test_set_when_pandas_loaded_first_and_kept_when_chosen() -> None:
    said = in_a_fresh_process("import pandas as pd\nprint(pd.Series(['a']).dtype.storage)\nimport flows\n"
                              "print(pd.Series(['a']).dtype.storage)")
    assert said.splitlines() == ["pyarrow", "python"]
    said = in_a_fresh_process("import pandas as pd\npd.set_option('mode.string_storage', 'pyarrow')\n"
                              "import qc.flags\nprint(pd.Series(['a']).dtype.storage)")
    assert said == "pyarrow"

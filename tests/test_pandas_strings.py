"""qc/pandas_strings.py: importing hitflow keeps str columns in Python storage, unless the program chose."""

from __future__ import annotations

import numpy as np
import pandas as pd

import flows  # noqa: F401  (each of the three packages sets it)
import postprocess  # noqa: F401
from qc.pandas_strings import OPTION, use_python_strings


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

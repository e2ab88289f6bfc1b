"""Pure post-processing over pandas DataFrames: spell-correction, datasets, report data, statistics,
and the answers' models (``postprocess.answers``: aggregation, calibration, worker skill, the stopping rule)."""

import qc  # noqa: F401  (str columns in Python storage: qc/pandas_strings.py)

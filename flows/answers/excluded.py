"""A study's screened-out rows, left out of what is read; apart from flows/studies/analysis.py so that
`hitflow aggregate` does not import the statistics libraries (~1.5 s of CPU)."""

from __future__ import annotations

import pandas as pd

EXCLUDED = "excluded"  # a study's judgements.csv marks screened-out participants' rows 1 here


def without_excluded(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows not marked excluded (all rows of a table without the column)."""
    if EXCLUDED not in frame.columns:
        return frame
    marked = frame[EXCLUDED].astype(str).str.strip().str.lower().isin(("1", "true", "yes"))
    return frame[~marked].drop(columns=EXCLUDED)

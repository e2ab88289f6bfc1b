"""The qualification test's answer key (item, section, answer), read and checked."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.core.errors import InputFormatError
from flows.core.inputs.csv_files import read_csv_frame

DEFAULT_KEY = Path(__file__).resolve().parents[3] / "config" / "qualification" / "flickr8k_qualification_key.csv"


def load_key(path: Path = DEFAULT_KEY) -> pd.DataFrame:
    """The answer key, checked: its columns, sections and answers."""
    from qc.qualification import ALLOWED

    key = read_csv_frame(path, ("item_id", "section", "answer"), "the answer key")
    for line, row in enumerate(key.itertuples(), start=2):
        if row.answer.strip().lower() not in ALLOWED.get(row.section, set()):
            raise InputFormatError(f"{path}:{line}: section {row.section!r} with answer {row.answer!r} is not valid")
    if key["item_id"].duplicated().any():
        raise InputFormatError(f"{path}: repeated item ids {sorted(set(key['item_id'][key['item_id'].duplicated()]))}")
    return key

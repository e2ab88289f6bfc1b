"""The judgements as integer codes with each field's rows, for the aggregation."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd


class ByField(dict):  # type: ignore[type-arg]
    """A read-only per-field record in a frame's ``attrs``, shared (pandas deep-copies ``attrs``)."""

    def __deepcopy__(self, memo: dict[int, object]) -> ByField:
        return self


def joined(parts: list[dict[str, np.ndarray]]) -> pd.DataFrame:
    """One frame of the fields' columns, each joined once (the module says why)."""
    return pd.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in parts[0]})


class Coded(NamedTuple):
    """The judgements as integer codes in their ids' text order, the same for every field."""
    items: np.ndarray
    item_ids: pd.Index
    workers: np.ndarray
    worker_ids: pd.Index
    labels: np.ndarray
    label_ids: pd.Index
    fields: np.ndarray
    field_ids: pd.Index

    def field_rows(self) -> list[np.ndarray]:
        """Each field's rows in field order, the rows in file order."""
        order = np.argsort(self.fields, kind="stable")
        return np.split(order, np.cumsum(np.bincount(self.fields, minlength=len(self.field_ids)))[:-1])


def coded(data: pd.DataFrame) -> Coded:
    """``data``'s judgements (``item_id, worker_id, label, field``, every field given) as :class:`Coded`."""
    columns = [pd.factorize(data[c], sort=True) for c in ("item_id", "worker_id", "label", "field")]
    return Coded(*(part for codes, names in columns for part in (codes, pd.Index(names))))

"""Snow et al. 2008's crowd labels with expert gold, as long frames for the benches and tests.

Snow, O'Connor, Jurafsky, Ng, "Cheap and Fast -- But is it Good? Evaluating Non-Expert Annotations
for Natural Language Tasks", EMNLP 2008: Amazon Mechanical Turk workers labelled items that experts
had labelled; each item has 10 labels. Three of its sets are used here:

- ``wsd``: word-sense disambiguation, 177 items, 3 senses (../shared/data/snow2008-wsd, small and
  in the shared data; ``HITFLOW_WSD_LABELS`` overrides);
- ``rte``: recognising textual entailment, 800 items, binary (``HITFLOW_RTE_LABELS``);
- ``temp``: temporal ordering of events, 462 items, binary (``HITFLOW_TEMP_LABELS``).

RTE and Temporal are not in the repository (neither small nor under CC BY/MIT): they are read from
../shared/data/snow2008-rte-temp when it is there, else point the variables at local copies
(docs/reference/outputs.md says where they come from, with their sha256). A file is
either Snow's standardized TSV (``!amt_worker_ids, orig_id, response, gold``) or a long CSV
``item_id, worker_id, label, gold``; rows stay in the file's order (the adaptive replay's arrival
order).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import pandas as pd

# ../shared/data beside the checkout (a worktree deeper down: the nearest folder above it that has one)
SHARED = next((up / "shared" / "data" for up in Path(__file__).resolve().parents[1].parents
               if (up / "shared" / "data").is_dir()), Path(__file__).resolve().parents[1].parent / "shared" / "data")
SHARED_WSD = SHARED / "snow2008-wsd" / "wsd.standardized.tsv"
SHARED_COPIES = {"wsd": SHARED_WSD, "rte": SHARED / "snow2008-rte-temp" / "rte.standardized.csv",
                 "temp": SHARED / "snow2008-rte-temp" / "temp.standardized.csv"}
SNOW_COLUMNS = {"orig_id": "item_id", "!amt_worker_ids": "worker_id", "response": "label", "gold": "gold"}
LONG_COLUMNS = ["item_id", "worker_id", "label", "gold"]


class SnowSet(NamedTuple):
    name: str  # wsd, rte, temp
    variable: str  # the environment variable naming the file
    items: int  # items in the published set, each with 10 labels


SETS = (SnowSet("wsd", "HITFLOW_WSD_LABELS", 177), SnowSet("rte", "HITFLOW_RTE_LABELS", 800),
        SnowSet("temp", "HITFLOW_TEMP_LABELS", 462))


def path_of(snow: SnowSet) -> Path | None:
    """The file for ``snow``: its variable's value, else the shared copy (../shared/data); None when absent."""
    named = os.environ.get(snow.variable, "")
    path = Path(named) if named else SHARED_COPIES.get(snow.name)
    return path if path is not None and path.is_file() else None


def read_set(path: Path) -> pd.DataFrame:
    """``item_id, worker_id, label, gold`` (text) from a Snow standardized TSV or a long CSV."""
    raw = pd.read_csv(path, sep=None, engine="python", dtype=str)
    if set(SNOW_COLUMNS) <= set(raw.columns):
        return raw.rename(columns=SNOW_COLUMNS)[LONG_COLUMNS].reset_index(drop=True)
    missing = [c for c in LONG_COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: no column(s) {', '.join(missing)}; give Snow's standardized TSV "
                         f"({', '.join(SNOW_COLUMNS)}) or a CSV of {', '.join(LONG_COLUMNS)}")
    return raw[LONG_COLUMNS].reset_index(drop=True)


def gold_of(frame: pd.DataFrame) -> pd.Series:
    """The expert answer per item (index ``item_id``)."""
    return frame.drop_duplicates("item_id").set_index("item_id")["gold"]


def majority_vote_ties_half(frame: pd.DataFrame) -> float:
    """Full-overlap majority vote's expected accuracy when ties are broken at random: an item with a
    unique leader counts 1 if the leader is the gold answer; a tie counts the share of tied labels
    that are the gold answer (Snow et al.'s reading of voting, and independent of any tie rule)."""
    counts = frame.groupby(["item_id", "label"]).size().unstack(fill_value=0)
    leaders = counts.eq(counts.max(axis="columns"), axis="index")
    gold = gold_of(frame).reindex(counts.index)
    hit = pd.Series([bool(leaders.at[i, g]) if g in leaders.columns else False for i, g in gold.items()],
                    index=counts.index)
    return float((hit / leaders.sum(axis="columns")).mean())

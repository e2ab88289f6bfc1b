"""What a labels file's blanks, spelling variants, repeats and free text mean before aggregation, and what each touched.
Input: text columns ``item_id, worker_id, label`` [, ``field``]; other columns ride along.
``tidy(frame, policy) -> Tidied(frame, counts)``; ``respell(values, labels)`` writes known answers in the labels'
spelling; ``leave_out_workers(frame, workers)`` drops and counts the given workers' labels."""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

REPEATS = ("last", "first", "majority", "refuse")
FREE_TEXT_MIN = 10  # more distinct labels than this in a field, and
FREE_TEXT_SHARE = 0.5  # at least this many distinct labels per item: written answers, not a choice
KEY_COLUMNS = ["item_id", "worker_id", "_field"]
# workers x label values squared past which a field is refused (neither estimable nor cheap)
CONFUSION_CELLS = 2_000_000
MAX_FIELDS = 200_000  # distinct fields past which a file is refused (10^6 one-label fields: 49 s, 1.2 GB)


class FreeText(ValueError):
    """A field of written answers given to aggregation."""


class TooManyClasses(ValueError):
    """A field with more label values than a worker's confusion can be weighed over."""


class RepeatedLabels(ValueError):
    """Repeated worker-item labels under ``repeats = "refuse"``."""


@dataclass(frozen=True)
class HygienePolicy:
    repeats: str = "last"
    fold_case: bool = True
    force_free_text: bool = False

    def check(self) -> None:
        if self.repeats not in REPEATS:
            raise ValueError(f"repeats {self.repeats!r}: use one of {', '.join(REPEATS)}")


class Tidied(NamedTuple):
    frame: pd.DataFrame
    counts: dict[str, Any]


def tidy(frame: pd.DataFrame, policy: HygienePolicy = HygienePolicy()) -> Tidied:
    """The rows to aggregate and what was done to get them (see the module)."""
    policy.check()
    field = frame["field"] if "field" in frame.columns else pd.Series("label", index=frame.index)
    label = frame["label"].fillna("").astype(str).str.strip()
    keys = {c: nfc(frame[c].fillna("").astype(str).str.strip()) for c in ("item_id", "worker_id")}
    work = frame.assign(label=label, _field=nfc(field.fillna("").astype(str).str.strip()), **keys)
    if "field" in work.columns:  # ids and field names read in NFC as labels are: "café" typed two ways is one item
        work["field"] = work["_field"]
    blank = label.eq("")
    work = work[~blank]
    if work["_field"].nunique() > MAX_FIELDS:  # a per-field record each, past 30 s and 1 GB at 10^6 fields
        raise TooManyClasses(f"{work['_field'].nunique():,} fields, past the {MAX_FIELDS:,} one aggregate takes (a "
                             "field is one question of the page); is the field column right? choose with --field")
    counts: dict[str, Any] = {"labels_read": len(frame), "blank_labels": int(blank.sum()),
                              "fold_case": policy.fold_case, "respelled": 0, "spelling_variants": {}}
    work, counts["respelled"], counts["spelling_variants"] = _fold(work, policy.fold_case)
    work, repeat_counts = _repeats(work, policy.repeats)
    counts.update(repeat_counts)
    if not policy.force_free_text:
        _refuse_free_text(work)
    _refuse_too_many_classes(work)
    return Tidied(work.drop(columns="_field").reset_index(drop=True), counts)


def _fold(work: pd.DataFrame, fold_case: bool = True) -> tuple[pd.DataFrame, int, dict[str, list[str]]]:
    """Labels folded to one spelling per field; how many changed; up to five variant groups, as written."""
    fields, labels = work["_field"].to_numpy(), work["label"].to_numpy()
    normal = nfc(work["label"])
    keys = (_key(normal) if fold_case else normal).to_numpy()
    if not fold_case and normal.to_numpy() is labels:  # nothing to fold: most files
        return work, 0, {}
    spellings: dict[tuple[str, str], list[str]] = {}
    for field, key, spelling in set(zip(fields, keys, labels, strict=True)):
        spellings.setdefault((field, key), []).append(spelling)
    best: dict[tuple[str, str], tuple[int, str]] = {}
    for (field, key, written), n in Counter(zip(fields, keys, normal.to_numpy(), strict=True)).items():
        held = best.get((field, key))
        if held is None or n > held[0] or (n == held[0] and written < held[1]):
            best[(field, key)] = (n, written)
    folded = np.array([best[pair][1] for pair in zip(fields, keys, strict=True)], dtype=object)
    changed = folded != labels
    several = len({field for field, _ in best}) > 1
    variants = {f"{f}: {k}" if several else k: _shown(spellings[(f, k)]) for f, k in sorted(spellings)
                if len(spellings[(f, k)]) > 1}
    return work.assign(label=folded), int(changed.sum()), dict(list(variants.items())[:5])


def _repeats(work: pd.DataFrame, policy: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One label per worker, item and field under ``policy``, and the repeats counted."""
    if len(set(zip(*(work[c].to_numpy() for c in KEY_COLUMNS), strict=True))) == len(work):  # no repeats: most files
        return work, {"repeats": policy, "repeated_pairs": 0, "repeats_dropped": 0, "repeats_conflicting": 0}
    per_pair = work.groupby(KEY_COLUMNS, sort=False)["label"].agg(["size", "nunique"])
    repeated = per_pair[per_pair["size"] > 1]
    counts = {"repeats": policy, "repeated_pairs": len(repeated), "repeats_dropped": 0,
              "repeats_conflicting": int(repeated["nunique"].gt(1).sum())}
    if repeated.empty:
        return work, counts
    if policy == "refuse":
        item, worker, _ = repeated.index[0]
        raise RepeatedLabels(f"{len(repeated)} worker-item pair(s) labelled more than once (e.g. worker {worker!r} "
                             f"on item {item!r}); choose --repeats last, first or majority")
    if policy == "majority":  # the most given label of the pair; of tied ones, the last given
        ranked = work.assign(_votes=work.groupby([*KEY_COLUMNS, "label"], sort=False)["label"].transform("size"),
                             _order=range(len(work))).sort_values(["_votes", "_order"], kind="stable")
        kept = ranked[~ranked.duplicated(KEY_COLUMNS, keep="last")].sort_values("_order")
        kept = kept.drop(columns=["_votes", "_order"])
    else:
        kept = work[~work.duplicated(KEY_COLUMNS, keep="last" if policy == "last" else "first")]
    counts["repeats_dropped"] = len(work) - len(kept)
    return kept, counts


def _refuse_free_text(work: pd.DataFrame) -> None:
    """The first field, in field order, that reads as free text refused."""
    groups = work.groupby("_field", sort=True)
    distinct, items = groups["label"].nunique(), groups["item_id"].nunique()
    free = distinct.index[(distinct > FREE_TEXT_MIN) & (distinct >= FREE_TEXT_SHARE * items)]
    if not len(free):
        return
    field = free[0]
    example = max(work.loc[work["_field"] == field, "label"].head(50), key=len)[:40]
    raise FreeText(f"field {field!r} looks like free text ({distinct[field]} distinct labels over {items[field]} "
                   f"items, e.g. {example!r}): aggregating it would pick one whole text per item; aggregate a "
                   "choice field, or pass --force-free-text")


def _refuse_too_many_classes(work: pd.DataFrame) -> None:
    """Refuse the first field whose workers x label values squared passes ``CONFUSION_CELLS``."""
    groups = work.groupby("_field", sort=True)
    distinct, workers = groups["label"].nunique(), groups["worker_id"].nunique()
    cells = workers.astype(float) * distinct.astype(float) ** 2
    wide = cells.index[cells > CONFUSION_CELLS]
    if len(wide):
        field = wide[0]
        raise TooManyClasses(f"field {field!r} has {distinct[field]:,} label values over {workers[field]:,} workers: "
                             f"too many classes to weigh workers by (a confusion matrix each, {int(cells[field]):,} "
                             f"cells, past {CONFUSION_CELLS:,}); group the labels into fewer classes first")


def nfc(values: pd.Series) -> pd.Series:
    """``values`` as text in Unicode's NFC form (the column itself when every value already is: most files)."""
    text = values.fillna("").astype(str)
    if all(unicodedata.is_normalized("NFC", v) for v in text.to_numpy()):
        return text
    return text.str.normalize("NFC")


def _shown(spellings: list[str]) -> list[str]:
    """A variant group as written, sorted; spellings equal once in NFC shown escaped, or they would read alike."""
    alike = Counter(unicodedata.normalize("NFC", s) for s in spellings)
    return sorted(s if alike[unicodedata.normalize("NFC", s)] == 1 else s.encode("ascii", "backslashreplace").decode()
                  for s in spellings)


def _key(values: pd.Series) -> pd.Series:
    return nfc(values).str.strip().str.casefold().str.replace(r"\s+", " ", regex=True)


def respell(values: pd.Series, labels: pd.Series, fold_case: bool = True) -> pd.Series:
    """``values`` (stripped, NFC) in the spelling ``labels`` use for the same folded text."""
    stripped = nfc(values.fillna("").astype(str).str.strip())
    if not fold_case:
        return stripped
    spelled = pd.DataFrame({"k": _key(labels), "s": labels}).drop_duplicates("k").set_index("k")["s"]
    return spelled.reindex(_key(values)).set_axis(values.index).fillna(stripped)


def leave_out_workers(frame: pd.DataFrame, workers: set[str]) -> tuple[pd.DataFrame, dict[str, int]]:
    """``frame`` without the labels of ``workers``, and how many workers and labels that left out."""
    out = frame["worker_id"].astype(str).str.strip().isin(workers)
    return (frame[~out].reset_index(drop=True),
            {"blocked_workers_left_out": int(frame.loc[out, "worker_id"].nunique()), "blocked_labels_left_out":
             int(out.sum())})

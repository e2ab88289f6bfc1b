"""What a labels file's blanks, spelling variants, repeats and free text mean before aggregation: the
policy applied, and how many labels it touched, for the summary (issue 56: these were silent).

Input: a long frame with text columns ``item_id, worker_id, label`` [, ``field``] (``hitflow aggregate``'s
file after its column names are mapped); other columns ride along unchanged on the rows kept.

Output, ``tidy(frame, policy) -> Tidied(frame, counts)``: the rows the models should see, and ``counts``
(``labels_read``, ``blank_labels``, ``respelled``, ``spelling_variants``, ``repeated_pairs``,
``repeats_dropped``, ``repeats_conflicting`` and the policy itself), in that order:

- a blank label (after stripping surrounding blanks) is no judgement: dropped and counted;
- ``fold_case`` (the default): labels equal but for letter case and runs of blanks ("Good", "good",
  " good ") are one label, spelled as the field's most common spelling (ties: first in text order);
- ``repeats``: a worker labelling the same item and field again keeps their ``last`` label (as a
  platform's resubmission would), their ``first``, their ``majority`` label (ties: the last given of the
  tied), or ``refuse`` (``RepeatedLabels`` raised): the models take one label per worker and item;
- free text: a field whose distinct labels exceed ``FREE_TEXT_MIN`` and ``FREE_TEXT_SHARE`` of its items
  holds written answers, not choices; ``FreeText`` is raised unless ``force_free_text``.

``respell(values, labels)`` writes known answers (a gold column, control items' answers) in the
spelling the folded labels use, so "good" as gold still matches the answer "Good".

``leave_out_workers(frame, workers)`` drops the labels of the given workers (a campaign's blocked
workers) and counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import pandas as pd

REPEATS = ("last", "first", "majority", "refuse")
FREE_TEXT_MIN = 10  # more distinct labels than this in a field, and
FREE_TEXT_SHARE = 0.5  # at least this many distinct labels per item: written answers, not a choice
KEY_COLUMNS = ["item_id", "worker_id", "_field"]


class FreeText(ValueError):
    """A field of written answers given to aggregation."""


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
    work = frame.assign(label=label, _field=field.fillna("").astype(str).str.strip(),
                        **{c: frame[c].fillna("").astype(str).str.strip() for c in ("item_id", "worker_id")})
    blank = label.eq("")
    work = work[~blank]
    counts: dict[str, Any] = {"labels_read": len(frame), "blank_labels": int(blank.sum()),
                              "fold_case": policy.fold_case, "respelled": 0, "spelling_variants": {}}
    if policy.fold_case:
        work, counts["respelled"], counts["spelling_variants"] = _fold(work)
    work, repeat_counts = _repeats(work, policy.repeats)
    counts.update(repeat_counts)
    if not policy.force_free_text:
        _refuse_free_text(work)
    return Tidied(work.drop(columns="_field").reset_index(drop=True), counts)


def _fold(work: pd.DataFrame) -> tuple[pd.DataFrame, int, dict[str, list[str]]]:
    """Labels folded to one spelling per field; how many labels changed; up to five variant groups."""
    key = _key(work["label"])
    tally = pd.DataFrame({"f": work["_field"], "k": key, "s": work["label"]}).value_counts(sort=False).reset_index()
    tally = tally.sort_values(["f", "k", "count", "s"], ascending=[True, True, False, True], kind="stable")
    spelled = tally.drop_duplicates(["f", "k"]).set_index(["f", "k"])["s"]
    folded = spelled.reindex(pd.MultiIndex.from_arrays([work["_field"], key])).to_numpy()
    changed = folded != work["label"].to_numpy()
    groups = tally.groupby(["f", "k"], sort=True)["s"].agg(list)
    variants = {f"{f}: {k}" if len(set(tally["f"])) > 1 else k: sorted(v) for (f, k), v in groups.items() if len(v) > 1}
    return work.assign(label=folded), int(changed.sum()), dict(list(variants.items())[:5])


def _repeats(work: pd.DataFrame, policy: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One label per worker, item and field under ``policy``, and the repeats counted."""
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
    for field, part in work.groupby("_field", sort=True):
        distinct, items = part["label"].nunique(), part["item_id"].nunique()
        if distinct > FREE_TEXT_MIN and distinct >= FREE_TEXT_SHARE * items:
            example = max(part["label"].head(50), key=len)[:40]
            raise FreeText(f"field {field!r} looks like free text ({distinct} distinct labels over {items} items, "
                           f"e.g. {example!r}): aggregating it would pick one whole text per item; aggregate a "
                           "choice field, or pass --force-free-text")


def _key(values: pd.Series) -> pd.Series:
    return values.fillna("").astype(str).str.strip().str.casefold().str.replace(r"\s+", " ", regex=True)


def respell(values: pd.Series, labels: pd.Series) -> pd.Series:
    """``values`` (stripped) in the spelling ``labels`` use for the same folded text; the others as they are."""
    spelled = pd.DataFrame({"k": _key(labels), "s": labels}).drop_duplicates("k").set_index("k")["s"]
    stripped = values.fillna("").astype(str).str.strip()
    return spelled.reindex(_key(values)).set_axis(values.index).fillna(stripped)


def leave_out_workers(frame: pd.DataFrame, workers: set[str]) -> tuple[pd.DataFrame, dict[str, int]]:
    """``frame`` without the labels of ``workers``, and how many workers and labels that left out."""
    out = frame["worker_id"].astype(str).str.strip().isin(workers)
    return (frame[~out].reset_index(drop=True),
            {"blocked_workers_left_out": int(frame.loc[out, "worker_id"].nunique()), "blocked_labels_left_out":
             int(out.sum())})

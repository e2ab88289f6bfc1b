"""Answers to checkbox groups: per option, whether it applies, each option read as a yes/no question.

Input: one row per response to the group, ``item_id, worker_id, field, value``, ``value`` the ticked options
``|``-joined as dataset.csv writes them (blank: none ticked, a "no" to every option); ``options``: each
field's options as the page lists them (a tick the page does not list is an option too).

``option_labels(frame, options) -> (judgements, keys)``: ``item_id, worker_id, field, label`` with ``label``
``yes``/``no`` and ``field`` the key of one option (``FIELD[OPTION]``); ``keys`` maps each key to its
(field, option). The aggregation models then answer each option with its confidence as any choice, and
each worker's skill counts these labels too. Why: a group is a set of yes/no questions the worker answers
at once (a tick left off is a "no"), so its options need no model of their own.

``split_options(answers, keys)``: the models' answers with ``field`` back to the group's name and the
option in ``option`` (blank for a choice field's rows).
"""

from __future__ import annotations

import pandas as pd

YES, NO = "yes", "no"


def option_key(field: str, option: str) -> str:
    return f"{field}[{option}]"


def option_labels(frame: pd.DataFrame, options: dict[str, list[str]]
                  ) -> tuple[pd.DataFrame, dict[str, tuple[str, str]]]:
    """See the module."""
    rows, keys = [], {}
    for field, group in frame.groupby("field", sort=False):
        ticked = [set(str(v).split("|")) if str(v) != "" else set() for v in group["value"]]
        listed = list(dict.fromkeys([*options.get(str(field), []), *sorted(set().union(*ticked) - {""})]))
        for option in listed:
            key = option_key(str(field), option)
            keys[key] = (str(field), option)
            rows.append(pd.DataFrame({"item_id": group["item_id"].to_numpy(),
                                      "worker_id": group["worker_id"].to_numpy(), "field": key,
                                      "label": [YES if option in t else NO for t in ticked]}))
    columns = ["item_id", "worker_id", "field", "label"]
    return (pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)), keys


def split_options(answers: pd.DataFrame, keys: dict[str, tuple[str, str]]) -> pd.DataFrame:
    """See the module."""
    pairs = [keys.get(f, (f, "")) for f in answers["field"]]
    out = answers.assign(field=[p[0] for p in pairs])
    out.insert(list(out.columns).index("field") + 1, "option", [p[1] for p in pairs])
    return out

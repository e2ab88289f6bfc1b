"""Answers to checkbox groups: each option read as a yes/no question (a tick left off is a "no"), answered by the models
of any choice (docs/reference/outputs.md).
Input: ``item_id, worker_id, field, value``, ``value`` the ticked options ``|``-joined (blank: none); ``options``: each
field's options as the page lists them; ``own``: per field whose options come from the item, each item's own, keyed by
place (``FIELD[option 2]``).
``option_labels(frame, options) -> (judgements, keys)``: ``item_id, worker_id, field, label`` with ``label``
``yes``/``no`` and ``field`` one option's key (``FIELD[OPTION]``); ``split_options``, ``own_words``, ``option_known``,
``option_pairs`` and ``by_option`` map keyed rows back to their group and option."""

from __future__ import annotations

import pandas as pd

YES, NO = "yes", "no"


def option_key(field: str, option: str) -> str:
    return f"{field}[{option}]"


Keys = dict[str, tuple[str, str]]


def option_labels(frame: pd.DataFrame, options: dict[str, list[str]],
                  own: dict[str, dict[str, list[str]]] | None = None) -> tuple[pd.DataFrame, Keys]:
    """See the module."""
    rows: list[pd.DataFrame] = []
    keys: Keys = {}
    columns = ["item_id", "worker_id", "field", "label"]
    for field, group in frame.groupby("field", sort=False):
        ticked = [set(str(v).split("|")) - {""} for v in group["value"]]
        mine = (own or {}).get(str(field))
        if mine is not None:  # each row asked its own item's options
            rows.append(_own_labels(str(field), group, ticked, mine, keys))
            continue
        for option in dict.fromkeys([*options.get(str(field), []), *sorted(set().union(*ticked))]):
            key = option_key(str(field), option)
            keys[key] = (str(field), option)
            rows.append(pd.DataFrame({"item_id": group["item_id"].to_numpy(),
                                      "worker_id": group["worker_id"].to_numpy(), "field": key,
                                      "label": [YES if option in t else NO for t in ticked]}))
    return (pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)), keys


def _own_labels(field: str, group: pd.DataFrame, ticked: list[set[str]], own: dict[str, list[str]],
                keys: Keys) -> pd.DataFrame:
    long = []
    for item, worker, t in zip(group["item_id"].astype(str), group["worker_id"], ticked, strict=True):
        mine = own.get(item, [])
        for o in dict.fromkeys([*mine, *sorted(t)]):
            key = option_key(field, place(mine.index(o)) if o in mine else o)
            keys.setdefault(key, (field, key[len(field) + 1:-1]))
            long.append((item, worker, key, YES if o in t else NO))
    return pd.DataFrame(long, columns=["item_id", "worker_id", "field", "label"])


def place(index: int) -> str:
    return f"option {index + 1}"


def _word(own: dict[str, dict[str, list[str]]] | None, field: str, item: str, option: str) -> str:
    """The option an item shows at a place of a group with options of its own (else ``option`` as it is)."""
    mine = (own or {}).get(field, {}).get(item)
    if mine is None or not option.startswith("option ") or not option[7:].isdigit():
        return option
    k = int(option[7:]) - 1
    return mine[k] if 0 <= k < len(mine) else option


def own_words(answers: pd.DataFrame, own: dict[str, dict[str, list[str]]]) -> pd.DataFrame:
    """See the module."""
    if not own or "option" not in answers.columns:
        return answers
    return answers.assign(option=[_word(own, str(f), str(i), str(o)) for f, i, o in zip(
        answers["field"], answers["item_id"], answers["option"], strict=True)])


def split_options(answers: pd.DataFrame, keys: dict[str, tuple[str, str]]) -> pd.DataFrame:
    """See the module."""
    pairs = [keys.get(f, (f, "")) for f in answers["field"]]
    out = answers.assign(field=[p[0] for p in pairs])
    out.insert(list(out.columns).index("field") + 1, "option", [p[1] for p in pairs])
    return out


def option_known(known: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """See the module."""
    known = known.astype({"item_id": str, "field": str})[["item_id", "field", "answer"]]
    tick = known["field"].isin(set(pairs["field"]))
    both = pairs.astype({"item_id": str}).merge(known[tick], on=["item_id", "field"])
    said = [YES if o in {t.strip() for t in str(a).split("|")} else NO
            for o, a in zip(both["option"], both["answer"], strict=True)]
    return pd.concat([known[~tick], pd.DataFrame({"item_id": both["item_id"], "field": both["key"], "answer": said})],
                     ignore_index=True)


def option_pairs(labels: pd.DataFrame, keys: Keys, own: dict[str, dict[str, list[str]]] | None = None) -> pd.DataFrame:
    """See the module."""
    asked = labels[labels["field"].isin(list(keys))].drop_duplicates(["item_id", "field"])
    items, fields = asked["item_id"].astype(str).tolist(), [keys[k][0] for k in asked["field"]]
    return pd.DataFrame({"item_id": items, "field": fields, "key": asked["field"].tolist(),
                         "option": [_word(own, f, i, keys[k][1]) for f, i, k in zip(fields, items, asked["field"],
                                                                                    strict=True)]})


def by_option(answers: pd.DataFrame, known: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """See the module."""
    if "option" not in answers.columns:
        return answers, known
    has = answers["option"].astype(str) != ""
    keyed = answers["field"].astype(str).where(~has, [option_key(f, o) for f, o in zip(
        answers["field"].astype(str), answers["option"].astype(str), strict=True)])
    keys = {k: (str(f), str(o)) for k, f, o in zip(keyed[has], answers.loc[has, "field"], answers.loc[has, "option"],
                                                   strict=True)}
    keyed_answers = answers.assign(field=keyed)
    return keyed_answers, option_known(known, option_pairs(keyed_answers, keys))

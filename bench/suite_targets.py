"""Targets on real data that the test suite measured twice, kept here as checks: ``make bench-suite-targets``
runs each, prints its figures and CPU, and exits 1 when one is missed.

- ``snow_replay``: on Snow et al. 2008's RTE and TEMP sets (800 and 462 items x 10 labels; bench/snow_sets.py says
  where they are read from) the default replay (``DEFAULT_RULE``, called in Python) answers right at least as often
  as majority vote over all ten labels, with at most half of them. tests/test_real_labels.py asserts the same on the
  same files through ``hitflow aggregate --adaptive`` as a user runs it, and tests/test_adaptive_cli.py that the
  command's defaults are ``DEFAULT_RULE``: this was the suite's second replay of each set (~5 s of CPU).

bench/suite_measures.py's checks run here too: rates over many trials, figures on real data and a malloc arena
count that the suite measured rather than pinned as a contract."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from bench import suite_measures
from bench.snow_sets import SETS, path_of, read_set


def snow_replay(name: str) -> str:
    from postprocess.answers.adaptive import DEFAULT_RULE, replay, saving
    from postprocess.answers.aggregation import aggregate

    path = path_of(next(s for s in SETS if s.name == name))
    if path is None:
        return (f"skipped: Snow 2008's {name} labels are absent (../shared/data/snow2008-rte-temp, "
                "HITFLOW_RTE_LABELS, HITFLOW_TEMP_LABELS)")
    frame = read_set(path)
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"]
    labels = frame.drop(columns="gold")
    replayed = replay(labels, DEFAULT_RULE)
    right = {name: float((a.set_index("item_id")["label"].reindex(gold.index) == gold).mean())
             for name, a in (("all", aggregate(labels, "mv").answers), ("adaptive", replayed.answers))}
    share = float(saving(replayed, labels)["share_used"])
    assert share <= 0.5, f"{name}: the replay used {share:.1%} of the labels"
    assert right["adaptive"] >= right["all"], \
        f"{name}: adaptive {right['adaptive']:.4f} < majority vote {right['all']:.4f}"
    return f"adaptive {right['adaptive']:.4f} with {share:.1%} of the labels; majority vote {right['all']:.4f}"


CHECKS: dict[str, Callable[[], str]] = {"snow_replay[rte]": lambda: snow_replay("rte"),
                                        "snow_replay[temp]": lambda: snow_replay("temp"),
                                        **suite_measures.CHECKS}


def main() -> int:
    missed = 0
    for name, check in CHECKS.items():
        start = sum(os.times()[:4])  # its own CPU and its processes' (run_arenas runs `hitflow run` in one)
        try:
            said = check()
        except AssertionError as error:
            said, missed = f"MISSED: {error}", missed + 1
        print(f"{name:26s} {said} ({sum(os.times()[:4]) - start:.1f} s CPU)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

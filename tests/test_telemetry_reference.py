"""The raw-record behaviour reference of ``make bench-authenticity`` (bench/telemetry_reference.py)."""

from __future__ import annotations

import json

from bench.telemetry_reference import reference


def page(paste_at: int, away: tuple[int, int] | None, length: int = 60, typed: int = 0) -> str:
    focus = [[away[0], "b"], [away[1], "f"]] if away else []
    field = {"typed": typed, "del": 0, "keys": typed, "first_ms": None, "active_ms": 0, "paste_n": 1,
             "paste": [[paste_at, length, "x"]] if length else [], "paste_x": length, "paste_p": 0, "drop": 0,
             "copy": 0, "cut": 0, "focus": focus, "len": length + typed}
    return json.dumps({"v": 1, "loads": 1, "vis": [], "f": {"caption_0": field}})


def test_the_reference_reads_pastes_by_the_time_away_before_them() -> None:
    assert reference(page(21_500, (1_000, 21_000)), "caption_0") == "own"  # 20 s away for 60 characters: 3/s
    assert reference(page(6_500, (1_000, 6_000)), "caption_0") == "outside"  # 5 s away: 12/s, faster than 10
    assert reference(page(2_000, None), "caption_0") == "outside"  # pasted with no absence at all
    assert reference(page(2_000, None, length=20, typed=50), "caption_0") == "own"  # mostly typed
    assert reference("", "caption_0") == reference("{oops", "caption_0") == "none"
    # the later, short absence is the one the paste came back from, not an older long one
    late = json.loads(page(40_500, (1_000, 30_000)))
    late["f"]["caption_0"]["focus"] += [[36_000, "b"], [40_000, "f"]]
    assert reference(json.dumps(late), "caption_0") == "outside"

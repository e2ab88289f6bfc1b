"""A worker far slower than the batch is for a person to look at, never blocked or rejected on that alone;
a worker far faster (a speeder) is still blocked (an honest ``slow`` simulated worker, who parks
a HIT before working it, was blocked by ``time_outlier``).

The batches are built here; the band (mu +/- 1.95 sigma of the assignments' times, the seed's) is worked
out here from the times written, and the QC, blocking and review queue are the run's own functions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flows.core.config.config import load_config
from qc.custom_rules import CUSTOM_POLICY
from qc.decisions import DecisionPolicy, caption_policy, decide
from qc.review_queue import build_queue
from qc.runner import prepare, run_rules
from qc.worker_history import blocks_on_rates, worker_history

ROOT = Path(__file__).resolve().parents[1]
GOOD = "A small brown dog runs across the green grass in a park."
HONEST = 24  # honest workers, two HITs of five captions a batch, each near 300 s
SLOW_S, FAST_S = 900.0, 20.0  # a HIT parked for ten minutes before its five; five captions in 20 s


def _batch(batch: int, slow_s: float, fast_s: float) -> pd.DataFrame:
    """One batch: the honest crowd, SLOW (two HITs of ``slow_s``) and FAST (two HITs of ``fast_s``)."""
    times = {f"W{k:02d}": 290.0 + 5 * (k % 5) for k in range(HONEST)} | {"SLOW": slow_s, "FAST": fast_s}
    rows = [(f"{w}-b{batch}-{h}", w, f"img{batch}-{w}-{h}-{i}", GOOD, t)
            for w, t in times.items() for h in range(2) for i in range(5)]
    return prepare(pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s"]))


def _band(df: pd.DataFrame) -> tuple[float, float]:
    times = df.drop_duplicates("assignment_id")["work_time_s"]
    return times.mean() - 1.95 * times.std(ddof=1), times.mean() + 1.95 * times.std(ddof=1)


def _campaign(batches: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(flags with their batch, one row per assignment with its captions), as the block step reads them."""
    flags, work = [], []
    for b in range(1, batches + 1):
        df = _batch(b, SLOW_S, FAST_S)
        low, high = _band(df)
        assert FAST_S < low < 290.0 and 310.0 < high < SLOW_S  # only the two are outside the seed's band
        flags.append(run_rules(df, {"time_outlier_sigmas": 1.95}, ["time_outlier"]).assign(batch=b))
        work.append(df.groupby(["assignment_id", "worker_id"]).size().rename("captions").reset_index().assign(batch=b))
    return pd.concat(flags, ignore_index=True), pd.concat(work, ignore_index=True)


def test_each_side_has_its_own_flag_with_the_side_in_its_detail() -> None:
    flags = run_rules(_batch(1, SLOW_S, FAST_S), {}, ["time_outlier"]).set_index("worker_id")
    assert flags["rule"].to_dict() == {"FAST": "time_outlier", "SLOW": "time_outlier_slow"}
    assert flags.loc["SLOW", "detail"].startswith("too slow") and flags.loc["FAST", "detail"].startswith("too fast")
    assert flags.loc["SLOW", "value"] == SLOW_S and flags.loc["FAST", "value"] == FAST_S


def test_slow_workers_kept_on_do_not_hide_a_speeder() -> None:
    """Two workers who park HITs for ~50 min (the simulator's slow profile does) widen the whole batch's band
    below zero: no speeder could fall under it, and while slowness blocked no one they stayed every batch
    (the demo's speeders went uncaught). The fast band is the seed's, over the assignments of everyone
    who is not a slow outlier."""
    df = _batch(1, SLOW_S, FAST_S)
    parked = df[df["worker_id"] == "SLOW"].assign(worker_id="SLOW2", assignment_id=lambda d: d["assignment_id"] + "x")
    df = pd.concat([df, parked], ignore_index=True).assign(
        work_time_s=lambda d: d["work_time_s"].where(~d["worker_id"].isin(["SLOW", "SLOW2"]), 3000.0))
    whole_low, _ = _band(df)
    assert whole_low < FAST_S  # the whole batch's band: the speeder is inside it
    low, _ = _band(df[~df["worker_id"].isin(["SLOW", "SLOW2"])])
    assert FAST_S < low < 290.0  # without the slow two: only the speeder is under it
    flags = run_rules(df, {"time_outlier_sigmas": 1.95}, ["time_outlier"]).set_index("worker_id")
    assert flags["rule"].to_dict() == {"FAST": "time_outlier", "SLOW": "time_outlier_slow",
                                       "SLOW2": "time_outlier_slow"}
    assert "without the 2 slow worker(s)" in flags.loc["FAST", "detail"]


@pytest.mark.parametrize("method", ["seed", "robust_both"])
def test_a_slow_worker_is_not_blocked_and_is_listed_for_a_person_a_fast_one_is_blocked(method: str) -> None:
    flags, work = _campaign()
    if method != "seed":
        params = {"time_outlier_method": method, "time_outlier_sigmas": 3.0}  # as config/vizwiz_full_scale.toml
        flags = pd.concat([run_rules(_batch(b, SLOW_S, FAST_S), params, ["time_outlier"]).assign(batch=b)
                           for b in (1, 2, 3)], ignore_index=True)
    assert set(flags.loc[flags["rule"] == "time_outlier_slow", "worker_id"]) == {"SLOW"}
    blocked = blocks_on_rates(worker_history(work, flags), caption_policy())
    assert list(blocked["worker_id"]) == ["FAST"] and blocked.loc[0, "rules"].startswith("time_outlier 100%")
    decisions = decide(flags, work, caption_policy())
    assert (decisions["action"] == "approve").all()  # neither side rejects work
    assignments = work.assign(auto_approval_time=float("nan"))
    none = pd.DataFrame(columns=["batch", "worker_id", "assignment_id", "action", "reviewer"])
    for mode in ("sample", "flagged"):
        queue = build_queue(flags, assignments, none, caption_policy(), mode, now=0.0)
        slow = queue[queue["worker_id"] == "SLOW"]
        assert slow[["kind", "why", "rules", "auto_action"]].drop_duplicates().values.tolist() == [
            ["worker", "flagged", "time_outlier_slow", "keep"]]
        assert sorted(slow["batch"]) == [1, 2, 3]
    flagged = build_queue(flags, assignments, none, caption_policy(), "flagged", now=0.0)
    assert set(flagged.loc[flagged["why"] == "would_block", "worker_id"]) == {"FAST"}


def test_a_person_who_blocks_a_slow_worker_overturns_keep_once() -> None:
    flags, work = _campaign(batches=1)
    actions = pd.DataFrame([[1, "SLOW", "", "block", "ann"]],
                           columns=["batch", "worker_id", "assignment_id", "action", "reviewer"])
    queue = build_queue(flags, work.assign(auto_approval_time=float("nan")), actions, caption_policy(), "flagged", 0.0)
    slow = queue[queue["worker_id"] == "SLOW"]
    assert slow[["why", "auto_action", "decided"]].values.tolist() == [["flagged", "keep", "block"]]


def test_custom_pages_look_at_slow_workers_and_block_neither_side() -> None:
    flags, work = _campaign(batches=1)
    assert "time_outlier_slow" in CUSTOM_POLICY.review_rules
    assert not {"time_outlier", "time_outlier_slow"} & (set(CUSTOM_POLICY.block_min_flags)
                                                        | set(CUSTOM_POLICY.block_min_rate))
    queue = build_queue(flags, work.assign(auto_approval_time=float("nan")), pd.DataFrame(
        columns=["batch", "worker_id", "assignment_id", "action", "reviewer"]), CUSTOM_POLICY, "sample", 0.0)
    assert set(queue.loc[queue["kind"] == "worker", "worker_id"]) == {"SLOW", "FAST"}


def test_no_policy_rejects_or_blocks_on_slowness() -> None:
    for policy in ({"reject_rules": ("time_outlier_slow",)}, {"block_min_flags": {"time_outlier_slow": 1}},
                   {"block_min_rate": {"time_outlier_slow": 0.5}}):
        with pytest.raises(ValueError, match="only asks a person to look"):
            DecisionPolicy(**policy)  # type: ignore[arg-type]


@pytest.mark.parametrize("config", ["vizwiz_captions.toml", "vizwiz_full_scale.toml", "flickr8k_captions.toml"])
def test_every_caption_config_looks_at_slow_workers(config: str) -> None:
    policy = load_config(ROOT / "config" / config).policy
    assert "time_outlier_slow" in policy.review_rules and "time_outlier_slow" not in policy.block_min_rate


def test_a_config_that_names_other_review_rules_still_looks_at_slow_workers(tmp_path: Path) -> None:
    text = (ROOT / "config" / "vizwiz_captions.toml").read_text(encoding="utf-8")
    named = '"quality_talk", "time_outlier_slow"]'
    assert named in text
    (tmp_path / "items").mkdir()
    (tmp_path / "items" / "vizwiz_demo_items.csv").write_text("image_id,file_name,url\n1,a.jpg,https://x/a.jpg\n")
    (tmp_path / "c.toml").write_text(text.replace(named, '"quality_talk"]'), encoding="utf-8")
    policy = load_config(tmp_path / "c.toml").policy
    assert "time_outlier_slow" in policy.review_rules and "quality_talk" in policy.review_rules


def test_a_new_pages_band_finds_speeders_among_many_and_leaves_a_parked_worker_alone(tmp_path: Path) -> None:
    """On a page a user starts (hitflow new), a batch where a sixth of the work is rushed and one HIT was parked
    for hours: the fast workers' own times widen the seed's mu - 1.95 sigma towards 0 s, so it flags no speeder;
    the starter's band (median and MAD of log time, fast side) flags every speeder, no honest worker, and no one
    for slowness (a parked HIT says nothing of the work)."""
    from flows.custom.scaffold import scaffold
    from qc.worker_rules import time_outlier

    params = load_config(scaffold("speedy", tmp_path)[0]).qc_params
    honest = [60 + 4 * k for k in range(30)]  # 60-176 s, a minute or two an item
    rushed = [15, 18, 22, 26, 30, 35]
    times = honest + rushed + [3000]
    batch = pd.DataFrame({"assignment_id": [f"A{k}" for k in range(len(times))],
                          "worker_id": [f"H{k}" for k in range(30)] + [f"S{k}" for k in range(6)] + ["PARKED"],
                          "work_time_s": times})
    started = time_outlier(batch, params)
    assert set(started["worker_id"]) == {f"S{k}" for k in range(6)}
    assert set(started["rule"]) == {"time_outlier"}
    seeds = time_outlier(batch, {**params, "time_outlier_method": "seed_slow_apart"})
    assert not set(seeds.loc[seeds["rule"] == "time_outlier", "worker_id"])  # the seed's band sees no speeder


def test_the_robust_bands_low_end_does_not_move_with_how_much_of_the_batch_is_fast() -> None:
    """Forty honest times of 35-70 s; then eight, then sixteen more workers at 8-21 s (a third of the batch). Over
    all the times the median falls and the MAD widens, and the low end would fall with them; taken without the
    clearly fast times it stays where it is, flags every fast worker and no honest one."""
    from qc.worker_rules import time_outlier

    honest = [35 + 35 * k / 39 for k in range(40)]
    fast = [8.0 + k for k in range(8)] + [14.0 + k for k in range(8)]

    def band(times: list[float]) -> pd.DataFrame:
        return time_outlier(pd.DataFrame({"assignment_id": [f"A{k}" for k in range(len(times))],
                                          "worker_id": [f"W{k}" for k in range(len(times))], "work_time_s": times}),
                            {"time_outlier_method": "robust", "time_outlier_sigmas": 1.95})

    alone, some, many = band(honest), band(honest + fast[:8]), band(honest + fast)
    assert alone.empty
    assert set(some["threshold"]) == set(many["threshold"]) and len(set(many["threshold"])) == 1
    assert set(many["worker_id"]) == {f"W{40 + k}" for k in range(16)}
    logs = np.log(pd.Series(honest + fast))  # over all the times the low end falls under some of the fast
    centre = float(logs.median())
    assert np.exp(centre - 1.95 * 1.4826 * float((logs - centre).abs().median())) < max(fast)


def test_a_small_batch_with_a_third_fast_is_judged_on_the_campaigns_times_so_far() -> None:
    """Seven honest times of 40-100 s and four fast ones (12-22 s), a third of a small batch: its own MAD widens
    past the fast workers. With the earlier batches' times of the same page (``time_reference``, passed by the
    flow) the band is the campaign's: every fast worker of this batch is flagged, no honest one, and only this
    batch's workers are judged."""
    from qc.worker_rules import time_outlier

    honest = [40 * (100 / 40) ** (k / 6) for k in range(7)]
    fast = [12.0, 15.0, 18.0, 22.0]
    times = honest + fast
    batch = pd.DataFrame({"assignment_id": [f"A{k}" for k in range(len(times))],
                          "worker_id": [f"W{k}" for k in range(len(times))], "work_time_s": times})
    params = {"time_outlier_method": "robust", "time_outlier_sigmas": 1.95}
    alone = time_outlier(batch, params)
    fast_workers = {f"W{k}" for k in range(7, 11)}
    assert not fast_workers <= set(alone["worker_id"])  # the batch's own band lets some through
    earlier = [40 * (100 / 40) ** (k / 19) for k in range(20)] + [10.0, 16.0, 21.0]
    pooled = time_outlier(batch, {**params, "time_reference": earlier})
    assert set(pooled["worker_id"]) == fast_workers and set(pooled["rule"]) == {"time_outlier"}
    assert all("the campaign's median" in d for d in pooled["detail"])
    assert time_outlier(batch, {**params, "time_reference": ["", "n/a"]}).equals(alone)  # nothing read: as before


def test_pages_of_another_size_are_timed_apart() -> None:
    """A first page headed by a quiz has three times the items of the pages after it: eight honest workers
    on quiz pages (110-150 s), six returning honest workers on plain pages (35-50 s) and a speeder on a plain page
    (9 s). Timed together, the plain pages look fast; by page size only the speeder is."""
    from qc.worker_rules import time_outlier

    quiz = [110 + 40 * k / 7 for k in range(8)]
    plain = [35 + 3 * k for k in range(6)] + [9.0]
    times = quiz + plain
    batch = pd.DataFrame({"assignment_id": [f"A{k}" for k in range(len(times))],
                          "worker_id": [f"W{k}" for k in range(len(times))], "work_time_s": times,
                          "page_items": [15] * len(quiz) + [5] * len(plain)})
    params = {"time_outlier_method": "robust", "time_outlier_sigmas": 1.95}
    together = time_outlier(batch.drop(columns="page_items"), params)
    assert len(set(together["worker_id"]) & {f"W{k}" for k in range(8, 14)}) > 0  # honest plain pages flagged
    apart = time_outlier(batch, params)
    assert set(apart["worker_id"]) == {"W14"}
    earlier = [(t, 5) for t in plain[:-1]] + [(t, 15) for t in quiz]  # the campaign so far, each with its size
    assert set(time_outlier(batch, {**params, "time_reference": earlier})["worker_id"]) == {"W14"}
    # pages of one item, too few to time apart, are timed an item against the longer pages (where reading the
    # instructions weighs less an item): an honest one looks slow there, one of 2 s is fast all the same
    short = pd.DataFrame({"assignment_id": ["S1", "S2", "S3"], "worker_id": ["S1", "S2", "S3"],
                          "work_time_s": [24.0, 30.0, 2.0], "page_items": [1, 1, 1]})
    assert set(time_outlier(pd.concat([batch, short], ignore_index=True), params)["worker_id"]) == {"W14", "S3"}

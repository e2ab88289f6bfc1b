"""Table-driven tests of the worker heuristics and caption rules, with edge cases."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from flows.platforms.submission_formats import read_submissions
from qc.runner import DEFAULT_RULES, prepare, run_rules
from qc.submit_rules import CANNED_TEXT

GOOD = "A small brown dog runs across the green grass in a park."


def frame(rows: list[tuple[str, str, str, str, float]]) -> pd.DataFrame:
    return prepare(pd.DataFrame(rows, columns=["assignment_id", "worker_id", "image_id", "caption", "work_time_s"]))


def flags_for(df: pd.DataFrame, rule: str, **params: object) -> pd.DataFrame:
    return run_rules(df, dict(params), [rule])


def test_time_outlier_uses_worker_mean_against_batch_band() -> None:
    rows = [(f"a{i}", f"W{i}", "img", GOOD, 100.0 + (i % 3)) for i in range(20)]
    rows.append(("slow1", "SLOW", "img", GOOD, 900.0))
    df = frame(rows)
    times = df.drop_duplicates("assignment_id")["work_time_s"]
    mu, sigma = times.mean(), times.std(ddof=1)
    flags = flags_for(df, "time_outlier")
    assert list(flags["worker_id"]) == ["SLOW"] and list(flags["rule"]) == ["time_outlier_slow"]  # the slow side
    # the bound the worker crossed, in seconds a person reads (the band's lower end here is below zero)
    assert mu - 1.95 * sigma < 0 and flags.iloc[0]["threshold"] == f"above {mu + 1.95 * sigma:.1f}s"


def test_time_thresholds_name_the_crossed_bound_in_positive_seconds() -> None:
    rows = [(f"a{i}", f"W{i}", "img", GOOD, 100.0 + (i % 3)) for i in range(20)]
    rows += [("fast1", "FAST", "img", GOOD, 2.0), ("slow1", "SLOW", "img", GOOD, 900.0)]
    for method in ("seed_slow_apart", "robust_both"):
        flags = flags_for(frame(rows), "time_outlier", time_outlier_method=method).set_index("worker_id")
        assert flags.loc["FAST", "threshold"].startswith("below ")
        assert flags.loc["SLOW", "threshold"].startswith("above ")
        for threshold in flags["threshold"]:
            assert float(threshold.split()[1].removesuffix("s")) > 0


def test_time_outlier_needs_two_assignments_and_spread() -> None:
    assert flags_for(frame([("a", "W", "i", GOOD, 5.0)]), "time_outlier").empty
    same = frame([("a", "W", "i", GOOD, 5.0), ("b", "V", "i", GOOD, 5.0)])
    assert flags_for(same, "time_outlier").empty


@pytest.mark.parametrize(("captions", "flagged"), [
    (["A SMALL DOG RUNS ON THE GRASS IN A PARK TODAY"], True),
    (["A SMALL DOG RUNS on the grass in a park today"], False),  # below half
    ([CANNED_TEXT.upper(), "a small dog runs on the grass in a park"], False),  # canned text excluded
    (["12345 67890 !!!"], False),  # no letters at all
])
def test_caps_lock(captions: list[str], flagged: bool) -> None:
    df = frame([(f"a{i}", "W", f"i{i}", c, 10.0) for i, c in enumerate(captions)])
    assert (not flags_for(df, "caps_lock").empty) == flagged


@pytest.mark.parametrize(("n_canned", "n_total", "flagged"), [(3, 5, True), (1, 2, False), (5, 5, True), (0, 3, False)])
def test_canned_overuse_strictly_above_half(n_canned: int, n_total: int, flagged: bool) -> None:
    caps = [CANNED_TEXT] * n_canned + [GOOD] * (n_total - n_canned)
    df = frame([(f"a{i}", "W", f"i{i}", c, 10.0) for i, c in enumerate(caps)])
    assert (not flags_for(df, "canned_overuse").empty) == flagged


def test_canned_lone_use_and_nonuse() -> None:
    df = frame([("a1", "W1", "img1", CANNED_TEXT, 1), ("a2", "W2", "img1", GOOD, 1), ("a3", "W3", "img1", GOOD, 1),
                ("a1", "W1", "img2", GOOD, 1), ("a2", "W2", "img2", CANNED_TEXT, 1),
                ("a3", "W3", "img2", CANNED_TEXT, 1)])
    use = flags_for(df, "canned_lone_use")
    nonuse = flags_for(df, "canned_lone_nonuse")
    assert list(zip(use["worker_id"], use["image_id"], strict=True)) == [("W1", "img1")]
    assert list(zip(nonuse["worker_id"], nonuse["image_id"], strict=True)) == [("W1", "img2")]


def test_canned_lone_needs_three_captions_and_ignores_ties() -> None:
    two = frame([("a1", "W1", "i", CANNED_TEXT, 1), ("a2", "W2", "i", GOOD, 1)])
    assert flags_for(two, "canned_lone_use").empty
    tie = frame([("a1", "W1", "i", CANNED_TEXT, 1), ("a2", "W2", "i", CANNED_TEXT, 1),
                 ("a3", "W3", "i", GOOD, 1), ("a4", "W4", "i", GOOD, 1)])
    assert flags_for(tie, "canned_lone_use").empty and flags_for(tie, "canned_lone_nonuse").empty


@pytest.mark.parametrize(("caption", "flagged"), [
    ("A blurry view of a red car parked on the street.", True),
    ("A red car with BLUR on its license plate sticker.", True),
    ("A sign advertising quality furniture at low prices.", True),
    ("A red car parked on the street near the blurred-out sign.", True),
    ("A box of blueberries sits on the kitchen counter top.", False),  # 'blu' is not 'blur'
    (CANNED_TEXT, False),
])
def test_quality_words_whole_word_any_case(caption: str, flagged: bool) -> None:
    assert (not flags_for(frame([("a", "W", "i", caption, 1)]), "quality_words").empty) == flagged


def test_quality_words_rate_flags_a_habit_not_one_caption() -> None:
    """The seed's quality-word trigger at worker level: a worker who names quality in 30%+
    of 3+ captions is flagged; one blurry carrot, or one of four captions, is not."""
    rows = [("b1", "B", "i1", "A blurry photo of a red mug on a table", 1),
            ("b2", "B", "i2", "A low quality shot of a can of soup", 1), ("b3", "B", "i3", "A dog on a sofa", 1),
            ("c1", "C", "i1", "A woman's hand holding a blurry orange carrot", 1),
            *[(f"d{k}", "D", f"i{k}", text, 1) for k, text in enumerate(
                ["A blurry sign by a road", "A cat on a bed", "A mug of tea", "A book on a desk"])],
            *[(f"e{k}", "E", f"i{k}", CANNED_TEXT, 1) for k in range(3)], ("e9", "E", "i9", "A blurry cup", 1)]
    found = flags_for(frame(rows), "quality_words_rate")
    assert set(found["worker_id"]) == {"B"}  # C wrote one caption, D 1 of 4, E's canned captions do not count
    assert float(found["value"].iloc[0]) == pytest.approx(0.667, abs=1e-3)


def test_duplicate_text_across_images_normalised() -> None:
    df = frame([("a1", "W", "i1", "A dog on a couch in a small living room.", 1),
                ("a1", "W", "i2", "a dog on a couch   in a small living room.", 1),
                ("a2", "V", "i1", "A dog on a couch in a small living room.", 1),
                ("a1", "W", "i3", CANNED_TEXT, 1), ("a1", "W", "i4", CANNED_TEXT, 1)])
    flags = flags_for(df, "duplicate_text")
    assert list(flags["worker_id"]) == ["W"] and flags.iloc[0]["value"] == 2


def test_duplicate_text_sees_through_invisible_characters() -> None:
    """One caption on four images, each copy with a zero-width space, soft hyphen, direction mark or
    byte-order mark at another place: the same text on the page, so the same caption."""
    text = "A dog on a couch in a small living room."
    copies = [text[:5] + "\u200b" + text[5:], text[:12] + "\u00ad" + text[12:], "\u200e" + text, text + "\ufeff"]
    df = frame([(f"a{i}", "W", f"i{i}", copy, 1) for i, copy in enumerate(copies)])
    flags = flags_for(df, "duplicate_text")
    assert list(flags["worker_id"]) == ["W"] and flags.iloc[0]["value"] == 4


def test_the_invisible_characters_are_unicodes_format_characters() -> None:
    import unicodedata

    from qc.invisible_text import INVISIBLE

    format_chars = {c for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}
    assert format_chars <= set(INVISIBLE)  # every one this Python knows (newer Unicode may add: unassigned here)
    assert all(unicodedata.category(chr(c)) in ("Cf", "Cn") for c in INVISIBLE)


def test_random_sample_is_seeded_and_sized() -> None:
    df = frame([(f"a{i}", f"W{i % 7}", f"i{i}", GOOD, 1) for i in range(100)])
    one = flags_for(df, "random_sample", random_sample_share=0.1, seed=4)
    two = flags_for(df, "random_sample", random_sample_share=0.1, seed=4)
    other = flags_for(df, "random_sample", random_sample_share=0.1, seed=5)
    assert len(one) == 10 and list(one["assignment_id"]) == list(two["assignment_id"])
    assert list(one["assignment_id"]) != list(other["assignment_id"])


def test_random_sample_of_a_batch_checked_again_keeps_its_picks_and_skips_decided_work() -> None:
    first = frame([(f"a{i}", f"W{i % 7}", f"i{i}", GOOD, 1) for i in range(40)])
    picked = list(flags_for(first, "random_sample", random_sample_share=0.1, seed=4)["assignment_id"])
    grown = frame([(f"a{i}", f"W{i % 7}", f"i{i}", GOOD, 1) for i in range(60)])  # 20 more came in
    decided = [f"a{i}" for i in range(40)]  # the first 40 were approved or rejected after the first check
    again = flags_for(grown, "random_sample", random_sample_share=0.1, seed=4, sampled_before=picked,
                      decided=decided)
    ids = list(again["assignment_id"])
    assert len(ids) == 6 and set(ids[:4]) == set(picked)  # the batch's share, its earlier picks first
    assert all(int(a[1:]) >= 40 for a in ids[4:])  # the rest only among work without a verdict yet
    plain = list(flags_for(grown, "random_sample", random_sample_share=0.1, seed=4)["assignment_id"])
    assert set(plain) & set(decided) - set(picked)  # drawn afresh, the sample would pick decided work


def test_runner_reports_every_rule_and_never_stops_early() -> None:
    df = frame([("a1", "W1", "i1", "This is a dog", 1.0), ("a2", "W2", "i1", "", 2.0)])
    flags = run_rules(df, {})
    rules = set(flags["rule"])
    assert {"banned_prefix", "min_words"} <= rules
    assert set(flags.columns) == {"worker_id", "rule", "value", "threshold", "assignment_id", "image_id", "detail"}


def test_runner_reports_unknown_and_broken_rules_as_rows() -> None:
    df = frame([("a1", "W1", "i1", GOOD, 1.0)])
    flags = run_rules(df.drop(columns=["is_precanned"]), {}, ["caps_lock", "nope"])
    assert list(flags["rule"]) == ["rule_error", "rule_error"]
    assert "nope" in flags.iloc[1]["detail"]


def test_empty_batch_gives_empty_flag_table() -> None:
    assert run_rules(frame([]), {}, DEFAULT_RULES).empty


def test_prepare_names_missing_columns() -> None:
    with pytest.raises(ValueError, match="missing column"):
        prepare(pd.DataFrame({"caption": ["x"]}))


@pytest.mark.parametrize("rule", ["caps_lock", "duplicate_text", "quality_words", "min_words", "banned_prefix"])
def test_only_canned_captions_raise_no_text_flags(rule: str) -> None:
    df = frame([(f"a{i}", "W", f"i{i}", CANNED_TEXT.upper() if i % 2 else CANNED_TEXT, 10.0) for i in range(4)])
    assert flags_for(df, rule).empty


def test_single_worker_batch() -> None:
    df = frame([("a1", "W", f"i{i}", GOOD, 60.0) for i in range(5)])
    flags = run_rules(df, {"random_sample_share": 0})
    assert set(flags["rule"]) == {"duplicate_text"}  # the same caption on five images, nothing else


def test_a_blank_is_precanned_cell_is_decided_by_the_text_not_read_as_canned(tmp_path: Path) -> None:
    """Blank cells beside filled ones load as NaN, which astype(bool) used to read as canned."""
    path = tmp_path / "submissions.csv"
    path.write_text("assignment_id,worker_id,image_id,caption,work_time_s,is_precanned\n"
                    f"a1,W1,i1,{CANNED_TEXT},30,1\n"
                    f"a2,W2,i1,{GOOD},30,\n"  # blank: the caption is the worker's own
                    f"a3,W3,i1,{CANNED_TEXT},30,\n"  # blank: the caption is the canned text
                    f"a4,W4,i1,{GOOD},30,false\n", encoding="utf-8")
    prepared = prepare(read_submissions(path))
    assert prepared["is_precanned"].tolist() == [True, False, True, False]

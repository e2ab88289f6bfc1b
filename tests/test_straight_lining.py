"""``choice_straight_lining`` on choice and rating fields: one answer everywhere, judged by how improbable
that run is for an honest worker (qc/straight_lining_odds.py), checked against scipy's binomial."""

from itertools import product
from math import comb

import pandas as pd
import pytest
from scipy.stats import binom

from qc.custom_rules import choice_straight_lining
from qc.straight_lining_odds import R_MAX


def frame(answers: dict[str, list[str]], field: str = "score") -> pd.DataFrame:
    """``answers``: worker -> their answer on items i0, i1, ... ("" = not answered)."""
    return pd.DataFrame([{"assignment_id": f"{w}-{k}", "worker_id": w, "image_id": f"i{k}", "field": field,
                          "answer": a} for w, row in answers.items() for k, a in enumerate(row)])


def flags(df: pd.DataFrame, alpha: float = 0.01) -> pd.DataFrame:
    return choice_straight_lining(df, {"straight_lining_min_items": 3, "straight_lining_alpha": alpha})


def flagged(df: pd.DataFrame) -> set[str]:
    return set(flags(df)["worker_id"])


def p_of(df: pd.DataFrame, worker: str) -> float:
    """The run's probability the rule computed (alpha 1: every run of one answer is reported)."""
    out = flags(df, alpha=1.0)
    return float(out.loc[out["worker_id"] == worker, "value"].iloc[0])


def test_a_rater_one_point_above_the_others_on_a_scale_is_not_straight_lining() -> None:
    # the MOS page of the third-party templates: an honest rater gave 5 to all three clips the others rated 4
    df = frame({"generous": ["5", "5", "5"], "a": ["4", "4", "3"], "b": ["4", "4", "4"]})
    assert flagged(df) == set()


def test_one_rating_far_from_the_others_on_every_item_is() -> None:
    df = frame({"lazy": ["1", "1", "1"], "a": ["4", "5", "3"], "b": ["4", "4", "3"], "c": ["5", "4", "4"]})
    assert flagged(df) == {"lazy"}
    # the others agree on every item (r capped at R_MAX); outside the band the chance is 1 - r on each item
    assert p_of(df, "lazy") == pytest.approx(binom.pmf(0, 3, R_MAX), rel=1e-2)


def test_against_unanimous_others_the_run_is_the_binomial_tail() -> None:
    no = ["no"] * 5
    df = frame({"same": ["yes"] * 5, "a": no, "b": no, "c": no}, field="clear")
    # the others agree among themselves everywhere: r = R_MAX; "yes" five times is 0 agreements of 5
    assert p_of(df, "same") == pytest.approx(binom.pmf(0, 5, R_MAX), rel=1e-2)
    assert flagged(df) == {"same"}


def rotating(majority: list[str]) -> dict[str, list[str]]:
    """Four others per item: three give the item's majority answer, one (a different one per item) the other."""
    other = {"yes": "no", "no": "yes"}
    return {f"p{j}": [other[m] if k % 4 == j else m for k, m in enumerate(majority)] for j in range(4)}


@pytest.mark.parametrize(("majority", "expected_flag"), [
    (["no", "no", "no", "no", "yes", "yes"], True),    # "yes" on 6 items, the others said "no" on 4
    (["no", "no", "no", "yes", "yes", "yes"], False),  # ... on 3: as likely as "no" six times
])
def test_the_typical_agreement_comes_from_the_others(majority: list[str], expected_flag: bool) -> None:
    df = frame({"same": ["yes"] * 6, **rotating(majority)}, field="clear")
    # by hand: on every item 3 of the 4 others agree with the rest's majority, the odd one does not: r = 0.75
    r, agree = 0.75, majority.count("yes")
    own = binom.pmf(agree, 6, r) / comb(6, agree)  # one sequence of `agree` agreements in 6
    mirror = binom.pmf(6 - agree, 6, r) / comb(6, 6 - agree)  # "no" six times
    expected = own + (mirror if mirror <= own * (1 + 1e-9) else 0.0)
    assert p_of(df, "same") == pytest.approx(expected, rel=1e-2)
    assert (flagged(df) == {"same"}) is expected_flag


def test_two_options_three_of_four_identical_never_flag_where_the_truth_repeats() -> None:
    # every truth over a 4-item page, four others who follow it, and an honest worker who answers 3 of the 4
    # items (the 4th left blank) with one answer that is the truth on at least 2 of the 3
    for truth in product(("yes", "no"), repeat=4):
        others = {f"p{j}": list(truth) for j in range(4)}
        for answer in ("yes", "no"):
            if sum(t == answer for t in truth[:3]) >= 2:
                df = frame({"honest": [answer] * 3 + [""], **others}, field="clear")
                assert flagged(df) == set(), (truth, answer)
    # the others said otherwise on all three: flagged (binom: 0.15^3)
    df = frame({"odd": ["yes"] * 3 + [""], **{f"p{j}": ["no"] * 4 for j in range(4)}}, field="clear")
    assert p_of(df, "odd") == pytest.approx(binom.pmf(0, 3, R_MAX), rel=1e-2) and flagged(df) == {"odd"}


def test_too_few_items_or_a_field_that_repeats_for_everyone_is_no_evidence() -> None:
    assert flagged(frame({"same": ["yes", "yes"], "a": ["no", "no"], "b": ["no", "no"]}, field="c")) == set()
    agree = frame({"same": ["yes"] * 4, "a": ["yes"] * 4, "b": ["yes"] * 4}, field="clear")
    assert flagged(agree) == set()


def test_a_four_option_field_counts_the_declared_options() -> None:
    others = {f"p{j}": ["b", "c", "d"] for j in range(3)}
    df = frame({"same": ["a"] * 3, **others}, field="pick").assign(options=4)
    # r = R_MAX; each item's chance of "a" is (1 - r)/3; the runs of "b", "c", "d" are likelier
    assert p_of(df, "same") == pytest.approx(((1 - R_MAX) / 3) ** 3, rel=1e-2)
    assert flagged(df) == {"same"}


def two_fields(worker_a: list[str], worker_b: list[str]) -> pd.DataFrame:
    """Two yes/no fields on 4 items, four others who agree: "no" on two items, "yes" on two, in each."""
    majority = ["no", "no", "yes", "yes"]
    others = {f"p{j}": majority for j in range(4)}
    return pd.concat([frame({"w": worker_a, **others}, field="a_ok"), frame({"w": worker_b, **others}, field="b_ok")])


def test_runs_on_several_fields_combine_by_fishers_method() -> None:
    from scipy.stats import combine_pvalues

    # alone, "yes" four times on either field is as likely as "no" four times (each 2 agreements of 4)
    alone = 2 * binom.pmf(2, 4, R_MAX) / comb(4, 2)
    assert alone > 0.01
    df = two_fields(["yes"] * 4, ["yes"] * 4)
    together = combine_pvalues([alone, alone], method="fisher").pvalue
    out = flags(df)
    assert together < 0.01 and list(out["worker_id"]) == ["w"]
    assert float(out["value"].iloc[0]) == pytest.approx(together, rel=1e-2)
    # one run beside a field answered as the others did: that field's p-value is 1
    honest = two_fields(["yes"] * 4, ["no", "no", "yes", "yes"])
    assert flagged(honest) == set()
    assert p_of(honest, "w") == pytest.approx(alone, rel=1e-2)


def crowd_with(worker: list[str], peers: int) -> pd.DataFrame:
    """A yes / no / not sure field on len(worker) items; ``peers`` others who all say the item's answer (yes,
    no, yes...): each judged, none with a run of one answer."""
    truth = ["yes" if k % 2 == 0 else "no" for k in range(len(worker))]
    answers = {f"p{j}": truth for j in range(peers)}
    df = frame({"w": worker, **answers}, field="spam")
    return df.assign(options=3)


def test_a_block_needs_the_run_to_stand_among_every_worker_judged() -> None:
    # "not sure" on 3 items: improbable for one worker (p < 0.01) but not among 31 judged
    many = flags(crowd_with(["not sure"] * 3, peers=30))
    p = float(many["value"].iloc[0])
    assert p == pytest.approx(((1 - R_MAX) / 2) ** 3, rel=1e-2) and 0.01 / 31 < p < 0.01
    assert list(many["rule"]) == ["choice_straight_lining_review"]
    assert float(many["threshold"].iloc[0]) == pytest.approx(0.01 / 31, rel=1e-3)
    # the same run among 4 workers judged stands (p < 0.01 / 4): the flag that blocks
    few = flags(crowd_with(["not sure"] * 3, peers=3))
    assert float(few["value"].iloc[0]) < 0.01 / 4 and list(few["rule"]) == ["choice_straight_lining"]
    # a longer run stands among 30
    assert list(flags(crowd_with(["not sure"] * 6, peers=30))["rule"]) == ["choice_straight_lining"]


def test_a_worker_s_evidence_is_the_fisher_combination_where_it_is_stronger_than_any_one_field() -> None:
    from scipy.stats import combine_pvalues

    # field a: "yes" on 4 items the others said "no" on two of (alone above 0.01); field b: "yes" on 4 "no"s
    df = two_fields(["yes"] * 4, ["yes"] * 4)
    df = pd.concat([df[df["field"] == "a_ok"], frame({"w": ["yes"] * 4, **{f"p{j}": ["no"] * 4 for j in range(4)}},
                                                     field="b_ok")])
    alone = [p_of(df[df["field"] == f], "w") for f in ("a_ok", "b_ok")]
    together = combine_pvalues(alone, method="fisher").pvalue
    out = flags(df)
    assert alone[1] < 0.01 and together < min(alone)
    assert list(out["worker_id"]) == ["w"] and float(out["value"].iloc[0]) == pytest.approx(together, rel=1e-2)


def test_the_review_flag_never_blocks_nor_rejects() -> None:
    from qc.decisions import DecisionPolicy

    with pytest.raises(ValueError, match="choice_straight_lining_review"):
        DecisionPolicy(block_min_flags={"choice_straight_lining_review": 1})


def test_the_others_own_answer_on_every_item_is_no_evidence() -> None:
    # an opinion poll where most people answer "neutral": a worker who says "neutral" to all 15 proposals gives
    # the others' answer on every item; the crowd's agreement (a third: one of the others differs on each item)
    # is no ceiling on an honest worker's, so the run is judged at its likeliest rate from the crowd's up
    options = ["strongly disagree", "disagree", "neutral", "agree", "strongly agree"]
    others = {f"p{j}": ["neutral" if k % 3 != j else options[(k + j) % 5 if (k + j) % 5 != 2 else 0]
                        for k in range(15)] for j in range(3)}
    df = frame({"steady": ["neutral"] * 15, **others}, field="view").assign(options=5)
    assert flags(df, alpha=1.0).empty  # p = 1: not below any alpha (before: 7e-08, blocked)

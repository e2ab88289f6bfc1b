"""``choice_straight_lining`` on choice and rating fields: one answer everywhere against the others."""

import pandas as pd

from qc.custom_rules import choice_straight_lining


def frame(answers: dict[str, list[str]], field: str = "score") -> pd.DataFrame:
    """``answers``: worker -> their answer on items i0, i1, ..."""
    return pd.DataFrame([{"assignment_id": f"{w}-{k}", "worker_id": w, "image_id": f"i{k}", "field": field,
                          "answer": a} for w, row in answers.items() for k, a in enumerate(row)])


def flagged(df: pd.DataFrame) -> set[str]:
    return set(choice_straight_lining(df, {"straight_lining_min_items": 3})["worker_id"])


def test_a_rater_one_point_above_the_others_on_a_scale_is_not_straight_lining() -> None:
    # the MOS page of the third-party templates: an honest rater gave 5 to all three clips the others rated 4
    df = frame({"generous": ["5", "5", "5"], "a": ["4", "4", "3"], "b": ["4", "4", "4"]})
    assert flagged(df) == set()


def test_one_rating_far_from_the_others_on_every_item_is() -> None:
    df = frame({"lazy": ["1", "1", "1"], "a": ["4", "5", "3"], "b": ["4", "4", "3"], "c": ["5", "4", "4"]})
    assert flagged(df) == {"lazy"}


def test_a_choice_field_keeps_the_majority_rule() -> None:
    df = frame({"same": ["yes", "yes", "yes"], "a": ["no", "no", "yes"], "b": ["no", "no", "no"]}, field="clear")
    assert flagged(df) == {"same"}
    agree = frame({"same": ["yes", "yes", "yes"], "a": ["yes", "yes", "yes"]}, field="clear")
    assert flagged(agree) == set()

"""A star widget's rating (buttons whose script writes a hidden field, bench/gate_heldout19/pun_jokes.html) is read
by item_blind as a slider's is: a worker giving every joke five stars while the crowd's ratings follow the jokes is
flagged, honest raters are not. Read as a formatted value, the rating never reached a worker's history."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd

from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_review import ANSWER_COLUMNS, _answer_rows, custom_flags
from qc.flags import FLAG_COLUMNS

PAGE = Path(__file__).resolve().parents[1] / "bench" / "gate_heldout19" / "pun_jokes.html"


def star_answers(constant: str, items: int = 16, honest: int = 6) -> pd.DataFrame:
    """The page's answer rows (its fields as the import names them, ``_0``) for ``honest`` raters within a star of
    each joke's own funniness and one rater who gives every joke ``constant`` stars."""
    spec = form_spec(form_fields(PAGE.read_text(encoding="utf-8")), hidden_answers=True)
    spec = {"fields": [{**f, "name": f"{f['name']}_0"} for f in spec["fields"]]}
    assert {"funny_0": "hidden"}.items() <= {f["name"]: f.get("input") for f in spec["fields"]}.items()
    rng, rows = random.Random(7), []
    for k in range(items):
        funny = 1 + k % 5
        for w in range(honest + 1):
            stars = constant if w == honest else str(min(5, max(1, funny + rng.choice((-1, 0, 0, 1)))))
            fields = {"image_id_0": f"joke-{k}", "funny_0": stars, "wordplay_0": "two_sounds",
                      "explanation_0": "It plays on two words that sound alike."}
            rows += _answer_rows({"assignment_id": f"a{k}-{w}", "worker_id": f"w{w}"}, spec, fields, [f"joke-{k}"],
                                 set())
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def test_a_constant_star_rater_is_item_blind_and_honest_raters_are_not() -> None:
    answers = star_answers("5")
    responses = pd.DataFrame({"worker_id": answers["worker_id"].unique()})
    flags = custom_flags(responses, answers, {}, ("item_blind",))[FLAG_COLUMNS]
    flagged = set(flags.loc[flags["rule"].str.startswith("item_blind"), "worker_id"])
    assert flagged == {"w6"}, flags
    assert set(answers.loc[answers["field"] == "funny", "kind"]) == {"number"}  # as a slider's: a scale

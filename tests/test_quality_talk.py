"""Table-driven tests of ``quality_talk``: a caption about the photo's quality, not its content
(a quality word and no agreement with the other workers' captions of its image); with the edge
cases (one caption per image, all canned, empty text, non-English text, very long text)."""

from __future__ import annotations

import pandas as pd
import pytest

from qc.runner import prepare, run_rules
from qc.submit_rules import CANNED_TEXT

PEERS = ["A red coffee mug standing on a kitchen counter", "Close view of a red coffee mug on the counter",
         "The red coffee mug photographed from above", "Someone holding a red coffee mug in one hand"]
LONG_TALK = "Image has drawbacks in quality " + " ".join(["and nothing else can be said"] * 300)


def batch(odd_one: str, peers: list[str] = PEERS) -> pd.DataFrame:
    """One image: the peers' captions by W0.. and ``odd_one`` by S."""
    rows = [(f"W{w}", "i0", c) for w, c in enumerate(peers)] + [("S", "i0", odd_one)]
    data = pd.DataFrame(rows, columns=["worker_id", "image_id", "caption"])
    data["assignment_id"] = [f"a{i}" for i in range(len(rows))]
    return prepare(data)


def talk_flags(df: pd.DataFrame, **params: object) -> pd.DataFrame:
    flags = run_rules(df, {"quality_talk_consensus": 0.1, **params}, ["quality_talk"])
    assert set(flags["rule"]) <= {"quality_talk"}, flags["detail"].tolist()
    return flags


@pytest.mark.parametrize(("odd_one", "flagged"), [
    ("Image has drawbacks in quality and not focused well.", True),   # real rejected VizWiz captions
    ("blurry image to this contain image on this page", True),
    ("IMAGE QUALITY IS LOW TO RECOGNIZE ANYTHING", True),            # any case
    ("A blurry red coffee mug on the kitchen counter", False),        # names quality, describes the mug
    ("A green tractor parked in a field of wheat", False),            # off-topic, but no quality word
    ("The qualityless blurriness of a scene", False),                 # whole words only
    ("", False),                                                      # empty text
    ("La calidad de la imagen es muy mala", False),                   # no configured word in Spanish
    ("La imagen está blurry y no se ve nada", True),                  # a configured word in any sentence
    ("画像の品質が悪い quality", True),                                 # non-Latin text with the word
    (LONG_TALK, True),                                                # very long text
    (CANNED_TEXT, False),                                             # canned text is never judged
])
def test_quality_talk_flags_quality_instead_of_content(odd_one: str, flagged: bool) -> None:
    flags = talk_flags(batch(odd_one))
    assert (flags["worker_id"] == "S").any() == flagged, flags["detail"].tolist()
    assert set(flags["worker_id"]) <= {"S"}  # the peers agree with each other
    if flagged:
        row = flags.iloc[0]
        assert row["assignment_id"] == "a4" and float(row["value"]) < 0.1 and row["threshold"] == 0.1
        assert "agrees with no peer" in row["detail"]


@pytest.mark.parametrize(("params", "flagged"), [
    ({"quality_talk_consensus": 0.0}, False),                 # nothing is below a ceiling of 0
    ({"quality_talk_consensus": 1.0}, True),
    ({"quality_words": ["drawbacks"]}, True),                 # the configured words, not a fixed list
    ({"quality_words": ["blurry"]}, False),
    ({"quality_words": []}, False),
    ({"consensus_min_peers": 5}, False),                      # 4 peers: too few to judge
])
def test_quality_talk_parameters(params: dict[str, object], flagged: bool) -> None:
    flags = talk_flags(batch("Image has drawbacks in quality and not focused well."), **params)
    assert (not flags.empty) == flagged, flags["detail"].tolist()


@pytest.mark.parametrize("peers", [
    [],                                         # one caption on its image
    [CANNED_TEXT] * 4,                          # every peer canned: nothing to agree with
    ["", " ", "..."],                           # blank peers are no evidence
])
def test_quality_talk_does_not_judge_a_caption_without_peers(peers: list[str]) -> None:
    assert talk_flags(batch("Image quality is very poor and blurry", peers)).empty


def test_quality_talk_on_a_batch_without_words_runs_and_flags_nothing() -> None:
    df = batch("...", peers=["!", "?", "--"])
    flags = run_rules(df, {}, ["quality_talk", "consensus"])
    assert "rule_error" not in set(flags["rule"]) and "quality_talk" not in set(flags["rule"])

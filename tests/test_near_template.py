"""Table-driven tests of ``near_template``: a pasted sentence varied a little from image to image,
that agrees with none of its own image's captions; with the edge cases (one caption per image,
all canned, empty, non-English, very long text)."""

from __future__ import annotations

import pandas as pd
import pytest

from qc.runner import prepare, run_rules
from qc.submit_rules import CANNED_TEXT
from qc.template_rules import template_key

# Four honest captions per image, each image its own subject, so peers agree with each other.
SUBJECTS = ["red coffee mug", "tin of tomato soup", "black television remote", "bottle of green shampoo",
            "box of cereal flakes", "blue winter glove", "pack of aspirin tablets", "jar of peanut butter"]
VARIANTS = ["IMAGE WAS CLEAR BUT ITS HAFE OF THE PICTURE", "IMAGE WAS CLEAR BUT IT THIS NOT A ITEM",
            "Image was clear but its not itean so its dark", "IMAGE WAS CLEAR BUT, NOTHING TO SAY.",
            "IMAGE WAS CLEAR BUT VERY FAR AWAY", "image was clear but 2 objects"]
SPANISH = ["La imagen era clara pero nada se ve", "La imagen era clara pero muy oscura",
           "la imagen era clara pero lejos", "La imagen era clara pero borrosa"]
LONG = "IMAGE WAS CLEAR BUT " + " ".join(["nothing more can be said about it"] * 300)


def honest(subject: str) -> list[str]:
    return [f"A {subject} standing on a kitchen counter", f"Close view of a {subject} on the counter",
            f"The {subject} photographed from above", f"Someone holding a {subject} in one hand"]


def batch(odd_ones: list[str], peers: int = 4) -> pd.DataFrame:
    """Image k: ``peers`` honest captions of its subject and, if given, ``odd_ones[k]`` by spammer S{k}."""
    rows = []
    for k, subject in enumerate(SUBJECTS):
        rows += [(f"W{w}", f"i{k}", c) for w, c in enumerate(honest(subject)[:peers])]
        if k < len(odd_ones):
            rows.append((f"S{k}", f"i{k}", odd_ones[k]))
    data = pd.DataFrame(rows, columns=["worker_id", "image_id", "caption"])
    data["assignment_id"] = [f"a{i}" for i in range(len(rows))]
    return prepare(data)


def near_flags(df: pd.DataFrame, **params: object) -> pd.DataFrame:
    flags = run_rules(df, {"near_template_min_images": 4, **params}, ["near_template"])
    assert set(flags["rule"]) <= {"near_template"}, flags["detail"].tolist()
    return flags


@pytest.mark.parametrize(("odd_ones", "flagged_spammers"), [
    (VARIANTS[:4], 4),              # one sentence, varied, on four images: each variant flagged
    (VARIANTS[:3], 0),              # on three images only
    (VARIANTS, 6),
    (SPANISH, 4),                   # any language with spaces between words
    (["Imagen 1 era clara", "Imagen 2 era clara", "imagen 3 era clara", "IMAGEN 4 ERA CLARA"], 0),  # 3 words < 4
    (["Image 1 was clear but dark", "Image 22 was clear but far", "image 3 was clear but ok",
      "IMAGE 4 WAS CLEAR BUT NO"], 4),  # digits are not words: one key
    ([f"这张图片很清楚但是{end}" for end in "暗远糊无"], 0),  # no spaces: one word, so no 4-word key
    (["", " ", "...", "!"], 0),     # empty text has no key
    ([LONG, LONG + " x", LONG + " y", LONG + " z"], 4),  # very long: only the opening is read
    ([CANNED_TEXT] * 4, 0),         # canned text is neither judged nor counted
])
def test_near_template_flags_a_varied_sentence_on_many_images(odd_ones: list[str], flagged_spammers: int) -> None:
    flags = near_flags(batch(odd_ones))
    assert set(flags["worker_id"]) <= {f"S{k}" for k in range(len(odd_ones))}  # no honest caption
    assert len(flags) == flagged_spammers
    if flagged_spammers:
        assert set(flags["value"]) == {flagged_spammers} and set(flags["threshold"]) == {4}
        assert "opens like low-consensus captions on" in flags.iloc[0]["detail"]


def test_honest_captions_that_open_alike_agree_with_their_peers_and_are_not_flagged() -> None:
    # "A red coffee mug", "A tin of tomato soup", ...: the first words repeat on every image, but
    # every such caption agrees with its own image's captions, so its consensus is high.
    flags = near_flags(batch([]), near_template_words=2, near_template_min_images=2)
    assert flags.empty


def test_one_caption_per_image_is_not_judged() -> None:
    df = batch(VARIANTS[:4], peers=0)  # the variants alone: no peers, no consensus score
    assert near_flags(df).empty
    assert near_flags(batch(VARIANTS[:4], peers=1)).empty  # one peer is below consensus_min_peers = 2
    assert len(near_flags(batch(VARIANTS[:4], peers=1), consensus_min_peers=1)) == 4


@pytest.mark.parametrize(("params", "n_flags"), [
    ({"near_template_consensus": 0.0}, 0),          # nothing is below a ceiling of 0
    ({"near_template_words": 6}, 0),                # "image was clear but its hafe" vs "... it this": keys differ
    ({"near_template_words": 1}, 4),
    ({"near_template_min_images": 5}, 0),
    ({"near_template_min_images": 2}, 4),
])
def test_near_template_parameters(params: dict[str, object], n_flags: int) -> None:
    assert len(near_flags(batch(VARIANTS[:4]), **params)) == n_flags


@pytest.mark.parametrize(("text", "n_words", "key"), [
    ("IMAGE WAS CLEAR BUT ITS HAFE", 4, "image was clear but"),
    ("Image, was; clear -- but!", 4, "image was clear but"),
    ("Image 2 was clear but", 4, "image was clear but"),
    ("Image was clear", 4, ""),
    ("", 4, ""),
    ("La imagen era clara pero", 3, "la imagen era"),
    ("Ünïcödé wörds stäy", 2, "ünïcödé wörds"),
    ("这张图片很清楚", 1, "这张图片很清楚"),
])
def test_template_key(text: str, n_words: int, key: str) -> None:
    assert template_key(text, n_words) == key

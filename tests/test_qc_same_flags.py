"""The speed work: the faster QC (reader, prepare, shared text features, sparse consensus) gives the very
same flag table as the QC before it, kept verbatim in bench/qc_reference.py as the independent
computation: on the real VizWiz-Captions val captions (21,355, with workers, work times and a few
abusers added so every rule has something to find) and on a small batch of awkward text; and ``hitflow qc`` on a
generated batch writes the very flag file an earlier commit's wrote (tests/generated_flags.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from bench import qc_reference as old
from flows.campaigns.offline import offline_qc
from flows.campaigns.page_text import qc_params
from flows.core.config.config import load_config
from flows.platforms.submission_formats import read_submissions
from qc.runner import KNOWN_RULES, prepare, run_rules
from qc.submit_rules import CANNED_TEXT, SubmitRules
from tests.generated_flags import RECORDED, digests, write_batch

ROOT = Path(__file__).resolve().parents[1]
VIZWIZ_VAL = "vizwiz-captions-v1-val/VizWiz_Captions_v1_val_updated.json"
PASTED = "A very wonderful view and worth seeing at all times, my friend"


def vizwiz_submissions(path: Path) -> pd.DataFrame:
    """The val captions as a plain submissions table: 300 workers in five-image assignments, one
    pasting a template, one in capitals, one blurry-talker, seeded work times, canned text as given."""
    annotations = json.loads(path.read_text(encoding="utf-8"))["annotations"]
    rng = random.Random(33)
    rows = []
    for k, a in enumerate(annotations):
        worker = f"W{(k // 5 * 3 + k % 5 * 61) % 300}"
        caption = a["caption"]
        if worker == "W7":
            caption = PASTED
        elif worker == "W8":
            caption = caption.upper()
        elif worker == "W9" and k % 2:
            caption = "The photo is blurry and the quality is poor."
        rows.append({"assignment_id": f"A{k // 5}-{worker}", "worker_id": worker, "image_id": str(a["image_id"]),
                     "caption": caption, "work_time_s": round(rng.lognormvariate(5, 0.6), 1)})
    return pd.DataFrame(rows)


def same_flags(raw: pd.DataFrame, params: dict, canned_text: str = CANNED_TEXT) -> pd.DataFrame:
    new_frame, old_frame = prepare(raw, canned_text), old.prepare(raw, canned_text)
    pd.testing.assert_frame_equal(new_frame, old_frame)
    new, before = run_rules(new_frame, params, KNOWN_RULES), old.run_rules(old_frame, params, KNOWN_RULES)
    pd.testing.assert_frame_equal(new, before)
    return new


def test_real_vizwiz_captions_get_the_same_flags_as_before(shared_data: Path, tmp_path: Path) -> None:
    source = shared_data / VIZWIZ_VAL
    if not source.is_file():
        pytest.skip(f"needs {source}")
    csv_path = tmp_path / "submissions.csv"
    vizwiz_submissions(source).to_csv(csv_path, index=False)
    raw = read_submissions(csv_path)
    pd.testing.assert_frame_equal(raw, old.read_submissions(csv_path))  # the fast reader reads the same table
    cfg = load_config(ROOT / "config" / "vizwiz_captions.toml")
    # consensus at 0.02 (the config held it before the reproducibility work): at the config's 0.01 no worker of this
    # file reaches consensus_rate, and the comparison should cover that rule's output too
    params = {**qc_params(cfg, seed=1), "submit_rules": cfg.submit_rules, "consensus_threshold": 0.02}
    flags = same_flags(raw, params)
    found = set(flags["rule"])
    # every rule had something to find, so the comparison covers each one's output
    assert {"consensus", "consensus_rate", "shared_template", "near_template", "quality_talk", "caps_lock",
            "quality_words", "duplicate_text", "min_words", "banned_prefix", "one_sentence"} <= found
    assert len(flags) > 2000


AWKWARD = ["", "   ", "\u200b", CANNED_TEXT, "quality issues are too SEVERE to recognize visual content ...",
           " Quality  issues are too severe to recognize visual content.\t", "İstanbul İS BLURRY quality",
           "emoji😀next to words about the dog and the cat here", "tab\tand\u00a0no-break\u2003spaces in text",
           "ＡＢＣ full-width LETTERS ARE UPPER", "x\u0301 combining marks on the dog here and there",
           "Blur. Then a second sentence follows here with words", "This is a red bottle of water on a table",
           "a b c d e f g h", "one two three", "狗在公园里跑", "狗在公园里跑", "The dog. The dog. The dog.",
           "qqhitflowsepqq holds the separator word and more words", "BLURRED-edges: blur_ry quality? yes"]


def test_awkward_text_gets_the_same_flags_as_before() -> None:
    rows = [{"assignment_id": f"a{k // 3}", "worker_id": f"w{k % 4}", "image_id": f"i{k // 5}",
             "caption": text.upper() if k % 4 == 3 else text, "work_time_s": 30.0 + k}
            for k, text in enumerate(AWKWARD * 3)]  # w3 writes in capitals
    raw = pd.DataFrame(rows)
    page = "Describe the image in one sentence for a person who is blind.\nDo not talk about quality or blur."
    params = {"page_text": page, "seed": 2, "consensus_threshold": 0.1, "submit_rules": SubmitRules(max_chars=40)}
    flags = same_flags(raw, params)
    assert {"consensus", "caps_lock", "quality_words", "min_words", "required", "max_chars"} <= set(flags["rule"])
    canned = SubmitRules().canned_text.upper() + " "
    same_flags(raw.assign(caption=raw["caption"].where(raw.index % 7 > 0, canned)), params, "")  # no canned text


@pytest.mark.parametrize("canned", [CANNED_TEXT, "N/A.", "...", "K.O. (k)", "a . b", "Ａ full", "  "])
def test_canned_captions_are_found_as_is_canned_finds_them(canned: str) -> None:
    from qc.submit_rules import is_canned
    from qc.text_features import canned_mask

    rng = random.Random(canned)
    bits = [canned, canned.upper(), canned.lower(), canned.replace(" ", " \x1f\n "), " ", "\t", "\x0b", "\x1c",
            "\u00a0", ".", " .", "x", "İ", "\u212a", "a", "b", "ｆｕｌｌ"]
    texts = ["".join(rng.choice(bits) for _ in range(rng.randrange(0, 4))) for _ in range(2000)]
    assert canned_mask(pd.Series(texts), canned).tolist() == [is_canned(t, canned) for t in texts]


def test_hitflow_qc_on_a_generated_batch_writes_the_recorded_commits_flags(tmp_path: Path) -> None:
    kept = json.loads(RECORDED.read_text())
    offline_qc(write_batch(tmp_path / "captions.csv", kept["captions"]), tmp_path / "flags.csv")
    now = digests(tmp_path / "flags.csv")
    moved = sorted(r for r in kept["rules"].keys() | now["rules"].keys() if kept["rules"].get(r) != now["rules"].get(r))
    assert not moved, f"flags of {moved} differ from {kept['commit'][:8]}'s (see tests/generated_flags.py)"
    assert now["file"] == kept["file"]  # the same rows, in the same order, written the same way

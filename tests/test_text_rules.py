"""Table-driven tests of the caption-text rules (consensus, shared_template, instruction_echo)
and of robust timing, with the edge cases: one caption per image, all canned, empty text,
non-English text, very long text, and a rule that cannot run."""

from __future__ import annotations

import pandas as pd
import pytest

from qc import text_features
from qc.flags import RULES, RegisteredRule, flag_frame
from qc.runner import prepare, run_rules
from qc.submit_rules import CANNED_TEXT

DOG = ["A brown dog runs across the green grass of a park",
       "A small brown dog is running on green grass in the park",
       "Brown dog running through a park on a sunny day",
       "A dog with brown fur sprints across a grassy park"]
SPAM = "A very wonderful view and worth seeing at all times, my friend"
PAGE = ("Describe the image in one sentence for a person who is blind.\n"
        "Include at least 8 words.\n"
        "DO NOT describe the image quality issues (blur, lighting, framing).\n"
        "Do not start with \u201cThere is\u201d, \u201cThere are\u201d, \u201cThis is\u201d.")
LONG = " ".join(["A brown dog runs across the green grass of a park"] * 300)


def frame(rows: list[tuple[str, str, str]], times: list[float] | None = None) -> pd.DataFrame:
    """Rows of (worker, image, caption); one assignment per row."""
    data = pd.DataFrame(rows, columns=["worker_id", "image_id", "caption"])
    data["assignment_id"] = [f"a{i}" for i in range(len(rows))]
    data["work_time_s"] = times if times is not None else 60.0
    return prepare(data)


def image(captions: list[str], image_id: str = "i1", first_worker: int = 0) -> list[tuple[str, str, str]]:
    return [(f"W{first_worker + k}", image_id, c) for k, c in enumerate(captions)]


def flagged(df: pd.DataFrame, rule: str, **params: object) -> pd.DataFrame:
    flags = run_rules(df, dict(params), [rule])
    assert "rule_error" not in set(flags["rule"]), flags["detail"].tolist()
    return flags[flags["rule"] == rule]


@pytest.mark.parametrize(("odd_one", "expect_flag"), [
    (SPAM, True),                                    # generic text that shares nothing with the photo
    ("A brown dog on green grass in a city park", False),  # an honest, different wording
    ("", True),                                      # empty text agrees with nothing
    ("一只棕色的狗在公园的草地上奔跑", True),           # another language shares no word with the peers
    (LONG, False),                                   # very long, but about the same dog
])
def test_consensus_flags_a_caption_that_shares_nothing_with_its_peers(odd_one: str, expect_flag: bool) -> None:
    df = frame(image([*DOG, odd_one]))
    flags = flagged(df, "consensus", consensus_threshold=0.1)
    odd_assignment = df.iloc[-1]["assignment_id"]
    assert (odd_assignment in set(flags["assignment_id"])) is expect_flag
    assert set(flags["assignment_id"]) <= {odd_assignment}  # the honest four agree with each other
    if expect_flag:
        detail = flags.iloc[0]["detail"]
        assert "best of 4 peers" in detail and flags.iloc[0]["threshold"] == 0.1
        assert float(flags.iloc[0]["value"]) < 0.1


def test_consensus_names_the_closest_peer() -> None:
    df = frame(image(["Red car parked at night", "Red car parked beside a shampoo advert",
                      "Bottle of shampoo on bathroom shelf"]))
    flags = flagged(df, "consensus", consensus_threshold=0.3)
    shampoo = flags[flags["assignment_id"] == "a2"]
    assert len(shampoo) == 1
    assert "W1: Red car parked beside a shampoo advert" in shampoo.iloc[0]["detail"]  # shares "shampoo"
    assert 0 < float(shampoo.iloc[0]["value"]) < 0.3
    assert flags[flags["assignment_id"] == "a0"].empty  # its best peer (W1) agrees


@pytest.mark.parametrize(("rows", "skipped"), [
    ([("W0", "i1", DOG[0])], 1),                                       # one caption per image
    ([("W0", "i1", DOG[0]), ("W1", "i1", DOG[1])], 2),                  # one peer each, two needed
    ([("W0", "i1", DOG[0]), ("W0", "i1", DOG[1]), ("W0", "i1", DOG[2])], 3),  # own captions are no peers
    ([("W0", "i1", DOG[0])] + [(f"W{k}", "i1", CANNED_TEXT) for k in range(1, 5)], 1),  # canned peers carry nothing
])
def test_consensus_skips_and_counts_images_with_too_few_peers(rows: list[tuple[str, str, str]], skipped: int) -> None:
    flags = run_rules(frame(rows), {"consensus_min_peers": 2}, ["consensus"])
    assert list(flags["rule"]) == ["rule_info"]
    assert flags.iloc[0]["value"] == "consensus"
    assert flags.iloc[0]["detail"].startswith(f"skipped {skipped} caption(s) on 1 image(s)")


def test_consensus_on_all_canned_or_empty_batches_flags_nothing() -> None:
    assert run_rules(frame(image([CANNED_TEXT] * 5)), {}, ["consensus"]).empty
    blank = run_rules(frame(image(["", " ", "...", "!", "?"])), {}, ["consensus"])
    assert set(blank["rule"]) <= {"rule_info"}


def test_consensus_rate_flags_a_worker_who_mostly_disagrees() -> None:
    rows = []
    for k in range(4):
        rows += [*image(DOG[:4], f"i{k}"), ("SPAMMER", f"i{k}", SPAM if k < 3 else DOG[0])]
    flags = flagged(frame(rows), "consensus_rate", consensus_threshold=0.1)
    assert list(flags["worker_id"]) == ["SPAMMER"]
    assert flags.iloc[0]["value"] == 0.75 and flags.iloc[0]["detail"] == "3 of 4 captions agree with no peer"


@pytest.mark.parametrize(("texts", "min_images", "n_flags"), [
    ([SPAM, SPAM.upper(), "  a very wonderful   view and worth seeing at all times, my friend!!"], 3, 3),
    ([SPAM, SPAM], 3, 0),                      # two images only
    ([SPAM, SPAM], 2, 2),
    ([SPAM, SPAM + " today", SPAM], 3, 0),     # one differs in a word: not the same text
    (["", "", ""], 2, 0),                      # empty text is not a template
    (["狗在公园里跑", "狗在公园里跑。", "狗在公园里跑"], 3, 3),  # non-English, final punctuation ignored
    ([LONG, LONG, LONG], 3, 3),
])
def test_shared_template_counts_images_whoever_wrote_it(texts: list[str], min_images: int, n_flags: int) -> None:
    rows = [(f"W{k % 2}", f"i{k}", t) for k, t in enumerate(texts)]  # two accounts share the template
    flags = flagged(frame(rows), "shared_template", shared_template_min_images=min_images)
    assert len(flags) == n_flags
    if n_flags:
        assert set(flags["value"]) == {len(texts)}


def test_shared_template_ignores_canned_text_and_one_image_repeats() -> None:
    canned = frame([(f"W{k}", f"i{k}", CANNED_TEXT) for k in range(5)])
    assert flagged(canned, "shared_template", shared_template_min_images=2).empty
    same_image = frame([(f"W{k}", "i1", SPAM) for k in range(5)])
    assert flagged(same_image, "shared_template", shared_template_min_images=2).empty


@pytest.mark.parametrize(("caption", "expect_flag"), [
    ("Describe the image in one sentence for a person who is blind", True),
    ("Do not describe the image quality issues blur lighting framing", True),
    ("There is There are This is", True),        # the banned phrases themselves
    ("A brown dog runs across the green grass of a park", False),
    ("", False),
    ("一只棕色的狗在公园的草地上奔跑", False),
    (LONG, False),
])
def test_instruction_echo_compares_with_the_page_text(caption: str, expect_flag: bool) -> None:
    df = frame(image([*DOG, caption]))
    flags = flagged(df, "instruction_echo", page_text=PAGE, instruction_echo_threshold=0.5)
    assert (df.iloc[-1]["assignment_id"] in set(flags["assignment_id"])) is expect_flag
    assert len(flags) == int(expect_flag)
    if expect_flag:
        assert "like the page's" in flags.iloc[0]["detail"]


def test_instruction_echo_without_page_text_is_a_rule_error_and_others_still_run() -> None:
    df = frame(image([*DOG, SPAM]))
    flags = run_rules(df, {"consensus_threshold": 0.1}, ["instruction_echo", "consensus"])
    assert list(flags["rule"]) == ["rule_error", "consensus"]
    assert "page_text" in flags.iloc[0]["detail"]
    assert run_rules(frame(image([CANNED_TEXT] * 3)), {"page_text": PAGE}, ["instruction_echo"]).empty


def _parked_batch() -> pd.DataFrame:
    """40 workers near 300 s, two parked HITs of ~3 h (inflating sigma), one speeder at 90 s."""
    times = [300.0 + 7 * (k % 9) - 28 for k in range(40)] + [10800.0, 12600.0, 90.0]
    rows = [(f"W{k}", f"i{k}", DOG[0]) for k in range(len(times) - 1)] + [("SPEEDER", "ix", DOG[0])]
    return frame(rows, times)


@pytest.mark.parametrize(("method", "speeder_flagged", "parked_flagged"), [
    ("seed", False, True),     # the seed's band exactly: mu +/- 1.95 sigma of all assignments, whose
                               # ~2,300 s sigma swallows the 90 s speeder
    ("seed_slow_apart", True, True),  # ... its fast side without the parked two
    ("robust", True, False),   # median/MAD of log time, fast side only
    ("robust_both", True, True),  # ... and the slow side: the parked HITs too
])
def test_time_outlier_methods_on_a_batch_with_parked_hits(method: str, speeder_flagged: bool,
                                                          parked_flagged: bool) -> None:
    flags = run_rules(_parked_batch(), {"time_outlier_method": method}, ["time_outlier"])
    fast, slow = (set(flags.loc[flags["rule"] == rule, "worker_id"]) for rule in ("time_outlier", "time_outlier_slow"))
    assert ("SPEEDER" in fast) is speeder_flagged
    # the parked HITs are the slow side's flag: a person looks, no policy blocks on it
    assert (slow == {"W40", "W41"}) is parked_flagged and (not slow) is not parked_flagged
    assert fast <= {"SPEEDER"} and len(flags) == len(fast) + len(slow)


def test_unknown_time_outlier_method_is_a_rule_error() -> None:
    flags = run_rules(_parked_batch(), {"time_outlier_method": "fast"}, ["time_outlier"])
    assert list(flags["rule"]) == ["rule_error"] and "seed, seed_slow_apart, robust" in flags.iloc[0]["detail"]


def test_robust_timing_needs_spread() -> None:
    same = frame([(f"W{k}", "i", DOG[0]) for k in range(5)], [60.0] * 5)
    assert flagged(same, "time_outlier", time_outlier_method="robust").empty
    zero = frame([(f"W{k}", "i", DOG[0]) for k in range(6)], [0.0, 300, 310, 290, 305, 295])
    assert list(flagged(zero, "time_outlier", time_outlier_method="robust")["worker_id"]) == ["W0"]


@pytest.mark.parametrize("text", [
    "A dog's toy, on the mat.", "snake_case and CamelCase", "naïve café — résumé…", "狗在公园里跑。", "",
    "emoji😀next to words", "tab\tand\u00a0no-break\u2003spaces", "x\u0301 combining", "１２ full-width digits",
])
def test_words_split_like_the_word_regex(text: str) -> None:
    import re

    from qc.text_similarity import words

    assert words(text.lower()) == re.findall(r"\w+", text.lower())


def test_batch_fit_equals_per_text_fit_even_when_a_caption_holds_the_separator() -> None:
    from qc.text_similarity import _SEPARATOR, fit_vectors

    texts = (*DOG, f"a {_SEPARATOR} b", "", "狗在公园里跑")
    fitted = fit_vectors(texts)  # the separator in a caption sends the batch down the per-text path
    joined = fit_vectors(tuple(DOG))
    assert fitted is not None and joined is not None
    assert fitted.rows.shape[0] == len(texts) and fitted.rows[len(DOG) + 1].nnz == 0
    assert _SEPARATOR in fitted.vocabulary and "狗在公园里跑" in fitted.vocabulary
    assert set(joined.vocabulary) <= set(fitted.vocabulary)


def test_consensus_keeps_the_fit_only_for_an_instruction_echo_still_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = []

    def probe(df: pd.DataFrame, params: dict[str, object]) -> pd.DataFrame:  # None: the batch no longer holds it
        kept.append(text_features.shared(df, "written_fit", lambda: None) is not None)
        return flag_frame([])

    monkeypatch.setitem(RULES, "probe", RegisteredRule("probe", "caption", probe))
    df = frame([(f"w{k}", f"i{k % 3}", DOG[k % 4]) for k in range(12)])
    with_echo = run_rules(df, {"page_text": PAGE}, ["consensus", "probe", "instruction_echo"])
    without = run_rules(df, {"page_text": PAGE}, ["consensus", "probe"])
    assert kept == [True, False]
    assert with_echo[with_echo["rule"] != "instruction_echo"].equals(without)

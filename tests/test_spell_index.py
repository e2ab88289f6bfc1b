"""The speed work pt 1: spelling from a symmetric-delete index makes pyspellchecker's choices.

Each check is against pyspellchecker itself, run in the test: its edit sets (on a small alphabet,
exhaustively), its corrections over a made-up dictionary with distinct frequencies (so there are
no ties, whose pick pyspellchecker leaves to string hashing), and over the English list for
typos of common words. The disk cache is checked on a small dictionary: written once, read back
the same, and rebuilt when damaged.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from spellchecker import SpellChecker

from flows.core.outputs.spelling_cache import cached_index, spelling_index
from postprocess.spell_index import SHORT_TOKEN, SpellIndex, damerau, one_edit
from postprocess.spellcheck import spellcheck_frame


def _checker(frequencies: dict[str, int], distance: int) -> SpellChecker:
    checker = SpellChecker(language=None, distance=distance)
    checker.word_frequency.load_json(frequencies)
    return checker


def _old(near: SpellChecker, far: SpellChecker, token: str) -> str | None:
    """hitflow's corrector before the index (bench/spelling_speed.py keeps it as the baseline)."""
    best = near.correction(token)
    if (best is None or best == token) and len(token) <= SHORT_TOKEN:
        best = far.correction(token)
    return best if best and best != token else None


def test_distances_are_pyspellcheckers_edit_sets() -> None:
    checker = _checker({"ab'c": 1}, 1)  # letters a, b, c and the apostrophe
    strings = ["".join(p) for n in range(5) for p in itertools.product("ab'c", repeat=n)]
    rng = random.Random(3)
    tokens = [s for s in strings if s[:1].isalpha()]  # as the tokenizer cuts them: a letter first
    for word in rng.sample(tokens, 40):
        one = checker.edit_distance_1(word)
        two = set(checker.edit_distance_2(word))
        for other in strings:
            if other != word:
                assert one_edit(word, other) == (other in one), (word, other)
            assert (damerau(word, other) <= 2) == (other in two), (word, other)


def _typo(word: str, rng: random.Random) -> str:
    for _ in range(rng.choice((1, 1, 2))):
        i = rng.randrange(len(word))
        word = rng.choice((word[:i] + word[i + 1:], word[:i] + rng.choice("abcdef") + word[i:],
                           word[:i] + rng.choice("abcdef") + word[i + 1:], word[:i] + word[i + 1:i + 2] + word[i]
                           + word[i + 2:]))
    return word


def test_corrections_match_pyspellchecker_on_a_made_up_dictionary() -> None:
    rng = random.Random(11)
    words = sorted({"".join(rng.choices("abcdef", k=rng.randint(2, 10))) for _ in range(3000)})
    frequencies = {w: 10 * (k + 1) for k, w in enumerate(rng.sample(words, len(words)))}  # all distinct
    frequencies["ébcd"] = 1  # an accented word: pyspellchecker prefers it for "ebcd", however rare;
    # hitflow leaves "ebcd" alone (the accent-free form is valid), the rest is pyspellchecker's
    near, far = _checker(frequencies, 1), _checker(frequencies, 2)
    index = SpellIndex.build(frequencies)
    tokens = [*sorted({_typo(rng.choice(words), rng) for _ in range(400)} - set(frequencies) - {""}), "ebcd"]
    found = index.corrections(tokens)
    expected = {t: _old(near, far, t) for t in tokens if t != "ebcd"}
    assert {t: found.get(t) for t in expected} == expected
    assert _old(near, far, "ebcd") == "ébcd" and "ebcd" not in found
    assert sum(v is None for v in expected.values()) > 5  # some have no candidate


def test_corrections_match_pyspellchecker_on_english_typos() -> None:
    near, far = SpellChecker(distance=1), SpellChecker(distance=2)
    index = spelling_index()
    tokens = ["teh", "recieve", "quikly", "cafe", "bottel", "keybaord", "tabel", "blury", "wiht", "pciture",
              "xqzvwkj", "lable", "cnan", "contaner", "scren", "phne", "mesage", "colour", "grren", "dgo", "2", "nan"]
    frequency = near.word_frequency.dictionary
    found = index.corrections(tokens)
    for token in tokens:
        if token == "cafe":  # an accent-free word stays (pyspellchecker gives "café")
            continue
        old = _old(near, far, token)
        new = found.get(token)
        assert new == old or (old and new and frequency[old] == frequency[new]), (token, old, new)
    assert found["teh"] == "the" and "cafe" not in found and "xqzvwkj" not in found and "2" not in found


def test_the_index_is_built_once_and_read_back_from_disk(tmp_path: Path) -> None:
    frequencies = {"bottle": 50, "label": 40, "table": 30, "cable": 20}
    first = cached_index(frequencies, tmp_path, "small")
    files = list((tmp_path / "spelling").glob("small-*.npz"))
    assert len(files) == 1
    again = cached_index(frequencies, tmp_path, "small")
    assert np.array_equal(again.keys, first.keys) and again.words == first.words
    assert again.corrections(["labl", "botle"]) == {"labl": "label", "botle": "bottle"}
    other = cached_index({**frequencies, "lable": 1}, tmp_path, "small")  # another dictionary: another file
    assert len(list((tmp_path / "spelling").glob("small-*.npz"))) == 2 and "lable" in other


def test_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    frequencies = {"bottle": 50, "label": 40}
    cached_index(frequencies, tmp_path, "small")
    [path] = (tmp_path / "spelling").glob("small-*.npz")
    path.write_bytes(b"not an index")
    assert cached_index(frequencies, tmp_path, "small").corrections(["botle"]) == {"botle": "bottle"}
    with np.load(path) as arrays:  # written again, whole
        assert len(arrays["keys"]) > 0


def test_a_passed_index_is_the_one_used() -> None:
    index = SpellIndex.build({"bottle": 50, "label": 40, "the": 100})
    frame = spellcheck_frame(pd.DataFrame({"caption": ["teh botle has a labl"]}), index=index)
    assert frame["caption_corrected"].tolist() == ["the bottle has a label"]


def test_a_plain_english_word_is_not_rewritten_to_an_accented_form() -> None:
    """The last-edges work: the accent-first tie rule turned valid English into accented words."""
    index = spelling_index()
    plain = ["attaches", "ole", "fete", "cafe", "resume"]
    assert all(w.isascii() for w in plain)
    found = index.corrections(plain)
    assert {w: found.get(w) for w in plain} == dict.fromkeys(plain)
    fixed = spellcheck_frame(pd.DataFrame({"caption": ["The tag attaches to an ole fete banner."],
                                           "worker_id": ["w1"]}), min_workers=3, index=index)
    assert fixed["caption_corrected"].iloc[0] == "The tag attaches to an ole fete banner."
    assert index.corrections(["teh", "fete"]) == {"teh": "the"}  # typos still corrected alongside


def _campaign(typo_workers: int, the_uses: int) -> pd.DataFrame:
    rows = [(f"t{k}", "teh dog sits by a keurig") for k in range(typo_workers)]
    rows += [(f"w{k % 50}", "the cat is on the mat by a keurig") for k in range(the_uses // 2)]
    return pd.DataFrame(rows, columns=["worker_id", "caption"])


def test_a_typo_shared_by_many_workers_is_corrected_when_its_word_is_far_more_frequent() -> None:
    """The last-edges work: a typo typed by 3+ workers was kept as campaign vocabulary whatever the campaign's
    size ("teh" 1,591 times over 200,000 captions)."""
    index = spelling_index()
    big = spellcheck_frame(_campaign(typo_workers=12, the_uses=600), min_workers=3, index=index)
    assert big["caption_corrected"].iloc[0] == "the dog sits by a keurig"  # 12 workers, "the" 600 times
    assert (big["caption_corrected"] == big["caption_corrected"].str.replace("teh", "the")).all()
    # an unknown word without a near dictionary word stays kept, and so does one used as often as its neighbour
    small = spellcheck_frame(_campaign(typo_workers=12, the_uses=20), min_workers=3, index=index)
    assert small["caption_corrected"].iloc[0] == "teh dog sits by a keurig"
    assert "keurig" not in "".join(big["edits"]) + "".join(small["edits"])


def test_pyspellcheckers_own_list_is_found_by_its_file_without_parsing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process's first caption campaign loads the kept index named by the word list file's bytes: the
    ~160,000 words are not read into a SpellChecker and hashed again to find it."""
    from flows.core.outputs import spelling_cache

    first = spelling_index()
    assert list((spelling_cache.cache_dir() / "spelling").glob("en-file-*.npz"))
    spelling_index.cache_clear()

    def parsed_again(**_: object) -> None:
        raise AssertionError("the word list was parsed again")

    monkeypatch.setattr(spelling_cache, "SpellChecker", parsed_again)
    try:
        again = spelling_index()
    finally:
        spelling_index.cache_clear()  # the next test gets an index made the usual way
    assert np.array_equal(again.keys, first.keys) and again.words == first.words
    assert again.corrections(["teh"]) == {"teh": "the"}

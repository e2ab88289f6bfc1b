"""``hitflow aggregate --adaptive``'s numeric options (the stopping rule and the skill prior) take
any number a person can type: a replay with a sound rule, or one line saying what to give, never a
traceback and never a silent replay on a value that makes every confidence NaN."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flows.cli.main import main
from tests.fuzz_support import FUZZ

LABELS = "item_id,worker_id,label\n" + "".join(
    f"i{item},w{worker},{'yes' if (item + worker) % 3 else 'no'}\n" for item in range(6) for worker in range(5))
number = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10).map(float),
                   st.sampled_from([0.0, 1.0, 0.5, 1e-300, 1e308]))
OPTIONS = ("--skill-prior", "--skill-prior-weight", "--crowd-prior-weight", "--typical-prior-weight", "--confidence")


def replay(folder: Path, option: str, value: float, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    (folder / "labels.csv").write_text(LABELS)
    capsys.readouterr()  # hypothesis runs many examples on one capture
    code = main(["aggregate", str(folder / "labels.csv"), "--out", str(folder / "answers.csv"), "--adaptive",
                 f"{option}={value!r}"])  # the = form: "-inf" alone would read as an option
    said = capsys.readouterr()
    return code, said.out, said.err


@FUZZ
@given(st.sampled_from(OPTIONS), number)
def test_any_number_gives_a_sound_replay_or_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     option: str, value: float) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    code, out, err = replay(folder, option, value, capsys)
    if code:
        assert err.startswith("hitflow: ") and err.count("\n") == 1 and "Traceback" not in err, err
        assert option.lstrip("-").replace("-", " ").split()[-1] in err.replace("_", " ")
        assert not (folder / "answers.csv").exists()
        return
    summary = json.loads(out)
    assert 0 < summary["share_used"] <= 1
    assert math.isfinite(value), f"{option} {value!r} was replayed"


@pytest.mark.parametrize("option", ["--skill-prior", "--skill-prior-weight"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0.0])
def test_a_prior_that_says_nothing_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          option: str, value: float) -> None:
    if option == "--skill-prior" and value == math.inf:
        value = 1.0  # an accuracy of 1 trusts every worker completely: as empty as infinity is for the weight
    code, _, err = replay(tmp_path, option, value, capsys)
    assert code == 2, err
    assert "skill prior" in err and "Traceback" not in err


TIMED = "item_id,worker_id,label,seconds\n" + "".join(
    f"i{item},w{worker},{'yes' if (item + worker) % 3 else 'no'},{30 + 40 * worker}\n"
    for item in range(6) for worker in range(5))


def timed_replay(folder: Path, text: str, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    (folder / "labels.csv").write_text(text)
    capsys.readouterr()
    code = main(["aggregate", str(folder / "labels.csv"), "--out", str(folder / "answers.csv"), "--adaptive",
                 "--seconds", "seconds", *args])
    said = capsys.readouterr()
    return code, said.out, said.err


def sound_or_one_line(folder: Path, code: int, out: str, err: str) -> dict[str, object] | None:
    if code:
        assert err.startswith("hitflow: ") and err.count("\n") == 1 and "Traceback" not in err, err
        assert not (folder / "answers.csv").exists()
        return None
    summary = json.loads(out)
    assert 0 < summary["share_used"] <= 1
    return summary


@FUZZ
@given(number)
def test_any_fast_share_gives_a_sound_replay_or_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        value: float) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    code, out, err = timed_replay(folder, TIMED, [f"--fast-share={value!r}"], capsys)
    if sound_or_one_line(folder, code, out, err) is None:
        assert "fast" in err
    else:
        assert 0 <= value < 1, f"--fast-share {value!r} was replayed"


@FUZZ
@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=6)),
                min_size=30, max_size=30))
def test_any_work_times_give_a_sound_replay_or_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       times: list[str]) -> None:
    """Whatever a seconds column holds (numbers of any size, blanks, text, CSV's own quotes and commas)."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    cells = ['"' + t.replace('"', '""') + '"' for t in times]
    rows = [line.rsplit(",", 1)[0] + "," + cell for line, cell in zip(TIMED.splitlines()[1:], cells, strict=True)]
    text = TIMED.splitlines()[0] + "\n" + "\n".join(rows) + "\n"
    code, out, err = timed_replay(folder, text, ["--fast-share", "0.5"], capsys)
    sound_or_one_line(folder, code, out, err)


@FUZZ
@given(st.text(max_size=20))
def test_any_sweep_text_gives_a_sweep_or_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  text: str) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    code, out, err = timed_replay(folder, TIMED, [f"--sweep={text}"], capsys)
    summary = sound_or_one_line(folder, code, out, err)
    if summary is not None and "sweep" in summary:
        rows = summary["sweep"]
        assert isinstance(rows, list) and rows[0]["confidence"] is None
        assert all(0 < row["confidence"] <= 1 for row in rows[1:])


@pytest.mark.parametrize("model", [["--adaptive"], ["--method", "skill"]])
@pytest.mark.parametrize("value", [2.225073858507e-311, 5e-324, 1e-7])
def test_a_typical_weight_too_small_to_count_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    model: list[str], value: float) -> None:
    """A fuzz run found it: at 2.2e-311 the typical part's pseudo-counts round to 0, and the replay died on
    a NaN confidence (a traceback) while --method skill wrote a tie on every item at confidence 0."""
    (tmp_path / "labels.csv").write_text(LABELS)
    code = main(["aggregate", str(tmp_path / "labels.csv"), "--out", str(tmp_path / "answers.csv"), *model,
                 f"--typical-prior-weight={value!r}"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("hitflow: ") and err.count("\n") == 1, err
    assert "typical worker prior weight" in err and "give 0 (none) or a number of judgements between 1e-06" in err
    assert not (tmp_path / "answers.csv").exists()

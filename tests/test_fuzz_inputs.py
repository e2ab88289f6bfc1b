"""Hostile answer XML and CLI argument values, generated; and a few real `hitflow` processes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flows.core.pages.mturk_forms import answer_rows, answer_xml, parse_answer_xml
from tests.forked_hitflow import ForkServer
from tests.fuzz_support import FUZZ, hostile_text
from tests.test_fuzz_csv import run_cli

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "config" / "vizwiz_captions.toml")


@FUZZ
@given(st.dictionaries(st.text(max_size=12) | hostile_text, st.text() | hostile_text, max_size=6))
def test_answer_xml_round_trips_any_text(values: dict[str, str]) -> None:
    xml = answer_xml(values)
    xml.encode("ascii")  # what MTurk sends: ASCII, everything else as references
    assert parse_answer_xml(xml) == values


def test_control_character_caption_round_trips_and_is_marked() -> None:
    values = {"image_id_0": "VizWiz_1.jpg", "caption_0": "A can\x0bof soup\r\non a shelf.\x00"}
    xml = answer_xml(values)
    assert 'encoding="json"' in xml and "\x0b" not in xml
    assert answer_rows("A1", xml, ["VizWiz_1.jpg"]) == [
        {"assignment_id": "A1", "item_id": "VizWiz_1.jpg", "field": "caption", "value": values["caption_0"]}]


@FUZZ
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=7), hostile_text), max_size=6))
def test_answer_rows_keep_every_caption(pairs: list[tuple[int, str]]) -> None:
    values = {f"image_id_{i}": f"im{i}" for i, _ in pairs} | {f"caption_{i}": text for i, text in pairs}
    rows = answer_rows("A1", answer_xml(values), [f"im{i}" for i in range(8)])
    # every caption kept; half a character (a lone surrogate) as U+FFFD: no ledger stores it (test_malformed_answers)
    kept = {(f"im{i}", re.sub("[\ud800-\udfff]", "\ufffd", values[f"caption_{i}"])) for i, _ in pairs}
    assert {(r["item_id"], r["value"]) for r in rows} == kept


@FUZZ
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                 st.sampled_from(["<QuestionFormAnswers>", "<a>&#11;</a>", "<a><b></a>", "", "<?xml?>",
                                  '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'])))
def test_malformed_answer_xml_raises_only_parse_error(text: str) -> None:
    try:
        parsed = parse_answer_xml(text)
    except ET.ParseError as exc:  # batch_collect and study_review keep the raw answer, flagged malformed_answer
        assert str(exc)
    else:
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in parsed.items())


NUMBERS = st.one_of(st.integers(min_value=-10**12, max_value=10**12).map(str),
                    st.sampled_from(["nan", "inf", "-inf", "1e3", "0x10", "", " ", "5 ", "-0", "1_0", "٣", "5.5",
                                     "\x00", "--1", "999999999999999999999999"]),
                    st.text(max_size=8))


@FUZZ
@given(st.sampled_from(["--limit", "--scale", "--seed"]), NUMBERS)
def test_run_number_options_refuse_bad_values_in_one_line(option: str, value: str) -> None:
    code, err = run_cli(["run", str(ROOT / "absent.toml"), option, value])
    assert code == 2
    try:
        number = int(value)
    except ValueError:
        number = None
    floor = 0 if option == "--seed" else 1
    if number is not None and number >= floor and (option != "--scale" or number <= 1000):
        assert "no such config file" in err  # the value passed; the missing config is next
    else:
        assert f"argument {option}:" in err and "see `hitflow run --help`" in err


@FUZZ
@given(st.sampled_from([("sim", "serve", "--throttle-rate"), ("sim", "serve", "--fault-rate"),
                        ("qualify", "score", "--threshold"), ("sim", "serve", "--port"),
                        ("spellcheck", "--min-workers")]), NUMBERS)
def test_other_number_options(where: tuple[str, ...], value: str) -> None:
    *command, option = where
    args = [*command, str(ROOT / "absent.csv"), "--out", "/tmp/x.csv"] if command[0] != "sim" else list(command)
    whole = option in ("--port", "--min-workers")
    try:
        parsed: float | None = int(value) if whole else float(value)
    except ValueError:
        parsed = None
    bounds = {"--throttle-rate": (0, 1), "--fault-rate": (0, 1), "--threshold": (0, 100), "--port": (0, 65535),
              "--min-workers": (1, 10**30)}[option]
    valid = parsed is not None and bounds[0] <= parsed <= bounds[1]
    if valid and command[0] == "sim":
        return  # a valid value would start the simulator
    code, err = run_cli([*args, option, value])
    assert code in (2, 3), err
    assert (f"argument {option}:" in err) != valid, err


@FUZZ
@given(st.sampled_from(["--out", "--db"]), st.sampled_from(["", " ", "/etc/passwd/x", "/proc/1/x/y", "\x00",
                                                              "a\nb/c", "/"]))
def test_output_paths_are_checked_before_anything_runs(tmp_path: Path, option: str, value: str) -> None:
    code, err = run_cli(["run", str(ROOT / "absent.toml"), option, value])
    assert code == 2 and err, err


def test_limit_minus_five_in_a_real_process(hitflow_forks: ForkServer) -> None:
    # a process of its own forked from the session's server (tests/forked_hitflow.py): what is tested is its
    # exit and words, not an interpreter's start (~1 s of CPU importing hitflow again)
    proc = hitflow_forks.run(["run", CONFIG, "--limit", "-5"], cwd=ROOT, text=True, timeout=120)
    assert proc.returncode == 2 and "argument --limit: must be a positive integer (got -5)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("argv", "needle"), [
    (["run", CONFIG, "--scale", "0"], "argument --scale: must be a whole number of repeats between 1 and 1000"),
    (["run", CONFIG, "--out", "/dev/null/x"], "argument --out: '/dev/null/x': /dev/null is a file, not a folder"),
    (["qc", CONFIG, "--out", "/dev/null/x.csv"], "not a folder"),
])
def test_bad_values_in_process(argv: list[str], needle: str) -> None:
    code, err = run_cli(argv)
    assert code == 2 and needle in err, err


def test_a_utf16_config_in_a_real_process(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    bad = tmp_path / "c.toml"
    bad.write_bytes((ROOT / "config" / "vizwiz_captions.toml").read_text().encode("utf-16"))
    proc = hitflow_forks.run(["run", str(bad), "--dry-run"], cwd=ROOT, text=True, timeout=120)
    assert proc.returncode == 2 and "UTF-16" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@FUZZ
@given(st.sampled_from(["qc", "spellcheck", "run", "analyze"]), st.text(min_size=1, max_size=30))
def test_hostile_input_paths_are_one_line(tmp_path: Path, command: str, name: str) -> None:
    path = str(tmp_path / name.replace("/", "_")) if name not in (".", "..") else name
    argv = {"qc": ["qc", path, "--out", str(tmp_path / "f.csv")],
            "spellcheck": ["spellcheck", path, "--out", str(tmp_path / "s.csv")],
            "run": ["run", path, "--dry-run"], "analyze": ["analyze", "agreement", path]}[command]
    code, err = run_cli(argv)
    assert code in (2, 3) and err, err

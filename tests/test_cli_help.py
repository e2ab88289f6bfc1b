"""`hitflow <command> --help` for every command: help on every option, examples that parse, the exit codes."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

import pytest

import flows.core.errors as errors
from flows.cli.help import COMMANDS, EXIT_CODES
from flows.cli.main import main
from flows.cli.parser import _parser
from flows.cli.reference_pages import all_commands
from flows.core.ledger.store_sqlite import SqliteStore

PARSERS = {" ".join(p.prog.split()[1:]): p for p in all_commands(_parser())}


def test_every_command_has_its_help_entry() -> None:
    assert set(PARSERS) == set(COMMANDS), "add the new command's examples and exit codes to flows/cli/help.py"


@pytest.mark.parametrize("path", sorted(PARSERS))
def test_help_shows_examples_and_exit_codes(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*path.split(), "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    examples = text.split("\nexamples:\n")[1].split("\n\n")[0].splitlines()
    assert examples and all(line.startswith(f"  hitflow {path}".rstrip()) or path == "" for line in examples)
    codes = text.split("\nexit codes:\n")[1].splitlines()
    shown = [int(line.split()[0]) for line in codes if line.strip()]
    assert {0, 1, 2} <= set(shown) and shown == sorted(shown)
    assert all(EXIT_CODES[code] in text for code in shown)


@pytest.mark.parametrize("path", sorted(PARSERS))
def test_every_option_has_help_text(path: str) -> None:
    for action in PARSERS[path]._actions:
        if isinstance(action, argparse._SubParsersAction):  # each subcommand's one-line help instead
            assert all(choice.help and len(choice.help) > 8 for choice in action._choices_actions)
            continue
        assert action.help and action.help != argparse.SUPPRESS and len(action.help) > 8, \
            f"hitflow {path}: {action.option_strings or action.dest} has no help text"


@pytest.mark.parametrize(("path", "example"), [(p, e) for p, (examples, _) in COMMANDS.items() for e in examples])
def test_every_example_parses(path: str, example: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An option renamed or removed without its example fails here (parsing only: nothing runs)."""
    argv = shlex.split(example)[1:]
    if argv == ["run", "--help"]:
        return
    try:
        args = _parser().parse_args(argv)
    except SystemExit:
        pytest.fail(f"example does not parse: {example}\n{capsys.readouterr().err}")
    assert " ".join(argv[: len(path.split())]) == path or path == "", f"{example} is not an example of {path}"
    assert args.command == argv[0]


def test_every_exit_code_hitflow_uses_is_explained() -> None:
    used = {cls.exit_code for cls in vars(errors).values()
            if isinstance(cls, type) and issubclass(cls, errors.HitflowError)}
    assert used | {0, 141, 143} <= set(EXIT_CODES)
    assert 1 in EXIT_CODES and "PROBLEM" in EXIT_CODES[1]  # the base error and a dry run's problems exit 1


def test_a_reader_that_leaves_gives_the_exit_code_the_help_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`hitflow status | head -3` exits 141 (found by hand); `hitflow status --help` listed only 0, 1, 2, 4."""
    ledger = tmp_path / "ledger.db"
    SqliteStore(ledger).db.close()
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (head) has left
    with os.fdopen(write_end, "w") as closed_pipe:
        monkeypatch.setattr(sys, "stdout", closed_pipe)
        code = main(["status", "--db", str(ledger)])
        monkeypatch.undo()
    assert code == 141
    for command in ("status", "analyze", "ui"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert f"141  {EXIT_CODES[141]}" in capsys.readouterr().out, command

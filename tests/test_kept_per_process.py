"""What a process keeps between runs (a crowd's caption bank, the CLI's parser) reads as a fresh build
does, every caller gets its own copy, and an edited input is read again: tests and `hitflow serve`
run many campaigns in one process, and none may see another's known answers or arguments."""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

import pytest

from flows.cli import parser as cli_parser
from flows.sim.people import crowd
from flows.sim.people.crowd_keys import DEFAULT_CROWD
from flows.sim.people.known_answers import add_known

BANK = "image_id,caption,text_detected\nimg1,A cat on a mat.,1\nimg1,A grey cat.,1\nimg2,A dog.,0\n"


def _by_hand(text: str) -> dict[str, tuple[list[str], int]]:
    """The bank as its format says, read without the simulator's code."""
    out: dict[str, tuple[list[str], int]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        out.setdefault(row["image_id"], ([], int(row["text_detected"] or 0)))[0].append(row["caption"])
    return out


def _plain(bank: dict[str, crowd.BankEntry]) -> dict[str, tuple[list[str], int]]:
    return {k: (e.captions, e.text_detected) for k, e in bank.items()}


def test_a_kept_bank_reads_as_the_file_says_and_each_caller_owns_its_entries(tmp_path: Path) -> None:
    path = tmp_path / "bank.csv"
    path.write_text(BANK)
    first = crowd.load_bank(path)
    assert _plain(first) == _by_hand(BANK)
    add_known(first, [{"item_id": "img1", "field": "ok", "answer": "yes"}])  # a campaign's known answers
    first["img2"].captions.append("changed")
    first.pop("img1")
    second = crowd.load_bank(path)  # from the kept parse
    assert _plain(second) == _by_hand(BANK)
    assert second["img1"].answers == {} and second["img1"] is not first.get("img1")


def test_an_edited_bank_is_read_again_even_at_the_same_size(tmp_path: Path) -> None:
    path = tmp_path / "bank.csv"
    path.write_text(BANK)
    crowd.load_bank(path)
    edited = BANK.replace("A dog.", "A cow.")
    assert len(edited) == len(BANK)
    path.write_text(edited)
    assert _plain(crowd.load_bank(path)) == _by_hand(edited)


def test_a_bad_bank_is_refused_on_every_load(tmp_path: Path) -> None:
    path = tmp_path / "bank.csv"
    path.write_text("image_id,caption,text_detected\nimg1,A cat.,7\n")
    for _ in range(2):
        with pytest.raises(crowd.ConfigError, match="text_detected '7' is not 0 or 1"):
            crowd.load_bank(path)


def test_the_demo_crowd_bank_is_the_same_kept_or_fresh() -> None:
    _, kept = crowd.load_crowd(DEFAULT_CROWD)
    crowd._KEPT_BANKS.clear()
    _, fresh = crowd.load_crowd(DEFAULT_CROWD)
    assert kept == fresh and len(kept) > 100


def test_the_kept_parser_parses_as_a_fresh_one_and_hands_out_its_own_lists() -> None:
    argv = ["run", "config/x.toml", "--platform", "links", "--invite", "ann", "--limit", "3"]
    fresh = cli_parser._built_parser.__wrapped__("someone").parse_args(argv)
    first = cli_parser._parser().parse_args(argv)
    assert vars(first) == vars(fresh)
    first.invite.append("bob")
    again = cli_parser._parser().parse_args(["serve", "--campaign", "c.toml"])
    assert again.invite == [] and cli_parser._parser().parse_args(argv).invite == ["ann"]


def test_the_kept_parser_follows_user_and_keeps_its_help(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "ana")
    assert cli_parser._parser().parse_args(["review", "c"]).reviewer == "ana"
    monkeypatch.setenv("USER", "ben")
    assert cli_parser._parser().parse_args(["ui"]).reviewer == "ben"
    kept = cli_parser._parser()
    with pytest.raises(SystemExit):
        kept.parse_args(["run", "--limit", "-5", "c.toml"])
    fresh = cli_parser._built_parser.__wrapped__("ben")
    assert kept.format_help() == fresh.format_help()
    for name, sub in _subparsers(kept).items():
        assert sub.format_help() == _subparsers(fresh)[name].format_help()


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_a_kept_url_verdict_is_the_fresh_one() -> None:
    from markupsafe import Markup

    from flows.core.pages.templates import MAX_KEPT_URL, allowed_url, safe_url

    urls = ["https://a.org/x.jpg", "javascript:alert(1)", "//evil.org/x", " //evil.org", "JaVaScRiPt:x", "img/a.png",
            "data:text/html,x", "HTTP://A.ORG", "ftp://a.org", "", "x" * (MAX_KEPT_URL + 1), "http:" + "y" * 3000]
    for _ in range(2):  # the second round from the kept verdicts
        for url in urls + [Markup(u) for u in urls]:
            assert safe_url(url) == (str(url) if allowed_url(str(url)) else "about:blank")
    assert safe_url("javascript:alert(1)") == "about:blank" and safe_url(Markup("a.png")) == "a.png"
    assert [safe_url("http://[::1") for _ in range(2)] == ["about:blank"] * 2  # urlparse raises on it: refused, kept

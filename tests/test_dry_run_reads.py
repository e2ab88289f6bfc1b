"""The dry run names every rule that reads each field, and says "no problems found" only where a rehearsal of
a first batch on the simulator agrees (a page whose every response breaks its own rule was "no problems found",
then its run held the whole batch)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.main import main
from flows.custom.scaffold import scaffold
from qc.custom_rules import CUSTOM_RULES
from qc.rule_fields import RULE_READS
from qc.runner import KNOWN_RULES

PAGE = ("<p>${review}</p>\n<p>How does the reviewer feel?</p>\n"
        "<input type='radio' name='sentiment' value='positive' required> Positive\n"
        "<input type='radio' name='sentiment' value='negative'> Negative\n"
        "<p>Summarise the review.</p><textarea name='summary' required></textarea>\n")


def test_every_rule_a_preset_runs_says_what_it_reads() -> None:
    assert not [r for r in (*CUSTOM_RULES, *KNOWN_RULES) if r not in RULE_READS]


def test_the_dry_run_names_every_rule_the_config_runs_on_each_field(tmp_path: Path, capsys) -> None:
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    assert main(["new", "rev", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path)]) == 0
    assert main(["run", str(tmp_path / "config" / "rev.toml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    reads = dict(line.strip().split(": ", 1) for line in out.split("gate: what QC reads on this page\n")[1]
                 .splitlines()[:3])
    assert {"item_blind", "page_straight_lining", "choice_straight_lining"} <= set(reads["sentiment (choice)"]
                                                                                   .split(", "))
    assert {"source_copy", "short_answer", "duplicate_text"} <= set(reads["summary (text)"].split(", "))
    assert "rehearsal of a first batch on the simulator" in out and out.rstrip().endswith(
        "no problems found; nothing was sent anywhere")
    assert "note: workers see the title 'rev', the campaign's name: set [campaign] title" in out  # the page has none
    (tmp_path / "titled.html").write_text("<h2>How does the reviewer feel?</h2>" + PAGE, encoding="utf-8")
    assert main(["new", "titled", "--from", str(tmp_path / "titled.html"), "--dir", str(tmp_path)]) == 0
    assert main(["run", str(tmp_path / "config" / "titled.toml"), "--dry-run"]) == 0
    assert "note: workers see the title" not in capsys.readouterr().out


def test_no_problems_found_only_where_the_rehearsal_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scaffold("page", tmp_path)
    page = tmp_path / "config" / "page.html.j2"
    page.write_text(page.read_text().replace('min="0" max="50"', 'min="10" max="5"'), encoding="utf-8")  # none fits
    assert main(["run", str(tmp_path / "config" / "page.toml"), "--dry-run"]) == 1
    out = capsys.readouterr().out
    assert "no problems found" not in out
    [line] = [ln for ln in out.splitlines() if ln.startswith("PROBLEM: rehearsal")]
    assert "the batch was held" in line and "invalid_answer would reject or block" in line
    assert not (tmp_path / "runs").exists() and not list(tmp_path.glob("**/*.db"))  # the rehearsal left nothing


NEVER_WRITTEN = ("<p>${review}</p>\n<p>How does the reviewer feel?</p>\n"
                 "<input type='radio' name='sentiment' value='positive' required> Positive\n"
                 "<input type='radio' name='sentiment' value='negative'> Negative\n"
                 "<img src='${photo}' id='photo' alt='photo'>\n"
                 "<input type='hidden' name='zoomed' id='zoomed' value='<END>'>\n"
                 "<script>document.getElementById('photo').addEventListener('dblclick', function () {\n"
                 "  document.getElementById('zoomed').value = 'yes'; });</script>\n")


@pytest.mark.browser
@pytest.mark.timeout(300)
@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Chromium (make browser-deps)")
def test_a_page_its_workers_do_in_a_browser_is_rehearsed_too(tmp_path: Path, capsys) -> None:
    """A page whose script writes a field is done by browser workers: its verdict waits on a rehearsal in Chromium
    too (here a hidden field nobody's click writes holds the page's own "<END>" on every response)."""
    (tmp_path / "page.html").write_text(NEVER_WRITTEN, encoding="utf-8")
    assert main(["new", "zoom", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path)]) == 0
    code = main(["run", str(tmp_path / "config" / "zoom.toml"), "--dry-run"])
    out = capsys.readouterr().out
    assert "simulated workers: in a headless browser" in out
    assert "no problems found" not in out
    [line] = [ln for ln in out.splitlines() if ln.startswith("PROBLEM: rehearsal")]
    assert code == 1 and "sentinel_answer" in line

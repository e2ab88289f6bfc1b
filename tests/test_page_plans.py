"""Plans from the task, not the demo: an imported one-item page (rate a caption 1-5 and
say why) with the user's own items file. `hitflow new --from --items` sizes the budget to the file's rows;
Prolific's reward and times come from the page's fields (or [prolific], whose figures the scaffold writes as
comments); the dry run warns where the maximum time is short for the page, and refuses what the run would."""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, Decimal
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from tests.small_configs import UNREHEARSED

PAGE = """<html><body>
<p>Rate how well the caption describes the image, from 1 to 5, and say why.</p>
<img src="${image_url}">
<p>${caption}</p>
<label><input type="radio" name="rating" value="1" required> 1</label>
<label><input type="radio" name="rating" value="2"> 2</label>
<label><input type="radio" name="rating" value="3"> 3</label>
<label><input type="radio" name="rating" value="4"> 4</label>
<label><input type="radio" name="rating" value="5"> 5</label>
<textarea name="reason" required></textarea>
</body></html>
"""
ITEMS = 40
# a unit of one item: the page read (30 s), one choice (6 s) and one free text (40 s): flows/core/task_kinds.py
MINUTES = (30 + 6 + 40) / 60
MINUTES_2 = (30 + 2 * (6 + 40)) / 60  # two items of it, a place on Prolific (whole minutes: flows/core/task_kinds.py)
# Prolific takes whole minutes: the nearest (1) would understate 1.27 by 27% and pay the hourly rate by as much less
ESTIMATED = 2
# Prolific's least (of the median and of the estimate), three times the median
MAXIMUM = max(*(math.ceil(2 + m + 2 * math.sqrt(m)) for m in (MINUTES_2, ESTIMATED)), 3 * ESTIMATED,
              math.ceil(3 * MINUTES_2))
REWARD = (Decimal("9.00") * ESTIMATED / 60).quantize(Decimal("0.01"), rounding=ROUND_CEILING)  # 9.00 GBP an hour


def imported(tmp_path: Path, capsys, items: bool = True) -> Path:
    (tmp_path / "rate.html").write_text(PAGE, encoding="utf-8")
    pd.DataFrame({"item_id": [f"i{n}" for n in range(ITEMS)],
                  "image_url": [f"https://example.org/i/{n}.jpg" for n in range(ITEMS)],
                  "caption": [f"A dog runs on the beach, take {n}." for n in range(ITEMS)]}
                 ).to_csv(tmp_path / "mine.csv", index=False)
    extra = ["--items", str(tmp_path / "mine.csv")] if items else []
    assert main(["new", "rater", "--from", str(tmp_path / "rate.html"), "--dir", str(tmp_path), *extra]) == 0
    capsys.readouterr()
    return tmp_path / "config" / "rater.toml"


def dry_run(capsys, config: Path, platform: str, *more: str, rehearsed: bool = False) -> tuple[int, str]:
    """A dry run's exit code and what it said: read from the plan, without rehearsing the campaign on the
    simulator (tests/small_configs.UNREHEARSED: the figures, warnings and refusals here are the plan's) unless
    ``rehearsed``."""
    code = main(["run", str(config), "--dry-run", "--platform", platform, *more,
                 *(() if rehearsed else UNREHEARSED)])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_the_budget_is_sized_to_the_items_file_given(tmp_path: Path, capsys, platform: str) -> None:
    config = imported(tmp_path, capsys)
    assert (tmp_path / "config" / "rater_items.csv").read_bytes() == (tmp_path / "mine.csv").read_bytes()
    code, out = dry_run(capsys, config, platform)
    assert code == 0, out
    spare = re.search(r"budget ([\d.]+) USD: ([\d.]+) to spare", out)
    assert spare and float(spare.group(2)) > 0, out
    assert f"sized to the {ITEMS} item(s) written" in config.read_text(encoding="utf-8")


def test_without_the_items_file_the_budget_is_one_sample_item_s(tmp_path: Path, capsys) -> None:
    """What the issue measured: one sample item's budget falls short of the real items' estimate."""
    config = imported(tmp_path, capsys, items=False)
    (tmp_path / "config" / "rater_items.csv").write_bytes((tmp_path / "mine.csv").read_bytes())
    code, out = dry_run(capsys, config, "prolific")
    assert code == 1 and "PROBLEM" in out and "budget" in out


def test_an_items_file_without_the_page_s_columns_is_refused_and_nothing_written(tmp_path: Path, capsys) -> None:
    (tmp_path / "rate.html").write_text(PAGE, encoding="utf-8")
    pd.DataFrame({"item_id": ["a"], "image_url": ["https://example.org/a.jpg"]}).to_csv(tmp_path / "bad.csv",
                                                                                         index=False)
    code = main(["new", "rater", "--from", str(tmp_path / "rate.html"), "--dir", str(tmp_path), "--items",
                 str(tmp_path / "bad.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "lacks the column(s) caption the page reads" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "config").exists() or not list((tmp_path / "config").iterdir())


def test_prolific_figures_come_from_the_page_and_the_scaffold_writes_them_as_comments(tmp_path: Path, capsys) -> None:
    """A one-item page of 1.3 min: no whole minute states it within 15% (1 min is 27% under it, 2 min 37% over), so
    on Prolific a place holds two items, 2.0 min, stated as 2; a config stating the estimate keeps one."""
    config = imported(tmp_path, capsys)
    text = config.read_text(encoding="utf-8")
    assert f'# reward = "{REWARD}"' in text and f"# estimated_minutes = {ESTIMATED} " in text
    assert f"# maximum_minutes = {MAXIMUM} " in text and "# on Prolific a place holds 2 items, not the page's 1" in text
    code, out = dry_run(capsys, config, "prolific", rehearsed=True)  # its times against the plan's: no warning
    assert code == 0, out
    assert (f"2 item(s) a unit: about {MINUTES_2:.1f} min a unit; Prolific: reward {REWARD} GBP (from the page), "
            f"estimated {ESTIMATED} min (from the page), maximum {MAXIMUM} min (from the page)") in out
    places = ITEMS * 3 // 2  # two items a place, three workers an item, one batch
    assert f"places={places} reward={REWARD} GBP" in out and "warning" not in out
    assert (f"note: on Prolific a place holds 2 items, not the page's 1: Prolific states a study's time in whole "
            f"minutes (at least one); the page takes about {MINUTES:.1f} min, 0.63 of 2 min, 2 items about "
            f"{MINUTES_2:.1f} min, 1.02 of 2 min; state estimated_minutes in [prolific] to keep 1 a place") in out
    assert "1 item(s) a unit" in dry_run(capsys, config, "mturk")[1]  # the page as it is elsewhere
    # set in [prolific], a figure is the config's; a stated estimate keeps the page a place
    config.write_text(text.replace("[prolific]\n", '[prolific]\nreward = "0.50"\n'), encoding="utf-8")
    assert "reward 0.50 GBP ([prolific])" in dry_run(capsys, config, "prolific")[1]
    config.write_text(text.replace("[prolific]\n", "[prolific]\nestimated_minutes = 2\n"), encoding="utf-8")
    out = dry_run(capsys, config, "prolific")[1]
    assert f"places={ITEMS * 3} " in out and "a place holds" not in out


def test_a_maximum_time_short_for_the_page_is_a_warning_in_the_dry_run(tmp_path: Path, capsys) -> None:
    """The issue's case: maximum_minutes = 5 on a one-item page (a third of participants timed out)."""
    config = imported(tmp_path, capsys)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[prolific]\n", "[prolific]\nestimated_minutes = 1\nmaximum_minutes = 5\n"),
                      encoding="utf-8")
    shortest = max(math.ceil(2 + MINUTES + 2 * math.sqrt(MINUTES)), math.ceil(3 * MINUTES))
    code, out = dry_run(capsys, config, "prolific")
    assert code == 0, out  # a warning: the run may still go
    assert (f"warning: [prolific] maximum_minutes = 5 is short for this page (about {MINUTES:.1f} min a unit): a "
            f"participant slower than that is timed out and the work is lost; raise it to at least {shortest}") in out
    text = config.read_text(encoding="utf-8").replace("maximum_minutes = 5\n", f"maximum_minutes = {shortest}\n")
    config.write_text(text, encoding="utf-8")
    assert "warning" not in dry_run(capsys, config, "prolific")[1]


def test_the_dry_run_refuses_what_the_run_would_refuse(tmp_path: Path, capsys) -> None:
    config = imported(tmp_path, capsys)
    db = tmp_path / "h.db"
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(tmp_path / "runs"),
                 "--limit", "2"]) == 0
    capsys.readouterr()
    code, out = dry_run(capsys, config, "prolific", "--db", str(db), "--out", str(tmp_path / "runs"))
    assert code == 1 and "no problems found" not in out
    assert ("PROBLEM: the run would be refused: campaign rater already ran on mturk in the ledger "
            f"{db}; running it on prolific would mix two campaigns: pass --new-attempt") in out
    code = main(["run", str(config), "--no-prefect", "--platform", "prolific", "--db", str(db), "--out",
                 str(tmp_path / "runs")])
    assert code == 2 and "already ran on mturk" in capsys.readouterr().err  # the run says the same
    code, out = dry_run(capsys, config, "prolific", "--db", str(db), "--out", str(tmp_path / "runs"), "--new-attempt")
    assert code == 0 and "would be refused" not in out, out


def test_an_estimate_set_in_the_config_leads_the_figures_left_out(tmp_path: Path, capsys) -> None:
    """[prolific] estimated_minutes = 20 alone: the maximum (3 times it, at least Prolific's 2 + X + 2 sqrt(X)) and
    the pay (9.00 GBP an hour) follow the config's median, not the page's."""
    config = imported(tmp_path, capsys)
    text = config.read_text(encoding="utf-8").replace("[prolific]\n", "[prolific]\nestimated_minutes = 20\n")
    config.write_text(re.sub(r'(?m)^budget = "[^"]*"', 'budget = "1000.00 USD"', text), encoding="utf-8")
    code, out = dry_run(capsys, config, "prolific")
    maximum = max(3 * 20, math.ceil(2 + 20 + 2 * math.sqrt(20)))
    assert code == 0, out
    assert (f"reward 3.00 GBP (from the page), estimated 20 min ([prolific]), maximum {maximum} min (from the page)"
            in out) and "warning" not in out


def test_the_dry_run_refuses_items_the_stored_plan_cannot_grow_to(tmp_path: Path, capsys) -> None:
    """After a pilot of 10 items, fewer items (or changed ones) are refused by the run: by its dry run too; more
    items grow the plan, which both allow."""
    config = imported(tmp_path, capsys)
    db, out = tmp_path / "h.db", str(tmp_path / "runs")
    assert main(["run", str(config), "--no-prefect", "--db", str(db), "--out", out, "--limit", "10"]) == 0
    capsys.readouterr()
    code, said = dry_run(capsys, config, "mturk", "--db", str(db), "--out", out, "--limit", "5")
    assert code == 1 and ("PROBLEM: the run would be refused: campaign rater was planned on 10 item(s); this run "
                          "asks for 5 item(s), not the planned ones followed by more") in said
    code = main(["run", str(config), "--no-prefect", "--db", str(db), "--out", out, "--limit", "5"])
    assert code == 2 and "was planned on 10 item(s); this run asks for 5 item(s)" in capsys.readouterr().err
    code, said = dry_run(capsys, config, "mturk", "--db", str(db), "--out", out, "--limit", "20")
    assert code == 0 and "would be refused" not in said, said


def test_what_the_task_server_blocks_is_a_dry_run_warning_on_the_routes_it_serves(tmp_path: Path, capsys) -> None:
    """Inline handlers holding an item's value (the page's own run, by hash) and scripts or styles from elsewhere: a
    dry run for Prolific or invite links says so, MTurk (which runs them) does not; origins listed in [target]
    page_origins, and MTurk's own helpers, are not named."""
    config = imported(tmp_path, capsys)
    template = next((tmp_path / "config").glob("rater*.html*"))
    outside = ('<script src="https://code.jquery.com/jquery-3.7.1.min.js"></script>'
               '<link rel="stylesheet" href="https://cdn.example.org:8443/a.css">'
               '<script src="https://s3.amazonaws.com/mturk-public/externalHIT_v1.js"></script>'
               '<link rel="icon" href="https://icons.example.net/i.png">\n')
    template.write_text(template.read_text(encoding="utf-8").replace(
        'value="1" required>', 'value="1" required onclick="this.title=\'{{ title }}\'">', 1).replace(
        "<p>Rate how well", outside + '<p onclick="this.title=\'own\'">Rate how well', 1), encoding="utf-8")
    said = {p: dry_run(capsys, config, p)[1] for p in ("mturk", "prolific", "links")}
    warning = "warning: 1 inline event handler(s) on the page (onclick=, oninput=...) hold an item's value and do not"
    assert warning not in said["mturk"] and warning in said["prolific"] and warning in said["links"]
    origins = '["https://cdn.example.org:8443", "https://code.jquery.com"]'
    blocked = f"to allow them: [target] page_origins = {origins}"
    assert blocked not in said["mturk"] and blocked in said["prolific"] and blocked in said["links"]
    assert "amazonaws" not in said["links"] and "icons.example.net" not in said["links"]
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[campaign]", f"[target]\npage_origins = {origins}\n\n[campaign]", 1)
                      if "[target]" not in text else text.replace("[target]", f"[target]\npage_origins = {origins}", 1),
                      encoding="utf-8")
    again = dry_run(capsys, config, "prolific")[1]
    assert "warning: the page loads" not in again and "inline event handler(s)" in again, again

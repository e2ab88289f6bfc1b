"""What a newcomer gets from `hitflow new` and `hitflow preview`: a config whose budget fits its own
items on both platforms (checked by the dry run itself, the estimate a real run checks), keywords of
the task's own name, an [answers] section that parses to the defaults, and the first page written as
a worker sees it (item text escaped, every answer field there)."""

from __future__ import annotations

import csv
import re
import tomllib
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.config.answers_config import AnswersSection
from tests.small_configs import UNREHEARSED


def new_campaign(tmp_path: Path, capsys, name: str = "my-reviews") -> Path:
    assert main(["new", name, "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    return tmp_path / "config" / f"{name}.toml"


def dry_run(capsys, config: Path, platform: str, *more: str) -> str:
    code = main(["run", str(config), "--dry-run", "--platform", platform, *more])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def estimate_usd(out: str) -> float:
    """The dry run's estimate in USD: "estimate 1.08 USD" (MTurk) or "... = 4.57 USD at 1.27" (Prolific)."""
    found = re.search(r"campaign estimate (?:[\d.]+ GBP = )?([\d.]+) USD", out)
    assert found, out
    return float(found.group(1))


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_the_written_budget_fits_the_written_items_on_each_platform(tmp_path: Path, capsys, platform: str) -> None:
    config = new_campaign(tmp_path, capsys)
    out = dry_run(capsys, config, platform)
    spare = re.search(r"budget ([\d.]+) USD: ([\d.]+) to spare", out)
    assert spare, out
    assert float(spare.group(2)) > 0


def test_the_budget_comment_prices_one_more_item_as_the_dry_run_does(tmp_path: Path, capsys) -> None:
    """The per-item figure is the dearer platform's estimate over the items, not a figure of its own."""
    config = new_campaign(tmp_path, capsys)
    text = config.read_text(encoding="utf-8")
    per_item = float(re.search(r"about ([\d.]+) USD an item", text).group(1))  # type: ignore[union-attr]
    items = sum(1 for _ in csv.DictReader((tmp_path / "config" / "my-reviews_items.csv").open(encoding="utf-8")))
    dearest = max(estimate_usd(dry_run(capsys, config, p, *UNREHEARSED)) for p in ("mturk", "prolific"))
    assert per_item == pytest.approx(dearest / items, abs=0.01)
    assert "config/my-reviews.toml --dry-run" in text


def test_the_written_mturk_reward_pays_the_page_s_own_time_at_the_stated_hourly_rate(tmp_path: Path, capsys) -> None:
    """The starter's 0.30 USD whatever the page paid a five-item page about 4 USD an hour; the written reward
    is the page's time at the rate its comment states, and the MTurk dry run's hourly figure agrees."""
    config = new_campaign(tmp_path, capsys)
    text = config.read_text(encoding="utf-8")
    found = re.search(r'reward_usd = "([\d.]+)" +# per HIT before fees: ([\d.]+) USD an hour of the page\'s about '
                      r"([\d.]+) min", text)
    assert found, text
    reward, rate, minutes = (float(g) for g in found.groups())
    assert reward == pytest.approx(rate * minutes / 60, abs=0.01 + rate * 0.05 / 60)  # minutes shown to 0.1
    said = dry_run(capsys, config, "mturk", *UNREHEARSED)
    hourly = re.search(r"reward ([\d.]+) USD a HIT \(about ([\d.]+) USD an hour\)", said)
    assert hourly and float(hourly.group(1)) == reward and float(hourly.group(2)) >= rate - 0.01


def test_keywords_follow_the_name_and_answers_parse_to_the_defaults(tmp_path: Path, capsys) -> None:
    config = new_campaign(tmp_path, capsys, "street_signs-check")
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert parsed["campaign"]["keywords"] == "street, signs, check"
    assert "image, describe" not in config.read_text(encoding="utf-8")
    section = AnswersSection(**parsed["answers"])
    assert section == AnswersSection()  # the commented keys change nothing until uncommented
    text = config.read_text(encoding="utf-8")
    for key in ("controls", "control_share", "min_judgements", "max_judgements", "confidence"):
        assert re.search(rf"(?m)^# {key} = ", text), key


def test_preview_writes_the_first_page_as_a_worker_sees_it(tmp_path: Path, capsys) -> None:
    config = new_campaign(tmp_path, capsys)
    items = tmp_path / "config" / "my-reviews_items.csv"
    rows = [["item_id", "image_url", "note"]] + [[f"p{k}", f"https://example.org/{k}.jpg", f"note {k}"]
                                                 for k in range(7)]
    rows[1][2] = "<script>alert('x')</script> & more"
    with items.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    out = tmp_path / "page.html"
    assert main(["preview", str(config), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"preview: {out}" in said and "p0, p1, p2" in said
    html = out.read_text(encoding="utf-8")
    assert "https://example.org/0.jpg" in html and "https://example.org/3.jpg" not in html
    assert "<script>alert('x')</script>" not in html and "&lt;script&gt;" in html
    for field in ("description_0", "has_text_0", "setting_0", "description_2"):
        assert f'name="{field}"' in html, field
    assert main(["preview", str(config), "--page", "3", "--out", str(out)]) == 0
    assert "(page 3: p6," in capsys.readouterr().out


def test_preview_of_a_page_that_is_not_there_is_one_line(tmp_path: Path, capsys) -> None:
    config = new_campaign(tmp_path, capsys)
    assert main(["preview", str(config), "--page", "9", "--out", str(tmp_path / "p.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has 1 page(s)" in err and "Traceback" not in err
    assert not (tmp_path / "p.html").exists()


def test_an_mturk_reward_under_the_us_minimum_wage_is_a_dry_run_warning(tmp_path: Path, capsys) -> None:
    config = new_campaign(tmp_path, capsys)
    text = re.sub(r'(?m)^reward_usd = "[\d.]+"', 'reward_usd = "0.01"', config.read_text(encoding="utf-8"))
    config.write_text(text, encoding="utf-8")
    out = dry_run(capsys, config, "mturk")
    assert "is under the US federal minimum wage of 7.25 USD; raise reward_usd to at least" in out
    config.write_text(text.replace('reward_usd = "0.01"', 'reward_usd = "5.00"'), encoding="utf-8")
    assert "minimum wage" not in dry_run(capsys, config, "mturk")

"""Money up front: the whole campaign's estimate is checked, in the budget's currency, before any post."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from flows.campaigns.budget import campaign_estimate
from flows.cli.main import main
from flows.core.config.config import load_config
from flows.core.config.money import to_budget_currency
from flows.core.errors import BudgetError

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "config" / "vizwiz_captions.toml"


def config_with(tmp_path: Path, campaign_lines: str) -> Path:
    """The demo config with its budget lines replaced (a copy of the items beside it)."""
    lines = [line for line in DEMO.read_text().splitlines()
             if not line.startswith(("budget", "fx_rates", "accept_partial", "items ="))]
    at = lines.index("[campaign]") + 1
    shutil.copy(ROOT / "config" / "items" / "vizwiz_demo_items.csv", tmp_path / "items.csv")
    lines[at:at] = ['items = "items.csv"', *campaign_lines.splitlines()]
    path = tmp_path / "campaign.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_cli(capsys, argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return code, err


def test_over_budget_on_mturk_posts_nothing(sim, tmp_path: Path, capsys) -> None:
    config = config_with(tmp_path, 'budget_usd = "150.00"')  # the old key still works
    code, err = run_cli(capsys, ["run", str(config), "--no-prefect", "--endpoint-url", sim.url,
                                 "--db", str(tmp_path / "h.db"), "--out", str(tmp_path)])
    assert code == 6 and len(err.splitlines()) == 1
    # 100 HITs x 5 assignments x (0.55 + 20% fee) = 330.00 USD at fixed overlap; the demo's two caption top-up
    # rounds may take every HIT to MTurk's cap of 9 assignments: 594.00 USD is what the budget must cover
    assert "campaign estimate 594.00 USD" in err and "SHORT by 444.00 USD" in err and "nothing was posted" in err
    assert not sim.market.hits and not sim.market.hit_types  # not one HIT, not even the first batch


def test_over_budget_on_prolific_posts_nothing(sim, tmp_path: Path, capsys) -> None:
    config = config_with(tmp_path, 'budget = "700.00 USD"\nfx_rates = {GBP = "1.27"}')
    code, err = run_cli(capsys, ["run", str(config), "--no-prefect", "--platform", "prolific",
                                 "--endpoint-url", sim.url, "--db", str(tmp_path / "h.db"), "--out", str(tmp_path)])
    assert code == 6 and len(err.splitlines()) == 1
    # Prolific's own calculator: 5 studies x 100 places x 0.90 GBP + its fees = 600 GBP at fixed overlap; the
    # caption top-ups may take every unit to 9 places (as on MTurk): 1,080 GBP = 1,371.60 USD
    assert "1080.00 GBP = 1371.60 USD at 1.27" in err and "SHORT by 671.60 USD" in err
    assert not sim.prolific.studies


def test_a_cost_in_another_currency_needs_a_rate(sim, tmp_path: Path, capsys) -> None:
    config = config_with(tmp_path, 'budget = "5000.00 USD"')
    code, err = run_cli(capsys, ["run", str(config), "--no-prefect", "--platform", "prolific",
                                 "--endpoint-url", sim.url, "--db", str(tmp_path / "h.db"), "--out", str(tmp_path)])
    assert code == 6 and "costs are in GBP but the budget is 5000.00 USD" in err and "fx_rates" in err
    assert not sim.prolific.studies
    code, err = run_cli(capsys, ["run", str(config), "--dry-run", "--platform", "prolific", *own_ledger(tmp_path)])
    assert code == 6 and "fx_rates" in err  # the dry run gives the same answer


def test_estimate_counts_every_batch_and_converts(tmp_path: Path) -> None:
    cfg = load_config(config_with(tmp_path, 'budget = "300.00 EUR"\nfx_rates = {USD = "0.90"}'))
    est = campaign_estimate(cfg, {1: 20, 2: 20, 3: 20, 4: 20, 5: 20})
    assert est.currency == "USD" and est.total == Decimal("594.00") and len(est.parts) == 5  # top-ups' worst case
    assert to_budget_currency(cfg, est.total, "USD") == Decimal("534.60")
    with pytest.raises(BudgetError, match="costs are in GBP"):
        to_budget_currency(cfg, Decimal("1.00"), "GBP")


def test_budget_key_is_checked(tmp_path: Path, capsys) -> None:
    config = config_with(tmp_path, 'budget = "400 dollars"')
    code, err = run_cli(capsys, ["run", str(config), "--dry-run", *own_ledger(tmp_path)])
    assert code == 2 and '[campaign].budget must be an amount and a currency such as "400.00 USD"' in err


def own_ledger(tmp_path: Path) -> list[str]:
    """A dry run reads the ledger and output folder it would use: the test's own, never the checkout's (after
    `make demo` there, its runs/hitflow.db holds the demo's MTurk campaign)."""
    return ["--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "out")]


def test_prolific_dry_run_lists_prolific_calls_and_its_costs(tmp_path: Path, capsys) -> None:
    code = main(["run", str(DEMO), "--platform", "prolific", "--dry-run", *own_ledger(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "dry run (Prolific): 5 studies" in out and "CreateHITWithHITType" not in out
    assert out.count("would call POST studies/ ") == 5 and "transition/ PUBLISH" in out
    # 100 places x 0.90 GBP + a third in fees = 120.00 GBP a study as posted; the estimate is the worst case,
    # every unit topped up to 9 places: 5 x 216.00 = 1,080.00 GBP = 1,371.60 USD at 1.27
    assert "-> 120.00 GBP with fees" in out and "campaign estimate 1080.00 GBP = 1371.60 USD at 1.27" in out
    assert "9.00 GBP/hour" in out


def test_prolific_dry_run_refuses_pay_under_the_hourly_floor_and_over_budget(tmp_path: Path, capsys) -> None:
    config = config_with(tmp_path, 'budget = "500.00 USD"\nfx_rates = {GBP = "1.27"}')
    code = main(["run", str(config), "--platform", "prolific", "--dry-run", *own_ledger(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert "PROBLEM: the estimate exceeds the budget by 871.60 USD" in out  # 1,371.60 USD, top-ups' worst case
    # pay under Prolific's floor is refused as the config loads, in one line
    config.write_text(config.read_text().replace('estimated_minutes = 6 ', 'estimated_minutes = 12 '))
    code = main(["run", str(config), "--platform", "prolific", "--dry-run", *own_ledger(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "reward 0.90 GBP for 12 minutes pays 4.50 GBP/hour, below Prolific's minimum of 6.00" in err


def test_links_dry_run_lists_the_invite_plan(tmp_path: Path, capsys) -> None:
    code = main(["run", str(DEMO), "--platform", "links", "--dry-run", "--limit", "10", *own_ledger(tmp_path),
                 *[a for n in ("ann", "bo", "cy", "di", "ed") for a in ("--invite", n)]])
    out = capsys.readouterr().out
    assert code == 0
    assert "dry run (invite links): 5 invite rounds, 5 units, 25 places" in out
    assert "plan: invite links to 5 people (ann, bo, cy, di, ed)" in out
    assert out.count("1 unit(s) x 5 responses") == 5 and "no platform costs" in out
    assert main(["run", str(DEMO), "--platform", "links", "--dry-run", "--invite", "ann", *own_ledger(tmp_path)]) == 1
    assert "1 invitee(s) cannot give each unit 5 different people's responses" in capsys.readouterr().out


def test_the_estimate_covers_every_caption_top_up_round(tmp_path: Path) -> None:
    """overlap work, budget honest: top-ups buy up to what a HIT's images lack each round, to MTurk's cap of 9."""
    demo = load_config(config_with(tmp_path, 'budget = "800.00 USD"'))
    per_batch = {1: 20, 2: 20, 3: 20, 4: 20, 5: 20}
    assert demo.answers.top_up_rounds == 2 and demo.assignments_per_image == 5
    without = tmp_path / "without"
    without.mkdir()
    fixed = config_with(without, 'budget = "800.00 USD"')
    fixed.write_text(fixed.read_text().replace("top_up_rounds = 2", "top_up_rounds = 0"))
    fixed_total = campaign_estimate(load_config(fixed), per_batch).total
    assert fixed_total == Decimal("330.00")
    assert campaign_estimate(demo, per_batch).total == fixed_total * 9 / 5

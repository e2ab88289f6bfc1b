"""bench/scale.py's runs past VizWiz's size: the simulator gets the funds the scaled budget needs.

A 330,000-image run on 2026-11-24 stopped at batch 20 of 43 with InsufficientFunds because the
simulator was started with the 39,181-image crowd file (balance $100,000) while the campaign's
budget had been scaled to $265,000."""
import re
from decimal import Decimal
from pathlib import Path

from bench import scale


def _money(pattern: str, text: str) -> Decimal:
    found = re.search(pattern, text)
    assert found, pattern
    return Decimal(found.group(1))


def test_the_simulator_of_a_scaled_run_holds_the_scaled_budget(tmp_path: Path) -> None:
    config = scale.config_for(330_000, tmp_path)
    crowd = scale.crowd_for(config)
    assert crowd.parent == tmp_path / "crowds"
    balance = _money(r'balance = "([0-9.]+)"', crowd.read_text())
    budget = _money(r'budget_usd = "([0-9.]+)"', config.read_text())
    assert balance >= budget


def test_the_full_scale_run_uses_the_project_crowd_file() -> None:
    assert scale.crowd_for(scale.CONFIG) == scale.CROWD


def test_the_scaled_crowd_file_starts_a_simulator(tmp_path: Path) -> None:
    """Its relative caption bank resolves from the copy as from the original (the first fixed run
    stopped at once: 'caption bank .../crowds/../items/vizwiz_demo_captions.csv does not exist')."""
    from flows.sim.people.crowd import load_crowd

    _crowd, bank = load_crowd(scale.crowd_for(scale.config_for(330_000, tmp_path)), seed=1)
    assert len(bank) > 100

"""A campaign's identity (its platform, a cancelled status) is read from the ledger on both backends:
a PostgreSQL URL is not a file, and the check once skipped such ledgers (so a cancelled campaign on
PostgreSQL could be posted again without --resume-cancelled)."""

from __future__ import annotations

import json

import pytest

from flows.campaigns.identity import Intent, check_identity, stored_campaign
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store


def test_a_stored_campaign_is_found_on_both_backends(ledger_location: str, tmp_path) -> None:
    Store(ledger_location).table("campaigns").insert(
        {"name": "caps", "config_path": "c.toml", "config_json": json.dumps({"platform": "prolific"}),
         "target": "sim", "created_at": 0.0, "status": "cancelled"})
    assert stored_campaign(ledger_location, "caps") == {"status": "cancelled", "platform": "prolific"}
    assert stored_campaign(ledger_location, "other") is None
    with pytest.raises(ConfigError, match="already ran on prolific"):
        check_identity(ledger_location, "caps", "mturk", tmp_path / "out", Intent())
    with pytest.raises(ConfigError, match="was cancelled"):
        check_identity(ledger_location, "caps", "prolific", tmp_path / "out", Intent())
    check_identity(ledger_location, "caps", "prolific", tmp_path / "out", Intent(resume_cancelled=True))
    with pytest.raises(ConfigError, match="has no campaign other to resume: pass the --db it ran with"):
        check_identity(ledger_location, "other", "prolific", tmp_path / "out", Intent(resume_cancelled=True))

"""``hitflow aggregate`` on a campaign (its dataset.csv or its name with ``--db``) and ``--field``."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError

# options that shape a labels file's aggregation, which a campaign's own config decides instead
NOT_FOR_A_CAMPAIGN: tuple[tuple[str, object, str], ...] = (
    ("method", "auto", "--method"), ("controls", "", "--controls"), ("columns", "", "--columns"),
    ("gold", "", "--gold"), ("keep_blocked", False, "--keep-blocked"), ("adaptive", False, "--adaptive"),
    ("ticks", [], "--ticks"))


def campaign_named(a: argparse.Namespace) -> tuple[str, str] | None:
    """(ledger, campaign) when ``a.input`` is a campaign (a name with ``--db``, or its dataset.csv); else None."""
    from flows.campaigns.identity import read_manifest

    given = Path(a.input)
    if not given.is_file():
        if a.db:
            return a.db, a.input
        if (found := _in_default_ledger(a.input)) is None and not given.suffix and len(given.parts) == 1:
            from flows.cli.args import DEFAULT_DB
            from flows.core.db_url import shown_location

            raise ConfigError(f"{a.input} is no file here and no campaign in the ledger at {shown_location(DEFAULT_DB)}"
                              ": run from the campaign's project folder, or pass --db with the ledger that ran it")
        return found
    manifest = read_manifest(given.parent)
    # a labels file's options (--columns ...) read the file itself, as before: a campaign's answers are its config's
    as_labels = any(getattr(a, option, default) != default for option, default, _ in NOT_FOR_A_CAMPAIGN)
    if manifest and manifest.get("campaign") and given.name in ("dataset.csv", "responses.csv") and not as_labels:
        return a.db or _own_ledger(given.parent, str(manifest.get("ledger") or "")), str(manifest["campaign"])
    if a.db:
        raise ConfigError(f"{a.input} is a file and --db names a ledger: give the campaign's name with --db, or its "
                          "dataset.csv from its output folder (the manifest beside it names the ledger)")
    return None


def _in_default_ledger(name: str) -> tuple[str, str] | None:
    """(the default ledger, ``name``) when no file but a campaign of the default ledger is called ``name``."""
    from flows.cli.args import DEFAULT_DB
    from flows.core.db_url import is_postgres_url
    from flows.core.ledger.store import Store, is_hitflow_ledger

    if not is_postgres_url(DEFAULT_DB) and not (Path(DEFAULT_DB).is_file() and is_hitflow_ledger(Path(DEFAULT_DB))):
        return None
    found = Store(DEFAULT_DB).rows("SELECT 1 FROM campaigns WHERE name = ?", [name])
    return (DEFAULT_DB, name) if found else None


def _own_ledger(folder: Path, named: str) -> str:
    """The ledger a manifest records when it is a ledger file on this machine; else the default one, with a note."""
    import sys

    from flows.cli.args import DEFAULT_DB
    from flows.core.db_url import is_postgres_url, mistyped_postgres_url, shown_location
    from flows.core.ledger.store import is_hitflow_ledger

    if named and not is_postgres_url(named) and not mistyped_postgres_url(named) and Path(named).is_file() \
            and is_hitflow_ledger(Path(named)):
        return named
    print(f"hitflow: note: {folder / 'hitflow-manifest.json'} names the ledger {shown_location(named)[:200]!r}, "
          f"which is not opened on a file's word; reading the campaign from {shown_location(DEFAULT_DB)} (pass --db "
          "to read it from another ledger)", file=sys.stderr)
    if not is_postgres_url(DEFAULT_DB) and not Path(DEFAULT_DB).is_file():
        raise ConfigError(f"there is no ledger at {shown_location(DEFAULT_DB)}: pass --db with the ledger that ran "
                          "the campaign")
    return DEFAULT_DB


def aggregate_campaign(a: argparse.Namespace, db: str, campaign: str) -> dict[str, Any]:
    """The campaign's answers of ``--field`` (or every choice field) at ``--out``, workers.csv beside it."""
    from flows.driver.operations import ledger_run

    for option, default, flag in NOT_FOR_A_CAMPAIGN:
        if getattr(a, option, default) != default:
            raise ConfigError(f"{flag} is not read on a campaign: its config's [answers] decide how its answers are "
                              f"made; aggregate an exported labels file to choose {flag}")
    run = ledger_run(db, campaign)
    if run.cfg.task != "custom" or run.cfg.study is not None:
        raise ConfigError(f"campaign {campaign} is not an own-page campaign: its answers.csv is in its output folder "
                          "(hitflow aggregate --field reads own-page campaigns)")
    from flows.custom.custom_outputs import campaign_answer_files

    with tempfile.TemporaryDirectory(prefix="hitflow-aggregate-") as tmp:
        made = campaign_answer_files(run, Path(tmp), tuple(a.numbers))
        if not made.get("answers_file"):
            raise ConfigError(f"campaign {campaign} has no approved answers to a choice, checkbox or number field yet")
        unread = [f for f in a.numbers if f not in made.get("number_fields", [])]
        if unread:
            raise ConfigError(f"--numbers {', '.join(unread)}: no approved answers of such a choice or number field "
                              f"in campaign {campaign}")
        return _written(Path(tmp), made, Path(a.out), list(a.field), campaign, db)


def _written(made: Path, said: dict[str, Any], out: Path, fields: list[str], campaign: str, db: str) -> dict[str, Any]:
    """The answers of ``fields`` (all without any) from the step's folder at ``out``, its workers file beside it."""
    import pandas as pd

    from flows.answers.answers_files import workers_path_for
    from flows.core.inputs.csv_writing import write_csv

    answers = pd.read_csv(made / "answers.csv", dtype=str, keep_default_na=False)
    known = sorted(set(answers["field"]))
    text = [f for f in fields if f in said.get("text_fields", [])]
    if text:
        raise ConfigError(f"--field {', '.join(text)}: free text, which is not aggregated (each worker's text is in "
                          f"the campaign's dataset.csv); campaign {campaign}'s answers are of {', '.join(known)}")
    unknown = [f for f in fields if f not in known]
    if unknown:
        raise ConfigError(f"--field {', '.join(unknown)}: campaign {campaign}'s answers are of {', '.join(known)}")
    chosen = answers[answers["field"].isin(fields)] if fields else answers
    write_csv(chosen, out, for_spreadsheet=False)  # the step's text as it wrote it (its cells already made inert)
    workers = workers_path_for(out)
    if workers.resolve() != (made / "workers.csv").resolve():
        shutil.copyfile(made / "workers.csv", workers)
    return {"campaign": campaign, "ledger": db, "fields": fields or known, "answers": len(chosen),
            "answers_file": str(out), "workers_file": str(workers),
            **{k: said[k] for k in ("blocked_line", "notes") if said.get(k)}}

"""``--dry-run`` on a page of one's own: its first :data:`PAGES` pages run on the simulator."""

from __future__ import annotations

import tempfile
from pathlib import Path

from flows.core.config.config import CampaignConfig
from flows.core.errors import HitflowError
from flows.core.ledger.store import Store

PAGES = 4  # pages a rehearsal posts: 12 responses of a one-item page at 3 workers an item, about 1 s of CPU


def rehearse(cfg: CampaignConfig, platform: str, crowd: str | None, seed: int, times: bool = True,
             pages: int | None = None) -> tuple[list[str], bool]:
    """(the rehearsal's lines, with the plan against its times unless ``times`` is off, whether it agrees that
    there is no problem); ``pages``: a batch's, else PAGES."""
    from flows.campaigns.page_plan import rehearsal_time_lines
    from flows.core.outputs.figures import UNSEEN
    from flows.driver.campaign_run import run_campaign

    items = (pages or PAGES) * max(1, cfg.images_per_hit) * max(1, cfg.batches)
    with tempfile.TemporaryDirectory(prefix="hitflow-rehearsal-") as tmp:
        db = Path(tmp) / "rehearsal.db"
        unseen = UNSEEN.set(True)  # its outputs are written (a failure there is the run's) but never read
        try:
            result = run_campaign(cfg.path, db_path=db, out_root=Path(tmp) / "runs", limit=items, seed=seed,
                                  crowd=crowd, progress=lambda _: None, platform=platform, detach="never")
        except HitflowError as exc:  # the run's own refusal: the dry run's other lines say what it needs
            return [f"rehearsal of a first batch on the simulator did not run: {str(exc).splitlines()[0]}"], False
        finally:
            UNSEEN.reset(unseen)
        store = Store(db)
        done = store.rows("SELECT count(*) AS n, count(DISTINCT worker_id) AS workers, count(DISTINCT hit_id) AS "
                          "pages FROM assignments WHERE batch = 1")[0]
        rejected = store.rows("SELECT count(*) AS n FROM decisions WHERE batch = 1 AND action = 'reject'")[0]["n"]
        blocked = store.rows("SELECT count(DISTINCT worker_id) AS n FROM blocks WHERE batch = 1")[0]["n"]
        took = rehearsal_time_lines(store.rows, cfg, platform, cfg.name) if times else []
        who, honest = stopped_lines(Path(tmp), store)
    total, workers = int(done["n"] or 0), int(done["workers"] or 0)
    head = f"rehearsal of a first batch on the simulator ({total} responses to {done['pages']} page(s), its crowd)"
    if result.get("held"):  # "batch 1 HELD for review, ...: rule X would reject or block 3 of 3 workers (...). ..."
        why = str(result["held"]).split(": ", 1)[-1].split(". ")[0]
        return [f"PROBLEM: {head}: the batch was held, as a run's would be: {why}"], False
    if not total:
        return [f"{head}: no response came back"], False
    share = max(rejected / total, blocked / max(1, workers))
    line = f"{head}: {rejected} rejected, {blocked} of {workers} worker(s) blocked{who}"
    if share > cfg.policy.hold_share:
        return [f"{line}: most of the batch; look at `hitflow run {cfg.path} --no-prefect --limit {items}`'s "
                "report before posting", *took], False
    return [line, *honest, *took], not honest


def stopped_lines(tmp: Path, store: Store) -> tuple[str, list[str]]:
    """Who the first batch stopped, by simulated profile (" (stopped: speeder, copy_paster)"), and a warning naming
    the honest ones with the rules that stopped them: a gate that stops honest people here may stop real ones (or
    the simulated text trips a rule people's would not)."""
    import json

    from postprocess.report_data import GOOD_PROFILES

    truth = next(tmp.glob("runs/*/sim_workers.json"), None)
    profiles = {w["worker_id"]: w["profile"] for w in json.loads(truth.read_text(encoding="utf-8"))} if truth else {}
    stopped = [(profiles.get(r["worker_id"], ""), r["what"], r["why"]) for r in store.rows(
        "SELECT worker_id, 'blocked' AS what, rules AS why FROM blocks WHERE batch = 1 UNION ALL "
        "SELECT worker_id, 'rejected', reasons FROM decisions WHERE batch = 1 AND action = 'reject' ORDER BY 1, 2, 3")]
    who = ", ".join(sorted({p for p, _, _ in stopped if p}))
    honest = list(dict.fromkeys(f"{p} {what} ({why})" for p, what, why in stopped if p in GOOD_PROFILES))
    return (f" (stopped: {who})" if who else ""), ([
        f"warning: the rehearsal stopped honest simulated workers: {'; '.join(honest)}: a rule that stops them may "
        "stop real people on this page (or simulated text trips it where people's would not); read the rule in "
        "docs/explanation/qc-rules.md before posting"] if honest else [])

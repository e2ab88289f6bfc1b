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
    total, workers = int(done["n"] or 0), int(done["workers"] or 0)
    head = f"rehearsal of a first batch on the simulator ({total} responses to {done['pages']} page(s), its crowd)"
    if result.get("held"):  # "batch 1 HELD for review, ...: rule X would reject or block 3 of 3 workers (...). ..."
        why = str(result["held"]).split(": ", 1)[-1].split(". ")[0]
        return [f"PROBLEM: {head}: the batch was held, as a run's would be: {why}"], False
    if not total:
        return [f"{head}: no response came back"], False
    share = max(rejected / total, blocked / max(1, workers))
    line = f"{head}: {rejected} rejected, {blocked} of {workers} worker(s) blocked"
    if share > cfg.policy.hold_share:
        return [f"{line}: most of the batch; look at `hitflow run {cfg.path} --no-prefect --limit {items}`'s "
                "report before posting", *took], False
    return [line, *took], True

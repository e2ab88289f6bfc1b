"""The campaign driver: publish -> collect -> QC -> decide -> block, a re-run going on from there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flows.campaigns.batch_hold import refuse_same_page
from flows.campaigns.batch_review import block_batch, decide_batch
from flows.campaigns.budget import check_campaign_budget
from flows.campaigns.plan_growth import budget_refusal_undoes, plan_or_grow
from flows.campaigns.review_data import review_gate
from flows.campaigns.task_kinds import kind_of
from flows.core.errors import ConfigError
from flows.core.outputs.output_location import is_output_url
from flows.core.outputs.output_mirror import mirror, mirror_between_batches
from flows.core.run.free_memory import release_free_memory
from flows.core.run.run_context import Run
from flows.driver.batch_steps import ORDER, STEP_NAMES
from flows.platforms.batch_window import open_window
from flows.platforms.interface import GATE_BATCH
from flows.platforms.registry import platform_for
from flows.platforms.unit_extensions import responses

StepFn = Callable[[Run, int], dict[str, Any]]
LATE_REVIEW = "LateReview"  # the ledger's note of a late review under way (review_late_work)


def steps_for(run: Run) -> list[tuple[str, str, StepFn]]:
    """Each step's status, name and code, in flows/driver/batch_steps.py's order."""
    platform = platform_for(run.platform)
    code: dict[str, StepFn] = {"published": platform.publish, "collected": platform.collect,
                               "qc_done": kind_of(run.cfg).qc, "reviewed": review_gate, "decided": decide_batch,
                               "blocked": block_batch}
    names = {"published": platform.PUBLISH_STEP, "collected": platform.COLLECT_STEP}
    return [(status, names.get(status, name), code[status]) for status, name in STEP_NAMES]


Caller = Callable[[str, StepFn, Run, int], dict[str, Any]]


def call_directly(name: str, fn: StepFn, run: Run, batch: int) -> dict[str, Any]:
    return fn(run, batch)


def advance_batch(run: Run, batch: int, call: Caller = call_directly) -> dict[str, Any]:
    """Run the steps this batch has not finished; what each reported (nothing collected: nothing to check)."""
    results: dict[str, Any] = {}
    if run.store.batch_status(run.cfg.name, batch) == ORDER[0]:
        refuse_same_page(run, batch)  # not on a page a person paid a held batch despite (batch_hold.py)
    for status_after, name, fn in steps_for(run):
        if ORDER.index(run.store.batch_status(run.cfg.name, batch)) >= ORDER.index(status_after):
            continue
        if ORDER.index(status_after) > ORDER.index("collected") and not responses(run, batch):
            run.progress(f"batch {batch}: no work came in; nothing to {name}")
        else:
            results[name] = call(f"{name} {batch}", fn, run, batch)
            release_free_memory()  # what the step freed, so the next starts from the batch's floor
        run.store.set_batch(run.cfg.name, batch, status=status_after)
        if status_after == "published":
            open_window(run, batch)  # its deadline counts from here, for this run and every later one
    if responses(run, batch):
        more_work_rounds(run, batch, call)
    return results


def more_work_rounds(run: Run, batch: int, call: Caller = call_directly) -> None:
    """After a batch's block step, rounds of more work where still needed, each through QC to blocks."""
    from flows.custom.adaptive_rounds import adaptive_round

    answers, top_up = run.cfg.answers, kind_of(run.cfg).extra.get("tops_up")
    if answers.adaptive:
        name, step = "adaptive round", adaptive_round
    elif answers.top_up_rounds and top_up and platform_for(run.platform).TOPS_UP_CAPTIONS:
        name, step = "top-up", top_up  # elsewhere short items are listed, not topped up
    else:
        return
    while call(f"{name} {batch}", step, run, batch).get("extended"):
        review_late_work(run, call)


def review_late_work(run: Run, call: Caller = call_directly) -> list[int]:
    """Work stored after its batch's QC goes through QC, decision and blocks before anything else."""
    name, store = run.cfg.name, run.store
    late = {r["batch"]: r["status"] for r in store.rows(
        "SELECT DISTINCT a.batch, b.status FROM assignments a JOIN batches b ON b.campaign = a.campaign "
        "AND b.batch = a.batch WHERE a.campaign = ? AND a.batch > 0 AND b.status IN ('qc_done', 'decided', "
        "'blocked') AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.campaign = a.campaign AND d.assignment_id = "
        "a.assignment_id)", [name])}
    cut_short = {r["batch"]: r["idem_key"] for r in store.rows(
        "SELECT batch, idem_key FROM ledger WHERE campaign = ? AND operation = ? AND status = 'intended'",
        [name, LATE_REVIEW])}
    for batch in sorted(set(late) | set(cut_short)):
        status = late.get(batch) or store.batch_status(name, batch)
        run.progress(f"batch {batch}: work came in after its QC; reviewing it before going on")
        note = cut_short.get(batch) or f"{name}:b{batch}:late-review:{responses(run, batch)}"
        store.intend(name, batch, LATE_REVIEW, note, {})
        for _, step, fn in [s for s in steps_for(run)[2:] if ORDER.index(s[0]) <= ORDER.index(status)]:
            call(f"late work: {step} {batch}", fn, run, batch)
        store.settle(note, "ok")
    return sorted(set(late) | set(cut_short))


def zero_work_batch(run: Run, batches: list[int]) -> int | None:
    """The first finished batch that got no work at all: posting more would only wait in vain."""
    for batch in batches:
        if run.store.batch_status(run.cfg.name, batch) == ORDER[-1] and not responses(run, batch) \
                and run.store.table("hits").count_where("campaign = ? AND batch = ?", [run.cfg.name, batch]):
            return batch
    return None


def qualify(run: Run, gate: StepFn | None, call: Caller = call_directly) -> None:
    """The platform's paid gating test (``gate``), once, before the first batch (None: it runs none)."""
    if gate is not None and run.store.batch_status(run.cfg.name, GATE_BATCH) != "qualified":
        call("qualify workers", gate, run, GATE_BATCH)
        run.store.set_batch(run.cfg.name, GATE_BATCH, status="qualified")


def open_output_url(run: Run) -> None:
    """Before anything is posted, the output URL gets what the run folder holds (its manifest first)."""
    out = str(run.notes.get("out_dir", ""))
    if is_output_url(out):
        mirror(out, run.cfg.name)


def batch_ended(run: Run) -> None:
    """Copy the run folder (logs, invites) to the output URL, if there is one, between batches."""
    out = str(run.notes.get("out_dir", ""))
    if is_output_url(out):
        mirror_between_batches(out, run.cfg.name, run.progress)


def _prepare(run: Run, limit: int | None, scale: int) -> tuple[list[int], StepFn | None]:
    """The batches to run and the platform's gating test; a gate it cannot run is refused before planning."""
    gate = platform_for(run.platform).gate_test(run.cfg)
    open_output_url(run)
    if run.cfg.task == "custom":  # every route refuses a page nobody can answer or read back
        from flows.custom.custom_task import refuse_unreadable

        refuse_unreadable(run.cfg)
    if run.cfg.answers.adaptive and not platform_for(run.platform).EXTENDS_UNITS:
        raise ConfigError(f"{run.cfg.path}: [answers] min_judgements (adaptive overlap) needs a platform that can add "
                          f"work to a posted unit, which {platform_for(run.platform).LABEL} cannot; remove "
                          "min_judgements and max_judgements")
    with budget_refusal_undoes(run, plan_or_grow(run, limit, scale)):  # made once; resumed, grown, or refused
        check_campaign_budget(run)  # the whole campaign must fit before anything (more) is posted
    if run.store.table("ledger").count_where("campaign = ?", [run.cfg.name]):
        platform_for(run.platform).reconcile(run)  # a resumed run first squares the ledger with the platform
    return sorted({r["batch"] for r in run.store.rows("SELECT DISTINCT batch FROM items WHERE campaign = ?",
                                                       [run.cfg.name])}), gate


def run_batches(run: Run, call: Caller = call_directly, limit: int | None = None, scale: int = 1) -> None:
    """Every batch to the end, holding the campaign's lock; a batch that got no work stops the rest."""
    with run.store.campaign_lock(run.cfg.name):
        batches, gate = _prepare(run, limit, scale)
        qualify(run, gate, call)
        for batch in batches:
            review_late_work(run, call)
            if (empty := zero_work_batch(run, batches)) is not None:
                run.progress(f"batch {empty} got no work; batches from {batch} on are not posted")
                break
            advance_batch(run, batch, call)
            batch_ended(run)
        review_late_work(run, call)
        run.store.table("campaigns").update(run.cfg.name, {"status": "collected"})


def run_next_batch(run: Run, call: Caller = call_directly, limit: int | None = None) -> int | None:
    """Advance the first unfinished batch to its end and stop; None when every batch is done."""
    with run.store.campaign_lock(run.cfg.name):
        batches, gate = _prepare(run, limit, 1)
        qualify(run, gate, call)
        review_late_work(run, call)
        for batch in batches:
            if run.store.batch_status(run.cfg.name, batch) != ORDER[-1]:
                advance_batch(run, batch, call)
                batch_ended(run)
                return batch
        run.store.table("campaigns").update(run.cfg.name, {"status": "collected"})
        return None


def every_batch_done(run: Run) -> bool:
    """Whether every planned batch reached its last step (a scheduled run then finishes the campaign at once)."""
    batches = {r["batch"] for r in run.store.rows("SELECT DISTINCT batch FROM items WHERE campaign = ?",
                                                  [run.cfg.name])}
    return bool(batches) and all(run.store.batch_status(run.cfg.name, b) == ORDER[-1] for b in batches)

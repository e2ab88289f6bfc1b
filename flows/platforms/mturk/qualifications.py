"""MTurk's money and gates for a campaign."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.config.money import to_budget_currency
from flows.core.errors import BudgetError
from flows.core.inputs.answer_key import load_key
from flows.core.ledger.ledger_calls import LedgeredCall, ledgered
from flows.core.run.run_context import Run
from flows.platforms.mturk import adapter as mturk
from flows.platforms.mturk.fees import mturk_fee
from flows.platforms.mturk.qualification_forms import build_answer_key, build_test_form


def cost_per_assignment(cfg: CampaignConfig) -> Decimal:
    return cfg.reward + mturk_fee(cfg.reward, cfg.assignments_per_image)


def qualification_test_cost(cfg: CampaignConfig) -> Decimal:
    """Reward plus fees for every planned taker of a paid test HIT (zero without one)."""
    g = cfg.gating
    if g.qualification_key is None or g.qualification_mode != "html_hit":
        return Decimal("0.00")
    return (g.qualification_reward + mturk_fee(g.qualification_reward, g.qualification_takers)) * \
        g.qualification_takers


def check_budget(run: Run, batch: int, n_hits: int) -> Decimal:
    """Committed (the test HIT and all caption HITs posted so far) + this batch, with fees, must fit."""
    posted = run.store.table("hits").count_where("campaign = ? AND batch != ? AND batch > 0", [run.cfg.name, batch])
    unit = cost_per_assignment(run.cfg) * run.cfg.worst_per_hit_with_top_ups  # the worst case (estimate.py)
    estimate = unit * n_hits
    committed = unit * posted + qualification_test_cost(run.cfg)
    if to_budget_currency(run.cfg, committed + estimate, "USD") > run.cfg.budget:
        raise BudgetError(f"batch {batch} would commit {committed + estimate:.2f} USD (reward + fees) against a "
                          f"budget of {run.cfg.budget:.2f} {run.cfg.budget_currency}; raise [campaign].budget or "
                          "post fewer items")
    return estimate


def gating_requirements(cfg: CampaignConfig, block_qual_id: str, test_qual_id: str = "",
                        min_score: int | None = None) -> list[dict[str, Any]]:
    """MTurk's requirements of the campaign's HITs; ``min_score``: the test's pass mark."""
    g = cfg.gating
    reqs: list[dict[str, Any]] = [
        {"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThan",
         "IntegerValues": [g.min_hits_approved], "ActionsGuarded": "DiscoverPreviewAndAccept"},
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [g.min_percent_approved], "ActionsGuarded": "DiscoverPreviewAndAccept"},
    ]
    if g.locale:
        reqs.append({"QualificationTypeId": "00000000000000000071", "Comparator": "EqualTo",
                     "LocaleValues": [{"Country": g.locale}], "ActionsGuarded": "DiscoverPreviewAndAccept"})
    if block_qual_id:
        reqs.append({"QualificationTypeId": block_qual_id, "Comparator": "DoesNotExist",
                     "ActionsGuarded": "DiscoverPreviewAndAccept"})
    if test_qual_id:
        reqs.append({"QualificationTypeId": test_qual_id, "Comparator": "GreaterThanOrEqualTo",
                     "IntegerValues": [g.qualification_min_score if min_score is None else min_score],
                     "ActionsGuarded": "Accept"})
    return reqs


def ledgered_qualification(run: Run, name: str, purpose: str, create: Callable[[], str],
                           params: dict[str, Any]) -> str:
    """A qualification type created once per campaign: the ledger remembers its id."""
    def send() -> dict[str, Any]:
        qual_id = create()
        run.store.table("qualifications").upsert({"qualification_type_id": qual_id, "campaign": run.cfg.name,
                                                  "name": name, "purpose": purpose},
                                                 pk=("campaign", "qualification_type_id"))
        return {"QualificationTypeId": qual_id}

    key = f"{run.cfg.name}:qualtype:{name}"
    call = LedgeredCall("CreateQualificationType", key, {"Name": name, **params}, send)
    return str(ledgered(run.store, run.cfg.name, 0, call)["QualificationTypeId"])


def block_qualification_name(cfg: CampaignConfig) -> str:
    """The soft-block qualification's name (what a run creates and a dry run shows)."""
    return cfg.gating.soft_block_qualification or f"hitflow-{cfg.name}-blocked"


def mturk_test_qualification_name(cfg: CampaignConfig) -> str:
    """MTurk-scored test (``mturk_test``): the qualification type carrying Test and AnswerKey."""
    return f"hitflow-{cfg.name}-test"


def score_qualification_name(cfg: CampaignConfig) -> str:
    """Paid test HIT (``html_hit``): hitflow's own qualification whose value is the test score."""
    return f"hitflow-{cfg.name}-score"


def scored_test_qualification(run: Run) -> str:
    """The scored qualification test (Test + AnswerKey from the key CSV), or "" when none is configured."""
    g = run.cfg.gating
    if g.qualification_key is None or g.qualification_mode != "mturk_test":
        return ""
    key_path = g.qualification_key
    name = mturk_test_qualification_name(run.cfg)

    def create() -> str:
        answers = load_key(key_path)
        return mturk.create_test_qualification(run.client, name, build_test_form(answers),
                                               build_answer_key(answers), g.qualification_retry_delay_s)

    return ledgered_qualification(run, name, "scored test", create, {"Test": "<form>"})


def requester_qualification(run: Run, name: str, purpose: str, description: str) -> str:
    """A plain qualification type hitflow grants itself (no test), created once per campaign."""
    return ledgered_qualification(run, name, purpose,
                                  lambda: mturk.ensure_qualification_type(run.client, name, description), {})


def block_qualification(run: Run) -> str:
    """The soft-block qualification (created once, remembered in the ledger)."""
    return requester_qualification(run, block_qualification_name(run.cfg), "soft block",
                                   f"Workers whose earlier work on {run.cfg.name} was blocked by QC.")

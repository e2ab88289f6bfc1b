"""Campaign config: TOML in, a frozen CampaignConfig out, a bad value one line."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from flows.core.config.answers_config import AnswersSettings, adaptive_check, answers_settings
from flows.core.config.attention_config import AttentionSettings, attention_policy, attention_settings
from flows.core.config.config_file import PAGES, fail, nearest_task, read_toml, validate
from flows.core.config.config_schema import ConfigFile, GatingSection, PolicySection
from flows.core.config.config_types import parse_budget
from flows.core.config.gating_settings import Gating, ProlificSettings
from flows.core.config.item_generator import PREFIX, generated_items
from flows.core.config.policy_rules import check_policy_rules_run, check_rules, decision_policy
from flows.core.config.prolific_section import prolific_settings
from flows.core.config.rule_sets import chosen_rules
from flows.core.config.study_config import STUDY_RULES, StudySettings, study_settings
from flows.core.config.telemetry_config import TELEMETRY_NOTICE
from flows.core.errors import ConfigError
from flows.core.http_clients import http_url_problem
from flows.core.inputs.contained_paths import OUTSIDE_PATHS_ENV, outside_allowed
from flows.core.kind_registry import known
from flows.core.outputs.output_location import has_credentials
from qc.custom_rules import CUSTOM_POLICY, CUSTOM_RULES
from qc.decisions import DecisionPolicy
from qc.runner import DEFAULT_RULES
from qc.submit_rules import SubmitRules


@dataclass(frozen=True)
class CampaignConfig:
    path: Path
    name: str
    task: str
    title: str
    description: str
    keywords: str
    items: Path
    images_per_hit: int
    assignments_per_image: int
    batches: int
    reward: Decimal
    budget: Decimal
    seed: int
    hit_lifetime_s: int
    assignment_duration_s: int
    auto_approval_delay_s: int
    poll_interval_s: int
    gating: Gating
    submit_rules: SubmitRules
    qc_rules: tuple[str, ...]
    qc_params: dict[str, Any]
    time_source: str
    policy: DecisionPolicy
    reject_blocked_work: bool
    campaign_word_min_workers: int
    endpoint_url: str = ""
    schedule_interval_s: int = 0
    schedule_cron: str = ""
    sim_crowd: Path | None = None  # the simulator's crowd for this campaign (default: the VizWiz demo crowd)
    sim_start: float = 1767571200.0  # [target] sim_start: a new simulator's virtual clock (epoch s; 2026-01-05)
    sim_workers: str = "auto"  # task = "custom": form-reading or browser workers (flows/custom/page_scripts.py)
    page_origins: tuple[str, ...] = ()  # task = "custom": script/style origins added to the task server's CSP
    prolific: ProlificSettings = field(default_factory=ProlificSettings)
    study: StudySettings | None = None  # set for the human-evaluation pages (flows/core/config/study_config.py)
    budget_currency: str = "USD"  # [campaign].budget = "400.00 USD"; budget_usd is USD
    accept_partial: bool = False
    fx_rates: dict[str, Decimal] = field(default_factory=dict)  # units of budget_currency per unit of a currency
    review: str = "none"  # [policy] review: "none" | "sample" | "flagged" (who waits for a person)
    review_deadline_s: int = 3600  # [policy] review_deadline_s: stop waiting this long before auto-approval
    template: Path | None = None  # task = "custom": the campaign's own page template (flows/custom/custom_task.py)
    answer_key: Path | None = None  # task = "custom": field,answer,score rows scoring responses (qc/answer_key.py)
    truth: dict[str, str] = field(default_factory=dict)  # task = "custom": answer field -> items column of its answer
    task_url: str = ""  # [target] task_url: the running task server's public base URL
    out: str = ""  # [target] out: the output root, a folder or an fsspec URL (flows/core/outputs/output_location.py)
    batch_open_s: int = 0  # [timing] batch_open_s: longest a batch stays open (0: hit_lifetime_s)
    unfilled_places: str = "release"  # [timing] unfilled_places: "release" | "keep"
    detach: str = "live"  # [timing] detach: "live" | "always" | "never"
    telemetry_notice: str = TELEMETRY_NOTICE  # [telemetry] notice; "" when [telemetry] record = false
    answers: AnswersSettings = field(default_factory=AnswersSettings)  # [answers] (postprocess/answers/aggregation.py)
    attention: AttentionSettings = field(default_factory=AttentionSettings)  # [attention] (qc/attention_checks.py)
    notes: tuple[str, ...] = ()  # the run's and dry run's: rules [qc] leaves out, a place's size (campaigns/task_kinds)

    @property
    def worst_per_item(self) -> int:  # adaptive overlap posts min_judgements (assignments_per_image) first
        return max(self.assignments_per_image, self.answers.max_judgements)

    @property
    def worst_per_hit_with_top_ups(self) -> int:
        """``worst_per_item`` with caption top-ups, up to MTurk's cap on a HIT, on every route alike."""
        per, rounds = self.assignments_per_image, self.answers.top_up_rounds
        if not rounds or self.study is not None:
            return self.worst_per_item
        return max(self.worst_per_item, min(top_up_cap(per), per * (1 + rounds)))


def top_up_cap(per_image: int) -> int:
    """Assignments a HIT can reach: MTurk cannot take one created with fewer than 10 to 10 or more."""
    return 9 if per_image < 10 else 10 * per_image


def load_config(path: str | Path) -> CampaignConfig:
    """Every file the config names must lie inside its folder, symlinks resolved (HITFLOW_ALLOW_OUTSIDE_PATHS=1)."""
    path = Path(path)
    doc: ConfigFile = validate(path, ConfigFile, read_toml(path))
    camp = doc.campaign
    items = _items(path, camp.items)
    custom = camp.task == "custom"
    template = _existing(path, "campaign", "template", camp.template)
    # a kind of one's own: neither a page of hit_templates/ nor "custom"; its declaration gives its QC's defaults
    own = known(camp.task) if not custom and not (PAGES / f"{camp.task}.html.j2").is_file() else None
    rules_default, policy_default = (CUSTOM_RULES, CUSTOM_POLICY) if custom else (None, None)
    rules_default, policy_default = (own.qc_rules or None, own.policy) if own else (rules_default, policy_default)
    if not custom and own is None and not (PAGES / f"{camp.task}.html.j2").is_file():
        raise fail(path, "campaign", "task",
                   f"names no template hit_templates/{camp.task}.html.j2; {nearest_task(camp.task)}")
    try:
        study = study_settings(doc.study, doc.screen, camp.task, items)
    except ValueError as exc:
        raise ConfigError(f"{path}: [study].{exc}") from exc
    if why := adaptive_check(doc.answers, camp.task, camp.assignments_per_image):
        raise ConfigError(f"{path}: [answers].{why}")
    budget, currency = parse_budget(camp.budget) if camp.budget else (camp.budget_usd or Decimal(0), "USD")
    qc, attention = doc.qc, attention_settings(doc.attention)
    for key in ("rules", "extend", "ignore"):
        check_rules(path, "qc", key, getattr(qc, key) or (), study is not None)
    recommended = rules_default or (STUDY_RULES if study is not None else DEFAULT_RULES)
    qc_rules, notes = chosen_rules(qc, recommended, custom)
    cfg = CampaignConfig(
        path=path, name=camp.name, task=camp.task, title=camp.title, description=camp.description,
        keywords=camp.keywords, items=items, images_per_hit=camp.images_per_hit, reward=camp.reward_usd,
        assignments_per_image=doc.answers.min_judgements or camp.assignments_per_image, batches=camp.batches,
        budget=budget, budget_currency=currency, accept_partial=camp.accept_partial,
        fx_rates={str(k): v for k, v in camp.fx_rates.items()}, seed=camp.seed, **doc.timing.model_dump(),
        gating=_gating(path, doc.gating),
        submit_rules=SubmitRules(**doc.submit_rules.model_dump(exclude={"max_chars", "banned_prefixes"}),
                                 banned_prefixes=tuple(doc.submit_rules.banned_prefixes),
                                 max_chars=doc.submit_rules.max_chars or None),
        qc_rules=qc_rules, notes=tuple(notes), time_source=qc.time_source,
        qc_params=qc.model_dump(exclude={"rules", "time_source", "preset", "extend", "ignore"}),
        policy=attention_policy(decision_policy(path, doc.policy, study is not None, policy_default),
                                bool(attention.checks)),
        template=template, attention=attention,
        answer_key=_existing(path, "campaign", "answer_key", camp.answer_key), truth=dict(camp.truth),
        reject_blocked_work=doc.policy.reject_blocked_work,
        campaign_word_min_workers=doc.postprocess.campaign_word_min_workers,
        endpoint_url=_target_url(path, "endpoint_url", doc.target.endpoint_url),
        task_url=_target_url(path, "task_url", doc.target.task_url), out=_output_root(path, doc.target.out),
        sim_crowd=_existing(path, "target", "sim_crowd", doc.target.sim_crowd),
        sim_start=doc.target.sim_start.timestamp(), sim_workers=doc.target.sim_workers,
        page_origins=tuple(doc.target.page_origins), prolific=prolific_settings(doc.prolific), study=study,
        schedule_interval_s=doc.schedule.interval_s, schedule_cron=doc.schedule.cron,
        telemetry_notice=doc.telemetry.notice.strip() if doc.telemetry.record else "",
        answers=answers_settings(doc.answers, camp.assignments_per_image,
                                 _existing(path, "answers", "controls", doc.answers.controls),
                                 items if custom else None),
        **_review(path, doc.policy, doc.timing.auto_approval_delay_s),
    )
    check_policy_rules_run(path, doc.policy, cfg.qc_rules)
    if cfg.answers.control_share != doc.answers.control_share:
        cfg = replace(cfg, notes=(*cfg.notes, f"note: [answers] controls with no control_share: mixed in at "
                                  f"control_share = {cfg.answers.control_share}, after the quiz (set it to choose; 0: "
                                  "controls stay where the items file has them, no quiz)"))
    for name, field_qc in qc.fields.items():  # [qc.fields.<name>] rules: known names too
        check_rules(path, f"qc.fields.{name}", "rules", field_qc.rules or (), study is not None)
    return cfg


def _output_root(path: Path, out: str) -> str:
    """[target] out: a committed config must not hold a bucket's key (the refusal does not repeat it)."""
    if has_credentials(out) or any(c.isspace() or not c.isprintable() for c in out):
        raise fail(path, "target", "out", "must be a folder or a URL without credentials or spaces; give a URL's "
                   "credentials by the environment (FSSPEC_S3_KEY and FSSPEC_S3_SECRET for s3://)")
    return out


def _target_url(path: Path, key: str, url: str) -> str:
    """[target] endpoint_url and task_url obey ``--endpoint-url``'s rule: no credential in them."""
    if url and (problem := http_url_problem(url)):
        raise fail(path, "target", key, problem)
    return url


def _existing(path: Path, section: str, key: str, relative: str) -> Path | None:
    """A file named relative to the config; None when the key is empty."""
    if not relative:
        return None
    target = path.parent / relative
    if not target.is_file():
        raise fail(path, section, key, f"points at {target}, which does not exist")
    folder = path.parent.resolve()
    if not target.resolve().is_relative_to(folder) and not outside_allowed():
        raise fail(path, section, key, f"points at {target}, outside the config's folder {folder} (symlinks "
                   f"followed); move the file there, or pass --allow-outside-paths ({OUTSIDE_PATHS_ENV}=1)")
    return target


def _gating(path: Path, sec: GatingSection) -> Gating:
    key_path = _existing(path, "gating", "qualification_key", sec.qualification_key)
    paid = sec.qualification_mode == "html_hit" and key_path is not None
    return Gating(  # the keys of the same name as they are; the paths resolved, the paid test's only when paid
        **sec.model_dump(exclude={"qualification_key", "qualification_reward_usd", "qualification_takers",
                                  "qualification_images"}), qualification_key=key_path,
        qualification_reward=(sec.qualification_reward_usd or Decimal("0.00")) if paid else Decimal("0.00"),
        qualification_takers=(sec.qualification_takers or 0) if paid else 0,
        qualification_images=_existing(path, "gating", "qualification_images", sec.qualification_images))


def _items(path: Path, spec: str) -> Path:
    """The item CSV next to the config, or ``generate:N`` synthetic items for load tests."""
    if spec.startswith(PREFIX):
        try:
            return generated_items(spec)
        except ValueError as exc:
            raise fail(path, "campaign", "items", str(exc)) from exc
    found = _existing(path, "campaign", "items", spec)
    assert found is not None
    return found


def _review(path: Path, sec: PolicySection, auto_approval_delay_s: int) -> dict[str, Any]:
    deadline = min(3600, auto_approval_delay_s) if sec.review_deadline_s is None else sec.review_deadline_s
    if deadline > auto_approval_delay_s:
        raise fail(path, "policy", "review_deadline_s", f"must be between 0 and [timing].auto_approval_delay_s "
                                                        f"({auto_approval_delay_s}) (got {deadline})")
    return {"review": sec.review, "review_deadline_s": deadline}


def hold_seconds(cfg: CampaignConfig) -> float:
    """How long an unsubmitted session keeps its unit: the longest a participant may take."""
    return float(max(cfg.assignment_duration_s, 60 * cfg.prolific.maximum_minutes))

"""The config's schema: one pydantic model per TOML table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, model_validator

from flows.core.config.answers_config import AnswersSection
from flows.core.config.attention_config import AttentionSection
from flows.core.config.config_types import (
    CURRENCIES,
    BudgetText,
    Count,
    Money,
    NonEmptyText,
    Percent,
    PositiveInt,
    Rate,
    RuleName,
    Section,
    Share,
)
from flows.core.config.field_qc_config import FIELDS_QC, FieldQc
from flows.core.config.prolific_section import ProlificSection
from flows.core.config.study_config import ScreenSection, StudySection
from flows.core.config.telemetry_config import TelemetrySection
from qc.submit_rules import CANNED_TEXT, VIZWIZ_BANNED_PREFIXES

YEAR_S = 31536000


class CampaignSection(Section):
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$",
                      description="Output folder runs/<name>/ and ledger key prefix: letters, digits, - or _ (<= 40)")
    task: str = Field("caption", pattern=r"^[a-z0-9_]{1,40}$", description="Page: hit_templates/<task>.html.j2, "
                                                                          'or "custom" for your own template')
    template: str = Field("", max_length=1000, description='task = "custom": your page, a Jinja template '
                                                           "relative to the config file (extends _custom_page.html.j2)")
    answer_key: str = Field("", max_length=1000, description='task = "custom": field,answer,score CSV (an imported '
                                                             "QuestionForm's AnswerKey) scoring each response")
    truth: dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,100}$")], NonEmptyText] = Field(
        default_factory=dict, max_length=200, description='task = "custom": answer field -> the items file\'s column '
        'holding its known answer, e.g. {sentiment = "gold_label"}: simulated choices and text follow it (never '
        'shown)')
    items: NonEmptyText = Field(description="Item CSV, relative to the config file")
    title: NonEmptyText = Field(description="The HIT's or study's title, shown to workers")
    description: NonEmptyText = Field(description="One or two sentences shown to workers before they accept")
    keywords: str = Field("", max_length=1000, description="Comma-separated search keywords (MTurk)")
    images_per_hit: PositiveInt = Field(le=1000, description="Items shown on one page (tasks per unit for studies)")
    assignments_per_image: PositiveInt = Field(le=1000, description="Workers per item (MaxAssignments per HIT)")
    batches: PositiveInt = Field(le=10000, description="Batches; QC and blocking run between them")
    reward_usd: Money = Field(description='Reward per assignment in USD before fees, quoted: "0.55"')
    budget_usd: Money | None = Field(None, description='Legacy budget in USD, quoted: "400.00" (or use budget)')
    budget: BudgetText | None = Field(None, description=f'Budget, currency: "400.00 USD" ({"/".join(CURRENCIES)})')
    accept_partial: bool = Field(False, description="Keep a batch that collected fewer answers than planned")
    fx_rates: dict[Literal["USD", "GBP", "EUR"], Rate] = Field(
        default_factory=dict, description='Units of the budget\'s currency per unit of another, e.g. {GBP = "1.27"}')
    seed: int = Field(0, ge=0, le=2**63 - 1, description="Seeds the random review sample")

    @model_validator(mode="after")
    def _template_for_custom(self) -> CampaignSection:
        if self.task == "custom" and not self.template:
            raise ValueError('template is required when task = "custom": template = "my_page.html.j2"')
        if self.template and self.task != "custom":
            raise ValueError(f'template is only read when task = "custom" (task is {self.task!r})')
        if self.truth and self.task != "custom":
            raise ValueError(f'truth is only read when task = "custom" (task is {self.task!r})')
        return self

    @model_validator(mode="after")
    def _one_budget(self) -> CampaignSection:
        if self.budget is None and self.budget_usd is None:
            raise ValueError('budget is required: budget = "400.00 USD" (or the older budget_usd = "400.00")')
        if self.budget is not None and self.budget_usd is not None:
            raise ValueError("budget and budget_usd are exclusive; keep budget")
        return self


class TimingSection(Section):
    hit_lifetime_s: PositiveInt = Field(604800, le=YEAR_S, description="Seconds a HIT stays on the market")
    assignment_duration_s: int = Field(3600, ge=30, le=YEAR_S, description="Seconds a worker has to finish")
    auto_approval_delay_s: int = Field(ge=0, le=2592000, description="Seconds before the platform pays unreviewed "
                                                                     "work (at most 30 days); decisions come first")
    poll_interval_s: PositiveInt = Field(600, le=604800, description="Seconds between collection polls")
    batch_open_s: int = Field(0, ge=0, le=YEAR_S, description="Longest a batch (study, invite round) stays "
                                                              "open before it closes with what came in; 0: "
                                                              "hit_lifetime_s")
    unfilled_places: Literal["release", "keep"] = Field(
        "release", description="Places never filled when a batch closes: release (no longer count against the "
                               "budget) or keep (stay committed)")
    detach: Literal["live", "always", "never"] = Field(
        "live", description="live: on live routes a run publishes, looks once and exits (exit 9) until the batch "
                            "is full or its time is up; always: also on the simulator; never: wait in the process")


class GatingSection(Section):
    min_hits_approved: Count = Field(500, le=10**9, description="NumberHITsApproved must be greater than this")
    min_percent_approved: Percent = Field(95, description="PercentAssignmentsApproved at least this (0-100)")
    locale: str = Field("", pattern=r"^([A-Z]{2})?$", description='Worker country, ISO 3166 ("US"); "" for any')
    soft_block_qualification: str = Field("", max_length=200, description="Qualification a worker must NOT have")
    block_mode: Literal["soft", "hard"] = Field("soft", description="soft: the qualification above; hard: "
                                                                    "CreateWorkerBlock")
    qualification_key: str = Field("", max_length=1000, description="Answer key CSV of a scored qualification test")
    qualification_min_score: Percent = Field(80, description="Percent of test items answered correctly to pass")
    qualification_retry_delay_s: Count = Field(86400, le=YEAR_S, description="Seconds before a retake")
    qualification_mode: Literal["mturk_test", "html_hit"] = Field(
        "mturk_test", description="mturk_test: MTurk scores a QuestionForm; html_hit: a paid HIT hitflow scores")
    qualification_reward_usd: Money | None = Field(None, description='Reward of the paid test HIT (html_hit), "0.30"')
    qualification_takers: PositiveInt | None = Field(None, le=100000, description="MaxAssignments of the test HIT")
    qualification_images: str = Field("", max_length=1000, description="CSV item_id, url of the judging items")

    @model_validator(mode="after")
    def _paid_test(self) -> GatingSection:
        if self.qualification_mode == "html_hit" and self.qualification_key:
            for key in ("qualification_reward_usd", "qualification_takers"):
                if getattr(self, key) is None:
                    raise ValueError(f'{key} is required when qualification_mode is "html_hit"')
        return self


class SubmitRulesSection(Section):
    min_words: Count = Field(8, le=1000, description="Fewest words per caption (0: no minimum)")
    one_sentence: bool = Field(True, description="A caption is one sentence")
    banned_prefixes: list[NonEmptyText] = Field(default_factory=lambda: list(VIZWIZ_BANNED_PREFIXES),
                                          description="Openings a caption may not start with")
    max_chars: Count = Field(0, le=100000, description="Most characters per caption (0: no limit)")
    required: bool = Field(True, description="Every caption must be filled in")
    canned_text: str = Field(CANNED_TEXT, max_length=1000, description="The page's pre-canned caption")

    @model_validator(mode="after")
    def _prefixes_have_text(self) -> SubmitRulesSection:
        if not all(p.strip() for p in self.banned_prefixes):
            raise ValueError("banned_prefixes must be a list of non-empty strings")
        return self


class QcSection(Section):
    preset: Literal["recommended", "none"] = Field("recommended", description="The rules to start from: the "
                                                   "task's recommended set (rules added to it later included), or none")
    extend: list[RuleName] = Field(default_factory=list, description="Rules run besides the preset's")
    ignore: list[RuleName] = Field(default_factory=list, description="Rules of the preset left out")
    rules: list[RuleName] | None = Field(None, description="Every rule by name, as older configs list them: on a "
                                         "page of one's own, the recommended preset plus these; on a built-in "
                                         "task, or with preset set, the preset plus these (docs/reference/config.md)")
    time_source: Literal["submit_minus_accept", "page_active_time"] = Field(
        "submit_minus_accept", description="Work time from the platform's timestamps or the page's timers")
    time_outlier_sigmas: float = Field(1.95, gt=0, le=100, allow_inf_nan=False,
                                       description="Worker mean outside mu +/- this many sigma of the batch")
    time_outlier_method: Literal["seed_slow_apart", "seed", "robust", "robust_both"] = Field(
        "seed_slow_apart", description="seed_slow_apart: mean and sigma, the fast side taken without the slow "
                                       "workers; seed: mean and sigma of all assignments, both sides, exactly as "
                                       "in the paper; robust: median and MAD of log time, fast side; robust_both: "
                                       "both sides")
    caps_lock_share: Share = Field(0.5, description="Uppercase share of letters that flags a worker")
    canned_share: Share = Field(0.5, description="Canned captions share that flags over-use")
    quality_words: list[NonEmptyText] = Field(default_factory=lambda: ["quality", "blur", "blurry", "blurred"],
                                              description="Words that mark a caption about image quality")
    lone_min_captions: PositiveInt = Field(3, le=1000, description="Lone (non-)use only on items with this many "
                                                                   "captions")
    random_sample_share: Share = Field(0.05, description="Share of assignments sampled for human review")
    duplicate_min_images: PositiveInt = Field(2, le=1000, description="Same caption on this many items flags it")
    consensus_threshold: Share = Field(0.02, description="Similarity to peers' captions below which a caption "
                                                        "is off-consensus")
    consensus_min_peers: PositiveInt = Field(2, le=1000, description="Peers needed before consensus is judged")
    shared_template_min_images: int = Field(2, ge=2, le=1000, description="A worker's one template on this many "
                                                                          "items flags it")
    instruction_echo_threshold: Share = Field(0.6, description="Similarity to the instructions that flags an echo")
    near_template_words: PositiveInt = Field(4, le=100, description="Leading words that make a pasted sentence's key")
    near_template_consensus: Share = Field(0.1, description="Consensus below which a caption may be a pasted template")
    straight_lining_min_items: PositiveInt = Field(3, le=10000, description='task = "custom": fewer items '
                                                  "with one answer to a choice field are never straight-lining")
    straight_lining_alpha: Share = Field(0.01, description='task = "custom": one answer to a choice field on '
                                         "every item flags it when an honest worker gives it with a probability "
                                         "below this")
    item_blind_alpha: Share = Field(0.01, gt=0, description='task = "custom": the chance, over the whole campaign, '
                                    "that item_blind ever flags an honest worker who follows the items at least "
                                    "item_blind_honest_share as well as the crowd does")
    item_blind_review_alpha: Share = Field(0.25, gt=0, description='task = "custom": the same chance for '
                                           "item_blind_review (a worker of too few items to block, for a person)")
    item_blind_honest_share: Share = Field(2 / 3, gt=0, description='task = "custom": how well (share of the crowd\'s '
                                           "agreement above chance) an honest worker is assumed to follow the items")
    item_blind_min_others: PositiveInt = Field(2, le=1000, description='task = "custom": other answers an item '
                                               "needs before item_blind judges an answer to it")
    page_straight_lining_alpha: Share = Field(0.01, gt=0, description='task = "custom": the chance, over the whole '
                                              "campaign, that page_straight_lining ever flags an honest worker")
    page_straight_lining_min_fields: int = Field(3, ge=2, le=1000, description='task = "custom": questions on one '
                                                 "scale a page needs before one answer to all of them counts")
    mark_agreement_below: Share = Field(0.35, description="Mean F1 of a worker's marks with the others' below which "
                                                          "(and below half of theirs) mark_agreement flags an answer")
    near_template_min_images: int = Field(4, ge=2, le=1000, description="A key on this many low-consensus captions "
                                                                        "flags them")
    quality_talk_consensus: Share = Field(0.1, description="A caption naming image quality whose consensus is "
                                                         "below this talks about quality, not content")
    # text telemetry (qc/telemetry_rules.py, docs/authenticity.md)
    paste_external_share: Share = Field(0.5, description="Share of a caption pasted from outside the page that "
                                                         "flags it (paste_external, switch_then_paste)")
    untyped_share: Share = Field(0.5, description="Share of a caption neither typed nor copied on the page that "
                                                  "flags it (untyped_text)")
    untyped_min_chars: PositiveInt = Field(20, le=100000, description="... and at least this many characters")
    switch_paste_cps: float = Field(8.0, gt=0, le=1000, allow_inf_nan=False,
                                    description="Characters per second away from the page above which a paste "
                                                "after a tab switch came back faster than a person types")
    max_typing_cps: float = Field(25.0, gt=0, le=1000, allow_inf_nan=False,
                                  description="Typed characters per second of keystroke time no person reaches")
    typing_min_chars: PositiveInt = Field(30, le=100000, description="typing_cadence judges captions with this "
                                                                     "many typed characters")
    fields: dict[NonEmptyText, FieldQc] = FIELDS_QC


class PolicySection(Section):
    reject_rules: list[RuleName] | None = Field(None, description="Rules whose flag rejects the work")
    review_rules: list[RuleName] | None = Field(None, description="Rules whose flag asks for a human look")
    reject_blocked_work: bool = Field(False, description="Also reject a blocked worker's work of that batch")
    block_min_flags: dict[RuleName, PositiveInt] | None = Field(
        None, description="Block a worker with at least this many flags of a rule in a batch")
    block_min_rate: dict[RuleName, Share] = Field(
        default_factory=dict, description="Block a worker whose share of flagged work for a rule reaches this")
    block_min_evidence: PositiveInt = Field(5, le=100000, description="Items a worker needs before a rate blocks them")
    block_rate_confidence: float = Field(0.0, ge=0, le=5, allow_inf_nan=False,
                                         description="z of the Wilson lower bound a share must reach (0: the share)")
    hold_share: Share = Field(0.5, description="Hold a batch for a person when one rule would reject or block "
                                               "more than this share of its workers")
    review: Literal["none", "sample", "flagged"] = Field(
        "none", description="Who waits for a person on the review page before the next batch")
    review_deadline_s: Count | None = Field(None, description="Stop waiting for the review this long before "
                                                              "auto-approval (default: 3600 or that delay)")


class PostprocessSection(Section):
    campaign_word_min_workers: PositiveInt = Field(3, le=100000, description="Spell-correction keeps words this "
                                                                             "many workers used")


class ScheduleSection(Section):
    interval_s: Count = Field(0, le=YEAR_S, description="serve-schedules: seconds between batches (0: none)")
    cron: str = Field("", max_length=200, description='Or a five-field cron such as "0 2 * * *"')

    @model_validator(mode="after")
    def _one_schedule(self) -> ScheduleSection:
        if self.interval_s and self.cron:
            raise ValueError("cron and interval_s are exclusive; keep one")
        if self.cron and len(self.cron.split()) != 5:
            raise ValueError(f'cron must have five fields such as "0 2 * * *" (got {self.cron!r})')
        return self


class TargetSection(Section):
    endpoint_url: str = Field("", max_length=2000,  # checked in config.py, as out: a refusal must not echo it
                              description="Empty: the built-in simulator; or an MTurk-compatible http(s) endpoint")
    sim_crowd: str = Field("", max_length=1000, description="The simulator's crowd file for this campaign")
    sim_start: AwareDatetime = Field(datetime(2026, 1, 5, tzinfo=UTC), description="The simulator's virtual clock "
                                     "starts here (e.g. 2026-01-05T09:00:00Z): the same seed, the same times")
    sim_workers: Literal["auto", "form", "browser"] = Field(
        "auto", description='task = "custom": simulated workers read the form ("form") or work the page in a '
                            'headless Chromium ("browser"); "auto": browser when the page\'s scripts write fields')
    page_origins: list[Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+(:\d+)?$")]] = Field(
        default_factory=list, max_length=50, description='task = "custom" on the task server: origins the page may '
                                                         'load scripts and styles from, "https://cdn.example.org"')
    task_url: str = Field("", max_length=2000,  # checked in config.py, as endpoint_url
                          description="Public base URL of the running `hitflow serve` (Prolific, invite links)")
    out: str = Field("", max_length=2000,  # checked in config.py: a refusal must not echo a credential
                     description='Where outputs go, as --out: a folder (relative to where hitflow runs) or an fsspec '
                                 'URL such as "s3://bucket/runs", written locally and copied there after each batch; '
                                 "--out and $HITFLOW_OUT win. No credentials in it: give them to fsspec by the "
                                 "environment, e.g. FSSPEC_S3_KEY and FSSPEC_S3_SECRET")


class ConfigFile(Section):
    """A whole campaign or study config file."""

    campaign: CampaignSection = Field(description="What is asked, of how many, for how much")
    timing: TimingSection = Field(description="Lifetimes, durations and polling")
    gating: GatingSection = Field(default_factory=GatingSection, description="Who may work")
    submit_rules: SubmitRulesSection = Field(default_factory=SubmitRulesSection, description="Page, then QC")
    qc: QcSection = Field(default_factory=QcSection, description="QC rules and their thresholds")
    policy: PolicySection = Field(default_factory=PolicySection, description="What flags reject, block, review")
    postprocess: PostprocessSection = Field(default_factory=PostprocessSection, description="Spell-correction")
    schedule: ScheduleSection = Field(default_factory=ScheduleSection, description="serve-schedules timing")
    telemetry: TelemetrySection = Field(default_factory=TelemetrySection, description="Text telemetry on pages")
    target: TargetSection = Field(default_factory=TargetSection, description="Where the campaign runs")
    prolific: ProlificSection = Field(default_factory=ProlificSection, description="The Prolific route")
    study: StudySection | None = Field(None, description="Human-evaluation studies only")
    screen: ScreenSection = Field(default_factory=ScreenSection, description="Studies: who is screened out")
    answers: AnswersSection = Field(default_factory=AnswersSection, description="One answer per item from choices")
    attention: AttentionSection = Field(default_factory=AttentionSection, description="Attention checks on every "
                                        "page: fair instructed-response items, scored apart from control items")

"""Campaign config: TOML in, a validated, typed CampaignConfig out.

Every field is documented in ``config/vizwiz_captions.toml``. A bad value is rejected at load
with a message naming the file, the section and the field.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from flows.errors import ConfigError
from flows.study_config import STUDY_POLICY, STUDY_RULES, StudySettings, study_settings
from qc.decisions import DecisionPolicy
from qc.runner import DEFAULT_RULES, KNOWN_RULES
from qc.submit_rules import CANNED_TEXT, VIZWIZ_BANNED_PREFIXES, SubmitRules

CLOSED_HOSTS = ("mturk-requester.us-east-1.amazonaws.com", "mturk-requester-sandbox.us-east-1.amazonaws.com")


@dataclass(frozen=True)
class Gating:
    min_hits_approved: int = 500
    min_percent_approved: int = 95
    locale: str = ""
    soft_block_qualification: str = ""
    block_mode: str = "soft"
    qualification_key: Path | None = None  # a scored test (MTurk-native Test + AnswerKey) gates the HITs
    qualification_min_score: int = 80
    qualification_retry_delay_s: int = 86400
    # mturk_test: MTurk scores a QuestionForm Test; html_hit: a paid HIT hitflow scores itself
    qualification_mode: str = "mturk_test"
    qualification_reward: Decimal = Decimal("0.00")
    qualification_takers: int = 0  # MaxAssignments of the paid test HIT
    qualification_images: Path | None = None  # CSV item_id, url for the judging items


@dataclass(frozen=True)
class ProlificSettings:
    """How the campaign runs as Prolific studies (one per batch); money in the study's currency."""

    reward: Decimal = Decimal("0.90")  # per participant (one unit of items)
    currency: str = "GBP"
    estimated_minutes: int = 6
    maximum_minutes: int = 30
    device_compatibility: tuple[str, ...] = ("desktop",)
    completion_base: str = "https://app.prolific.com/submissions/complete?cc="
    min_approval_rate: int = 95
    min_approvals: int = 0


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
    prolific: ProlificSettings = ProlificSettings()
    study: StudySettings | None = None  # set for the human-evaluation pages (flows/study_config.py)
    review: str = "none"  # [policy] review: "none" | "sample" | "flagged" (who waits for a person)
    review_deadline_s: int = 3600  # [policy] review_deadline_s: stop waiting this long before auto-approval


class _Section:
    """Reads one TOML table, remembering where a bad value came from."""

    def __init__(self, path: Path, name: str, data: dict[str, Any]):
        self.path, self.name = path, name
        raw = data.get(name, {})
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: [{name}] must be a table")
        self.data = raw

    def fail(self, key: str, why: str) -> ConfigError:
        return ConfigError(f"{self.path}: [{self.name}].{key} {why}")

    def get(self, key: str, kind: type, default: Any = None, required: bool = False) -> Any:
        if key not in self.data:
            if required:
                raise self.fail(key, "is required")
            return default
        value = self.data[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise self.fail(key, f"must be an integer (got {value!r})")
        if kind is not int and not isinstance(value, kind):
            raise self.fail(key, f"must be a {kind.__name__} (got {value!r})")
        return value

    def positive(self, key: str, default: int | None = None) -> int:
        value = self.get(key, int, default, required=default is None)
        if value <= 0:
            raise self.fail(key, f"must be a positive integer (got {value})")
        return int(value)

    def money(self, key: str, default: str | None = None) -> Decimal:
        raw = self.get(key, str, default, required=default is None)
        try:
            value = Decimal(raw)
        except InvalidOperation as exc:
            raise self.fail(key, f"must be a dollar amount such as \"0.55\" (got {raw!r})") from exc
        if value < 0 or value != value.quantize(Decimal("0.01")):
            raise self.fail(key, f"must be non-negative with at most two decimals (got {raw!r})")
        return value

    def share(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise self.fail(key, f"must be a number between 0 and 1 (got {value!r})")
        return float(value)


def load_config(path: str | Path) -> CampaignConfig:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such config file; see config/vizwiz_captions.toml for an example") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the syntax and run again") from exc
    camp = _Section(path, "campaign", data)
    timing = _Section(path, "timing", data)
    items = path.parent / camp.get("items", str, required=True)
    if not items.is_file():
        raise camp.fail("items", f"points at {items}, which does not exist")
    task = camp.get("task", str, "caption")
    if not (Path(__file__).resolve().parents[1] / "hit_templates" / f"{task}.html.j2").is_file():
        raise camp.fail("task", f"names no template hit_templates/{task}.html.j2")
    lifetime = timing.positive("hit_lifetime_s", 604800)
    duration = timing.positive("assignment_duration_s", 3600)
    auto = timing.get("auto_approval_delay_s", int, required=True)
    if not 0 <= auto <= 2592000:
        raise timing.fail("auto_approval_delay_s", f"must be between 0 and 2592000 (30 days) (got {auto})")
    if not 30 <= duration <= 31536000:
        raise timing.fail("assignment_duration_s", "must be between 30 and 31536000 seconds")
    study = study_settings(_Section(path, "study", data), _Section(path, "screen", data), task, items)
    return CampaignConfig(
        path=path, name=_name(camp), task=task,
        title=camp.get("title", str, required=True), description=camp.get("description", str, required=True),
        keywords=camp.get("keywords", str, ""), items=items,
        images_per_hit=camp.positive("images_per_hit"), assignments_per_image=camp.positive("assignments_per_image"),
        batches=camp.positive("batches"), reward=camp.money("reward_usd"), budget=camp.money("budget_usd"),
        seed=camp.get("seed", int, 0), hit_lifetime_s=lifetime, assignment_duration_s=duration,
        auto_approval_delay_s=auto, poll_interval_s=timing.positive("poll_interval_s", 600),
        gating=_gating(_Section(path, "gating", data)), submit_rules=_rules(_Section(path, "submit_rules", data)),
        qc_rules=_qc_rules(_Section(path, "qc", data), study is not None),
        qc_params=_qc_params(_Section(path, "qc", data)), time_source=_time_source(_Section(path, "qc", data)),
        policy=_policy(_Section(path, "policy", data), study is not None),
        reject_blocked_work=_Section(path, "policy", data).get("reject_blocked_work", bool, False),
        campaign_word_min_workers=_Section(path, "postprocess", data).positive("campaign_word_min_workers", 3),
        endpoint_url=_endpoint(_Section(path, "target", data)), sim_crowd=_crowd(_Section(path, "target", data)),
        **_schedule(_Section(path, "schedule", data)), prolific=_prolific(_Section(path, "prolific", data)),
        study=study, **_review(_Section(path, "policy", data), auto),
    )


def _name(camp: _Section) -> str:
    name = camp.get("name", str, required=True)
    if not name.replace("_", "").replace("-", "").isalnum() or len(name) > 40:
        raise camp.fail("name", f"must be letters, digits, - or _ (at most 40) (got {name!r})")
    return name


def _gating(sec: _Section) -> Gating:
    mode = sec.get("block_mode", str, "soft")
    if mode not in ("soft", "hard"):
        raise sec.fail("block_mode", f"must be \"soft\" or \"hard\" (got {mode!r})")
    pct = sec.get("min_percent_approved", int, 95)
    if not 0 <= pct <= 100:
        raise sec.fail("min_percent_approved", f"must be between 0 and 100 (got {pct})")
    key = sec.get("qualification_key", str, "")
    key_path = (sec.path.parent / key) if key else None
    if key_path is not None and not key_path.is_file():
        raise sec.fail("qualification_key", f"points at {key_path}, which does not exist")
    min_score = sec.get("qualification_min_score", int, 80)
    if not 0 <= min_score <= 100:
        raise sec.fail("qualification_min_score", f"must be between 0 and 100 (got {min_score})")
    return Gating(sec.get("min_hits_approved", int, 500), pct, sec.get("locale", str, ""),
                  sec.get("soft_block_qualification", str, ""), mode, key_path, min_score,
                  sec.get("qualification_retry_delay_s", int, 86400), **_test_hit(sec, key_path))


def _test_hit(sec: _Section, key_path: Path | None) -> dict[str, Any]:
    mode = sec.get("qualification_mode", str, "mturk_test")
    if mode not in ("mturk_test", "html_hit"):
        raise sec.fail("qualification_mode", f"must be \"mturk_test\" or \"html_hit\" (got {mode!r})")
    images = sec.get("qualification_images", str, "")
    image_path = (sec.path.parent / images) if images else None
    if image_path is not None and not image_path.is_file():
        raise sec.fail("qualification_images", f"points at {image_path}, which does not exist")
    if mode != "html_hit" or key_path is None:
        return {"qualification_mode": mode, "qualification_images": image_path}
    return {"qualification_mode": mode, "qualification_reward": sec.money("qualification_reward_usd"),
            "qualification_takers": sec.positive("qualification_takers"), "qualification_images": image_path}


def _rules(sec: _Section) -> SubmitRules:
    prefixes = sec.get("banned_prefixes", list, list(VIZWIZ_BANNED_PREFIXES))
    if not all(isinstance(p, str) and p.strip() for p in prefixes):
        raise sec.fail("banned_prefixes", "must be a list of non-empty strings")
    max_chars = sec.get("max_chars", int, 0)
    if max_chars < 0:
        raise sec.fail("max_chars", "must be 0 (no limit) or a positive integer")
    min_words = sec.get("min_words", int, 8)
    if min_words < 0:
        raise sec.fail("min_words", "must be 0 or more")
    return SubmitRules(min_words=min_words, one_sentence=sec.get("one_sentence", bool, True),
                       banned_prefixes=tuple(prefixes), max_chars=max_chars or None,
                       required=sec.get("required", bool, True),
                       canned_text=sec.get("canned_text", str, CANNED_TEXT))


def _qc_rules(sec: _Section, is_study: bool) -> tuple[str, ...]:
    known = STUDY_RULES if is_study else KNOWN_RULES
    rules = sec.get("rules", list, list(STUDY_RULES if is_study else DEFAULT_RULES))
    unknown = [r for r in rules if r not in known]
    if unknown:
        raise sec.fail("rules", f"names unknown rule(s) {unknown}; known: {', '.join(known)}")
    return tuple(rules)


def _qc_params(sec: _Section) -> dict[str, Any]:
    sigmas = sec.get("time_outlier_sigmas", float, 1.95)
    if sigmas <= 0:
        raise sec.fail("time_outlier_sigmas", "must be positive")
    words = sec.get("quality_words", list, ["quality", "blur", "blurry", "blurred"])
    return {"time_outlier_sigmas": sigmas, "caps_lock_share": sec.share("caps_lock_share", 0.5),
            "canned_share": sec.share("canned_share", 0.5), "quality_words": words,
            "lone_min_captions": sec.positive("lone_min_captions", 3),
            "random_sample_share": sec.share("random_sample_share", 0.05),
            "duplicate_min_images": sec.positive("duplicate_min_images", 2), **_text_qc_params(sec)}


def _text_qc_params(sec: _Section) -> dict[str, Any]:
    """Issue 16's caption-text rules and robust timing (keys agreed for the config schema)."""
    method = sec.get("time_outlier_method", str, "seed")
    if method not in ("seed", "robust"):
        raise sec.fail("time_outlier_method", f"must be \"seed\" or \"robust\" (got {method!r})")
    min_images = sec.get("shared_template_min_images", int, 2)
    if min_images < 2:
        raise sec.fail("shared_template_min_images", f"must be an integer >= 2 (got {min_images})")
    return {"consensus_threshold": sec.share("consensus_threshold", 0.005),
            "consensus_min_peers": sec.positive("consensus_min_peers", 2),
            "shared_template_min_images": min_images, "time_outlier_method": method,
            "instruction_echo_threshold": sec.share("instruction_echo_threshold", 0.6)}


def _time_source(sec: _Section) -> str:
    source = sec.get("time_source", str, "submit_minus_accept")
    if source not in ("submit_minus_accept", "page_active_time"):
        raise sec.fail("time_source", f"must be submit_minus_accept or page_active_time (got {source!r})")
    return source


def _policy(sec: _Section, is_study: bool) -> DecisionPolicy:
    default, known = (STUDY_POLICY, STUDY_RULES) if is_study else (DecisionPolicy(), KNOWN_RULES)
    block = sec.get("block_min_flags", dict, default.block_min_flags)
    for rule, n in block.items():
        if rule not in known or isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise sec.fail(f"block_min_flags.{rule}", f"must name a QC rule and be a count >= 1 (got {n!r})")
    return DecisionPolicy(reject_rules=tuple(sec.get("reject_rules", list, list(default.reject_rules))),
                          block_min_flags=dict(block),
                          review_rules=tuple(sec.get("review_rules", list, list(default.review_rules))),
                          reject_feedback=default.reject_feedback)


REVIEW_MODES = ("none", "sample", "flagged")


def _review(sec: _Section, auto_approval_delay_s: int) -> dict[str, Any]:
    mode = sec.get("review", str, "none")
    if mode not in REVIEW_MODES:
        raise sec.fail("review", f"must be one of {', '.join(REVIEW_MODES)} (got {mode!r})")
    deadline = sec.get("review_deadline_s", int, min(3600, auto_approval_delay_s))
    if not 0 <= deadline <= auto_approval_delay_s:
        raise sec.fail("review_deadline_s", f"must be between 0 and [timing].auto_approval_delay_s "
                                            f"({auto_approval_delay_s}) (got {deadline})")
    return {"review": mode, "review_deadline_s": deadline}


def _schedule(sec: _Section) -> dict[str, Any]:
    interval = sec.get("interval_s", int, 0)
    cron = sec.get("cron", str, "")
    if interval and cron:
        raise sec.fail("cron", "and interval_s are exclusive; keep one")
    if interval < 0:
        raise sec.fail("interval_s", f"must be a positive number of seconds (got {interval})")
    if cron and len(cron.split()) != 5:
        raise sec.fail("cron", f"must have five fields such as \"0 2 * * *\" (got {cron!r})")
    return {"schedule_interval_s": interval, "schedule_cron": cron}


def _prolific(sec: _Section) -> ProlificSettings:
    default = ProlificSettings()
    currency = sec.get("currency", str, default.currency)
    if currency not in ("GBP", "USD"):
        raise sec.fail("currency", f"must be GBP or USD (got {currency!r})")
    devices = sec.get("device_compatibility", list, list(default.device_compatibility))
    if not devices or not set(devices) <= {"desktop", "tablet", "mobile"}:
        raise sec.fail("device_compatibility", "must list some of desktop, tablet, mobile")
    estimated = sec.positive("estimated_minutes", default.estimated_minutes)
    maximum = sec.positive("maximum_minutes", default.maximum_minutes)
    if maximum < estimated:
        raise sec.fail("maximum_minutes", f"must be at least estimated_minutes ({estimated})")
    return ProlificSettings(sec.money("reward", str(default.reward)), currency, estimated, maximum, tuple(devices),
                            sec.get("completion_base", str, default.completion_base),
                            sec.get("min_approval_rate", int, default.min_approval_rate),
                            sec.get("min_approvals", int, default.min_approvals))


def _crowd(sec: _Section) -> Path | None:
    crowd = sec.get("sim_crowd", str, "")
    if not crowd:
        return None
    if not (sec.path.parent / crowd).is_file():
        raise sec.fail("sim_crowd", f"points at {sec.path.parent / crowd}, which does not exist")
    return sec.path.parent / crowd


def _endpoint(sec: _Section) -> str:
    url = sec.get("endpoint_url", str, "")
    return url


__all__ = ["CLOSED_HOSTS", "CampaignConfig", "load_config"]

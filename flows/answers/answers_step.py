"""Aggregation as a campaign step: approved judgements -> answers.csv, workers.csv and the report's section."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flows.answers.answers_files import confidence_words, with_pooled, write_answers
from flows.answers.field_answers import OtherKinds, kinds_summary, numbers_of, with_ticks
from flows.core.config.answers_config import AnswersSettings
from postprocess.answers.aggregation import Aggregation, aggregate_scored
from postprocess.answers.calibration import scored
from postprocess.answers.number_answers import joined
from postprocess.answers.option_answers import option_key, option_known, option_pairs, own_words, split_options
from postprocess.answers.skill_prior import SkillPrior
from postprocess.answers.worker_skill import AT_RISK, SkillPolicy, shown_p

BELOW_SHOWN = 200  # items below the threshold listed in the report (all are in answers.csv)


def skill_prior_of(settings: AnswersSettings) -> SkillPrior:
    """The [answers] skill prior, one for the rounds' stopping posterior and method ``skill``: the answer shipped
    is the posterior the rounds stopped on."""
    return SkillPrior(settings.skill_prior, settings.skill_prior_weight, settings.crowd_prior_weight,
                      settings.typical_prior_weight)


def campaign_answers(judgements: pd.DataFrame, blocked: Iterable[str], settings: AnswersSettings,
                     out_dir: Path, controls: pd.DataFrame | None = None,
                     pooled: tuple[pd.DataFrame, SkillPolicy] | None = None, dropped: int = 0,
                     others: OtherKinds | None = None, dropped_items: Iterable[str] = ()) -> dict[str, Any]:
    """Write answers.csv and workers.csv for approved ``judgements`` and ``others``; the report's context.
    ``dropped``, ``dropped_items``: blocked workers' answers the caller left out already, and their items."""
    others = others or OtherKinds()
    judgements, keys = with_ticks(judgements, others)
    if controls is not None and keys:  # a control of a checkbox group scores each option it asks
        controls = option_known(controls, option_pairs(judgements, keys, others.own))
    blocked_ids = set(blocked)
    dropping = settings.blocked == "drop"
    is_blocked = judgements["worker_id"].isin(blocked_ids)
    drop = is_blocked if dropping else None
    numbers_out = others.numbers["worker_id"].isin(blocked_ids) if dropping else pd.Series(False, others.numbers.index)
    if controls is not None:
        numbers_out |= others.numbers["item_id"].isin(set(controls["item_id"].astype(str)))
    numbers = numbers_of(others, numbers_out)
    if (judgements.empty or (drop is not None and drop.all())) and numbers is None:
        return {}
    result, checked = None, None
    if not judgements.empty and not (drop is not None and drop.all()):
        # the mask, not judgements[~is_blocked]: a copy of 1.4 million judgements at COCO's size
        result, checked = aggregate_scored(judgements, settings.method, settings.min_per_worker, controls=controls,
                                           drop=drop, prior=skill_prior_of(settings))
        if pooled is not None:
            result = Aggregation(result.answers, with_pooled(result.workers, pooled[0]))
        if keys:
            result = Aggregation(split_options(result.answers, keys), result.workers)
    answers, workers = joined(result.answers if result else None, result.workers if result else None, numbers)
    # a group with options of its own was answered by place (its second box); the file names each item's option
    answers_path, workers_path = write_answers(Aggregation(own_words(answers, others.own), workers),
                                               out_dir / "answers.csv")
    left_out = dropped + _responses(judgements[is_blocked], keys) + int(others.numbers["worker_id"].isin(
        blocked_ids).sum()) if dropping else 0
    context = answers_context(Aggregation(answers, workers), settings.threshold, dropped=left_out, checked=checked)
    gone = set(judgements.loc[is_blocked, "item_id"].astype(str)) | set(dropped_items)
    known = gone & set(controls["item_id"].astype(str)) if controls is not None else set()
    context["blocked_line"] = blocked_line(left_out, blocked_ids, dropping, (len(gone), len(known)))
    context.update(kinds_summary(others, numbers))
    if pooled is not None:
        context["doubted"] = doubted_workers(pooled[0], blocked_ids)
        context["pooled_rule"] = {"line": f"{pooled[1].block_below:g}", "alpha": shown_p(pooled[1].alpha),
                                  "min_evidence": f"{pooled[1].min_evidence:g}", "at_risk": shown_p(AT_RISK)}
    return {"answers_file": answers_path.name, "workers_file": workers_path.name, **context}


def _responses(labels: pd.DataFrame, keys: dict[str, tuple[str, str]]) -> int:
    """Answers among ``labels``: a checkbox group's options, one label each, are one answer."""
    if "field" not in labels.columns or not keys:
        return len(labels)
    groups = labels["field"].map(lambda f: keys.get(f, (f, ""))[0])
    return len(labels.assign(field=groups).drop_duplicates(["item_id", "worker_id", "field"]))


def blocked_line(left_out: int, blocked: set[str], dropping: bool, items: tuple[int, int] = (0, 0)) -> str:
    """One line on the blocked workers' answers: how many left out, on how many ``items``, or that they were kept."""
    if not blocked:
        return ""
    if not dropping:
        return f"{len(blocked)} blocked worker(s)' answers kept ([answers] blocked = \"keep\")"
    on = f" (one a field of an item; on {items[0]} item(s), {items[1]} of them control or quiz items)" \
        if items[0] else ""
    return f"{left_out} answer(s) of {len(blocked)} blocked worker(s) left out of the answers{on}"


def doubted_workers(pooled: pd.DataFrame, blocked: set[str]) -> list[dict[str, Any]]:
    """The report's rows of the pooled rule's evidence: workers it would block or finds at risk, every blocked one."""
    shown = pooled[(pooled["pooled_status"] != "ok") | pooled["worker_id"].isin(blocked)]
    shown = shown.assign(blocked=shown["worker_id"].isin(blocked)).sort_values(["pooled_p_above", "worker_id"])
    shown = shown.round({"pooled_accuracy": 3, "pooled_evidence": 2, "pooled_agreement": 3})
    return [{**r, "p_shown": shown_p(r["pooled_p_above"]),
             "pooled_agreement": "" if pd.isna(r["pooled_agreement"]) else r["pooled_agreement"]}
            for r in shown.to_dict("records")]


class BatchJudgements:
    """A caption campaign's "is there text?" labels, a batch at a time, blocked workers' left out as they come
    (no second whole copy: ~120 MB at COCO's size)."""

    def __init__(self, blocked: Iterable[str], settings: AnswersSettings):
        self.blocked, self.settings = set(blocked), settings
        self.parts: list[pd.DataFrame] = []
        self.dropped, self.dropped_items = 0, set[str]()

    def add(self, captions: pd.DataFrame) -> None:
        labels = text_present_labels(captions)
        if self.settings.blocked == "drop" and self.blocked:
            out = labels["worker_id"].isin(self.blocked)
            self.dropped += int(out.sum())
            self.dropped_items |= set(labels.loc[out, "item_id"])
            labels = labels[~out] if out.any() else labels
        self.parts.append(labels)

    def answers(self, out_dir: Path) -> dict[str, Any]:
        """:func:`campaign_answers` over every batch added; the parts go as the whole is made."""
        judged = pd.concat(self.parts, ignore_index=True)
        self.parts.clear()
        return campaign_answers(judged, self.blocked, self.settings, out_dir, dropped=self.dropped,
                                dropped_items=self.dropped_items)


def text_present_labels(captions: pd.DataFrame) -> pd.DataFrame:
    """The caption page's "is there text in the image?" answers of accepted captions, as judgements."""
    if "text_present" not in captions.columns or captions.empty:
        return pd.DataFrame(columns=["item_id", "worker_id", "field", "label"])
    kept = captions[~captions["is_rejected"].astype(bool)]
    kept = kept[kept["text_present"].fillna("").astype(str).str.strip() != ""]
    return pd.DataFrame({"item_id": kept["image_id"].astype(str), "worker_id": kept["worker_id"].astype(str),
                         "field": "text_present", "label": kept["text_present"].astype(str).str.strip().str.lower()})


def answers_context(result: Aggregation, threshold: float, dropped: int = 0,
                    checked: pd.DataFrame | None = None) -> dict[str, Any]:
    """What the report shows: methods, confidence, items below ``threshold``, histograms, the controls' calibration."""
    # imported here: matplotlib costs ~1.5 s, and `hitflow run --dry-run` imports the modules that import this one
    from flows.core.outputs.figures import figure_png

    answers, workers = result.answers, result.workers
    if "option" in answers:  # a checkbox option reads as the models saw it, FIELD[OPTION]
        answers = answers.assign(field=[option_key(f, o) if isinstance(o, str) and o else f
                                        for f, o in zip(answers["field"], answers["option"], strict=True)])
    below = answers[answers["confidence"] < threshold].sort_values(["confidence", "field", "item_id"])
    methods = answers.groupby("field", sort=False)["method"].first()
    confident = answers["confidence"].dropna()
    calibration = scored(checked["confidence"], checked["correct"]) if checked is not None and len(checked) else None
    context = {"answer_count": len(answers), "threshold": threshold, "dropped": dropped,
               "methods": [{"field": f, "method": m, "items": int((answers["field"] == f).sum()),
                            "why": answers.attrs.get("method_choice", {}).get(str(f), "")} for f, m in methods.items()],
               "mean_confidence": round(float(confident.mean()), 3) if len(confident) else None,
               "confidence_is": confidence_words(answers, checked),
               "ties": int((answers["note"] == "tie").sum()) if "note" in answers else 0,
               "below": below.head(BELOW_SHOWN).round({"confidence": 3}).to_dict("records"),
               "below_count": len(below),
               "answers_png": figure_png(answers_figure, confident, workers["skill"].dropna() if "skill" in workers
                                         else pd.Series(), threshold, calibration)}
    title = "on the control items (each scored by a calibration fitted without it)"
    context["calibrations"] = [] if calibration is None else [{**calibration, "controls": True, "title": title}]
    return context


def answers_figure(confidence: pd.Series, skill: pd.Series, threshold: float,
                   calibration: dict[str, Any] | None = None) -> Any:
    """Histograms of the answers' confidence and the workers' skill, with ``calibration``'s reliability diagram."""
    from flows.core.outputs.figures import histogram, new_figure

    fig, axes = new_figure(11.0 if calibration else 7.5, 2.6, ncols=3 if calibration else 2)
    bins = np.linspace(0, 1, 21)
    for ax, values, title, unit in ((axes[0][0], confidence, "Confidence of the answers", "items"),
                                    (axes[0][1], skill, "Worker skill", "workers")):
        histogram(ax, values, bins, color="#4477aa")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(title.split()[-1] if unit == "workers" else "confidence", fontsize=8)
        ax.set_ylabel(unit, fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].axvline(threshold, color="#cc3311", linestyle="--", linewidth=1)
    if calibration:
        _reliability_diagram(axes[0][2], calibration)
    return fig


def _reliability_diagram(ax: Any, calibration: dict[str, Any]) -> None:
    """Share right against mean confidence per bin (dot size: items), the diagonal a calibrated confidence."""
    rows = calibration["reliability"]
    ax.plot([0, 1], [0, 1], color="#999999", linestyle=":", linewidth=1)
    ax.scatter([r["confidence"] for r in rows], [r["accuracy"] for r in rows], color="#4477aa",
               s=[12 + 60 * r["items"] / max(calibration["items"], 1) for r in rows])
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_title(f"Reliability on {calibration['items']} controls (ECE {calibration['ece']})", fontsize=9)
    ax.set_xlabel("confidence", fontsize=8)
    ax.set_ylabel("share right", fontsize=8)
    ax.tick_params(labelsize=7)

"""What each rule reads (free text, a choice, marks, or the whole submission), for the dry run's account of what the
gate sees on a page (flows/campaigns/gate_view.py); an unlisted rule reads "its own fields"."""

from __future__ import annotations

from qc.telemetry_rules import TELEMETRY_RULES

TEXT, CHOICE, MARKS, SUBMISSION = "text", "choice", "marks", "submission"

_TEXT_RULES = ("caps_lock", "canned_overuse", "canned_lone_use", "canned_lone_nonuse", "quality_words",
               "quality_words_rate", "duplicate_text", "shared_template", "near_template", "consensus",
               "consensus_rate", "instruction_echo", "quality_talk", "source_copy", "short_answer", "min_words",
               "max_words", "one_sentence", "banned_prefix", "max_chars", "required", *TELEMETRY_RULES)
_SUBMISSION_RULES = ("time_outlier", "exceptionally_fast", "too_fast", "invalid_answer", "skipped_required",
                     "empty_answer",
                     "sentinel_answer", "random_sample", "attention_failed", "attention_missed", "malformed_answer")
NUMBER, DATE = "number", "date"
RULE_READS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_TEXT_RULES, (TEXT,)),
    "choice_straight_lining": (CHOICE, DATE), "straight_lining": (CHOICE,),
    "item_blind": (CHOICE, NUMBER, DATE), "page_straight_lining": (CHOICE, NUMBER, DATE),  # the worker's history
    "mark_agreement": (MARKS,),
    **dict.fromkeys(_SUBMISSION_RULES, (SUBMISSION,)),
}
# task_kinds.FIELD_KINDS as rules group them: no text rule reads a formatted answer or a picked date (shared = agreed)
FIELD_GROUP = {"text": TEXT, "formatted": "formatted", "choice": CHOICE, "number": NUMBER, "date": DATE,
               "marks": MARKS}


def rules_reading(group: str, enabled: tuple[str, ...]) -> list[str]:
    """The enabled rules that read fields of ``group`` (text, choice, number, marks, submission)."""
    return [r for r in enabled if group in RULE_READS.get(r, ())]

"""What Prolific lets a researcher reject for, as QC rules with their categories."""

from __future__ import annotations

from flows.core.run.run_context import Run

PROLIFIC_GROUNDS: dict[str, str] = {
    "exceptionally_fast": "TOO_QUICKLY",
    "required": "NO_DATA",
    "skipped_required": "NO_DATA",
    "sentinel_answer": "NO_DATA",
    "empty_answer": "NO_DATA",
    "attention_failed": "FAILED_CHECK",
    "min_words": "LOW_EFFORT",
}
# grounds that hold only where the page states what it asks for (the minimum a worker fell short of)
STATED_ON_PAGE = ("min_words",)
# how each ground reads in the message a participant gets
GROUND_WORDS = {
    "exceptionally_fast": "was completed exceptionally fast (over 3 standard deviations below the study's mean time)",
    "required": "left a required question unanswered",
    "skipped_required": "left a required question unanswered",
    "sentinel_answer": "left a required question unanswered",
    "empty_answer": "answered none of the task's questions",
    "attention_failed": "failed the page's attention checks",
    "min_words": "gave fewer words than the minimum the task page stated",
}


def ground_category(reasons: str) -> str | None:
    """Prolific's rejection category of the first of ``reasons`` that is one of its grounds (grounds.py)."""
    found = [PROLIFIC_GROUNDS[r] for r in reasons.split(",") if r in PROLIFIC_GROUNDS]
    return found[0] if found else None


def rejection_evidence(run: Run, submission_id: str, reasons: str) -> str:
    """What the rules found on this submission, one clause a ground: the evidence the message names."""
    rules = [r for r in reasons.split(",") if r in PROLIFIC_GROUNDS]
    if not rules:
        return ""
    rows = run.store.rows(f"SELECT rule, value, threshold, detail FROM qc_flags WHERE campaign = ? AND "
                          f"assignment_id = ? AND rule IN ({', '.join('?' * len(rules))}) ORDER BY rowid",
                          [run.cfg.name, submission_id, *rules])
    seen: dict[str, str] = {}
    for r in rows:
        seen.setdefault(r["rule"], measured(r))
    return "; ".join(f"{GROUND_WORDS[rule]} ({seen[rule]})" if seen.get(rule) else GROUND_WORDS[rule]
                     for rule in dict.fromkeys(rules))


def measured(flag: dict[str, str]) -> str:
    """A flag's evidence in words: a word count against the stated minimum, else the rule's own detail."""
    detail = str(flag["detail"] or "")
    if flag["rule"] == "min_words":
        quoted = f": {detail[:80]!r}" if detail else ""
        return f"{_count(flag['value'])} words where the page asks for at least {_count(flag['threshold'])}{quoted}"
    return detail


def _count(value: object) -> str:
    try:
        return f"{float(str(value)):g}"
    except ValueError:
        return str(value)


MAX_MESSAGE_CHARS = 1000


def ground_message(evidence: str) -> str:
    """The message a rejected participant reads: the ground and what was measured, 100 characters at least."""
    text = f"This submission was rejected because it {evidence}."[:MAX_MESSAGE_CHARS]
    return text if len(text) >= 100 else (f"{text} These are grounds Prolific's rules allow a rejection on; if you "
                                          "think this is wrong, please message the researcher.")

"""A batch's steps by name, in order, without loading the steps' code."""

from __future__ import annotations

STEP_NAMES: tuple[tuple[str, str], ...] = (
    ("published", "publish batch"),
    ("collected", "collect submissions"),
    ("qc_done", "run QC"),
    ("reviewed", "wait for review"),
    ("decided", "approve or reject"),
    ("blocked", "block flagged workers"),
)
ORDER = ["planned"] + [status for status, _ in STEP_NAMES]  # a batch's statuses, first to last
NEXT_STEP = {status: name for status, (_, name) in zip(ORDER, STEP_NAMES, strict=False)}  # after each status
# A batch's status as people read it (status and the ui show these, never the stored name)
STATUS_WORDS = {"planned": "planned", "published": "published", "collected": "collected",
                "qc_done": "checked by QC", "reviewed": "reviewed", "decided": "decided", "blocked": "blocked"}


def status_words(status: str) -> str:
    return STATUS_WORDS.get(status, status.replace("_", " "))

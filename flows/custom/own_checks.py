"""A page's own attention checks, found at import, each an ``[attention] page_checks`` entry scored on the server."""

from __future__ import annotations

import json

from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import read_page
from flows.custom.custom_task import field_base
from qc.instructed_items import instructed


def own_checks(body: str) -> list[tuple[str, str, str]]:
    """(field, instructed value, the sentence instructing it) for each instructed-response choice field."""
    page = read_page(body.replace("{{ i }}", "0"))
    questions = question_texts(page)
    found = [(f, instructed(questions.get(f.name, ""), f.options, f.labels)) for f in page.fields.values()
             if f.kind in ("radio", "select", "checkbox") and len([o for o in f.options if o]) > 1]
    return [(field_base(f.name), *told) for f, told in found if told is not None]


def attention_table(name: str, checks: list[tuple[str, str, str]]) -> str:
    """The config's ``[attention]`` table for the page's own checks; "" for none."""
    if not checks:
        return ""
    entries = "".join(f"\n    {{field = {json.dumps(f)}, answer = {json.dumps(a)}}},  # {said[:100]}"
                      for f, a, said in checks)
    return ("\n[attention]\n# The page's own attention check(s), found on import: a question whose words say what to "
            "choose.\n# Scored on the server as hitflow's own checks are (a failure flags and may reject), kept out "
            f"of\n# runs/{name}/answers.csv and the dataset; delete an entry to read that field as an answer again.\n"
            f"page_checks = [{entries}\n]\n")


def check_notes(origin: str, name: str, checks: list[tuple[str, str, str]]) -> list[str]:
    return [f"{origin}: note: {field!r} is the page's own attention check (its question says to give {answer!r}: "
            f"{question[:90]!r}): config/{name}.toml [attention] page_checks scores it on the server like hitflow's "
            f"checks and keeps it out of the answers; to read it as an answer instead, delete its entry there"
            for field, answer, question in checks]

"""A page's own hitflow rules (its ``submit-rules`` spec) honoured on top of a simulated worker's choices."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from flows.core.pages.mturk_forms import FormField
from flows.sim.people import captions
from flows.sim.people.item_answers import fit_text
from qc.submit_rules import SubmitRules

RULES_JSON = re.compile(r'<script[^>]*id="submit-rules"[^>]*>(.*?)</script>', re.S)


def honour_spec(values: dict[str, str], spec: dict[str, Any], fields: dict[str, FormField]) -> None:
    """The page's rules on top of its controls': ticks, exclusive options, moved sliders, caption rules."""
    for q in spec.get("questions", []) + spec.get("fields", []):
        name, value = q.get("name", ""), values.get(q.get("name", ""))
        if value is None:
            continue
        if q.get("type") == "many":
            picked = [t for t in value.split("|") if t]
            if q.get("exclusive") in picked and len(picked) > 1:
                picked.remove(q["exclusive"])
            picked += [o for o in q.get("options", []) if o != q.get("exclusive")][: max(0, int(q.get("min") or 0)
                                                                                       - len(picked))]
            values[name] = "|".join(dict.fromkeys(picked))
        if q.get("type") == "slider" and q.get("moved"):
            values[q["moved"]] = "1"
    for g in spec.get("one_of", []):  # none of a group the page wants one of: one ticked, as the page makes a person
        boxes = [n for n in g.get("fields", []) if n in fields and fields[n].options]
        if boxes and not any(values.get(n) for n in boxes):
            pick = fields[random.Random(g.get("name", "")).choice(boxes)]
            values[pick.name] = pick.options[0]
    if "min_words" in spec and "questions" not in spec:
        rules = SubmitRules(min_words=int(spec.get("min_words") or 0), one_sentence=bool(spec.get("one_sentence")),
                            banned_prefixes=tuple(spec.get("banned_prefixes") or ()), max_chars=spec.get("max_chars"),
                            required=bool(spec.get("required", True)), canned_text="")
        for name, value in values.items():
            if fields[name].kind in ("text", "textarea") and value:
                values[name] = fit_text(captions.pass_rules(value, rules), fields[name], random.Random(value), [])


def page_spec(html: str) -> dict[str, Any] | None:
    """The page's ``submit-rules`` spec, None where it declares none (or none that reads as an object)."""
    match = RULES_JSON.search(html or "")
    try:
        spec = json.loads(match.group(1)) if match else None
    except ValueError:
        return None
    return spec if isinstance(spec, dict) else None

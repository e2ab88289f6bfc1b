"""``[qc]`` rule lists as ruff reads its own: a preset, ``extend`` and ``ignore``."""

from __future__ import annotations

from flows.core.config.config_schema import QcSection
from qc.rule_fields import TEXT, rules_reading


def chosen_rules(qc: QcSection, recommended: tuple[str, ...], custom: bool) -> tuple[tuple[str, ...], list[str]]:
    """(the rules the config runs, in order; notes naming the recommended rules it leaves out)."""
    explicit = "preset" in qc.model_fields_set
    base = recommended if qc.preset == "recommended" else ()
    listed = tuple(qc.rules or ())
    legacy = qc.rules is not None and not explicit
    if legacy and custom:  # an older `hitflow new`'s full list: the gate as it stood, so the gate as it stands
        rules, notes = recommended + listed, _added_since(recommended, listed, qc.ignore)
    elif legacy:  # a built-in task's list runs as written
        rules, notes = listed, []
    else:
        rules, notes = base + listed, []
    chosen = tuple(r for r in dict.fromkeys(rules + tuple(qc.extend)) if r not in qc.ignore)
    left = [] if explicit and qc.preset == "none" else [  # what preset "none" or ignore leaves out is intent
        r for r in recommended if r not in chosen and r not in qc.ignore]
    for name, field in qc.fields.items():  # a field's own list runs as written
        if field.rules is not None and (out := [r for r in rules_reading(TEXT, chosen)
                                                if r not in field.rules and r not in field.ignore]):
            notes.append(f"qc: [qc.fields.{name}] rules runs as written, without {', '.join(out)}; to leave out "
                         "only some of the [qc] rules, name those in its ignore instead")
    if left:
        why = "named in [qc] ignore" if not legacy or custom else "a built-in task's [qc] rules runs as written"
        notes.append(f"qc: this config leaves out recommended rule(s) {', '.join(left)} ({why}; [qc] extend adds one)")
    return chosen, notes


def _added_since(recommended: tuple[str, ...], listed: tuple[str, ...], ignored: list[str]) -> list[str]:
    new = [r for r in recommended if r not in listed and r not in ignored]
    return [f"qc: [qc] rules lists every rule by name, as an older `hitflow new` wrote it: read as the recommended "
            f"preset plus what it adds, so {', '.join(new)} run too (recommended since it was written; "
            "[qc] ignore keeps one off)"] if new else []

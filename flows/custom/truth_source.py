"""Where a custom campaign's known answers come from; a choice field with none is content-blind (:data:`BLIND`)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from flows.answers.control_items import batch_chunks, batch_controls, controls_needed, read_controls
from flows.answers.control_quiz import quiz_key, quiz_size
from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError
from flows.custom.item_options import Layout, item_options
from qc.answer_values import moment
from qc.answer_values import number as read_number

BLIND = ("simulated answers for {field} are content-blind: accuracy and agreement figures from this rehearsal say "
         "nothing about it")
BLIND_SOME = ("on the other {n} they are content-blind: accuracy and agreement figures from this rehearsal say "
              "nothing about those items")
BLIND_TEXT = ("simulated text for {field} is content-blind: {items} of its items show no text of their own and an "
              "image the simulator's caption bank does not hold, or none, so its workers described a scene of its "
              "own making there (never another image's captions); text figures from this rehearsal say nothing "
              "about what people would write")
TEXT_MADE = ("simulated text for {fields} is put together from each item's own words to the limits the page states, "
             "not written by someone who understood the question: this rehearsal tries the text rules on its length, "
             "form and copying, not on whether the answers make sense (docs/explanation/simulator.md)")
TEXT_TRUTH = ("gold", "expected", "correct", "answer", "truth")  # a text box's known-answer column: gold_<box>
ANY_ITEM = "*"  # an answer key's row: every item (flows/sim/people/known_answers.py)
MAX_ANSWER_LINES = 20  # known answers the simulator cannot follow, one line each, up to this many
READING = ("where an item's own words carry evidence, the simulator's reading model answers from them: word overlap "
           "with a query, a small lexicon of sentiment, stress and intents (flows/sim/people/content_choice.py); "
           "a model, not truth")


def column_answers(cfg: CampaignConfig, items: list[dict[str, str]],
                   blank_ok: frozenset[str] = frozenset()) -> list[dict[str, str]]:
    """``[campaign] truth``: each item's answer from its own column; an empty cell is not known, but on a field of
    ``blank_ok`` (one the page lets be left blank) it says blank is the answer."""
    columns = set(items[0]) if items else set()
    rows = []
    for field, column in cfg.truth.items():
        if column not in columns:
            raise ConfigError(f"{cfg.path}: [campaign] truth names column {column!r} for {field}, which {cfg.items} "
                              f"lacks (it has {', '.join(sorted(columns)) or 'no columns'}); fix the column's name")
        rows += [{"item_id": r["item_id"], "field": field, "answer": r[column], "source": f"column {column}"}
                 for r in items if r.get(column, "") or field in blank_ok]
    return rows


def blank_fields(specs: dict[str, dict[str, Any]]) -> frozenset[str]:
    """The fields a person may leave blank: a value or a box group the page requires none of, on no condition."""
    return frozenset(name for name, s in specs.items() if s.get("type") in ("text", "number", "date", "many")
                     and not s.get("required") and not s.get("required_when")
                     and not (s.get("type") == "many" and s.get("min")))


def key_answers(cfg: CampaignConfig) -> list[dict[str, str]]:
    """An answer key's best-scored answer per field, for every item (``item_id = "*"``)."""
    if cfg.answer_key is None:
        return []
    key = pd.read_csv(cfg.answer_key, dtype=str, keep_default_na=False)
    if not {"field", "answer", "score"} <= set(key.columns):
        return []  # the outputs refuse it with a one-line error (custom_outputs._scores)
    key["points"] = pd.to_numeric(key["score"], errors="coerce").fillna(0)
    best = key.sort_values("points", ascending=False, kind="stable").drop_duplicates("field")
    return [{"item_id": "*", "field": f, "answer": a, "source": "answer key"}
            for f, a in zip(best["field"], best["answer"], strict=True)]


def text_columns(cfg: CampaignConfig, columns: list[str], specs: dict[str, dict[str, Any]]) -> dict[str, str]:
    """A text box's known-answer column, found by name where ``[campaign] truth`` names none: ``gold_<box>`` (or
    ``<box>_gold``, ``expected_<box>`` ...), else ``gold_<word>`` for one word of the box's name (4+ letters, a
    word's start: ``gold_sound`` for ``sounds_like``) that names no other box; never a column the page shows."""
    source, taken = (cfg.template.read_text(errors="replace") if cfg.template else ""), set(cfg.truth.values())
    free = [c for c in columns if c not in taken and not re.search(rf"\b{re.escape(c)}\b", source)]
    boxes = [f for f, s in specs.items() if s.get("type") == "text" and f not in cfg.truth]

    def words(name: str) -> list[str]:
        return [w for w in name.lower().split("_") if len(w) >= 4]
    found = {}
    for box in boxes:
        exact = [c for c in (f"{p}_{box}" for p in TEXT_TRUTH) if c in free] + \
            [c for c in (f"{box}_{s}" for s in TEXT_TRUTH) if c in free]
        loose = [c for c in free if (m := re.fullmatch(rf"(?:{'|'.join(TEXT_TRUTH)})_(\w+)", c, re.I))
                 and [b for b in boxes if any(w.startswith(x) or x.startswith(w) for x in words(m[1])
                                              for w in words(b))] == [box]]
        if (column := next(iter(exact + loose), None)) is not None:
            found[box] = column
    return found


def known_answers(cfg: CampaignConfig, items: list[dict[str, str]], blank_ok: frozenset[str] = frozenset(),
                  specs: dict[str, dict[str, Any]] | None = None) -> list[dict[str, str]]:
    """Every known answer (item_id, field, answer, source): column, controls, then key; a differing control is wrong.
    ``blank_ok``: as column_answers; ``specs`` (the page's fields): its text boxes' columns too (text_columns)."""
    controls = read_controls(cfg)
    from_controls = [] if controls is None else [
        {"item_id": str(i).strip(), "field": str(f).strip(), "answer": str(a).strip(), "source": "control items"}
        for i, f, a in zip(controls["item_id"], controls["field"], controls["answer"], strict=True)]
    named = text_columns(cfg, list(items[0]) if items else [], specs or {})
    by_name = column_answers(replace(cfg, truth=named), items, blank_ok) if named else []
    rows, seen = [], set()
    for row in column_answers(cfg, items, blank_ok) + by_name + from_controls + key_answers(cfg):
        if (row["item_id"], row["field"]) not in seen:  # the first source of an item's answer wins
            seen.add((row["item_id"], row["field"]))
            rows.append(row)
    return rows


def truth_lines(cfg: CampaignConfig, items: list[dict[str, str]], fields: dict[str, str],
                specs: dict[str, dict[str, Any]] | None = None, planned: list[str] | None = None,
                layouts: dict[str, Layout] | None = None) -> list[str]:
    """For the dry run: per choice or number field, whose answers the simulated ones follow, and known ones unusable."""
    known, controls = known_answers(cfg, items, blank_fields(specs or {}), specs), read_controls(cfg)
    by_id = {str(i["item_id"]): i for i in [*(controls.to_dict("records") if controls is not None else []), *items]}
    read = [(row, unusable_answer(row["answer"], _own_spec(row, specs or {}, layouts or {}, by_id))) for row in known]
    refused = [(row, why) for row, why in read if why and not why.startswith("read as")]
    clamped = [(row, why) for row, why in read if why.startswith("read as")]
    lines = [f"[campaign] truth names {f}, which is no answer field of the page ({', '.join(fields)}): it "
             "is not used; fix the field's name" for f in cfg.truth if f not in fields]
    said = [f"known answer for {row['field']} on item {row['item_id']} ({row['source']}): {why}"
            for row, why in refused + clamped]
    lines += said[:MAX_ANSWER_LINES] + ([f"... and {len(said) - MAX_ANSWER_LINES} more known answers like these"]
                                        if len(said) > MAX_ANSWER_LINES else [])
    refused_rows = {id(row) for row, _ in refused}
    shown = set(planned) if planned is not None else {str(i["item_id"]) for i in items}
    followed = [r for r in known if id(r) not in refused_rows and (r["item_id"] == ANY_ITEM or r["item_id"] in shown)]
    blind, checks = False, {c.field for c in cfg.attention.checks}  # a page's own check: its answer is in the config
    made = [f for f, kind in fields.items() if kind == "text" and f not in checks
            and not any(r["field"] == f for r in followed)]
    for field, kind in fields.items():
        if (kind not in ("choice", "number", "date") and not any(r["field"] == field for r in followed)) or \
                field in checks:  # a text box without known answers: TEXT_MADE below
            continue
        line, blind_here = _source_line(field, followed, len(shown))
        if kind not in ("choice", "number", "date"):  # a text box's other items: written from the item, not blind
            line, blind_here = [line[0].split("; ")[0]], False
        lines += line
        blind = blind or blind_here
    return lines + ([f"  {READING}. Known answers: [campaign] truth = {{field = \"column\"}} (docs/custom_pages.md)"]
                    if blind else []) + ([TEXT_MADE.format(fields=", ".join(made))] if made else [])


def _own_spec(row: dict[str, str], specs: dict[str, dict[str, Any]], layouts: dict[str, Layout],
              items: dict[str, dict[str, str]]) -> dict[str, Any] | None:
    """The control's rules a known answer is read by: its own item's options where the item gives them."""
    spec, layout, item = specs.get(row["field"]), layouts.get(row["field"]), items.get(row["item_id"])
    return {**spec, "options": item_options(layout, item)} if spec and layout and item else spec


def _source_line(field: str, followed: list[dict[str, str]], n_items: int) -> tuple[list[str], bool]:
    """A field's lines: whose answers it follows on how many items, the content-blind sentence if any; whether blind."""
    mine = [r for r in followed if r["field"] == field]
    sources = Counter(r["source"] for r in mine)
    covered = n_items if any(r["item_id"] == ANY_ITEM for r in mine) else len({r["item_id"] for r in mine})
    if covered >= n_items and sources:
        return [f"simulated answers for {field} follow the known answers ({', '.join(sources)})"], False
    if sources:  # one statement: which items follow known answers, and what the others' figures mean
        return [f"simulated answers for {field} follow the known answers on {covered} of {n_items} items "
                f"({', '.join(sources)}); {BLIND_SOME.format(n=n_items - covered)}"], True
    return [BLIND.format(field=field)], True


def unusable_answer(answer: str, spec: dict[str, Any] | None) -> str:
    """Why the simulator cannot follow a known answer ("" if it can); out of bounds reads as the nearest bound."""
    if spec is None or not answer.strip():  # blank: an answer only where the page lets it be (blank_fields)
        return ""
    kind = spec.get("type")
    if kind in ("one", "many"):
        options = [" ".join(str(o).split()).casefold() for o in spec.get("options") or []]
        wanted = answer.split("|") if kind == "many" else [answer]
        missing = [w for w in wanted if w.strip() and " ".join(w.split()).casefold() not in options]
        return f"{missing[0]!r} is not one of its options ({', '.join(map(str, spec.get('options') or []))[:120]}); " \
               "the simulator cannot follow it there, fix the answer" if missing else ""
    if kind == "date" and moment(answer.strip(), spec["input"]) is None:  # 2025-6-1, 15/06/2025
        return f"{answer[:40]!r} is no {spec['input']} as its picker writes it; the simulator cannot follow it " \
               "there, fix the answer"
    if kind == "number":
        value = read_number(answer.strip())
        if value is None:
            return f"{answer[:40]!r} is not a finite number; the simulator cannot follow it there, fix the answer"
        low, high = spec.get("min"), spec.get("max")
        if low is not None and value < float(low):
            return f"read as {low} (the control's minimum), not {answer[:40]}"
        if high is not None and value > float(high):
            return f"read as {high} (the control's maximum), not {answer[:40]}"
    return ""


def report_lines(items_truth: list[dict[str, Any]], answered: dict[str, int] | None = None) -> list[str]:
    """For the report: per choice field, items known, read or blind; :data:`BLIND_TEXT` per blind text field."""
    by_field: dict[str, Counter[str]] = {}
    texts: Counter[str] = Counter()  # text fields about images the simulator could not see
    for row in items_truth:
        if row.get("source") == "blind text":
            texts[str(row["field"])] += 1
            continue
        by_field.setdefault(str(row["field"]), Counter())[str(row.get("source", "blind"))] += 1
    lines = [BLIND_TEXT.format(field=field, items=n) for field, n in sorted(texts.items())]
    for field, count in sorted(by_field.items()):
        kept = sum(count.values())
        total = max(kept, (answered or {}).get(field, 0))
        said = f"{field}: known answers on {count['known']} of {total} items, read by the simulator's reading model " \
               f"on {count['read']}, content-blind on {count['blind']}" + \
               (f", none kept on {total - kept}" if total > kept else "")
        blind_all = count["blind"] == kept and not count["known"] and not count["read"]
        lines.append(said if not count["blind"] else f"{said}; {BLIND.format(field=field)}" if blind_all else
                     f"{said}; accuracy and agreement figures from this rehearsal say nothing about those "
                     f"{count['blind']} items")
    return lines


def control_lines(cfg: CampaignConfig, plan: list[dict[str, Any]]) -> list[str]:
    """What the dry run read of ``[answers] controls``: how many planned items are its controls, and why fewer than
    the share asks (its quiz takes its items first); a warning where its items are never shown."""
    known = read_controls(cfg)
    if known is None:
        return []
    ids, share = set(known["item_id"].astype(str)), cfg.answers.control_share
    shown = sum(r["item_id"] in ids for r in plan)
    if share <= 0:
        unshown = len(ids - {str(r["item_id"]) for r in plan})
        return [f"control items: {shown} of the {len(plan)} planned items ([answers] controls = "
                f"{Path(cfg.answers.controls or '').name}, {len(ids)} items, control_share = 0): scored against their "
                "known answers and kept out of the dataset; no quiz, and no others mixed in"] + [
            f"warning: {unshown} of the {len(ids)} items in [answers] controls are not in the items file and "
            "control_share = 0: no page shows them and nobody is scored on them; set [answers] control_share "
            "(0.2 is one a page of five) to mix them in"] * bool(unshown)
    regular = [r for r in plan if r["item_id"] not in ids]  # the share alone, as the plan falls back to it
    wanted = sum(batch_controls(len(c), share, cfg.images_per_hit, False) for c in batch_chunks(cfg, regular))
    quiz = len(quiz_key(cfg, known, quiz_size(cfg, len(ids), controls_needed(cfg, regular))))
    why = f" asks for {wanted}; its quiz takes {quiz} of the controls file's {len(ids)} first" if shown < wanted else ""
    if not shown:
        return [f"control items: none on the pages: the controls file's items all go to the quiz ([answers] "
                f"control_share = {share}{why}; gate lines)"]
    left = ", the pages what is left" if why else ""
    return [f"control items: {shown} of the {len(plan)} planned items ([answers] control_share = {share}{why}{left}), "
            "paid and budgeted like the others"]

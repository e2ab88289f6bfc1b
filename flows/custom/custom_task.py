"""A campaign on the user's own page (``task = "custom"``): rendered, its submit rules embedded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flows.answers.control_items import control_rows, controls_needed, mix_controls, read_controls
from flows.answers.control_quiz import quiz_key, quiz_size
from flows.core.config.config import CampaignConfig
from flows.core.errors import ConfigError, InputFormatError
from flows.core.inputs.csv_files import read_csv_table
from flows.core.inputs.text_files import read_once_per_version, read_text
from flows.core.pages.css_values import css_value_problems
from flows.core.pages.form_spec import form_spec, widget_marks_cap
from flows.core.pages.mturk_forms import INDEXED, field_base, form_fields
from flows.core.pages.templates import masked_rows, page_items, render_source, safe_url
from flows.custom.custom_text_qc import field_rules, limit_lines, page_reading
from flows.custom.item_options import option_layouts
from flows.custom.kept_pages import kept_page
from flows.custom.page_check import page_problems, refused_pattern_problems, source_problems
from flows.custom.page_scripts import scripts_write_fields, sim_workers, with_nonce
from flows.custom.script_targets import unread_hook
from flows.custom.submit_probe import script_checks_left
from flows.custom.truth_source import control_lines, truth_lines
from qc.form_constraints import Spec, describe_groups, describe_rules

MAX_TEMPLATE_BYTES = 2 * 2**20  # a page template; the starter page is 2 KB

URL_COLUMNS = ("url", "image_url")


def read_custom_items(cfg: CampaignConfig) -> list[dict[str, str]]:
    """The item rows, checked, read once per version of the file (a 300,000-row file took ~2 s a read); shared
    rows: callers copy one before changing it."""
    return list(_items_by_version(Path(cfg.items)))


def _read_items(path: Path) -> list[dict[str, str]]:
    table = read_csv_table(path, (), "the item file").with_rows("the item file")
    id_column = "item_id" if "item_id" in table.columns else "image_id"
    if id_column not in table.columns:
        raise InputFormatError(f"{path}: needs an item_id column (one row per item); it has "
                               f"{', '.join(table.columns) or 'no columns'}")
    rows, seen = [], set()
    for line, raw in zip(table.lines, table.rows, strict=True):
        row = {k: (v or "").strip() for k, v in raw.items() if k}
        item = row.get(id_column, "")
        if not item or item in seen:
            raise InputFormatError(f"{path}:{line}: item_id {item!r} is empty or repeated")
        for col in URL_COLUMNS:
            url = row.get(col, "")
            if url and (safe_url(url) != url or not url.startswith(("http://", "https://"))):
                raise InputFormatError(f"{path}:{line}: {col} {url[:60]!r} must be an http(s) URL")
        seen.add(item)
        rows.append({**row, "item_id": item})
    return rows


_items_by_version = read_once_per_version(lambda path: tuple(_read_items(path)), 1)
_source_by_version = read_once_per_version(lambda path: read_text(path, "the template", MAX_TEMPLATE_BYTES), 8)


def scaled_rows(rows: list[dict[str, Any]], scale: int) -> list[dict[str, Any]]:
    return [{**r, "item_id": f"{r['item_id']}_x{k}"} if k else r for k in range(scale) for r in rows]


def custom_item_plan(cfg: CampaignConfig, limit: int | None = None, planned: int = 0, first_batch: int = 1,
                     used_controls: frozenset[str] = frozenset(), scale: int = 1) -> list[dict[str, Any]]:
    """Items in file order with their batch and HIT index, each row's columns in ``payload``; controls mixed in
    with ``[answers] control_share``. A grown campaign plans only after its first ``planned`` items, from
    ``first_batch``, with unused controls; ``scale`` K copies the ordinary items K times (``<id>_x<k>``)."""
    rows = read_custom_items(cfg)
    controls = read_controls(cfg) if cfg.answers.control_share > 0 else None
    if controls is None:
        if cfg.answers.control_share > 0:
            raise ConfigError(f"{cfg.path}: [answers] control_share needs [answers] controls, a CSV of control "
                              "items (item_id, field, answer, and the page's item columns)")
        rows = scaled_rows(rows[:limit] if limit else rows, scale)[planned:]
        per_batch = max(1, -(-len(rows) // cfg.batches))
        batches = [(first_batch + k, rows[k * per_batch:(k + 1) * per_batch])
                   for k in range(-(-len(rows) // per_batch))]
    else:
        regular = ordinary_items(cfg, rows)
        regular = scaled_rows(regular[:limit] if limit else regular, scale)[planned:]
        pool = [c for c in control_rows(cfg, controls, rows) if c["item_id"] not in used_controls]
        # one pool: the quiz set apart first (no worker meets a control twice), the pages take the rest
        quiz = set(quiz_key(cfg, controls, quiz_size(cfg, len(pool), controls_needed(cfg, regular)))["item_id"]) \
            if first_batch == 1 else set()
        batches = mix_controls(cfg, regular, [c for c in pool if c["item_id"] not in quiz], first_batch, bool(quiz))
    return [{"campaign": cfg.name, "item_id": r["item_id"], "file_name": "",
             "url": r.get("url") or r.get("image_url", ""), "batch": batch,
             "hit_index": i // cfg.images_per_hit, "payload": json.dumps(r)}
            for batch, chunk in batches for i, r in enumerate(chunk)]


def ordinary_items(cfg: CampaignConfig, rows: list[dict[str, str]] | None = None) -> list[dict[str, str]]:
    """The item file's rows that are not control items, in file order (``rows``: the file, read already)."""
    rows = read_custom_items(cfg) if rows is None else rows
    controls = read_controls(cfg) if cfg.answers.control_share > 0 else None
    known = set() if controls is None else set(controls["item_id"].astype(str))
    return [r for r in rows if r["item_id"] not in known]


def custom_source(cfg: CampaignConfig) -> str:
    """The template's text, read once per version of the file (each page's render asks for it)."""
    assert cfg.template is not None
    return _source_by_version(Path(cfg.template))


def _render(cfg: CampaignConfig, items: list[dict[str, Any]], rules: Spec, extra: dict[str, Any]) -> str:
    source = custom_source(cfg)
    shown = [{**i, "item_id": i.get("item_id") or i["image_id"]} for i in items]
    context = {"title": cfg.title, "rules": rules, "items": shown, "sim_workers": sim_workers(cfg.sim_workers, source),
               **extra}
    if extra:  # a served view (its nonce): one view's page
        return render_source(source, str(cfg.template), context)
    return kept_page([str(cfg.template), source, context], lambda: render_source(source, str(cfg.template), context))


def custom_page(cfg: CampaignConfig, items: list[dict[str, Any]], **extra: Any) -> str:
    """The page for these items, carrying the rules its own controls declare; its own inline
    scripts and styles carry the page's CSP nonce (served by the task server)."""
    return with_nonce(_render(cfg, items, custom_spec(cfg, items), extra), str(extra.get("csp_nonce") or ""))


def masked_page(cfg: CampaignConfig, rows: list[dict[str, Any]]) -> str:
    """The page of these plan rows with their items' values masked (templates.masked_rows): what the requester's
    own words say. "" where the template cannot render masked values (then no limit is read from it)."""
    try:
        return custom_page(cfg, page_items(masked_rows(rows)))
    except ConfigError:
        return ""


def first_page_rows(cfg: CampaignConfig) -> list[dict[str, Any]]:
    """The plan rows of the first page a worker gets; a plan of one page's items is enough."""
    return [r for r in custom_item_plan(cfg, cfg.images_per_hit) if r["batch"] == 1 and r["hit_index"] == 0]


def text_field_rules(cfg: CampaignConfig) -> dict[str, tuple[str, ...]]:
    """Per field of the first page, the text rules QC runs on it there (custom_text_qc.field_rules: a rule the page
    gives nothing to read, such as the canned rules without a canned answer, is not run)."""
    params = {**cfg.qc_params, **page_reading(masked_page(cfg, first_page_rows(cfg)))}
    return {field: field_rules(field, params, cfg.qc_rules) for field in params["field_questions"]}


def custom_spec(cfg: CampaignConfig, items: list[dict[str, Any]]) -> Spec:
    """The rules of the page for these items (rendered once to read its controls)."""
    page = _render(cfg, items, {"kind": "form", "fields": []}, {})
    # A hidden field the page's own script writes (a JSON answer) is an answer, not bookkeeping.
    return form_spec(form_fields(page), hidden_answers=scripts_write_fields(custom_source(cfg)),
                     marks_cap=widget_marks_cap(page))


def answer_fields(spec: Spec) -> list[str]:
    return list(dict.fromkeys(field_base(f["name"]) for f in spec["fields"]))


def choice_field_names(spec: Spec) -> set[str]:
    """The page's single-choice fields (radio buttons, selects) without their item index."""
    return {field_base(f["name"]) for f in spec["fields"] if f["type"] == "one"}


FREE_TEXT_INPUTS = ("text", "textarea", "search")


def field_kind(f: dict[str, Any]) -> str:
    """"text" for free text (prose the text rules judge), "choice", "number", "date" (a date or time picker's
    value), or "formatted" (a code, an address, a colour: text with a pattern or a type, where sameness and
    consensus mean nothing)."""
    if f["type"] in ("one", "many"):
        return "choice"
    if f["type"] == "text":
        return "text" if f.get("input", "text") in FREE_TEXT_INPUTS and not f.get("pattern") else "formatted"
    return str(f["type"])


def field_kinds(spec: Spec) -> dict[str, str]:
    """Answer field (without its item index) -> its kind for QC."""
    return {field_base(f["name"]): field_kind(f) for f in spec["fields"]}


def field_specs(spec: Spec) -> dict[str, dict[str, Any]]:
    """Answer field (without its item index) -> its first control's rules (options, bounds)."""
    out: dict[str, dict[str, Any]] = {}
    for f in spec["fields"]:
        out.setdefault(field_base(f["name"]), f)
    return out


def dry_run_lines(cfg: CampaignConfig) -> list[str]:
    """For ``--dry-run``: the page's fields, the rules from its controls and a PROBLEM line for what makes it
    unreadable, from the first page."""
    assert cfg.template is not None
    source, unreadable = source_problems(cfg.template)
    if source is None:
        return [f"PROBLEM: {p}" for p in unreadable]
    plan = custom_item_plan(cfg)
    first = [r for r in plan if r["batch"] == 1 and r["hit_index"] == 0]
    items = page_items(first)
    spec = custom_spec(cfg, items)
    lines = [f"custom page {cfg.template}: fields found: {', '.join(answer_fields(spec)) or 'none'} "
             f"({len(spec['fields'])} form input(s) on the first page of {len(first)} items)"]
    if cfg.title == cfg.name:  # the import found no title or heading on the page
        lines.append(f"note: workers see the title {cfg.title!r}, the campaign's name: set [campaign] title and "
                     "description to say what the task is")
    lines += control_lines(cfg, plan)
    rendered = custom_page(cfg, items)
    said, refused = browser_verdict(cfg.sim_workers, source, rendered)
    lines += said
    lines += truth_lines(cfg, read_custom_items(cfg), field_kinds(spec), field_specs(spec),  # what choices mean
                         list(dict.fromkeys(str(r["item_id"]) for r in plan)),
                         option_layouts(spec, items, set(cfg.truth.values())))
    shown = {f["name"] for f in spec["fields"] if not INDEXED.match(f["name"]) or f["name"].endswith("_0")}
    lines += [f"  rule {line}" for f, line in zip(spec["fields"], describe_rules(spec), strict=True)
              if f["name"] in shown]
    lines += [f"  rule {line}" for g, line in zip(spec.get("one_of", []), describe_groups(spec), strict=True)
              if not INDEXED.match(g["name"]) or g["name"].endswith("_0")]
    reading = page_reading(masked_page(cfg, first))  # the requester's words alone
    lines += limit_lines({**cfg.qc_params, **reading}, cfg.qc_rules,
                         [f for f, kind in field_kinds(spec).items() if kind == "text"])
    item_text = {str(v) for item in items for v in item.values()}
    problems = page_problems(cfg.template, source, rendered, item_text, scripts_write_fields(source)) + refused
    problems += list(dict.fromkeys(refused_pattern_problems(spec)))
    problems += css_value_problems(read_custom_items(cfg), source, str(cfg.items))  # the page would show none
    if not spec["fields"]:
        problems.append("the page has no answer field; name inputs <name>_{{ i }} inside the item block")
    unchecked = [f"UNCHECKED: {n}" for n in script_checks_left(source, lambda: custom_page(cfg, items[:1]))
                 + unread_hook(source)]  # the script asked as the import asks it: on a page of the first item
    return lines + unchecked + [f"PROBLEM: {p}" for p in problems]


def browser_verdict(setting: str, source: str, rendered: str) -> tuple[list[str], list[str]]:
    """The dry run's lines on how simulated workers do a page whose script writes its answer, and a
    problem when an honest worker in Chromium cannot submit it (every worker would give it back); a refusal
    of what only the simulated worker typed is a warning to check by hand, which blocks no route."""
    if sim_workers(setting, source) != "browser":
        return [], []
    # here, not at the top: `hitflow qc` imports this module and must not load the ledger's database drivers
    from flows.platforms.targets import sim_browser_missing, sim_browser_trial

    if missing := sim_browser_missing():
        return [f"simulated workers: form-reading, NOT in a browser: {missing}; the page's own script is not run "
                "in this rehearsal, so what it checks or writes is not rehearsed"], []
    refused, check = sim_browser_trial(rendered)
    line = (f"simulated workers: in a headless browser ([target] sim_workers = {setting!r}; the page's own script "
            "writes its answer; they type key by key, paste only where their profile pastes)")
    return [line] + ([f"warning: {check}"] if check else []), [refused] if refused else []


def refuse_unreadable(cfg: CampaignConfig) -> list[str]:
    """Before anything is posted, the dry run's PROBLEM lines raised as a ConfigError (exit 2); else its lines."""
    lines = dry_run_lines(cfg)
    problems = [line for line in lines if line.startswith("PROBLEM")]
    if problems:
        raise UnreadablePage(f"{cfg.template}: the page cannot be answered or read back ({len(problems)} "
                             f"problem(s): {problems[0].removeprefix('PROBLEM: ')}); nothing was posted. Fix it and "
                             f"check with `hitflow run {cfg.path} --dry-run`", problems)
    return lines


class UnreadablePage(ConfigError):
    """A page the dry run finds unreadable: never posted, so no worker is judged by it."""

    def __init__(self, message: str, problems: list[str] | None = None):
        super().__init__(message)
        self.problems = problems or []

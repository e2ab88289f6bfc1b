"""``hitflow new NAME --from PAGE [--answer-key KEY]``: config, page template, items row and answer-key CSV."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from flows.campaigns.page_text import visible_text
from flows.core.errors import ConfigError, HitflowError, InputFormatError
from flows.core.inputs.text_files import read_text
from flows.core.pages.asks_worker import question_texts, topic
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields, read_page
from flows.custom.answer_kinds import picker_notes
from flows.custom.browser_templates import fields_in_templates
from flows.custom.control_proposal import proposed_controls
from flows.custom.custom_task import field_base, field_kind
from flows.custom.foreign_syntax import only_hitflow_expressions
from flows.custom.page_fetch import MAX_PAGE_BYTES, Network
from flows.custom.page_import import ImportedPage, PageProblems, import_page
from flows.custom.page_scripts import outside_origins, scripts_write_fields
from flows.custom.scaffold import NAME, own_items, size_budget, size_reward, starter_config, write_new
from flows.custom.submit_probe import asked, blocks_submit, probed_rules, without_covered
from qc.asked_limits import stated_max_words, stated_min_words
from qc.instructed_items import instructed

URLISH = re.compile(r"url|image|img|src|photo|picture|audio|video|link", re.I)


class PageNotReady(HitflowError):
    """The page was written but has no field as served (exit 1): fields in in-browser templates, or none."""

    lists_lines = True


class PageImportError(ConfigError):
    """The page has parts hitflow cannot convert: one line each, nothing written (exit 2)."""

    lists_lines = True


def _read(path: Path, what: str) -> str:
    """The page or answer key as text, at most MAX_PAGE_BYTES read (``--from /dev/zero`` never fills memory)."""
    try:
        return read_text(path, f"the {what}", MAX_PAGE_BYTES)
    except InputFormatError as exc:
        raise ConfigError(f"cannot read the {what}: {exc}") from exc


def scaffold_from(name: str, page: Path, root: Path = Path("."), answer_key: Path | None = None,
                  allowed: tuple[Network, ...] = (), keep_jinja: bool = False, items: Path | None = None
                  ) -> tuple[list[Path], list[str]]:
    """(files written, notes). Page Jinja runs only with ``keep_jinja``; ``items`` copied (budget sized), else one."""
    if not NAME.match(name):
        raise ConfigError(f"campaign name {name!r} must be 1-40 letters, digits, - or _; try another NAME")
    source = _read(page, "page")
    try:
        imported = import_page(source, str(page), _read(answer_key, "answer key") if answer_key else "", allowed,
                               keep_jinja)
    except PageProblems as exc:
        lines = exc.lines
        raise PageImportError(f"{len(lines)} part(s) of the page cannot be converted; nothing was written:\n"
                           + "\n".join(lines)) from exc
    template = template_text(imported, page, source, keep_jinja)
    refuse_unbounded(template, imported, page, source)
    template = with_probed_rules(imported, template, page, source, keep_jinja)
    folder, checks, columns = root / "config", own_checks(imported.body), imported.columns
    files = {folder / f"{name}.toml": campaign_toml(name, imported, page) + attention_table(name, checks)
             + target_table(template),
             folder / f"{name}.html.j2": template,
             folder / f"{name}_items.csv": own_items(items, columns, template) if items else items_csv(columns)}
    if imported.answer_key:
        files[folder / f"{name}_answer_key.csv"] = _csv(["field", "answer", "score"],
                                                        [list(r.values()) for r in imported.answer_key])
    # the path the docs give a controls file of one's own: one there already is the user's, the proposal goes beside
    own = folder / f"{name}_controls.csv"
    proposal = proposed_controls(own if not own.exists() else own.with_stem(f"{own.stem}_proposed"), template,
                                 items) if items else None
    if proposal:
        files[proposal[2]] = _csv(["item_id", "field", "answer"], proposal[0])
    written = write_new(folder, files)
    size_reward(written[0])
    size_budget(written[0])
    notes = imported.notes + picker_notes(imported.body, str(page)) + check_notes(str(page), name, checks) + \
        _size_note(template, page) + ([proposal[1]] if proposal else [])
    refuse_fieldless(source, template, page, written, notes)
    return written, notes


def refuse_fieldless(source: str, template: str, page: Path, written: list[Path], notes: list[str]) -> None:
    """Raise PageNotReady when no field as served is answerable, naming controls in in-browser templates by line."""
    fields = form_fields(template)
    if any(f.kind != "hidden" for f in fields) or (fields and scripts_write_fields(template)):
        return  # a hidden field the page's own script writes (a JSON answer) is an answer too
    inside = fields_in_templates(source)
    lines = [*notes, "wrote " + ", ".join(str(p) for p in written)]
    lines += [f"{page}:{line}: field {name!r} is inside a <script type=\"{kind}\"> template the page's own script "
              "renders in the browser: hitflow's page, as served, has no such field" for line, name, kind in inside]
    what = "all its fields are inside in-browser templates" if inside else "it has no field a worker answers"
    lines.append(f"not ready: {what}; write the fields into the page's HTML itself (an item's value as ${{column}}), "
                 f"then `hitflow run config/{written[0].stem}.toml --dry-run` lists them")
    raise PageNotReady("\n".join(lines))


def _size_note(template: str, page: Path) -> list[str]:
    """A note when the page has more expressions than one may render: imported, but preview and runs will refuse it."""
    from flows.core.pages.template_limits import MAX_TEMPLATE_TAGS, template_tags

    tags = template_tags(template)
    return [f"{page}: note: the page holds {tags:,} expressions, over the {MAX_TEMPLATE_TAGS:,} a page may render: "
            "`hitflow preview` and runs will refuse it; show fewer values on one page"] if tags > MAX_TEMPLATE_TAGS \
        else []


def template_text(imported: ImportedPage, page: Path, source: str, keep_jinja: bool = False) -> str:
    if keep_jinja and re.search(r"\{%-?\s*extends\s+[\"']_(custom|crowd)_page\.html\.j2[\"']", source):
        return source  # already a hitflow page
    base = "_crowd_page.html.j2" if imported.crowd else "_custom_page.html.j2"
    return (f"{{% extends \"{base}\" %}}\n"
            f"{{# Imported from {page.name} by `hitflow new --from`: one item per page; its placeholders read the\n"
            "   item file's columns (item.<column>); every answer field is named <name>_{{ i }}. #}\n"
            + (f"{{% block instructions %}}\n{imported.instructions}{{% endblock %}}\n"
               if imported.instructions else "")
            + "{% block item %}\n" + imported.body + "{% endblock %}\n"
            + (f"{{% block scripts %}}{{{{ super() }}}}\n{imported.closing}{{% endblock %}}\n" if imported.closing
               else ""))


def refuse_unbounded(template: str, imported: ImportedPage, page: Path, source: str) -> None:
    """Render once with a sample item, bounded, so an overbuilding expression is refused now with its line; a template
    of hitflow's own expressions alone is bounded as written (300,000 compiled placeholders took gigabytes)."""
    if only_hitflow_expressions(template):
        return
    from flows.core.pages.template_limits import TemplateLimit
    from flows.core.pages.templates import template_line

    try:
        sample_page(template, imported, page)
    except ConfigError as exc:
        if not isinstance(exc.__cause__, TemplateLimit | MemoryError):
            return
        line = template_line(exc.__cause__).lstrip(":")
        shown = template.splitlines()[int(line) - 1].strip() if line else ""
        at = source.find(shown) if shown else -1
        where = f":{source.count(chr(10), 0, at) + 1}" if at >= 0 else ""
        reason = str(exc.__cause__) or "the page ran out of memory while rendering"
        raise PageImportError(f"1 part(s) of the page cannot be converted; nothing was written:\n{page}{where}: "
                              f"{reason}; change that expression and import the page again") from exc


def with_probed_rules(imported: ImportedPage, template: str, page: Path, source: str, keep_jinja: bool = False,
                      browser: Any = None) -> str:
    """The template with what the page's script requires, found by running it (``browser``: else one is launched)."""
    code = imported.instructions + imported.body + imported.closing  # the page's scripts, wherever they run
    if not blocks_submit(code) or template != template_text(imported, page, source, keep_jinja):
        return template
    try:
        rendered = sample_page(template, imported, page)
    except ConfigError as exc:
        imported.notes.append(f"{page}: note: the page's script was not run at import (the page did not render with "
                              f"a sample item: {exc}); its checks were read from its code instead")
        return template
    found = asked(rendered, browser)
    imported.body, probed = probed_rules(imported.body, rendered, str(page), found)
    template = template_text(imported, page, source, keep_jinja)
    imported.notes = without_covered(imported.notes, template, rendered, found) + probed  # no "stays" it disproved
    return template


def sample_page(template: str, imported: ImportedPage, page: Path) -> str:
    """The template rendered with one sample item (every column "sample"), as a worker's page would be."""
    from flows.core.pages.templates import render_source

    item = {"item_id": "sample", **{column: "sample" for column in imported.columns}}
    return render_source(template, str(page), {"title": imported.title, "rules": {"kind": "form", "fields": []},
                                               "items": [item]})


def _csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def items_csv(columns: list[str]) -> str:
    """The header the page reads, and one sample row (URL-like columns get an https example)."""
    columns = [c for c in columns if c not in ("item_id", "image_id")]
    sample = [f"https://example.org/sample/{c}.jpg" if URLISH.search(c) else f"sample {c.replace('_', ' ')}"
              for c in columns]
    return _csv(["item_id", *columns], [["item-001", *sample]])


def campaign_toml(name: str, imported: ImportedPage, page: Path) -> str:
    text = starter_config(name)
    title = (imported.title or name).replace("\\", "").replace('"', "'")
    text = re.sub(r'(?m)^title = ".*"$', f'title = "{title}"', text)
    text = re.sub(r'(?m)^description = ".*"$', f'description = "{title} (imported from {page.name})."', text)
    text = re.sub(r"(?m)^images_per_hit = \d+ +#.*$", "images_per_hit = 1               # items on one page: "
                  "the page was written for one", text)
    if imported.answer_key:
        text = re.sub(r"(?m)^(items = .*)$", lambda m: m.group(1) + f'\nanswer_key = "{name}_answer_key.csv"'
                      "   # the AnswerKey: each response scored in runs/<name>/scores.csv", text)
    return text + "".join(field_qc_table(field, kind, personal, stated) for field, kind, personal, stated
                          in free_text_fields(imported.body, imported.instructions))


def target_table(template: str) -> str:
    """The page's own CDN scripts and styles, allowed where the task server serves it, as MTurk loads them."""
    origins = outside_origins(template)
    return (f"\n[target]\npage_origins = {json.dumps(origins)}   # the page's own scripts and styles, on the task "
            "server's pages (Prolific, invite links) as on MTurk\n") if origins else ""


def free_text_fields(body: str, instructions: str = "") -> list[tuple[str, str, str, tuple[int, int]]]:
    """(field, control ("optional ..." where nothing requires it), what it asks that the same short answer fits on
    several items ("" if nothing such), fewest and most words the page states, 0 if none) per free-text field."""
    page = body.replace("{{ i }}", "0")
    read = read_page(page)
    asked = question_texts(read)
    gap = any(BLANK.search(t) for _, t, _ in read.texts)  # a fill-the-blank page: a word or two per item
    rules = form_spec(form_fields(page))["fields"]
    texts = [f for f in rules if field_kind(f) == "text"]
    said = visible_text(instructions + page) if len(texts) == 1 else ""  # the page's minimum is the only field's
    attrs = {f.name: f.attrs for f in read.fields.values()}
    return [(f["name"].removesuffix("_0"), "optional " * (not f["required"] and not f.get("required_when"))
             + f.get("input", "text"), "about the worker" if topic(asked.get(f["name"], "")) else
             "for a missing word" if gap and f.get("input", "text") != "textarea" else "",
             stated_words(f"{said}\n{asked.get(f['name'], '')}", attrs.get(f["name"], {}))) for f in texts]


def stated_words(text: str, attrs: dict[str, str]) -> tuple[int, int]:
    """The fewest and most words the page's words state, or its script was found to enforce (data-*-words)."""
    least, most = (int(n) if (n := attrs.get(f"data-{k}-words", "")).isdigit() else 0 for k in ("min", "max"))
    return max(stated_min_words(text), least), min((n for n in (stated_max_words(text), most) if n), default=0)


# Questions about the worker, and a fill-the-blank's missing word: repeated answers there are honest, not copies.
BLANK = re.compile(r"_{3,}")
ABOUT_WORKER_DROPS = ("duplicate_text", "shared_template", "consensus", "instruction_echo", "min_words",
                      "source_copy", "short_answer")


def field_qc_table(field: str, control: str, asks: str = "", stated: tuple[int, int] = (0, 0)) -> str:
    """``[qc.fields.<field>]`` where a field differs from the [qc] text rules: one that ``asks`` about the worker or
    for a blank's word drops repeat, consensus and echo rules; a required textarea gets at least 3 words, any box the
    words the page states (``stated``: fewest, most); else none."""
    key = field if re.fullmatch(r"[A-Za-z0-9_-]+", field) else json.dumps(field)
    head = f"\n[qc.fields.{key}]    # the page's free-text field {field!r} ({control})"
    if asks:
        return (f"{head}: it asks {asks}, so the same short answer on several items is expected\n"
                f"ignore = [{', '.join(json.dumps(r) for r in ABOUT_WORKER_DROPS)}]\n")
    # the page's stated minimum is its answer size; else 3 on a required textarea, nothing on an optional box
    least = (stated[0] or 3) if control == "textarea" else stated[0]
    why = "as the page asks (its words or its script)" if stated[0] else "fewer flags the answer"
    lines = [f"{'min_words = ' + str(least):<22}# {why} (QC uses the page's where it states more)"] if least else []
    lines += [f"{'max_words = ' + str(stated[1]):<22}# as the page asks: more flags the answer for a "
              "person to look at"] if stated[1] else []
    return f"{head}\n" + "".join(f"{line}\n" for line in lines) if lines else ""


# A page's own attention checks, found at import, each an ``[attention] page_checks`` entry scored on the server.
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

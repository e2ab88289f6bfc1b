"""The one Jinja environment: sandboxed, immutable, autoescaped, undefined names errors."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import jinja2

from flows.core.errors import ConfigError, HitflowError
from flows.core.pages import template_limits as limits
from flows.core.pages.bounded_sandbox import BoundedSandbox
from flows.core.pages.css_values import css_value
from flows.core.pages.filter_bounds import bounded_filter
from flows.core.study_kinds import DEMOGRAPHIC_LABELS, DEMOGRAPHICS

TEMPLATE_DIR = Path(__file__).resolve().parents[3] / "hit_templates"
REPORT_DIR = Path(__file__).resolve().parent / "report_templates"

# What an unreachable image shows: a local SVG, no quote characters (it goes inside an onerror string).
IMAGE_PLACEHOLDER = ("data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27 width=%27320%27 "
                     "height=%2790%27%3E%3Crect width=%27100%25%27 height=%27100%25%27 fill=%27%23e8e8e8%27/%3E"
                     "%3Ctext x=%2750%25%27 y=%2755%25%27 text-anchor=%27middle%27 font-family=%27sans-serif%27 "
                     "font-size=%2714%27 fill=%27%23555%27%3Eimage unavailable%3C/text%3E%3C/svg%3E")


def safe_url(value: object) -> str:
    """Only http(s) and relative URLs reach a page; anything else (javascript:) is dropped."""
    url = str(value)
    return url if (_kept_allowed(url) if len(url) <= MAX_KEPT_URL else allowed_url(url)) else "about:blank"


def allowed_url(url: str) -> bool:
    """http(s) or a path on this host: no other scheme, and no other host by anything a browser reads as ``//``."""
    if url.startswith(("http://", "https://")) and _plain(url):
        return True  # its scheme http(s), and it starts "ht", not "//"
    try:  # urlparse finds a scheme only before a colon, and refuses a bracketed host that is no IP address
        scheme = "" if ":" not in url and _plain(url) else urlparse(url).scheme.lower()
    except ValueError:
        return False
    start = url.lstrip(C0_OR_SPACE).translate(TAB_OR_NEWLINE)[:2].replace("\\", "/")
    return scheme in ("http", "https", "") and start != "//"


def _plain(url: str) -> bool:
    """ASCII without brackets: its scheme can be told without ``urlparse``."""
    return url.isascii() and "[" not in url and "]" not in url


C0_OR_SPACE = "".join(map(chr, range(0x21)))  # what a browser strips from a URL's ends
TAB_OR_NEWLINE = dict.fromkeys(map(ord, "\t\n\r"))  # what it drops anywhere in it


MAX_KEPT_URL = 2048  # a URL's verdict kept for the next page that shows it (a campaign checks each item's twice)
_kept_allowed = lru_cache(maxsize=4096)(allowed_url)


# Bidi controls reorder what follows them on screen: a reviewer sees the character named instead.
BIDI_CONTROLS = {code: f"[U+{code:04X}]" for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def bidi_shown(value: object) -> str:
    """``value`` as text with each bidirectional control written out (``[U+202E]``), not applied."""
    text = str(value)
    return text if text.isascii() else text.translate(BIDI_CONTROLS)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = BoundedSandbox(
        loader=jinja2.FileSystemLoader([str(TEMPLATE_DIR), str(REPORT_DIR)]),
        autoescape=True,  # captions and descriptions are untrusted HTML, in every template
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # the project's templates do not change under a running process: no stat a render
    )
    env.filters["safe_url"] = bounded_filter("safe_url", safe_url)
    env.filters["bidi_shown"] = bounded_filter("bidi_shown", bidi_shown)
    env.filters["css_value"] = bounded_filter("css_value", css_value)
    env.globals["image_placeholder"] = IMAGE_PLACEHOLDER
    # What the evaluation pages list, from the code that checks and analyses their answers.
    from postprocess.error_categories import CATEGORIES

    env.globals["error_categories"] = CATEGORIES
    env.globals["demographic_questions"] = [(k, DEMOGRAPHIC_LABELS[k], v) for k, v in DEMOGRAPHICS.items()]
    return env


def render(template: str, context: dict[str, Any]) -> str:
    try:  # hitflow's own pages and reports: a big campaign's report may take long and be large
        with limits.trusted():
            return environment().get_template(template).render(**context)
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(f"template {template} not found under {TEMPLATE_DIR}; check [campaign].task") from exc
    except jinja2.UndefinedError as exc:
        raise ConfigError(f"template {template}: {exc.message}; the context lacks a value it uses") from exc
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"template {exc.filename}:{exc.lineno}: {exc.message}") from exc
    except (limits.TemplateLimit, MemoryError) as exc:
        raise ConfigError(f"template {template}{template_line(exc)}: {str(exc) or 'out of memory'}") from exc


def render_source(source: str, name: str, context: dict[str, Any]) -> str:
    """A template given as text rendered in the one environment; any error is one ConfigError line."""
    try:
        limits.check_template_size(source)
        # compiled before the deadline (its constants bounded too)
        page = compiled(environment(), source, limits.bounded()) if len(source) <= MAX_CACHED_SOURCE else \
            environment().from_string(source)
        with limits.render_deadline():
            return limits.bounded_output(page.generate(**context))
    except HitflowError:
        raise
    except Exception as exc:  # the render boundary: a user's template may raise anything
        raise render_failure(exc, name) from exc


def render_failure(exc: Exception, name: str) -> ConfigError:
    """The one line for an error a user's template raised while compiling or rendering."""
    where = f"{name}{template_line(exc)}"
    if isinstance(exc, jinja2.TemplateNotFound):
        return ConfigError(f"{name}: extends or includes {exc.name}, which is not under {TEMPLATE_DIR}")
    if isinstance(exc, jinja2.UndefinedError):
        return ConfigError(f"{name}: {exc.message}; check the names the template uses (item columns, title, items)")
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return ConfigError(f"{name}:{exc.lineno}: {str(exc.message).rstrip('.')}; fix the template's syntax on that "
                           "line and run the dry run again")
    if isinstance(exc, limits.TemplateLimit):
        return ConfigError(f"{where}: the template failed while rendering ({exc}); a page may not build that much: "
                           "change the expression that builds it")
    if isinstance(exc, jinja2.sandbox.SecurityError):
        return ConfigError(f"{where}: {str(exc).rstrip('.')}; a task template may only read its values")
    if isinstance(exc, MemoryError):
        return ConfigError(f"{where}: the page ran out of memory while rendering; change the expression that "
                           "builds it")
    if isinstance(exc, SyntaxError):  # Python's own limits on the compiled code (20 nested blocks)
        return ConfigError(f"{name}: the template cannot be compiled ({exc.msg}); nest fewer loops or blocks")
    line = (str(exc).splitlines() or [""])[0][:160]
    return ConfigError(f"{where}: the template failed while rendering ({type(exc).__name__}: {line}); "
                       "fix the expression and run the dry run again")


MAX_CACHED_SOURCE = 512 * 1024  # a task template kept compiled: 32 of them at most


@lru_cache(maxsize=32)
def compiled(env: jinja2.Environment, source: str, bounded: bool) -> jinja2.Template:
    """``source`` compiled in ``env`` once per text and boundedness; a source that fails is not kept."""
    return env.from_string(source)


def template_line(exc: BaseException) -> str:
    """":N", the template line an error was raised on, or ""."""
    tb, line = exc.__traceback__, ""
    while tb is not None:
        if tb.tb_frame.f_code.co_name in ("template", "top-level template code") or \
                tb.tb_frame.f_code.co_filename.endswith((".j2", "<template>")):
            line = f":{tb.tb_lineno}"
        tb = tb.tb_next
    return line


def sample_context(task: str) -> dict[str, Any]:
    return json.loads((TEMPLATE_DIR / "samples" / f"{task}.json").read_text(encoding="utf-8"))


def task_templates() -> list[str]:
    return sorted(p.name.removesuffix(".html.j2") for p in TEMPLATE_DIR.glob("*.html.j2")
                  if p.name != "base.html.j2" and not p.name.startswith("_"))


def page_items(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``item_id, file_name, url[, payload]`` rows as the templates' items."""
    return [{"image_id": r["item_id"], "file_name": r["file_name"], "url": r["url"],
             **(json.loads(r["payload"]) if r.get("payload") else {})} for r in rows]


MASK = "\u2026"  # an item's value where only the requester's own words are read (no word, no number)


def masked_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with their items' values masked, so the page says only what its template says."""
    out = []
    for r in rows:
        payload = json.loads(r["payload"]) if r.get("payload") else {}
        masked = {k: MASK if isinstance(v, str) else v for k, v in payload.items()} if isinstance(payload, dict) \
            else payload
        out.append({**r, "payload": json.dumps(masked)})
    return out

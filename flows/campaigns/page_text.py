"""The visible text of a campaign's page for ``instruction_echo`` (qc/ stays pure)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.pages.templates import render, sample_context
from flows.core.pages.tolerant_html import TolerantHTMLParser

_BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "label", "legend", "button", "figcaption", "div", "section",
           "ul", "ol", "fieldset", "br", "tr", "td", "th", "textarea", "option"}
_INVISIBLE = {"script", "style", "template", "head", "title"}


class _VisibleText(TolerantHTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _INVISIBLE:
            self.hidden_depth += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _INVISIBLE:
            self.hidden_depth = max(0, self.hidden_depth - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden_depth:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """The text of an HTML page a reader sees, one line per block element."""
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)


@lru_cache(maxsize=8)
def _task_page_text(task: str, title: str, rules_json: str) -> str:
    items = sample_context(task).get("items", [])
    context: dict[str, Any] = {"title": title, "rules": json.loads(rules_json), "items": items[:1]}
    return visible_text(render(f"{task}.html.j2", context))


def campaign_page_text(cfg: CampaignConfig) -> str:
    """What a worker reads on the campaign's task page (instructions, examples, banned phrases)."""
    rules = cfg.submit_rules.to_page_spec()  # a caption page's rules (caption_kind.py): `hitflow qc` loads no kind
    return _task_page_text(cfg.task, cfg.title, json.dumps(rules, sort_keys=True))


def qc_params(cfg: CampaignConfig, seed: int) -> dict[str, Any]:
    """The QC parameters of a campaign: its [qc] values, submit rules, page text and seed."""
    params: dict[str, Any] = {**cfg.qc_params, "submit_rules": cfg.submit_rules, "seed": seed}
    if cfg.study is None and cfg.task != "custom":  # a custom page's text is its own (custom_review._page_text)
        params["page_text"] = campaign_page_text(cfg)
    return params

"""A campaign's task page from stored item rows, for every route: the task kind's own page."""

from __future__ import annotations

from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.pages.page_attention import with_attention
from flows.core.pages.page_telemetry import with_telemetry
from flows.core.pages.templates import page_items, render


def page_rules(cfg: CampaignConfig, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The spec both enforcers read: caption rules, an evaluation page's questions, a page's own controls."""
    from flows.campaigns.task_kinds import kind_of  # the kinds' modules render with this one

    return kind_of(cfg).rules(cfg, items)


def template_page(cfg: CampaignConfig, items: list[dict[str, Any]], **extra: Any) -> str:
    """A built-in kind's page: ``<task>.html.j2`` with the title, the kind's rules and the items."""
    return render(f"{cfg.task}.html.j2", {"title": cfg.title, "rules": page_rules(cfg, items), "items": items, **extra})


def task_page(cfg: CampaignConfig, rows: list[dict[str, Any]], **extra: Any) -> str:
    """``extra``: the task server's ``submit_url``, ``assignment_id`` and ``signature``."""
    from flows.campaigns.task_kinds import kind_of

    page = with_attention(kind_of(cfg).page(cfg, page_items(rows), **extra), cfg.attention.checks)
    if not cfg.telemetry_notice:  # [telemetry] record = false
        return page
    return with_telemetry(page, cfg.telemetry_notice, str(extra.get("csp_nonce") or ""))

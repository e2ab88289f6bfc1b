"""One way to render a campaign's task page from stored item rows, for every route (an
HTMLQuestion HIT, the task server's Prolific/invite pages, an ExternalQuestion HIT)."""

from __future__ import annotations

from typing import Any

from flows.core.config.config import CampaignConfig
from flows.core.pages.page_telemetry import with_telemetry
from flows.core.pages.templates import page_items, render
from flows.custom.custom_task import custom_page, custom_spec
from flows.studies.study_plan import page_spec


def page_rules(cfg: CampaignConfig, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The spec both enforcers read: caption rules, or an evaluation page's questions."""
    if cfg.task == "custom":
        return custom_spec(cfg, items)
    if cfg.study is None:
        return cfg.submit_rules.to_page_spec()
    return page_spec(cfg.study.kind, [{"payload": i} for i in items])


def task_page(cfg: CampaignConfig, rows: list[dict[str, Any]], **extra: Any) -> str:
    """``extra``: the task server's ``submit_url``, ``assignment_id`` and ``signature``. A page with
    free text records how it was entered, and says so (flows/core/pages/page_telemetry.py)."""
    items = page_items(rows)
    if cfg.task == "custom":
        page = custom_page(cfg, items, **extra)
    else:
        page = render(f"{cfg.task}.html.j2", {"title": cfg.title, "rules": page_rules(cfg, items), "items": items,
                                              **extra})
    if not cfg.telemetry_notice:  # [telemetry] record = false
        return page
    return with_telemetry(page, cfg.telemetry_notice, str(extra.get("csp_nonce") or ""))

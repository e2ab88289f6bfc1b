"""A dry run's pages (flows/platforms/plan_pages.py) are the bytes a real run posts: a unit's page joined
from its shape's marked render equals its full render, and the printed plan is the one every page rendered
in full makes."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.task_pages import task_page
from flows.core.config.config import CampaignConfig, load_config
from flows.core.run.run_context import Run
from flows.custom.scaffold import scaffold
from flows.platforms import plan_pages
from flows.platforms.mturk.dry_run import mturk_plan
from flows.platforms.plan_pages import planned_pages
from flows.platforms.units import page_html
from tests.small_configs import small_vizwiz

ROOT = Path(__file__).resolve().parents[1]
# a value the page escapes, one the telemetry step would read, one bidi_shown writes out, one XML refuses
ODD_NAMES = ['a<b>&"\'.jpg', "hitflow_telemetry.jpg", "photo\u202egnp.jpg", "bell\x07.jpg"]


def _run(cfg: CampaignConfig) -> Run:
    return Run(cfg, store=None, client=None, target=None, progress=lambda _: None,  # type: ignore[arg-type]
               platform="mturk", page=task_page)


def _units(cfg: CampaignConfig) -> list[tuple[Any, list[dict[str, Any]]]]:
    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in item_plan(cfg):
        groups[(row["batch"], row["hit_index"])].append(row)
    return sorted(groups.items())


def _caption_config(tmp_path: Path, names: list[str]) -> CampaignConfig:
    path = small_vizwiz(tmp_path, items=40)
    items = tmp_path / "items.csv"
    lines = items.read_text(encoding="utf-8").splitlines()
    for k, name in enumerate(names):  # one to a unit (five images a page): any file name reaches the page
        image_id, _, url = lines[1 + 5 * k].split(",")
        lines[1 + 5 * k] = f'{image_id},"{name.replace(chr(34), chr(34) * 2)}",{url}'
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_config(path)


def test_caption_pages_are_the_bytes_of_a_full_render_and_most_are_joined(tmp_path: Path) -> None:
    cfg = _caption_config(tmp_path, ODD_NAMES)
    run = _run(cfg)
    pages = list(planned_pages(run, _units(cfg)))
    assert [p.html for p in pages] == [page_html(run, p.items) for p in pages]
    joined = [p for p in pages if p.checked_xml]
    assert len(joined) >= len(pages) - len(ODD_NAMES) + 1 and len(joined) < len(pages)  # odd values rendered
    assert any('a&lt;b&gt;&amp;&#34;&#39;.jpg' in p.html for p in joined)  # escaped by the join as by Jinja


@pytest.mark.parametrize("config", ["custom", "expert_rating"])
def test_a_custom_page_and_a_study_page_are_the_bytes_of_a_full_render(tmp_path: Path, config: str) -> None:
    if config == "custom":
        scaffold("demo_task", tmp_path)
        cfg = load_config(tmp_path / "config" / "demo_task.toml")
    else:
        cfg = load_config(ROOT / "config" / "expert_rating.toml")
    run = _run(cfg)
    pages = list(planned_pages(run, _units(cfg)))
    assert pages and [p.html for p in pages] == [page_html(run, p.items) for p in pages]


def test_a_page_that_branches_on_a_value_is_rendered_in_full(tmp_path: Path) -> None:
    cfg = _caption_config(tmp_path, [])
    units = _units(cfg)
    odd = units[len(units) // 2][1][0]["item_id"]  # neither the first unit nor the largest

    def branching(cfg: CampaignConfig, rows: list[dict[str, Any]]) -> str:
        return task_page(cfg, rows) + ("<!-- odd -->" if any(r["item_id"] == odd for r in rows) else "")

    run = _run(cfg)
    run.page = branching
    pages = list(planned_pages(run, units))
    assert [p.html for p in pages] == [page_html(run, p.items) for p in pages]
    assert not any(p.checked_xml for p in pages)


def test_the_printed_plan_is_the_one_full_renders_make_an_oversized_page_included(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    cfg = _caption_config(tmp_path, ["x" * 40_000 + ".jpg", *ODD_NAMES])
    joined = mturk_plan(_run(cfg), dict(_units(cfg)), [])
    # every page rendered and parsed in full
    monkeypatch.setattr(plan_pages, "_fits", lambda *unit: False)
    full = mturk_plan(_run(cfg), dict(_units(cfg)), [])
    assert joined == full
    assert any("HIT 0: Question is" in p and "the limit is 65535" in p for p in full["problems"])


def test_a_value_is_joined_only_when_no_filter_xml_or_page_step_would_treat_it_otherwise() -> None:
    from flows.core.pages.mturk_forms import _NOT_XML
    from flows.core.pages.templates import BIDI_CONTROLS, bidi_shown, safe_url

    for code in range(0x10000):
        char = f"a{chr(code)}b"
        kept = safe_url(char) == char and bidi_shown(char) == char and not _NOT_XML.search(char)
        assert plan_pages._modelled(char) == (kept and code not in (0xE000, 0xE001)), hex(code)
    assert BIDI_CONTROLS and not plan_pages._modelled("x_TELEMETRY") and not plan_pages._modelled("javascript:x")


def test_a_renderer_that_refuses_the_markers_leaves_every_page_to_the_full_render(tmp_path: Path) -> None:
    cfg = _caption_config(tmp_path, [])

    def strict(cfg: CampaignConfig, rows: list[dict[str, Any]]) -> str:
        if any(not r["url"].startswith("https://") for r in rows):
            raise ValueError("not a URL")
        return task_page(cfg, rows)

    run = _run(cfg)
    run.page = strict
    pages = list(planned_pages(run, _units(cfg)))
    assert pages and not any(p.checked_xml for p in pages)
    assert [p.html for p in pages] == [task_page(cfg, p.items) for p in pages]


def _own_page_config(tmp_path: Path, notes: list[str], template_line: str | None = None) -> CampaignConfig:
    items = tmp_path / "mine.csv"
    rows = [f"p{k:03d},https://example.org/{k}.jpg,\"{n.replace(chr(34), chr(34) * 2)}\"" for k, n in enumerate(notes)]
    items.write_text("item_id,image_url,note\n" + "\n".join(rows) + "\n", encoding="utf-8")
    scaffold("mine", tmp_path, items)
    if template_line is not None:  # the note shown through something other than a plain print
        page = tmp_path / "config" / "mine.html.j2"
        page.write_text(page.read_text(encoding="utf-8").replace("{{ item.note }}", template_line), encoding="utf-8")
    return load_config(tmp_path / "config" / "mine.toml")


def test_an_own_page_that_prints_its_columns_plainly_is_joined_from_one_marked_render(tmp_path: Path) -> None:
    notes = [f"a plain note {k}" for k in range(30)] + ["see: telemetry", "note\u202ex", "x" * 500]
    notes[4] = 'a<b>&"\''  # escaped by the join as by Jinja
    cfg = _own_page_config(tmp_path, notes)
    run = _run(cfg)
    pages = list(planned_pages(run, _units(cfg)))
    assert [p.html for p in pages] == [page_html(run, p.items) for p in pages]
    joined = [p for p in pages if p.checked_xml]
    assert len(pages) - 4 <= len(joined) < len(pages)  # the pages with the odd values rendered in full
    assert any("a&lt;b&gt;&amp;&#34;&#39;" in p.html for p in joined)


@pytest.mark.parametrize("shown", ["{{ item.note | upper }}", "{% if item.note == 'a plain note 7' %}!{% endif %}",
                                   "{{ item.note ~ '.' }}", "{{ items | length }}"])
def test_an_own_page_that_reads_a_column_otherwise_is_rendered_in_full(tmp_path: Path, shown: str) -> None:
    cfg = _own_page_config(tmp_path, [f"a plain note {k}" for k in range(30)], shown)
    run = _run(cfg)
    pages = list(planned_pages(run, _units(cfg)))
    assert pages and not any(p.checked_xml for p in pages)
    assert [p.html for p in pages] == [page_html(run, p.items) for p in pages]


def test_every_shape_of_unit_is_rendered_in_full_once_even_with_the_same_item_count(monkeypatch) -> None:
    """Two units of one item each whose payloads have different columns are two shapes, each with its own
    joined pieces: each is checked against a full render, not only the first of that item count."""
    rendered: list[str] = []

    class Joined:
        @staticmethod
        def page(items: list[dict[str, Any]]) -> str:
            return items[0]["item_id"]

    def full(run: Any, items: list[dict[str, Any]]) -> str:
        rendered.append(items[0]["item_id"])
        return items[0]["item_id"]
    monkeypatch.setattr(plan_pages, "page_html", full)
    units = [[{"item_id": f"u{n}"}] for n in range(1000)]  # the spread samples every 62nd unit
    kinds: list[tuple[Any, ...] | None] = [(1, ("b",)) if n == 1 else (1, ("a",)) for n in range(1000)]
    assert plan_pages._agrees(None, Joined(), units, [1] * 1000, kinds)  # type: ignore[arg-type]
    assert "u1" in rendered and len(rendered) == len(set(rendered)) <= plan_pages.SPREAD + 3

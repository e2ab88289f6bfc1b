"""A required hidden field the page's own widget writes, or a hidden radio or checkbox, clicked as a person does."""

from __future__ import annotations

import random
from typing import Any

from flows.sim.pages.page_steps import SHOWN

MARK = "data-sim-widget"
CLICKED = "__hitflowClicked"  # the elements the page's scripts listen to for a click (CLICKED_SCRIPT)
# Recorded as the page's scripts attach them: a listener cannot be read back from an element
CLICKED_SCRIPT = f"""(() => {{
  const seen = window.{CLICKED} = new WeakSet(), add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {{
    if (/^(click|mousedown|mouseup|pointerdown|pointerup|touchstart)$/.test(type) && this instanceof Element)
      seen.add(this);
    return add.call(this, type, ...rest);
  }};
}})();"""
# Near an empty required hidden field (its parent, then up to two more levels): the elements that carry a value by
# a data-* attribute or as their own short number and are no form control, grouped by how they carry it. The nearest
# level with a group of two or more values has the widget (its largest group); a lone value is a label, not a choice.
# Where no level has one: the elements a person sees they can click that are no button or control (an SVG shape or a
# box with a click listener or onclick, role=button, the outermost the page's CSS gives a pointer), grouped by tag and
# class, each valued by its words (else its place in the group).
MARKS_JS = """([name, mark, clicked]) => {
  const field = Array.from(document.querySelectorAll('input[type=hidden][required]')).find(e => e.name === name);
  if (!field || field.value) return [];
  """ + SHOWN + """
  const carried = (e) => {  // [how it carries a value, the value]
    const data = Array.from(e.attributes).find(a => a.name.startsWith('data-') && a.name !== mark && a.value.trim());
    if (data) return [data.name, data.value.trim()];
    const text = e.children.length ? '' : e.textContent.trim();
    return /^\\d{1,2}$/.test(text) ? ['text', text] : null;
  };
  const pointer = (e) => !!e && getComputedStyle(e).cursor === 'pointer';
  const clickable = (e) => !e.matches('button, crowd-button, svg') && (typeof e.onclick === 'function'
      || /^(button|radio|option|tab|menuitemradio)$/.test(e.getAttribute('role') || '')
      || (window[clicked] && window[clicked].has(e)) || (pointer(e) && !pointer(e.parentElement)))
    ? ['click ' + e.tagName + ' ' + (e.getAttribute('class') || ''),
       (e.getAttribute('aria-label') || e.getAttribute('title') || e.textContent || '').trim().slice(0, 60)] : null;
  for (const own of [carried, clickable]) {
    for (let box = field.parentElement, up = 0; box && up < 3; box = box.parentElement, up++) {
      const groups = {};
      box.querySelectorAll('*').forEach(e => {
        const v = !e.closest('input, select, textarea, label, a, script, style') && shown(e) && own(e);
        if (v) { const g = groups[v[0]] = groups[v[0]] || []; g.push([e, v[1] || '#' + g.length]); }
      });
      const best = Object.values(groups).map(g => [g, new Set(g.map(x => x[1])).size]).filter(x => x[1] >= 2)
        .sort((a, b) => b[1] - a[1])[0];
      if (best) {
        best[0].forEach(([e, v]) => e.setAttribute(mark, v));
        return Array.from(new Set(best[0].map(x => x[1])));
      }
    }
  }
  return [];
}"""


def click_widgets(page: Any, names: list[str], intents: dict[str, str], rng: random.Random) -> list[str]:
    """Each empty required hidden field of ``names`` its widget fills: the intended value's mark clicked (a value
    the widget does not offer: one of its own); returns the fields the page's script wrote."""
    written = []
    for name in names:
        values = page.evaluate(MARKS_JS, [name, MARK, CLICKED])
        if not values:
            continue
        wanted = str(intents.get(name, "")).strip().lower()
        value = next((v for v in values if v.lower() == wanted), None) if wanted else None
        chosen = (value or rng.choice(values)).replace("\\", "\\\\").replace('"', '\\"')  # quoted in the selector
        page.locator(f'[{MARK}="{chosen}"]').first.click()
        page.evaluate(f"() => document.querySelectorAll('[{MARK}]').forEach(e => e.removeAttribute('{MARK}'))")
        if page.evaluate("(n) => Array.from(document.getElementsByName(n)).some(e => e.value)", name):
            written.append(name)
    return written


# A radio or checkbox the page's CSS hides behind its <label> (a star, a chip): its first label a person sees, marked
LABEL_JS = "([box], mark) => { " + SHOWN + """
  const label = Array.from(box.labels || []).find(shown); if (label) label.setAttribute(mark, ""); return !!label; }"""


def tick(page: Any, box: Any) -> bool:
    """Tick a radio or checkbox as a person does: the box itself where it shows, else the label drawn for it (a star,
    a chip; clicked only if unticked, as a second click unticks a checkbox); False when nothing visible sets it."""
    if box.is_visible():
        box.check()
        return True
    if box.is_checked() or not box.evaluate_all(LABEL_JS, MARK):
        return box.is_checked()
    page.locator(f"[{MARK}]").first.click()
    page.evaluate(f"() => document.querySelectorAll('[{MARK}]').forEach(e => e.removeAttribute('{MARK}'))")
    return bool(box.is_checked())


def empty_hidden(page: Any) -> list[str]:
    """The names of the page's required hidden fields still empty, in page order."""
    return page.evaluate("() => Array.from(document.querySelectorAll('input[type=hidden][required]'))"
                         ".filter(e => e.name && !e.value).map(e => e.name)")


# Each button's row: the first of its run of adjacent sibling buttons (text between them aside), one id per row.
ROWS_JS = """els => { const ids = new Map(); return els.map(e => { let f = e;
  for (let p = f.previousElementSibling; p && p.matches('button, crowd-button'); p = p.previousElementSibling) f = p;
  if (!ids.has(f)) ids.set(f, ids.size); return ids.get(f); }); }"""
LONE_CLICK = 0.4  # a lone button (show more, play) is clicked now and then
ROW_LEFT = {"rule_breaker": 0.5}  # a row of options left alone, as the profile leaves required fields empty


def first_clicks(rows: list[int], order: list[int], rng: random.Random, profile: str = "") -> list[int]:
    """The buttons (indexes, in ``order``) a person clicks before pressing Submit: one of each row of two or more
    adjacent buttons (a question's options: its first in the random ``order``), each lone button now and then."""
    first: dict[int, int] = {}
    for n in order:
        first.setdefault(rows[n], n)
    lone = {row for row in rows if rows.count(row) < 2}
    picked = [n for n in order if (rng.random() < LONE_CLICK if rows[n] in lone else
                                   first[rows[n]] == n and rng.random() >= ROW_LEFT.get(profile, 0.0))]
    return picked or order[:1]

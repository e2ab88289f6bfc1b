"""What a campaign's own page does in its scripts, as far as the simulated crowd must know: a page
whose script writes answer fields (hidden fields set on submit, a JSON answer) submits what no
form reader can guess, so its simulated workers work it in a real browser
(``flows/sim/pages/browser_worker.py``). Also: the CSP nonce for a page's own inline scripts and styles."""

from __future__ import annotations

import re

_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)(?![^>]*type\s*=\s*[\"']application/json)[^>]*>(.*?)"
                            r"</script\s*>", re.S | re.I)
# a DOM write (el.value = x, setAttribute("value", x)), jQuery's ($(el).val(x), .attr/.prop("value", x)), a JSON answer
_WRITES_FIELD = re.compile(r"\.value\s*=(?!=)|setAttribute\(\s*[\"']value[\"']|JSON\.stringify"
                           r"|\.val\(\s*[^)\s]|\.(?:attr|prop)\(\s*[\"']value[\"']\s*,")
_UNNONCED = re.compile(r"<(script(?![^>]*\bsrc\s*=)|style)\b(?![^>]*\bnonce\s*=)"
                       r"(?![^>]*type\s*=\s*[\"']application/json)", re.I)


def scripts_write_fields(source: str) -> bool:
    """True when an inline script of the page (a template's own text) writes a field's value."""
    return any(_WRITES_FIELD.search(code) for code in _INLINE_SCRIPT.findall(source or ""))


def sim_workers(setting: str, template_source: str) -> str:
    """"browser" or "form": the setting, or for "auto" what the template's own scripts need."""
    if setting != "auto":
        return setting
    return "browser" if scripts_write_fields(template_source) else "form"


def with_nonce(page: str, nonce: str) -> str:
    """Every inline ``<script>``/``<style>`` of a rendered page without a nonce gets the page's, so
    the task server's content security policy runs the page's own code (the template is the
    requester's; item values are escaped and cannot add tags)."""
    if not nonce:
        return page
    return _UNNONCED.sub(lambda m: f'{m.group(0)} nonce="{nonce}"', page)

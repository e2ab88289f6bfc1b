"""The tags an imported page is read by: answer controls, their names, scripts (``page_import``, ``submit_checks``)."""

from __future__ import annotations

import re

FIELD_TAG = re.compile(r"<(input|textarea|select|crowd-[a-z-]+)\b[^>]*>", re.I)  # crowd-*: MTurk's elements
NAME_ATTR = re.compile(r"""(\bname\s*=\s*)(?:(["'])(?P<quoted>.*?)\2|(?P<bare>[^\s>"']+))""", re.I | re.S)
SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script\s*>)", re.S | re.I)


def tag_name(tag: str) -> str:
    """A control tag's ``name`` as written ("" without one)."""
    n = NAME_ATTR.search(tag)
    return (n["quoted"] if n["quoted"] is not None else n["bare"]) if n else ""

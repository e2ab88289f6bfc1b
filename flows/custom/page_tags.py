"""The tags an imported page is read by: answer controls, their names, scripts (``page_import``, ``submit_checks``)."""

from __future__ import annotations

import re

FIELD_TAG = re.compile(r"<(input|textarea|select|crowd-[a-z-]+)\b[^>]*>", re.I)  # crowd-*: MTurk's elements
NAME_ATTR = re.compile(r"""(\bname\s*=\s*)(?:(["'])(?P<quoted>.*?)\2|(?P<bare>[^\s>"']+))""", re.I | re.S)
SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script\s*>)", re.S | re.I)

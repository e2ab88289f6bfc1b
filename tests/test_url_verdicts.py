"""``allowed_url`` tells a plain http(s) or scheme-less URL's scheme without ``urlparse``: its verdict (False where
urlparse raises) is the one the whole check gives, on generated URLs of the pieces that matter."""

from __future__ import annotations

import random
from urllib.parse import urlparse

from flows.core.pages.templates import C0_OR_SPACE, TAB_OR_NEWLINE, allowed_url

PIECES = ["h", "H", "http://", "https://", "HTTP://", " http://", "//", "\\", ":", "/", " ", "\t", "\n", "[", "]",
          "[::1]", "é", "\x00", "?", "#", "@", "javascript:", "a", ".", "ｈttp://"]


def urlparse_verdict(url: str) -> bool:
    try:
        scheme = urlparse(url).scheme.lower()
    except ValueError:
        return False  # a host urlparse refuses (a bracketed one that is no IP address) is refused, not raised
    start = url.lstrip(C0_OR_SPACE).translate(TAB_OR_NEWLINE)[:2].replace("\\", "/")
    return scheme in ("http", "https", "") and start != "//"


def test_allowed_url_gives_urlparses_verdict_on_generated_urls() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        url = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        assert allowed_url(url) == urlparse_verdict(url), repr(url)  # a raise fails here too

"""The fifth security round: every fetch and decode of ``hitflow new --from`` within one deadline. A ~300-byte
gzip reply whose first member inflates past 64 KiB, followed by a second member or by trailing bytes,
once hung forever (the leftover bytes were fed to the finished member again and again, and the
deadline was checked only between chunks); a page served in ``charset=nonexistent``, ``rot13``,
``base64`` or ``idna`` was a traceback; and the "30 s" deadline could run to about twice that, each
step having its own timeout. A loopback server on port 0 stands in for the page's site."""

from __future__ import annotations

import gzip
import threading
import time
import zlib
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.custom import page_fetch
from flows.custom.page_fetch import FetchRefused, allowed_networks, fetch_page, page_text
from tests.local_http import QuietHandler, local_http_server

LOOPBACK = allowed_networks(["127.0.0.1"])
FIRST = b"<html><body><p>${review_text}</p>" + b" " * 100_000  # inflates past 64 KiB from ~150 bytes
SECOND = b"<input name='ok'></body></html>"
BODIES = {  # path -> (Content-Encoding, body)
    "/two-members": ("gzip", gzip.compress(FIRST) + gzip.compress(SECOND)),
    "/trailing": ("gzip", gzip.compress(FIRST) + b"\0garbage after the member"),
    "/deflate-trailing": ("deflate", zlib.compress(FIRST) + b"trailing"),
    "/empty-members": ("gzip", gzip.compress(FIRST) + gzip.compress(b"") * 2000 + gzip.compress(SECOND)),
}
CHARSETS = ["nonexistent", "rot13", "base64", "idna", "unicode_escape", "utf-7", "undefined", "uu", "zlib",
            "hex", "bz2", "punycode", "\u00e9", "utf-8", "latin-1", "cp1252", ""]


class Site(QuietHandler):
    def do_GET(self) -> None:
        if self.path in BODIES:
            encoding, body = BODIES[self.path]
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path.startswith("/charset/"):
            charset = self.path[len("/charset/"):]
            self.reply("<p>café ${x}</p>".encode("latin-1"), f"text/html; charset={charset}")
        elif self.path == "/slow-steps":  # each step just inside a per-step timeout of the whole deadline
            time.sleep(1.2)
            self.send_response(200)
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.flush()
            time.sleep(1.2)
            self.wfile.write(b"<p>x</p>"[:4])


@pytest.fixture(scope="module")
def site() -> str:
    with local_http_server(Site) as url:
        yield url


def fetched_within(url: str, seconds: float) -> str:
    """``fetch_page(url)``, failing the test (not hanging it) when it takes longer than ``seconds``."""
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(fetch_page(url, LOOPBACK)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"{url} did not return within {seconds} s"
    return str(outcome[0])


@pytest.mark.parametrize("path", ["/two-members", "/empty-members"])
def test_every_gzip_member_is_read(site: str, path: str) -> None:
    assert len(BODIES[path][1]) < 50_000
    assert fetched_within(f"{site}{path}", 10) == (FIRST + SECOND).decode()


@pytest.mark.parametrize("path", ["/trailing", "/deflate-trailing"])
def test_bytes_after_the_last_member_are_ignored(site: str, path: str) -> None:
    assert fetched_within(f"{site}{path}", 10) == FIRST.decode()


@pytest.mark.parametrize("charset", CHARSETS)
def test_any_declared_charset_reads_as_text(site: str, charset: str) -> None:
    text = fetched_within(f"{site}/charset/{charset}", 10)
    latin = charset in ("latin-1", "cp1252")
    assert text == ("<p>café ${x}</p>" if latin else "<p>caf\ufffd ${x}</p>"), (charset, text)


def test_a_charset_no_page_is_in_is_utf8_with_replacement() -> None:
    assert page_text("caf\u00e9".encode(), "rot13") == "caf\u00e9"
    assert page_text(b"\xff ok", "idna") == "\ufffd ok"
    assert page_text(b"+AGA-", "utf-7") == "+AGA-"  # UTF-7 would have read it as a hidden backtick
    assert page_text("ü".encode("cp1252"), "windows-1252") == "ü"


def test_one_deadline_holds_when_each_step_keeps_within_its_own_timeout(
        site: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Headers 1.2 s late, the body 1.2 s later: each step is inside a 1.5 s timeout, the whole is not."""
    monkeypatch.setattr(page_fetch, "FETCH_DEADLINE_S", 1.5)
    started = time.monotonic()
    with pytest.raises(FetchRefused, match="took more than 2 s"):
        fetch_page(f"{site}/slow-steps", LOOPBACK)
    assert time.monotonic() - started < 1.5 + 0.5


def test_new_from_a_page_in_an_unknown_charset_imports_it(site: str, tmp_path: Path, capsys) -> None:
    wrapper = tmp_path / "external.xml"
    wrapper.write_text(f"<ExternalQuestion><ExternalURL>{site}/charset/nonexistent</ExternalURL></ExternalQuestion>")
    # imported (exit 1 only where the page has no field a worker answers: written, said not ready)
    code = main(["new", "odd", "--from", str(wrapper), "--dir", str(tmp_path), "--allow-address", "127.0.0.1"])
    said = capsys.readouterr()
    assert code == 0 or (code == 1 and "not ready" in said.out + said.err)
    assert "Traceback" not in said.err
    assert "caf\ufffd" in (tmp_path / "config" / "odd.html.j2").read_text(encoding="utf-8")

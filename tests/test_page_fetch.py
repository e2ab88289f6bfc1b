"""The fourth security round: `hitflow new --from` fetches an ExternalQuestion's page only from where the user
asked: http(s), public addresses (after DNS and after every redirect) unless --allow-address names
them, at most the 16 MiB page limit before and after decompression, within one deadline. Loopback
servers on port 0 stand in for the network's inside (and, with the flag, for a public site)."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.custom import page_fetch
from flows.custom.page_fetch import MAX_PAGE_BYTES, FetchRefused, allowed_networks, fetch_page
from tests.local_http import QuietHandler, local_http_server

PAGE = b"<html><body><p>${review_text}</p><input name='ok'></body></html>"
LOOPBACK = allowed_networks(["127.0.0.1"])


class Site(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/page":
            self.reply(PAGE, "text/html; charset=utf-8")
        elif self.path.startswith("/to/"):  # a redirect to wherever the path names
            self.send_response(302)
            self.send_header("Location", self.path[len("/to/"):])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/big":  # over the page limit, with no Content-Length to warn of it
            self.send_response(200)
            self.end_headers()
            block = b"a" * 2**20
            for _ in range(MAX_PAGE_BYTES // len(block) + 2):
                self.wfile.write(block)
        elif self.path == "/bomb":  # 20 KB on the wire, 20 MiB once decompressed
            body = gzip.compress(b"\0" * (MAX_PAGE_BYTES + 4 * 2**20))
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/drip":  # a byte at a time, never ending within the deadline
            self.send_response(200)
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b"a")
                self.wfile.flush()
                time.sleep(0.2)


@pytest.fixture(scope="module")
def site() -> str:
    with local_http_server(Site) as url:
        yield url


def wrapper(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "external.xml"
    path.write_text(f"<ExternalQuestion><ExternalURL>{url}</ExternalURL></ExternalQuestion>")
    return path


def test_a_loopback_page_is_refused_unless_the_flag_names_it(site: str, tmp_path: Path, capsys) -> None:
    port = site.rsplit(":", 1)[1]
    for url in (f"{site}/page", f"http://0x7f000001:{port}/page", f"http://[::ffff:127.0.0.1]:{port}/page"):
        assert main(["new", "inside", "--from", str(wrapper(tmp_path, url)), "--dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert "loopback" in err and "--allow-address" in err and "Traceback" not in err
        assert not (tmp_path / "config" / "inside.html.j2").exists()
    assert main(["new", "asked", "--from", str(wrapper(tmp_path, f"{site}/page")), "--dir", str(tmp_path),
                 "--allow-address", "127.0.0.1"]) == 0
    assert "review_text" in (tmp_path / "config" / "asked.html.j2").read_text()


@pytest.mark.parametrize("inside", ["http://10.1.2.3/x", "http://169.254.169.254/latest/meta-data/",
                                    "http://127.0.0.2:9/x", "http://0.0.0.0:9/x",
                                    "http://[::1]:9/x", "http://[::ffff:10.0.0.1]:9/x"])
def test_a_redirect_into_the_network_is_refused(site: str, inside: str) -> None:
    with pytest.raises(FetchRefused, match="private, loopback or link-local"):
        fetch_page(f"{site}/to/{inside}", LOOPBACK)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "gopher://127.0.0.1/x", "http:///x"])
def test_only_http_and_https_are_fetched(url: str) -> None:
    with pytest.raises(FetchRefused, match="only http and https"):
        fetch_page(url, LOOPBACK)


def test_a_body_over_the_page_limit_is_refused_before_and_after_decompression(site: str) -> None:
    with pytest.raises(FetchRefused, match="over the 16 MiB page limit"):
        fetch_page(f"{site}/big", LOOPBACK)
    with pytest.raises(FetchRefused, match="decompresses to more than the 16 MiB"):
        fetch_page(f"{site}/bomb", LOOPBACK)
    assert fetch_page(f"{site}/to//page", LOOPBACK) == PAGE.decode()  # a redirect within what was allowed


def test_one_deadline_covers_a_body_sent_a_byte_at_a_time(site: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page_fetch, "FETCH_DEADLINE_S", 1.5)
    started = time.monotonic()
    with pytest.raises(FetchRefused, match="took more than"):
        fetch_page(f"{site}/drip", LOOPBACK)
    assert time.monotonic() - started < 5


def test_a_bad_allow_address_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["new", "x", "--from", str(wrapper(tmp_path, "http://example.org/")), "--dir", str(tmp_path),
                 "--allow-address", "not-an-address"]) == 2
    assert "--allow-address" in capsys.readouterr().err

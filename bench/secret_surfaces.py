"""The surfaces of the fourth security round, counted for ``make bench-security``: URLs that carry a secret (ledger and
output), ``hitflow new --from``'s fetch, template expressions, and a hostile Prolific server. Each gets
the issue's own inputs and generated variants (hypothesis); every count but ``tried`` should be 0.
Loopback only, sentinel secrets. The template surface runs in a child process under a 2 GiB address
space limit, so a limit that failed would be counted, not eat the machine.
"""

from __future__ import annotations

import gzip
import multiprocessing
import os
import resource
import tempfile
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SECRET = "Zq8sentinelPW"
RUNS = settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
PASSWORDS = st.text(st.sampled_from("abcXYZ019@/?#:%&=+ '\\!$"), max_size=6).map(lambda t: SECRET + t)
LEDGER_FORMS = [
    "postgresql://hf:{pw}@127.0.0.1:1/hfdb", "postgres://hf:{pw}@127.0.0.1:1/hfdb",
    "postgresql+psycopg://hf:{pw}@127.0.0.1:1/hfdb", "postgresql+psycopg2://hf:{pw}@127.0.0.1:1/hfdb",
    "  postgresql://hf:{pw}@127.0.0.1:1/hfdb ", "postgresql://hf@127.0.0.1:1/hfdb?password={pw}",
    "postgresql://hf@127.0.0.1:1/hfdb?sslmode=disable&password={pw}", "postgresql://hf:{pw}@127.0.0.1:notaport/db",
    "postgresql://hf:{pw}@[::1/hfdb", "host=127.0.0.1 port=1 dbname=hfdb user=hf password={pw}",
    "host=127.0.0.1 port=1 password='{pw}' dbname=hfdb", "POSTGRESQL://hf:{pw}@127.0.0.1:1/hfdb?bogus=1",
]
OUTPUT_FORMS = [
    "memory://u:{pw}@/runs", "simplecache::memory://u:{pw}@/runs", "memory:///runs?token={pw}",
    "memory:///runs?sig={pw}&sv=1", "file:///tmp/runs?X-Amz-Signature={pw}", " memory://u:{pw}@/runs",
    "filecache::file://u:{pw}@/tmp/runs",
]


def _ledger_one(typed: str, count: Counter[str]) -> None:
    from flows.core.db_url import deployable_ledger, is_postgres_url, password_to_environment, shown_location
    from flows.core.errors import ConfigError
    from flows.core.ledger.store import Store

    count["tried"] += 1
    os.environ.pop("PGPASSWORD", None)
    if not is_postgres_url(typed):
        count["wrongly_accepted"] += 1  # taken for an SQLite path: a file named after the secret
        return
    shown = [password_to_environment(typed), shown_location(typed)]
    try:
        deployable_ledger(typed)
        count["wrongly_accepted"] += 1  # Prefect would store it
    except ConfigError as exc:
        shown.append(str(exc))
    try:
        Store(typed)
        count["wrongly_accepted"] += 1
    except ConfigError as exc:
        shown.append(str(exc))
    except Exception as exc:
        count["tracebacks"] += 1
        shown.append(str(exc))
    count["secrets_leaked"] += any(SECRET in text for text in shown)


def _output_one(typed: str, count: Counter[str]) -> None:
    from flows.core.errors import ConfigError
    from flows.core.outputs.output_location import (
        credentials_to_fsspec,
        deployable_locations,
        is_output_url,
        shown_output,
        staging_root,
        stored_output,
    )

    count["tried"] += 1
    if not is_output_url(typed):
        count["wrongly_accepted"] += 1
        return
    try:
        shown = [credentials_to_fsspec(typed), shown_output(typed), str(staging_root(typed)), stored_output(typed)]
        try:
            deployable_locations("h.db", typed)
            count["wrongly_accepted"] += 1
        except ConfigError as exc:
            shown.append(str(exc))
    except ConfigError as exc:  # refused (an unescaped '/' in the user part): the message must not show it
        shown = [str(exc)]
    count["secrets_leaked"] += any(SECRET in text for text in shown)


def secret_urls(examples: int = 150) -> Counter[str]:
    count: Counter[str] = Counter()
    for form in LEDGER_FORMS:
        _ledger_one(form.format(pw=SECRET + "x"), count)
    for form in OUTPUT_FORMS:
        _output_one(form.format(pw=SECRET + "x"), count)

    @settings(RUNS, max_examples=examples)
    @given(st.sampled_from(LEDGER_FORMS + OUTPUT_FORMS), PASSWORDS)
    def generated(form: str, password: str) -> None:
        (_ledger_one if form in LEDGER_FORMS else _output_one)(form.format(pw=password), count)

    generated()
    return count


class _Site(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/to/"):
            self.send_response(302)
            self.send_header("Location", self.path[4:])
            self.end_headers()
            return
        body = {"/big": b"a" * (17 * 2**20), "/bomb": gzip.compress(b"\0" * (64 * 2**20))}.get(self.path, b"<p>x</p>")
        self.send_response(200)
        if self.path == "/bomb":
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        try:
            for _ in range(40 if self.path == "/drip" else 0):
                self.wfile.write(b"a")
                self.wfile.flush()
                time.sleep(0.1)
            self.wfile.write(body)
        except OSError:  # the fetch gave up, as it should
            pass

    def log_message(self, *args: object) -> None:
        pass


INSIDE = ["127.0.0.1", "127.1.2.3", "0x7f000001", "2130706433", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0",
          "localhost", "10.0.0.1", "192.168.1.1", "172.16.0.1", "169.254.169.254", "100.64.0.1", "[fe80::1]"]


def page_fetch(examples: int = 100) -> Counter[str]:
    """``new --from``'s fetch: every inside address directly and through a redirect, other schemes, a body
    over 16 MiB, a gzip bomb and a drip: each must be refused in one line (FetchRefused)."""
    from flows.custom import page_fetch as fetch
    from tests.local_http import local_http_server

    count: Counter[str] = Counter()
    fetch.FETCH_DEADLINE_S = 2.0  # the drip then costs 2 s, not 30

    def one(url: str, allowed: tuple[fetch.Network, ...] = ()) -> None:
        count["tried"] += 1
        try:
            fetch.fetch_page(url, allowed)
            count["wrongly_accepted"] += 1
        except fetch.FetchRefused as exc:
            count["tracebacks"] += "\n" in str(exc)
        except Exception:
            count["tracebacks"] += 1

    with local_http_server(_Site) as site:
        port = site.rsplit(":", 1)[1]
        mine = fetch.allowed_networks(["127.0.0.1"])
        for host in INSIDE:
            one(f"http://{host}:{port}/page")
            if host not in ("127.0.0.1", "0x7f000001", "2130706433", "localhost"):  # not the allowed 127.0.0.1
                one(f"{site}/to/http://{host}:{port}/page", mine)
        for path in ("/big", "/bomb", "/drip"):
            one(f"{site}{path}", mine)

        @settings(RUNS, max_examples=examples)
        @given(st.sampled_from(["file", "ftp", "gopher", "data", "javascript", "dict", "ws", "jar", ""]),
               st.text(st.sampled_from("ab/:@.%?#"), max_size=12))
        def schemes(scheme: str, rest: str) -> None:
            one(f"{scheme}:{rest}", mine)

        schemes()
    return count


TEMPLATES = [
    "{{ 'a'*10**9 }}", "{{ ''.join(['a']*10**8) }}", "{{ 'x'|center(10**9) }}", "{{ lipsum(10**6) }}",
    "{{ 'x'.ljust(10**9) }}", "{{ 'x'.zfill(10**9) }}", "{{ '{:>999999999}'.format(1) }}", "{{ '%0999999999d' % 1 }}",
    "{{ 9**999999 }}", "{{ 2**(10**8) }}", "{{ range(10**9)|list }}", "{{ [0]|batch(10**9, 0)|list }}",
    "{{ 'x'|indent(10**9) }}", "{{ ('a'*999999)|replace('a', 'aaaaaaaaaa') }}", "{{ [1]|slice(10**9)|list }}",
    "{% set ns = namespace(x='ab') %}{% for i in range(40) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x }}",
    "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "{% for i in range(99999) %}{% for j in range(99999) %}{{ 'abcdefghij' * 99 }}{% endfor %}{% endfor %}",
    "{% for c in 'a'*999999 %}{% for d in 'a'*999999 %}{% endfor %}{% endfor %}",
    # the fifth security round (round five): spellings that got past the fourth security round's checks
    "{{ ('\t'*999999).expandtabs(2000)|length }}", "{{ ('{0}'*2000).format('a'*999999)|length }}",
    "{% set s = 'a'*999999 %}{{ (s ~ s ~ s ~ s ~ s ~ s ~ s ~ s)|length }}",
    "{% set s = 'a'*999999 %}{{ (s + s + s)|length }}",
    "{{ ('a'*999999).replace('', 'bb')|length }}", "{{ ('a'*999999).translate({97: 'b'*2000})|length }}",
    "{{ [[[['x']*100]*100]*100]|tojson|length }}", "{{ ([[1]*999]*999)|sum(start=[])|length }}",
    "{{ ('%(a)s'*2000 % {'a': 'x'*999999})|length }}", "{{ ('%(a)s'*2000)|format(a='x'*999999)|length }}",
]
SIZES = st.sampled_from(["10**7", "10**8", "10**9", "99999999", "2**30"])
SHAPES = st.sampled_from(["{{ 'ab' * N }}", "{{ ['a'] * N }}", "{{ 'x'|center(N) }}", "{{ 'x'.rjust(N) }}",
                          "{{ lipsum(N) }}", "{{ range(N)|length }}", "{{ 7 ** (N) }}", "{{ '%*d' % (N, 1) }}",
                          "{{ '{:>{w}}'.format(1, w=N) }}", "{{ [1]|batch(N, 0)|list }}"])


def _templates_child(examples: int, out: multiprocessing.connection.Connection) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
    from flows.core.errors import ConfigError
    from flows.core.pages import template_limits
    from flows.core.pages.templates import render_source

    template_limits.RENDER_DEADLINE_S = 3.0
    count: Counter[str] = Counter()

    def one(source: str) -> None:
        count["tried"] += 1
        start = time.monotonic()
        try:
            render_source(source, "page.html.j2", {})
            count["wrongly_accepted"] += 1
        except ConfigError as exc:
            count["tracebacks"] += "\n" in str(exc)
        except BaseException:
            count["tracebacks"] += 1
        count["slowest_ms"] = max(count["slowest_ms"], int((time.monotonic() - start) * 1000))

    for source in TEMPLATES:
        one(source)

    @settings(RUNS, max_examples=examples)
    @given(SHAPES, SIZES)
    def generated(shape: str, size: str) -> None:
        one(shape.replace("N", size))

    generated()
    count["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    out.send(dict(count))


def templates(examples: int = 100) -> Counter[str]:
    reader, writer = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_templates_child, args=(examples, writer))
    child.start()
    got = reader.recv() if reader.poll(600) else {"tried": len(TEMPLATES), "tracebacks": 1}
    child.join(10)
    return Counter(got)


def imported_templates() -> Counter[str]:
    """The issue's expressions in a Jinja page brought in by ``hitflow new --from --keep-jinja`` (without
    it they are kept as text): refused at import."""
    import contextlib
    import io

    from flows.cli.main import main

    count: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i, expression in enumerate(TEMPLATES[:15]):
            page = Path(tmp) / f"p{i}.html"
            page.write_text(f"<p>{{{{ item.text }}}}</p>\n<input name='a'>\n{expression}\n")
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(["new", f"p{i}", "--from", str(page), "--dir", tmp, "--keep-jinja"])
            count["tried"] += 1
            count["wrongly_accepted"] += code == 0
            count["tracebacks"] += "Traceback" in err.getvalue() or code not in (0, 2)
    return count


def prolific_server(examples: int = 200) -> Counter[str]:
    """The Prolific client against a hostile server (tests/test_prolific_hostile_server.py's): paging to
    itself or through empty pages, deep JSON, escapes in an error, a reply sent a byte at a time; and
    generated server ids, which must be plain before they go into a URL."""
    import re

    from flows.core.errors import PlatformError
    from flows.platforms.prolific import adapter as prolific
    from flows.platforms.prolific import paging
    from flows.platforms.retry_policy import RetryPolicy
    from tests.local_http import local_http_server
    from tests.test_prolific_hostile_server import Hostile

    count: Counter[str] = Counter()
    paging.CALL_DEADLINE_S = 1.0
    with local_http_server(Hostile) as url:
        client = prolific.make_client(url, simulator=True)
        client.retry = RetryPolicy(attempts=1)
        calls = [lambda: prolific.every_page(client, "loop/"), lambda: prolific.every_page(client, "empty/"),
                 lambda: prolific.call(client, "GET", "deep/"), lambda: prolific.call(client, "GET", "nested/"),
                 lambda: prolific.call(client, "GET", "escape/"), lambda: prolific.call(client, "GET", "slow/"),
                 lambda: prolific.create_study(client, {})]
        for action in calls:
            Hostile.hits.clear()
            count["tried"] += 1
            try:
                action()
                count["wrongly_accepted"] += 1
            except PlatformError as exc:
                count["tracebacks"] += bool(re.search(r"[\x00-\x1f\x7f-\x9f]", str(exc)))  # raw escapes shown
                count["secrets_leaked"] += prolific.SIM_TOKEN in str(exc)
            except Exception:
                count["tracebacks"] += 1
            count["wrongly_accepted"] += len(Hostile.hits) > 3  # paging that went on

    @settings(RUNS, max_examples=examples)
    @given(st.text(st.sampled_from("ab1_-./\\?#%\x1b\r\n\u202e "), min_size=1, max_size=10))
    def ids(value: str) -> None:
        count["tried"] += 1
        try:
            paging.path_id(value, "GET x/")
            count["wrongly_accepted"] += not re.fullmatch(r"[A-Za-z0-9_.~-]+", value) or value in (".", "..")
        except PlatformError as exc:
            count["tracebacks"] += bool(re.search(r"[\x00-\x1f\x7f-\x9f]", str(exc)))

    ids()
    return count


def issue41_counts() -> dict[str, Counter[str]]:
    return {"secret_urls": secret_urls(), "new_from_fetch": page_fetch(), "template_expressions": templates(),
            "imported_templates": imported_templates(), "prolific_hostile_server": prolific_server()}

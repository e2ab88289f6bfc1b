"""Hostile inputs per surface, counted for ``make bench-security``.

Each surface gets generated inputs (hypothesis, the same strategies as the tests) and known
attacks; every count but ``tried`` should be 0: tracebacks shown, HTTP 500s, secrets that left
(the token in a message, a request off the API host) and inputs wrongly accepted.
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TOKEN = "benchSecretToken0123456789"
RUNS = settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def review_page(examples: int = 150) -> Counter[str]:
    """Generated decision forms POSTed to a signed-in review page over a campaign that waits."""
    from flows.core.ledger.store import Store
    from flows.driver.review_demo import sign_in
    from flows.sim.service.server import SimServer
    from tests.review_helpers import form_fields, review_config, review_server, run_until_review
    from tests.test_review_inputs import FIELDS, HOSTILE_TEXT

    count: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp, SimServer(seed=2) as sim:
        db, config = Path(tmp) / "h.db", review_config(Path(tmp))
        run_until_review(config, sim.url, db, Path(tmp))
        with review_server(db, "vizwiz_captions", reviewer="bench") as (server, site):
            login = site.login_token  # one use: it must never come back in a reply
            web = sign_in(f"{server.url}/?token={login}")
            base = form_fields(web.get("/").text, "bonus")

            @settings(RUNS, max_examples=examples)
            @given(st.dictionaries(st.sampled_from(FIELDS), HOSTILE_TEXT, max_size=len(FIELDS)))
            def post(form: dict[str, str]) -> None:
                answer = web.post("/decide", data={**base, **form})
                count["tried"] += 1
                count["tracebacks"] += "Traceback" in answer.text
                count["http_500"] += answer.status_code >= 500
                count["secrets_leaked"] += login in answer.text or login in answer.headers.get("location", "")

            post()
        amounts = [r["amount"] for r in Store(db).rows("SELECT amount FROM review_actions WHERE action = 'bonus'")]
        count["wrongly_accepted"] += sum(not re.fullmatch(r"[0-9]+\.[0-9]{2}", a) for a in amounts)
    return count


def prolific_replies(examples: int = 300) -> Counter[str]:
    """Generated reply sequences read by the Prolific adapter's paging (``submissions``), and generated
    malformed 200 replies to every call that reads single fields (create_study, balance, ...)."""
    import os

    from flows.core.errors import ConfigError, PlatformError
    from flows.platforms.prolific import adapter as prolific
    from tests.test_prolific_replies import FIELD_REPLIES, REPLIES, SINGLE_FIELD_CALLS, client_answering

    count: Counter[str] = Counter()
    os.environ["PROLIFIC_TOKEN"] = TOKEN

    @settings(RUNS, max_examples=examples)
    @given(st.lists(REPLIES, min_size=1, max_size=4))
    def read(replies: list[tuple[int, bytes]]) -> None:
        seen: list[httpx.Request] = []
        count["tried"] += 1
        try:
            got: Any = prolific.submissions(client_answering(replies, seen), "s")
            count["wrongly_accepted"] += not (isinstance(got, list) and all(isinstance(r, dict) for r in got))
        except PlatformError as exc:
            count["secrets_leaked"] += TOKEN in str(exc)
        except Exception:  # what is counted: anything but the one-line error
            count["tracebacks"] += 1
        count["secrets_leaked"] += any(r.url.host != "api.prolific.test" for r in seen)

    read()

    @settings(RUNS, max_examples=examples)
    @given(st.sampled_from(sorted(SINGLE_FIELD_CALLS)), st.lists(FIELD_REPLIES, min_size=1, max_size=3))
    def read_field(name: str, replies: list[tuple[int, bytes]]) -> None:
        action, kind = SINGLE_FIELD_CALLS[name]
        count["tried"] += 1
        try:
            count["wrongly_accepted"] += not isinstance(action(client_answering(replies, [])), kind)
        except (PlatformError, ConfigError) as exc:
            count["secrets_leaked"] += TOKEN in str(exc)
            count["tracebacks"] += "\n" in str(exc)
        except Exception:  # a KeyError, TypeError... out of a reply that lacked a field
            count["tracebacks"] += 1

    read_field()
    return count


def simulator_control() -> Counter[str]:
    """Every control route x Host x Content-Type: only loopback-or-IP Hosts with JSON may act."""
    from flows.sim.service.server import SimServer

    count: Counter[str] = Counter()
    hosts = ["attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io", "", "[::1", "localhost"]
    types = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "", "application/json"]
    with SimServer(seed=1) as sim:
        for host in hosts:
            for route in ("/_sim/clock", "/_sim/faults", "/_sim/workers"):
                for ctype in types:
                    method = "GET" if route == "/_sim/workers" else "POST"
                    answer = httpx.request(method, sim.url + route, content=b'{"advance_seconds": 1}',
                                           headers={"Host": host, "Content-Type": ctype})
                    count["tried"] += 1
                    count["http_500"] += answer.status_code >= 500
                    allowed = host == "localhost" and (method == "GET" or ctype == "application/json")
                    count["wrongly_accepted"] += answer.status_code == 200 and not allowed
    return count


def config_paths() -> Counter[str]:
    """Config path keys pointing out of the config's folder: ../, absolute, symlinked."""
    from flows.core.config.config import load_config
    from flows.core.errors import ConfigError
    from flows.custom.scaffold import scaffold

    count: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scaffold("demo", root)
        secret = root / "home" / "credentials"
        secret.parent.mkdir()
        secret.write_text("aws_secret_access_key = x\n")
        (root / "config" / "link.html.j2").symlink_to(secret)
        config = root / "config" / "demo.toml"
        original = config.read_text()
        for key in ("template", "items"):
            for value in ("../home/credentials", str(secret), "link.html.j2", "./../home/credentials"):
                lines = [f'{key} = "{value}"' if line.startswith(f"{key} = ") else line
                         for line in original.splitlines()]
                config.write_text("\n".join(lines) + "\n")
                count["tried"] += 1
                try:
                    load_config(config)
                    count["wrongly_accepted"] += 1
                except ConfigError as exc:
                    count["tracebacks"] += "\n" in str(exc)
    return count


def page_import(examples: int = 300) -> Counter[str]:
    """``hitflow new NAME --from PAGE`` on generated hostile pages (and answer keys) and every huge or
    deep page of tests/test_page_import_hostile.py: exit 0 with files written, or 2 with nothing."""
    import time

    from tests.test_page_import_hostile import BIG_PAGES, PAGES, import_page

    count: Counter[str] = Counter()

    def one(page: bytes, key: bytes | None) -> None:
        start = time.perf_counter()
        code, printed, written = import_page(page, key)
        count["slowest_ms"] = max(count["slowest_ms"], int((time.perf_counter() - start) * 1000))
        count["tried"] += 1
        count["tracebacks"] += "Traceback" in printed or code not in (0, 2)
        count["wrongly_accepted"] += (code == 0) != bool(written)  # "written" and "refused" at once
        count["exit_0"] += code == 0

    @settings(RUNS, max_examples=examples)
    @given(PAGES, st.none() | PAGES)
    def generated(page: bytes, key: bytes | None) -> None:
        one(page, key)

    generated()
    for page in BIG_PAGES:
        one(page.encode(), None)
    return count


def surface_counts() -> dict[str, dict[str, int]]:
    """Per surface: the five counts (every one but ``tried`` should be 0), then any figure of its own."""
    keys = ("tried", "tracebacks", "http_500", "secrets_leaked", "wrongly_accepted")
    surfaces = {"review_page": review_page, "prolific_replies": prolific_replies,
                "simulator_control_routes": simulator_control, "config_paths": config_paths,
                "page_import": page_import}
    counts = {name: run() for name, run in surfaces.items()}
    from bench.secret_surfaces import issue41_counts

    counts.update(issue41_counts())  # secret URLs, new --from's fetch, templates, a hostile Prolific
    return {name: {**{k: int(c[k]) for k in keys}, **{k: int(v) for k, v in c.items() if k not in keys}}
            for name, c in counts.items()}


if __name__ == "__main__":
    import json

    print(json.dumps(surface_counts(), indent=1))

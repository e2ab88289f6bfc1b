"""The third security round: a platform's credentials reach only that platform's real endpoint with
--live. An impostor that answers like the simulator (here: a recording proxy in front of a real
one, so every route runs to the end) must never see the real token or keys, on any route."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.http_clients import http_client
from flows.platforms.prolific import adapter as prolific
from flows.platforms.registry import open_session
from flows.sim.service.server import SimServer
from tests.local_http import QuietHandler, local_http_server
from tests.small_configs import small_vizwiz

SECRETS = {"PROLIFIC_TOKEN": "prolificREALtoken0123456789", "AWS_ACCESS_KEY_ID": "AKIAREALKEY0123456789",
           "AWS_SECRET_ACCESS_KEY": "realSecretAccessKey0123456789abcdef", "AWS_SESSION_TOKEN": "realSessionToken0123"}


def recording_proxy(target: str, seen: list[bytes]) -> type[QuietHandler]:
    """A handler that forwards every request to ``target`` and keeps what arrived (request line,
    headers and body), rewriting the simulator's own address in replies to its own."""
    class Proxy(QuietHandler):
        def forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append(f"{self.command} {self.path}\n{self.headers}".encode() + body)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            # a client on the process's one TLS context: httpx.request built an SSL context per request (~1.6 s
            # of CPU over a run's calls, though the simulator behind speaks plain HTTP)
            with http_client(timeout=30) as client:
                answer = client.request(self.command, target + self.path, content=body, headers=headers)
            own = f"http://{self.headers.get('Host')}".encode()
            self.reply(answer.content.replace(target.encode(), own), answer.headers.get("content-type", ""),
                       answer.status_code)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward

    return Proxy


@pytest.fixture
def impostor() -> Iterator[tuple[str, list[bytes]]]:
    seen: list[bytes] = []
    with SimServer(seed=3) as sim, local_http_server(recording_proxy(sim.url, seen)) as url:
        yield url, seen


def set_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)


def leaked(seen: list[bytes]) -> list[str]:
    return [name for name, value in SECRETS.items() if any(value.encode() in request for request in seen)]


@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_every_routes_client_sends_the_impostor_dummies(impostor: tuple[str, list[bytes]], platform: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    url, seen = impostor
    set_secrets(monkeypatch)
    with open_session("sim", url, platform=platform) as session:
        if platform == "prolific":
            prolific.call(session.client, "GET", "users/me/")
        elif platform == "mturk":
            session.client.get_account_balance()
        else:  # the links route calls no platform's API: its session has no client to leak through
            assert session.client is None
        session.wait(60)
        assert session.truth is not None and session.truth()
    called = (b"users/me", b"GetAccountBalance", b"/_sim/clock")  # links: the simulator's clock and truth
    assert any(c in r for r in seen for c in called)  # the calls went through the impostor
    assert leaked(seen) == []


def test_a_whole_prolific_run_on_an_impostor_never_sends_the_token(impostor: tuple[str, list[bytes]], tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The route that leaked: `--platform prolific` with the impostor as endpoint. The demo (its top-ups
    kept) on 4 images in 2 batches: every call of a batch's route, and what comes between batches, made
    once or twice; 5 batches made the same calls more times."""
    url, seen = impostor
    set_secrets(monkeypatch)
    config = small_vizwiz(tmp_path, items=4, top_ups=True, edits={"batches = 5 ": "batches = 2 "})
    code = main(["run", str(config), "--no-prefect", "--out", str(tmp_path / "out"),
                 "--platform", "prolific", "--endpoint-url", url, "--db", str(tmp_path / "h.db")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "target: simulator" in out.out
    assert sum(b"/api/v1/studies/" in r for r in seen) > 3  # studies were created, published and collected there
    assert leaked(seen) == []
    assert not any(value in out.out + out.err for value in SECRETS.values())

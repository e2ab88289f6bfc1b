"""Prolific participants let in by one API call or clock move: a page worked in Chromium (its own script writes
an answer) takes real time, so only a few such visits start in one call and the rest arrive at the next calls;
a form-worked page's participants all arrive at once, as before. Before, every participant due in one clock
move worked their page inside it and a long first page outlasted the client's wait."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from flows.platforms.prolific.adapter import SIM_TOKEN
from flows.sim.service.server import SimServer

PLACEHOLDERS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"


def page(browser: bool) -> bytes:
    """A one-question page whose script writes a hidden field on submit; ``browser``: it asks for browser workers."""
    mark = ' data-sim-workers="browser"' if browser else ""
    return (f'<html><body><form id="f" method="post" action="/done"{mark}><input type="hidden" name="checked">'
            '<textarea name="answer" required></textarea><button type="submit">Submit</button></form><script>'
            "document.getElementById('f').addEventListener('submit', () => {"
            " document.querySelector('[name=checked]').value = 'yes'; });</script></body></html>").encode()


@pytest.fixture
def site() -> Iterator[dict[str, str]]:
    """A requester's own server: /browser and /form show the page, /done sends back to Prolific with a code."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = page(self.path.startswith("/browser"))
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(302)
            self.send_header("Location", "https://app.prolific.com/submissions/complete?cc=C0DE")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        yield {"browser": f"{url}/browser?{PLACEHOLDERS}", "form": f"{url}/form?{PLACEHOLDERS}"}
    finally:
        httpd.shutdown()
        httpd.server_close()


def arrivals(url: str, calls: int, places: int = 3) -> list[int]:
    """Submissions on a study of ``places`` at ``url`` after each of ``calls`` API calls once it is published."""
    with SimServer(seed=3) as sim:
        api = httpx.Client(base_url=f"{sim.url}/api/v1/", headers={"Authorization": f"Token {SIM_TOKEN}"},
                           timeout=120)
        body = {"name": "One question", "description": "One question", "prolific_id_option": "url_parameters",
                "external_study_url": url, "completion_codes": [{"code": "C0DE", "code_type": "COMPLETED"}],
                "total_available_places": places, "estimated_completion_time": 2, "maximum_allowed_time": 30,
                "reward": 50, "device_compatibility": ["desktop"]}
        study = api.post("studies/", json=body).json()["id"]
        assert api.post(f"studies/{study}/transition/", json={"action": "PUBLISH"}).json()["status"] == "ACTIVE"
        return [len(api.get(f"studies/{study}/submissions/").json()["results"]) for _ in range(calls)]


def test_a_form_worked_study_lets_every_participant_in_at_once(site: dict[str, str]) -> None:
    assert arrivals(site["form"], 2) == [3, 3]


@pytest.mark.browser
@pytest.mark.timeout(300, method="signal")
def test_a_browser_worked_study_lets_one_participant_in_a_call(site: dict[str, str]) -> None:
    from flows.sim.pages.browser_check import missing

    if missing():
        pytest.skip(f"browser workers cannot run here: {missing()}")
    seen = arrivals(site["browser"], 4)
    assert seen == [1, 2, 3, 3], seen

"""The simulator as a real HTTP server on loopback, speaking MTurk's wire protocol."""

from __future__ import annotations

import json
import socket
import threading
from decimal import Decimal
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from flows.core.run.malloc_arenas import limit_malloc_arenas
from flows.sim.mturk import mturk_hit_extras, mturk_notifications, mturk_quals, mturk_workers  # noqa: F401
from flows.sim.mturk.market import Marketplace, MTurkError
from flows.sim.mturk.mturk_api import OPERATIONS
from flows.sim.mturk.worker_pages import BadRequest, WorkerPages
from flows.sim.people import crowd
from flows.sim.people.crowd_keys import DEFAULT_CROWD
from flows.sim.prolific import prolific_api
from flows.sim.prolific.prolific_people import Participants
from flows.sim.prolific.prolific_state import ProlificState
from flows.sim.service.control_routes import check_control, control_body, identity, prove, public, take_known
from flows.sim.service.kept_alive import CountedConnection, KeptAlive
from flows.sim.service.market_store import MarketStore
from flows.sim.service.pacing import Pacing
from flows.sim.service.wall_clock import ClockPump

TARGET_PREFIX = "MTurkRequesterServiceV20170117."
SERVICE_ID = "hitflow-simulator"  # what GET /_sim/health says, so a run can tell it from a real endpoint
AMZ_JSON = "application/x-amz-json-1.1"  # MTurk's JSON 1.1 wire protocol
THROTTLED = {"__type": "ThrottlingException", "message": "Rate exceeded"}
MAX_BODY = 16 * 1024 * 1024  # above MTurk's 64 KB Question and any Prolific body hitflow sends


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(type(value).__name__)


class _Handler(CountedConnection, WorkerPages):
    server: _SimHTTPServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle's algorithm and delayed ACKs add ~40 ms a call
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, payload: Any, ctype: str = "application/json") -> None:
        self._send(status, json.dumps(payload, default=_json_default).encode(), ctype)

    def _body(self) -> bytes:
        """The request body, refusing a missing, malformed, negative or oversized Content-Length."""
        raw = self.headers.get("Content-Length")
        if raw is None:
            raise BadRequest(411, "Content-Length is required (chunked bodies are not accepted)")
        if not (raw.strip().isascii() and raw.strip().isdigit()):  # "²".isdigit() too
            raise BadRequest(400, f"Content-Length must be a non-negative integer, not {raw[:40]!r}")
        length = int(raw)
        if length > MAX_BODY:
            raise BadRequest(413, f"request body of {length} bytes is over the {MAX_BODY}-byte limit")
        return self.rfile.read(length)

    def _refuse(self, err: BadRequest) -> None:
        self.close_connection = True  # the unread body would be taken for the next request
        if urlparse(self.path).path.startswith("/api/v1/"):
            return self._json(err.status, prolific_api.error(err.status, 140001, err.message, {}))
        self._json(err.status, {"__type": "RequestError", "Message": err.message,
                                "TurkErrorCode": "AWS.MechanicalTurk.BadRequest"}, AMZ_JSON)

    def _commit(self, prolific: bool = False) -> None:
        """Write what the request changed (``prolific``: on that side too) to the state file, before the reply."""
        self.server.commit(prolific)

    def _prolific(self, method: str) -> None:
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        try:
            sent = method in ("POST", "PATCH") or "Content-Length" in self.headers  # a DELETE may carry no body
            body = json.loads(self._body() or b"{}") if sent else {}
        except ValueError as exc:  # not JSON, or not UTF-8
            return self._json(400, prolific_api.error(400, 140001, "Request is not valid", {"body": [str(exc)]}))
        host, auth = self.headers.get("Host", "127.0.0.1"), self.headers.get("Authorization", "")
        status, payload = prolific_api.dispatch(self.server.prolific, method, url.path, query,
                                                body if isinstance(body, dict) else {}, auth, f"http://{host}")
        self._commit(prolific=True)
        self._send(status, b"", "application/json") if payload is None else self._json(status, payload)  # 204

    def do_POST(self) -> None:
        self._answer(self._post, body=True)

    def _answer(self, route: Any, body: bool) -> None:
        try:
            check_control(urlparse(self.path).path, self.headers, body)
            route()
        except BadRequest as err:
            self._refuse(err)

    def _post(self) -> None:
        url = urlparse(self.path)
        if url.path.startswith("/api/v1/"):
            return self._prolific(self.command)  # POST, or PATCH
        if url.path == "/" and self.headers.get("X-Amz-Target", "").startswith(TARGET_PREFIX):
            return self._mturk(self.headers["X-Amz-Target"][len(TARGET_PREFIX):], self._body())
        if url.path == "/_sim/clock":
            payload = control_body(self._body())
            now = self.server.market.advance(float(payload.get("advance_seconds", 0)))
            with self.server.prolific.lock:
                self.server.prolific.pump()  # participants finish on the same clock
            self._commit(prolific=True)
            return self._json(200, {"now": now})
        if url.path == "/_sim/faults":
            payload = control_body(self._body())
            with self.server.market.lock:
                faults = self.server.market.faults
                for rate in ("throttle_rate", "fault_rate", "lose_reply_rate"):
                    setattr(faults, rate, float(payload.get(rate, getattr(faults, rate))))
            self._commit()
            return self._json(200, vars(faults))
        if url.path == "/_sim/prove":  # that this is the marketplace a ledger recorded (control_routes.py)
            return self._json(200, prove(self.server.marketplace_key, self._body()))
        if url.path == "/_sim/truth":  # the requester's known answers (flows/sim/people/known_answers.py)
            return self._json(200, take_known(self.server.market, self._body()))
        if url.path == "/mturk/externalSubmit":
            return self._external_submit(self._body())
        self._send(404, b"not found", "text/plain")

    def do_PATCH(self) -> None:  # Prolific's updates and deletes (a study, a group's members); nothing else
        self.do_POST() if urlparse(self.path).path.startswith("/api/v1/") else self._send(404, b"", "text/plain")
    do_DELETE = do_PATCH

    def do_GET(self) -> None:
        self._answer(self._get, body=False)

    def _get(self) -> None:
        url = urlparse(self.path)
        if url.path.startswith("/api/v1/"):
            return self._prolific("GET")
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        market = self.server.market
        if url.path == "/_sim/workers":  # ?platform=prolific: the Prolific panel, under its ids
            panel = query.get("platform") == "prolific"
            with self.server.prolific.lock if panel else market.lock:
                return self._json(200, self.server.prolific.panel_truth() if panel else market.ground_truth())
        views = {"/_sim/clock": lambda: {"now": market.now},  # ?scope=<campaign>: its items only (campaign_scope.py)
                 "/_sim/items": lambda: market.item_truth(query.get("scope")),
                 "/_sim/health": lambda: {"ok": True, "service": SERVICE_ID, "calls": market.calls,
                                          "marketplace": self.server.marketplace_id,
                                          "key": public(self.server.marketplace_key)},
                 "/_sim/notifications": lambda: list(market.sent_notifications)}  # MTurk events' outbox
        if url.path in views:
            return self._json(200, views[url.path]())
        if url.path == "/mturk/preview":
            return self._preview(query)
        if url.path == "/mturk/accept":
            return self._accept(query)
        self._send(404, b"not found", "text/plain")

    def _mturk(self, operation: str, body: bytes) -> None:
        self.server.pacing.wait()  # the network's round trip, outside the market's lock
        if not self.server.pacing.admit():
            return self._json(400, THROTTLED, AMZ_JSON)
        market = self.server.market
        handler = OPERATIONS.get(operation)
        with market.lock:
            market.calls += 1
            roll = market.fault_rng.random()
            if roll < market.faults.throttle_rate:
                return self._json(400, THROTTLED, AMZ_JSON)
            if roll < market.faults.throttle_rate + market.faults.fault_rate:
                return self._json(500, {"__type": "ServiceFault", "Message": "Simulated service fault",
                                        "TurkErrorCode": "AWS.MechanicalTurk.ServiceFault"}, AMZ_JSON)
            try:
                if handler is None:
                    raise MTurkError("AWS.MechanicalTurk.UnknownOperation", f"Unknown operation {operation}")
                params = json.loads(body or b"{}")
                if not isinstance(params, dict):
                    raise ValueError("the body must be a JSON object")
                market.catch_up()
                result = handler(market, params)
            except MTurkError as err:
                self._commit()  # e.g. auto-approvals made before the operation failed
                return self._json(err.status, {"__type": err.kind, "Message": err.message,
                                               "TurkErrorCode": err.code}, AMZ_JSON)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:  # a member of the wrong type
                self._commit()
                return self._json(400, {"__type": "RequestError", "Message": f"Invalid request: {exc}",
                                        "TurkErrorCode": "AWS.MechanicalTurk.ParameterValidationError"}, AMZ_JSON)
            self._commit()
            if market.fault_rng.random() < market.faults.lose_reply_rate:
                self.close_connection = True  # the platform acted; the client never hears of it
                return None
        self._json(200, result, AMZ_JSON)


class _SimHTTPServer(KeptAlive, ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, addr: tuple[str, int], market: Marketplace, prolific: ProlificState, verbose: bool = False,
                 store: MarketStore | None = None):
        super().__init__(addr, _Handler)
        self.market, self.prolific, self.verbose, self.store = market, prolific, verbose, store
        self.marketplace_id, self.marketplace_key = identity(store)  # /_sim/health, /_sim/prove
        self.pacing = Pacing()  # no latency, no rate limit unless `hitflow sim serve --latency-ms`
        self.track_connections()

    def commit(self, prolific: bool = True) -> None:
        if self.store is None:
            return
        with self.market.lock:
            self.store.save(self.market)
        if prolific:
            with self.prolific.lock:
                self.store.save_prolific(self.prolific)


class SimServer:
    """A running simulator: ``url`` for boto3's ``endpoint_url``, ``market`` for ground truth."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, seed: int | None = 1,
                 crowd_file: Path | None = None, verbose: bool = False, state: Path | None = None,
                 arrival_mean_s: float = 0.0, **market_kw: Any):
        """``state``: the marketplace's SQLite file; ``arrival_mean_s``: virtual seconds between Prolific arrivals."""
        self.store = MarketStore(state) if state else None
        crowd_path = crowd_file or (self.store.kept_crowd() if self.store else None) or DEFAULT_CROWD
        try:
            seed = self.store.origin(seed, crowd_path) if self.store else (1 if seed is None else seed)
            workers, bank = crowd.load_crowd(crowd_path, seed=seed)
            self.market = Marketplace(workers, bank, seed=seed, **market_kw)
            # Prolific shares the crowd and the virtual clock with the MTurk side.
            self.prolific = ProlificState(lambda: self.market.now, seed=seed, nonce=self.market.nonce)
            self.prolific.pumps.append(Participants(workers, bank, seed=seed, arrival_mean_s=arrival_mean_s))
            if self.store:
                self.store.attach(self.market, self.prolific, crowd_path)
        except BaseException:
            if self.store:
                self.store.close()
            raise
        self.httpd = _SimHTTPServer((host, port), self.market, self.prolific, verbose, self.store)
        self.url = f"http://{host}:{self.httpd.server_address[1]}"
        self._thread: threading.Thread | None = None
        self._clock: ClockPump | None = None

    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="hitflow-sim", daemon=True)
        self._thread.start()
        self._start_clock()
        return self

    def serve_forever(self) -> None:
        limit_malloc_arenas()  # this process is the simulator's own (`hitflow sim serve`): malloc_arenas.py
        self._start_clock()
        self.httpd.serve_forever()

    def _start_clock(self) -> None:
        """A running clock (speed > 0) moves participants on its own, as real people would."""
        if self.market.speed > 0 and self._clock is None:
            self._clock = ClockPump(self._pump).start()

    def _pump(self) -> None:
        with self.prolific.lock:
            self.prolific.pump()
        self.httpd.commit(prolific=True)

    def stop(self) -> None:
        if self._clock is not None:
            self._clock.stop()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd.close_connections()
        if self.store:
            self.httpd.commit()
            self.store.close()

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

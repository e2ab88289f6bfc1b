"""Simulated Prolific participants."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import random
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urljoin, urlparse

from flows.core.http_clients import http_client
from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.browser_worker import wants_browser
from flows.sim.pages.page_common import OpenedPages
from flows.sim.pages.page_filling import work_effort
from flows.sim.pages.volunteers import fill_page, open_page
from flows.sim.people import crowd
from flows.sim.people.campaign_scope import campaign_scope, study_scope
from flows.sim.people.roster import Crowd, wider_pool
from flows.sim.prolific.prolific_state import TAKEN, ProlificState, new_id

if TYPE_CHECKING:
    import httpx

RETURN_RATE = 0.04
RESERVE_S = 600  # Prolific reserves a place for ten minutes (its Submission object docs)
UNREACHABLE_S = 300  # virtual seconds nobody opens a study page that could not be reached
CONNECT_S = 2.0
# Chromium types a long page for about a minute of real time, all inside the one API call or clock move that
# lets them in, which the client waits 60 s for (paging.py CALL_DEADLINE_S): one such visit starts a call, the
# rest arrive at the next calls, as people a little later would; a count, never real time, so runs repeat.
BROWSER_VISITS_PER_CALL = 1
MAX_PAGES = 100  # a study's pages one participant goes through (a quiz of one control a page), at most


def participant_id(worker_id: str) -> str:
    """A crowd worker's Prolific id (24 hex digits, stable for the worker)."""
    return hashlib.sha256(worker_id.encode()).hexdigest()[:24]


def eligible(person: dict[str, Any], study: dict[str, Any], state: ProlificState) -> bool:
    """Prolific's filters: approval rate and count ranges, participant-group block and allow lists."""
    for f in study["filters"]:
        fid, rng = f.get("filter_id"), f.get("selected_range") or {}
        if fid in ("approval_rate", "approval_numbers"):
            have = person["approval_rate"] if fid == "approval_rate" else person["approvals"]
            if have < rng.get("lower", 0) or have > rng.get("upper", float("inf")):
                return False
        groups = [state.groups[g]["participants"] for g in f.get("selected_values", []) if g in state.groups]
        if fid == "participant_group_blocklist" and any(person["id"] in g for g in groups):
            return False
        if fid == "participant_group_allowlist" and not any(person["id"] in g for g in groups):
            return False
    return True


class Participants:
    """Called on every API call and clock move (``ProlificState.pumps``)."""

    def __init__(self, workers: list[crowd.Worker], bank: dict[str, crowd.BankEntry], seed: int = 1,
                 arrival_mean_s: float = 0.0, browser_visits: int = BROWSER_VISITS_PER_CALL):
        self.bank = bank
        self.browser_visits = self.browser_left = browser_visits
        self.arrival_mean_s = arrival_mean_s  # 0: every open place is taken at the first look
        self.rng = random.Random(seed + 23)
        self.people: dict[str, dict[str, Any]] = {}
        for w in workers:
            self._person(w)
        self.reserve_rate = self.screen_out_rate = 0.0
        self.return_rate = RETURN_RATE  # who reads the study and gives the place back (it reopens: recruit)
        self.pages = OpenedPages()  # each study's own text, as its pages show it (page_common.py)
        self.extra_rng = random.Random(seed + 29)  # draws for reserve/screen-out only
        # Prolific's panel is far larger than a demo crowd: newcomers of the same mix come when needed.
        self.newcomers = wider_pool(workers, "prolific") if isinstance(workers, Crowd) else None

    def _person(self, worker: crowd.Worker) -> dict[str, Any]:
        pid = participant_id(worker.worker_id)
        person = {"id": pid, "worker": worker, "approval_rate": worker.percent_approved,
                  "approvals": worker.hits_approved}
        self.people[pid] = person
        return person

    def __call__(self, state: ProlificState) -> None:
        self.browser_left = self.browser_visits
        for study in list(state.studies.values()):
            if study["status"] == "ACTIVE":
                self.recruit(state, study)
        for sub in list(state.submissions.values()):
            if sub["status"] == "RESERVED" and sub["_finish_at"] <= state.now:
                person = self.people.get(sub["participant_id"])  # a newcomer not yet met again after a restart
                if person is None:
                    sub["status"] = "RETURNED"
                else:
                    self.start(state, state.study(sub["study_id"]), person, sub)
            if sub["status"] == "ACTIVE" and sub["_finish_at"] <= state.now:
                self.finish(state, sub)

    def recruit(self, state: ProlificState, study: dict[str, Any]) -> None:
        subs = [s for s in state.submissions.values() if s["study_id"] == study["id"]]
        open_places = study["total_available_places"] - sum(s["status"] in TAKEN for s in subs)
        been = {s["participant_id"] for s in subs}
        pool = [p for p in self.people.values() if p["id"] not in been and eligible(p, study, state)]
        visits = len(subs)  # a page that turns everyone away must not call newcomers forever: over its whole life
        while open_places > 0 and visits <= 3 * study["total_available_places"] + 10:
            if not pool and self.newcomers is not None:
                fresh = [p for p in self.more_people() if eligible(p, study, state)]
                if not fresh:
                    return  # ten newcomers in a row excluded: the study's filters shut the panel out
                pool = [p for p in fresh if p["id"] not in been]  # after a restart: people seen before
                continue
            if not pool or self.browser_left <= 0 or not self.arrives(state, study) \
                    or state.now < study.get("_unreachable_until", 0):
                return
            person = self.rng.choices(pool, weights=[p["worker"].params["activity"] for p in pool])[0]
            pool.remove(person)
            been.add(person["id"])
            visits += 1
            open_places -= self.visit(state, study, person)["status"] in TAKEN

    def truth(self) -> list[dict[str, Any]]:
        return [{**p["worker"].public(), "worker_id": p["id"]} for p in self.people.values()]

    def more_people(self, n: int = 10) -> list[dict[str, Any]]:
        """The next ``n`` newcomers, the same people in the same order after a restart."""
        assert self.newcomers is not None
        return [self._person(self.newcomers.newcomer()) for _ in range(n)]

    def arrives(self, state: ProlificState, study: dict[str, Any]) -> bool:
        """Whether the next participant is due: ``arrival_mean_s`` apart on average, or all at once."""
        if not self.arrival_mean_s:
            return True
        due = study.setdefault("_next_arrival", state.now + self.rng.expovariate(1 / self.arrival_mean_s))
        if state.now < due:
            return False
        study["_next_arrival"] = due + self.rng.expovariate(1 / self.arrival_mean_s)
        return True

    def visit(self, state: ProlificState, study: dict[str, Any], person: dict[str, Any]) -> dict[str, Any]:
        sub = {"id": new_id(state.rng), "participant_id": person["id"], "study_id": study["id"], "status": "ACTIVE",
               "started_at": state.iso(state.now), "completed_at": None, "study_code": None,
               "_started": state.now, "_finish_at": state.now, "_code": ""}
        state.submissions[sub["id"]] = sub
        if self.screen_out_rate and self.extra_rng.random() < self.screen_out_rate:
            self.open_page(study, person, sub)  # the study's own screener turns them away after they open it
            sub["status"], sub["completed_at"] = "SCREENED OUT", state.iso(state.now)
            return sub
        if self.reserve_rate and self.extra_rng.random() < self.reserve_rate:
            sub["status"], sub["_finish_at"] = "RESERVED", state.now + RESERVE_S
            return sub
        return self.start(state, study, person, sub)

    def start(self, state: ProlificState, study: dict[str, Any], person: dict[str, Any],
              sub: dict[str, Any]) -> dict[str, Any]:
        sub.update({"status": "ACTIVE", "started_at": state.iso(state.now), "_started": state.now})
        if self.rng.random() < self.return_rate:
            sub["status"] = "RETURNED"  # read the description and changed their mind
            return sub
        max_s = 60 * int(study["maximum_allowed_time"])
        done = self.do_task(study, person, sub, max_s)
        if done is None:
            sub["status"] = "RETURNED"
            if study.get("_unreachable"):
                study["_unreachable_until"] = state.now + UNREACHABLE_S
            return sub
        sub["_code"], sub["_finish_at"] = done[0] or "", state.now + min(done[1], max_s)
        sub["_gave_up"] = done[0] is None  # the page never took the submit: the place is held while they try
        sub["_timed_out"] = done[1] > max_s
        return sub

    @functools.cached_property
    def http(self) -> httpx.Client:
        """Made at the first page a participant opens: every simulator makes participants, few open a page, and
        httpx is ~0.15 s of a fresh process's imports."""
        import httpx

        return http_client(timeout=httpx.Timeout(30, connect=CONNECT_S), follow_redirects=False)

    def open_page(self, study: dict[str, Any], person: dict[str, Any], sub: dict[str, Any]) -> None:
        import httpx

        with contextlib.suppress(httpx.HTTPError):
            self.http.get(self.page_url(study, person, sub))

    @staticmethod
    def page_url(study: dict[str, Any], person: dict[str, Any], sub: dict[str, Any]) -> str:
        return (study["external_study_url"].replace("{{%PROLIFIC_PID%}}", person["id"])
                .replace("{{%STUDY_ID%}}", study["id"]).replace("{{%SESSION_ID%}}", sub["id"]))

    def do_task(self, study: dict[str, Any], person: dict[str, Any], sub: dict[str, Any],
                park_s: int) -> tuple[str | None, float] | None:
        """Open, work, fill and submit the page, and each next page the study sends them to (a quiz of one control
        a page): the completion code from the last redirect and the seconds; None for the code if a page never took
        the submit; None if a page could not be opened or posted to."""
        import httpx

        url = self.page_url(study, person, sub)
        worker = person["worker"]
        study["_unreachable"] = False
        spent = 0.0
        try:
            with campaign_scope(study_scope(study.get("internal_name") or ""), worker):
                for _ in range(MAX_PAGES):
                    opened = open_page(self.http, url)
                    if opened is None:
                        return None
                    self.browser_left -= wants_browser(opened[0])
                    units, parts = work_effort(form_fields(opened[0]))
                    # one who leaves a study open does so once (a share of its time), not on each of its pages
                    seconds = crowd.work_seconds(worker, units, 0 if spent else park_s, self.rng, parts)
                    filled = fill_page(opened, url, worker, self.bank, self.rng, sub["_started"] + spent, seconds,
                                       self.pages, f"their places on study {study['id']}")
                    spent += seconds
                    if filled is None:
                        return None, spent
                    done = self.http.post(filled[0], data=filled[1])
                    where = done.headers.get("location", "")
                    if done.status_code not in (302, 303) or "cc" in parse_qs(urlparse(where).query):
                        break
                    url = urljoin(filled[0], where)  # the study's next page
        except (httpx.ConnectError, httpx.ConnectTimeout):
            study["_unreachable"] = True  # the page cannot be opened: they return the study
            return None
        except httpx.HTTPError:
            return None
        if done.status_code not in (302, 303):
            return None
        return parse_qs(urlparse(done.headers.get("location", "")).query).get("cc", [""])[0], spent

    def finish(self, state: ProlificState, sub: dict[str, Any]) -> None:
        if sub.get("_timed_out"):
            sub["status"] = "TIMED-OUT"
        elif sub.get("_gave_up"):
            sub["status"] = "RETURNED"  # as one who gives up: the place opens for another participant
        else:
            sub["status"], sub["study_code"] = "AWAITING REVIEW", sub["_code"]
        sub["completed_at"] = None if sub["status"] == "RETURNED" else state.iso(sub["_finish_at"])
        state.settle(state.study(sub["study_id"]))

"""What each view of a campaign says needs a person, read as a person reads it (bench/newcomer.py), and
what the platform itself holds (the simulator served on its state file, asked with boto3 as any client).

The views (tests/test_campaign_state.py compares the same ones in-process): the run's decision lines
("batch N: decisions: ...; needs a person: K"), ``hitflow status``'s ``needs a person: K`` line, ``status
--json``'s ``needs.needs_person`` (with ``review.open`` plus held batches and the batches' ``for_review``),
the report's "Needs a person", the ``ui`` overview (its page and ``/status.json``) and the review queue's
"N open of M" with the cards the page marks open."""

from __future__ import annotations

import html
import json
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

NEEDS_LINE = re.compile(r"^(?:hitflow: )?batch (\d+)(?:: decisions: .*needs a person: | waits for review \()(\d+)",
                        re.M)


def from_run_lines(*outputs: str) -> int:
    """The latest of each batch's lines the runs printed ("batch N: decisions: ...; needs a person: K", or
    "batch N waits for review (K item(s) open)" where the run stopped for a person), summed over batches."""
    last: dict[int, int] = {}
    for out in outputs:
        for batch, needs in NEEDS_LINE.findall(out):
            last[int(batch)] = int(needs)
    return sum(last.values())


def from_status_text(out: str) -> int | None:
    found = re.search(r"needs a person: (\d+)", out)
    return int(found[1]) if found else None


def from_status_json(out: str) -> dict[str, int]:
    c = json.loads(out)[0]
    held = sum(1 for b in c["batches"] if b.get("held"))
    return {"status --json needs": c["needs"]["needs_person"], "status --json review.open+held": c["review"]["open"]
            + held, "status --json batches' for_review": sum(b["for_review"] for b in c["batches"])}


def from_report(path: Path) -> int | None:
    """The report's "Needs a person": 0 for "nothing now", else its open review items plus held batches."""
    text = path.read_text(encoding="utf-8")
    found = re.search(r"<strong>Needs a person:</strong>(.*?)</(?:p|ul)>\s*(<ul>.*?</ul>)?", text, re.S)
    if not found:
        return None
    if "nothing now" in found[1]:
        return 0
    items = re.findall(r"<li[^>]*>(.*?)</li>", found[2] or "", re.S)
    opened = sum(int(m[1]) for i in items if (m := re.match(r"\s*(\d+) review item\(s\) open", html.unescape(i))))
    return opened + sum(1 for i in items if re.match(r"\s*batch \d+ is held", i))


def from_ui(client: httpx.Client, name: str) -> dict[str, Any]:
    """The overview's words for the campaign, its data, and the queue page (counter and cards)."""
    page = client.get("/").text
    mine = page[page.find(f"/review/{name}/") - 10:][:400]
    words = re.search(r"(\d+) review item\(s\) open|review queue \(nothing open\)", mine)
    data = next(c for c in client.get("/status.json").json() if c["name"] == name)
    queue = client.get(f"/review/{name}/")
    counter = re.search(r'<span id="open-count">(\d+)</span> open of (\d+)', queue.text)
    marked = 0  # over every page of cards (20 a page)
    for page in range(1, 500):
        shown = client.get(f"/review/{name}/", params={"page": page}).text
        marked += shown.count('data-open="1"')
        if f"page={page + 1}" not in shown:
            break
    return {"ui overview page": (int(words[1]) if words and words[1] else 0) if words else None,
            "ui /status.json review_open+held": data["review_open"] + sum(1 for b in data["batches"] if b["held"]),
            "queue page 'N open'": int(counter[1]) if counter else None,
            "queue pages' cards marked open": marked,
            "_queue_total": int(counter[2]) if counter else None, "_queue_status": queue.status_code}


class Ledger:
    """The campaign's ledger (runs/hitflow.db) read with plain SQL: what was posted, worked and paid."""

    def __init__(self, path: Path, campaign: str) -> None:
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.db.row_factory = sqlite3.Row
        self.campaign = campaign

    def rows(self, sql: str) -> list[sqlite3.Row]:
        return self.db.execute(sql, [self.campaign]).fetchall()

    def posted(self) -> dict[str, int]:
        """HITs in the ledger and the calls that post or pay (each recorded before it is made)."""
        ops = Counter(r["operation"] for r in self.rows("SELECT operation FROM ledger WHERE campaign = ?"))
        return {"hits": len(self.rows("SELECT hit_id FROM hits WHERE campaign = ?")),
                "create calls": sum(n for op, n in ops.items() if op.startswith("CreateHIT")),
                "assignments": len(self.rows("SELECT assignment_id FROM assignments WHERE campaign = ?")),
                "approve/reject calls": ops["ApproveAssignment"] + ops["RejectAssignment"]}

    def hit_items(self) -> dict[str, list[str]]:
        return {r["hit_id"]: json.loads(r["item_ids"]) for r in
                self.rows("SELECT hit_id, item_ids FROM hits WHERE campaign = ?")}

    def verdicts_sent(self) -> Counter[str]:
        """Approve/Reject calls per assignment id."""
        return Counter(json.loads(r["params"])["AssignmentId"] for r in self.rows(
            "SELECT params FROM ledger WHERE campaign = ? AND operation IN ('ApproveAssignment', "
            "'RejectAssignment')"))

    def status(self) -> str:
        got = self.rows("SELECT status FROM campaigns WHERE name = ?")
        return str(got[0]["status"]) if got else ""


def platform_work(url: str, hit_ids: list[str]) -> dict[str, Any]:
    """Each HIT's status and its assignments' ids and statuses, as the served simulator answers a client."""
    import boto3  # the simulator's MTurk API; its keys are not checked

    mturk = boto3.client("mturk", endpoint_url=url, region_name="us-east-1", aws_access_key_id="sim",
                         aws_secret_access_key="sim")
    hits, work = {}, {}
    for hit_id in hit_ids:
        try:
            hits[hit_id] = mturk.get_hit(HITId=hit_id)["HIT"]["HITStatus"]
        except mturk.exceptions.RequestError:
            hits[hit_id] = "deleted"
            continue
        token = None
        while True:
            more = {"NextToken": token} if token else {}
            page = mturk.list_assignments_for_hit(HITId=hit_id, MaxResults=100, **more)
            work.update({a["AssignmentId"]: (hit_id, a["AssignmentStatus"]) for a in page["Assignments"]})
            token = page.get("NextToken")
            if not token:
                break
    return {"hits": hits, "assignments": work}


def advance_clock(url: str, seconds: float) -> float:
    return float(httpx.post(f"{url}/_sim/clock", json={"advance_seconds": seconds}, timeout=400).json()["now"])

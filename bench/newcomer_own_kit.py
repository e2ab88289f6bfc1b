"""What the own-pages script (bench/newcomer_own_pages.py) needs besides its story: the two pages a newcomer
writes in MTurk's requester-UI style (``${column}`` placeholders), their item and control files, a person
clearing a review queue through the review page's own forms, each card read against the ledger, and the
route's words in a view.

Like bench/newcomer_kit.py, nothing here imports hitflow: the product is driven through its commands, files
and HTTP pages."""

from __future__ import annotations

import csv
import html
import re
import sqlite3
from pathlib import Path

import httpx

# "rate this caption 1-5 and say why": a choice and a required reason
RATING_PAGE = """<p>Instructions: look at the photo and read its caption. Rate from 1 (wrong) to 5 (perfect) how well
the caption describes the photo, and say why in a sentence.</p>
<img src="${image_url}" alt="the photo" width="400">
<p>Caption: <strong>${caption}</strong></p>
<p>How well does the caption describe the photo?</p>
<label><input type="radio" name="rating" value="1" required> 1 wrong</label>
<label><input type="radio" name="rating" value="2"> 2</label>
<label><input type="radio" name="rating" value="3"> 3</label>
<label><input type="radio" name="rating" value="4"> 4</label>
<label><input type="radio" name="rating" value="5"> 5 perfect</label>
<p><label for="reason">Why did you give this rating?</label></p>
<textarea id="reason" name="reason" required minlength="10" maxlength="300"></textarea>
"""
# a product review's sentiment, and an optional comment
SENTIMENT_PAGE = """<p>Instructions: read the product review and say how its writer feels about the product.</p>
<blockquote>${review_text}</blockquote>
<p>How does the writer feel?</p>
<label><input type="radio" name="sentiment" value="positive" required> positive</label>
<label><input type="radio" name="sentiment" value="neutral"> neutral</label>
<label><input type="radio" name="sentiment" value="negative"> negative</label>
<p><label for="comment">Anything unclear about this review? (optional)</label></p>
<textarea id="comment" name="comment" maxlength="300"></textarea>
"""
CAPTIONS = [("A dog runs along a sandy beach.", "5"), ("Two people ride bicycles down a city street.", "4"),
            ("A bowl of soup on a wooden table.", "5"), ("A cat sleeps on a red sofa.", "3"),
            ("An aeroplane flies over snowy mountains.", "1"), ("Children play football in a park.", "2")]
REVIEWS = {"positive": ["Works perfectly, I use it every day.", "Arrived early and the quality is excellent.",
                        "Best purchase I made this year."],
           "negative": ["Broke after two days of normal use.", "Smells of chemicals and the paint peels.",
                        "Stopped working after a week, a waste of money."],
           "neutral": ["It does what the box says, nothing more.", "Average sound, average battery.",
                       "Fine for occasional use."]}
PRODUCTS = ["kettle", "lamp", "backpack", "headphones", "blender", "umbrella", "tent", "keyboard"]
PAGES = {"rating": (RATING_PAGE, "rating", ("rating", "reason")),
         "sentiment": (SENTIMENT_PAGE, "sentiment", ("sentiment", "comment"))}


def write_page(folder: Path, kind: str, items: int = 30, controls: int = 10) -> tuple[Path, Path, Path]:
    """The page, its items and its control items (ids and columns like the items', so the page's source does
    not tell them apart: docs/how-to/control-items.md); the three paths."""
    page_text, field, _ = PAGES[kind]
    page = folder / f"{kind}_page.html"
    page.write_text(page_text, encoding="utf-8")
    if kind == "rating":
        head = ["item_id", "image_url", "caption"]
        rows = [(f"photo-{n + 1:03d}", CAPTIONS[n % len(CAPTIONS)][1],
                 f"https://photos.example.org/{n + 1}.jpg", CAPTIONS[n % len(CAPTIONS)][0])
                for n in range(items + controls)]
    else:
        head = ["item_id", "review_text"]
        said = [(feel, text) for feel, texts in REVIEWS.items() for text in texts]
        rows = [(f"rev-{n + 1:03d}", said[n % len(said)][0], f"The {PRODUCTS[n % len(PRODUCTS)]}: "
                 f"{said[n % len(said)][1]}") for n in range(items + controls)]
    item_file, control_file = folder / f"{kind}_items.csv", folder / f"{kind}_controls.csv"
    with item_file.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([head] + [(r[0], *r[2:]) for r in rows[:items]])
    with control_file.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["item_id", "field", "answer", *head[1:]]]
                                + [(r[0], field, r[1], *r[2:]) for r in rows[items:]])
    return page, item_file, control_file


CARD = re.compile(r'<section class="card (open|decided)".*?</section>', re.S)
FORM = re.compile(r'<form method="post" action="decide" class="(\w+)">(.*?)</form>', re.S)
FIELD = re.compile(r'name="([^"]+)" value="([^"]*)"')
FIGURE = re.compile(r'<figure class="answer[^"]*" data-answered="([^"]*)">(.*?)</figure>', re.S)
ANSWER = re.compile(r'<p class="answer-text" data-field="([^"]*)" data-kind="[^"]*">(?:<span class="field">[^<]*'
                    r'</span>: )?(.*?)</p>', re.S)
ADVICE = re.compile(r"the rules alone would <strong>(\w+)</strong>")
REASON = ("Your answers did not follow the task page's instructions: each item asks for your own reading of the "
          "text shown, and these answers did not reflect it. Please read the instructions again before another task.")


def sign_in(link: str) -> httpx.Client:
    base = link.split("/?", 1)[0]
    web = httpx.Client(base_url=base, headers={"origin": base}, timeout=120)
    web.get(link.removeprefix(base))
    return web


def every_card(web: httpx.Client, path: str = "/") -> list[str]:
    """Every card of the queue (the review page's, or the ui's at ``/review/NAME/``), open and decided."""
    cards: list[str] = []
    for page in range(1, 200):
        got = CARD.findall(text := web.get(path, params={"show": "all", "page": page}).text)
        cards += [m.group(0) for m in CARD.finditer(text)]
        if not got or f"page={page + 1}" not in text:
            return cards
    return cards


def cards_show_answers(cards: list[str], ledger: Path, campaign: str, choice: str) -> tuple[bool, str]:
    """Each card lists answers, and every answer it shows (worker, item, field, value) is the ledger's, the
    page's choice field among them with a value."""
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    stored = {(w, i, f): v or "" for w, i, f, v in db.execute(
        "SELECT a.worker_id, x.item_id, x.field, x.value FROM answers x JOIN assignments a ON "
        "a.assignment_id = x.assignment_id WHERE a.campaign = ?", [campaign])}
    stored |= {(w, i, f): v or "" for w, i, f, v in db.execute(
        "SELECT s.participant_id, x.item_id, x.field, x.value FROM answers x JOIN task_sessions s ON "
        "s.session_id = x.assignment_id WHERE s.campaign = ?", [campaign])} if _has(db, "task_sessions") else {}
    bad: list[str] = []
    shown = 0
    for card in cards:
        worker = html.unescape(re.search(r'<code class="worker">([^<]*)</code>', card)[1])  # type: ignore[index]
        figures = FIGURE.findall(card)
        if not figures:
            bad.append(f"{worker}: no answers on the card")
        for item, body in figures:
            answers = {f: _plain(v) for f, v in ANSWER.findall(body)}
            if not answers.get(choice):
                bad.append(f"{worker}/{html.unescape(item)}: no {choice}")
            for field_name, value in answers.items():
                shown += 1
                want = stored.get((worker, html.unescape(item), field_name))
                if want is None or (value != "no answer" and value != want.strip()[:2000].strip()) or (
                        value == "no answer" and want.strip()):
                    bad.append(f"{worker}/{item}/{field_name}: card {value!r}, ledger {want!r}")
    return not bad and bool(cards), f"{len(cards)} card(s), {shown} answer(s) shown" + (
        f"; {len(bad)} wrong: {bad[:3]}" if bad else "")


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [table]).fetchone() is not None


def _plain(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value)).strip()


def decide_queue(web: httpx.Client, clicked: set[tuple[str, str]], reject_first: bool = True,
                 keep_first: bool = True) -> dict[str, int]:
    """A person's pass over the open cards: the first flagged assignment rejected with a reason (overturning
    the rules' approval), the first worker the rules would block kept ("keep worker"), the others as the rules
    advise; what was decided, by action (each card's batch and item added to ``clicked``)."""
    done: dict[str, int] = {}
    for _ in range(500):
        found = CARD.search(web.get("/", params={"show": "open"}).text)
        if found is None or found.group(1) != "open":
            return done
        card = found.group(0)
        advice = m[1] if (m := ADVICE.search(card)) else "approve"
        forms = {cls: dict(FIELD.findall(body)) for cls, body in FORM.findall(card)}
        if reject_first and "reject" in forms and "flagged" in card[:300]:
            advice, reject_first = "reject", False
        elif keep_first and advice == "block" and forms.get("unblock", {}).get("action") == "keep":
            advice, keep_first = "keep", False  # a worker card's "keep worker" (the form's class is unblock)
        form = forms.get(advice) or forms["unblock"]
        if advice == "reject":
            form["reason"] = REASON
            if 'name="category"' in card:  # Prolific: a category and 100+ characters
                form["category"] = "FAILED_INSTRUCTIONS"
        answer = web.post("/decide", data={k: html.unescape(v) for k, v in form.items()})
        if answer.status_code >= 400:
            raise RuntimeError(f"the review page refused {advice}: {answer.status_code} {answer.text[:200]}")
        done[advice] = done.get(advice, 0) + 1
        item = re.search(r'data-item="([^"]*)"', card)
        clicked.add((form.get("batch", ""), html.unescape(item[1]) if item else ""))
    return done


MTURK_WORDS = re.compile(r"\bHITs?\b|\bassignments?\b", re.I)
PROLIFIC_WORDS = ("stud", "place", "submission")


def route_words(text: str, platform: str, every: bool = True) -> tuple[bool, str]:
    """A view in its route's words: on Prolific no HIT or assignment, and studies, places and submissions
    named (``every``; else one of them: a report counts responses and items, and names the route's work
    where it does); on MTurk HITs or assignments."""
    words = html.unescape(re.sub(r"<[^>]+>", " ", text))
    mturk = sorted({w.lower() for w in MTURK_WORDS.findall(words)})
    if platform == "prolific":
        missing = [w for w in PROLIFIC_WORDS if w not in words.lower()]
        at = [words[max(0, m.start() - 50):m.end() + 30].replace("\n", " ") for m in MTURK_WORDS.finditer(words)]
        named = not missing if every else len(missing) < len(PROLIFIC_WORDS)
        return not mturk and named, f"MTurk words {mturk}{': ' + repr(at[:2]) if at else ''}; missing {missing}"
    return bool(mturk), f"MTurk words {mturk}"


def ui_section(overview: str, name: str) -> str:
    """The overview's part about one campaign (its ``<details class="campaign">``)."""
    start = overview.find(f'data-name="{name}"')
    end = overview.find('<details class="campaign"', start + 1)
    return overview[start:end if end > 0 else None] if start >= 0 else ""


def reviewed_in_report(report: Path) -> int | None:
    """The report's "People and the rules": items reviewed, summed over its batches."""
    text = report.read_text(encoding="utf-8") if report.is_file() else ""
    table = re.search(r'<table id="review">(.*?)</table>', text, re.S)
    rows = re.findall(r"<tr><td>\d+</td><td>(\d+)</td>", table[1]) if table else []
    return sum(int(n) for n in rows) if table else None


def decided_by_a_person(cards: list[str], clicked: set[tuple[str, str]]) -> tuple[int, list[str]]:
    """The queue's cards a person decided (the page says "decided by a person"), and those of them nobody clicked
    (a worker kept in an earlier batch: the keep spares them in later batches too, and decides their card)."""
    mine = [c for c in cards if "decided by a person" in c]
    unclicked = []
    for card in mine:
        batch = re.search(r"&middot; batch (\d+) &middot;", card)
        item = html.unescape(re.search(r'data-item="([^"]*)"', card)[1])  # type: ignore[index]
        if (batch[1] if batch else "", item) not in clicked:
            verdict = re.search(r'class="verdict">decided: (\w+)<', card)
            unclicked.append(f"batch {batch[1] if batch else '?'} {item}: {verdict[1] if verdict else '?'}")
    return len(mine), unclicked

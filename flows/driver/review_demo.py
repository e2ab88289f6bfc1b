"""``make demo-review``: the demo campaign with ``[policy] review = "flagged"`` and a scripted reviewer.
Each batch stops after QC; a scripted person (an HTTP client of the review page, through the one-time link, cookie and
page tokens like a browser) takes the rules' advice on every open item, writing a reason for each rejection; the run is
started again and goes on to the next batch."""

from __future__ import annotations

import argparse
import html
import re
import shutil
from pathlib import Path

import httpx

from flows.campaigns.review_data import ReviewPending
from flows.core.http_clients import http_client
from flows.driver.campaign_run import run_campaign  # not campaign_flow: no Prefect (~6 s CPU) for a run without it
from flows.driver.operations import open_campaign_run
from flows.platforms.targets import simulator
from flows.review.review_app import ReviewServer, ReviewSite

DEMO_CONFIG = Path(__file__).resolve().parents[2] / "config" / "vizwiz_captions.toml"
CARD = re.compile(r'<section class="card open".*?</section>', re.S)
FORM = re.compile(r'<form method="post" action="decide" class="(\w+)">(.*?)</form>', re.S)
FIELD = re.compile(r'name="([^"]+)" value="([^"]*)"')
ADVICE = re.compile(r"the rules alone would <strong>(\w+)</strong>")
REJECT_REASON = ("Your captions broke the task's rules: the instructions on the task page ask for one sentence "
                 "that describes what is in the picture, in your own words.")


def review_config(out_dir: Path, mode: str = "flagged", deadline_s: int | None = None,
                  base: Path = DEMO_CONFIG) -> Path:
    """A copy of ``base`` that waits for review, with a copy of its item file beside it."""
    text = base.read_text(encoding="utf-8")
    items = re.search(r'(?m)^items = "([^"]+)"', text)
    extra = f'review = "{mode}"\n' + (f"review_deadline_s = {deadline_s}\n" if deadline_s is not None else "")
    out_dir.mkdir(parents=True, exist_ok=True)
    if items:
        (out_dir / items[1]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(base.parent / items[1], out_dir / items[1])
    path = out_dir / f"{base.stem}_review.toml"
    path.write_text(text.replace("[policy]\n", "[policy]\n" + extra, 1), encoding="utf-8")
    return path


def sign_in(login_url: str) -> httpx.Client:
    """A client of the review page signed in through the one-time link (the cookie, as a browser keeps it)."""
    base = login_url.split("/?", 1)[0]
    web = http_client(base_url=base, headers={"origin": base}, follow_redirects=False)
    web.get(login_url.removeprefix(base))
    return web


ADVICE_DONE = {"approve": "approved", "reject": "rejected", "block": "blocked", "unblock": "kept (not blocked)",
               "keep": "kept (not blocked)"}


def decide_open_cards(web: httpx.Client, max_steps: int = 500) -> dict[str, int]:
    """Decide every open card as the rules advise (a rejection gets a reason, and on Prolific a category): every
    assignment's card of a page from that page, then a worker's card alone from a fresh one (deciding the
    assignments can close it), rather than the page rendered again after each card."""
    done: dict[str, int] = {}
    for _ in range(max_steps):
        cards = CARD.findall(web.get("/", params={"show": "open"}).text)
        if not cards:
            return done
        forms = [{cls: dict(FIELD.findall(body)) for cls, body in FORM.findall(card)} for card in cards]
        assignments = [(card, form) for card, form in zip(cards, forms, strict=True) if "approve" in form]
        for card, form_of in assignments or [(cards[0], forms[0])]:
            advice_match = ADVICE.search(card)
            advice = advice_match.group(1) if advice_match else "approve"
            form = form_of.get(advice) or form_of["unblock"]
            if advice == "reject":
                form["reason"] = REJECT_REASON
                if 'name="category"' in card:  # Prolific: a category and 100+ characters
                    form["category"] = "FAILED_INSTRUCTIONS"
            web.post("/decide", data={k: html.unescape(v) for k, v in form.items()})
            done[advice] = done.get(advice, 0) + 1
    return done


def clear_queue(login_url: str, max_steps: int = 500) -> dict[str, int]:
    """Sign in with the one-time link and decide every open card as the rules advise."""
    web = sign_in(login_url)
    try:
        return decide_open_cards(web, max_steps)
    finally:
        web.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--limit", type=int, default=60)
    p.add_argument("--out", default="runs/review_demo")
    a = p.parse_args(argv)
    out = Path(a.out)
    db = out / "review-demo.db"
    for old in out.glob("review-demo.db*"):
        old.unlink()
    config = review_config(out)
    with simulator("", seed=1, crowd=None) as sim:
        while True:
            try:
                summary = run_campaign(config, endpoint_url=sim.endpoint_url, db_path=db, out_root=out, limit=a.limit)
                break
            except ReviewPending as waiting:
                print(f"run stopped: {waiting}")
            with open_campaign_run(str(db), "vizwiz_captions") as run:
                site = ReviewSite(run, "scripted-reviewer", run.cfg.review)
                with ReviewServer(site) as server:
                    decided = clear_queue(f"{server.url}/?token={site.login_token}")
                    said = ", ".join(f"{n} {ADVICE_DONE.get(advice, advice)}" for advice, n in sorted(decided.items()))
                    said = said or "nothing was open"
                    print(f"scripted reviewer at {server.url} decided: {said}")
    print(f"done: {summary['captions']} captions; report {summary['out_dir']}/report.html "
          "(section 'People and the rules')")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A rehearsal that predicts the run on the user's own page: people's time follows the page on every route
(Prolific participants took five captions' time whatever the page, and a one-slider page timed out a third of
its places), the run sets the plan against what the work took, every item is answered or named, and --scale
works on a page of one's own or is refused."""

from __future__ import annotations

import json
import sqlite3
import statistics
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.campaigns.campaign_plan import item_plan
from flows.campaigns.task_kinds import kind_of, load_campaign
from flows.cli.main import main
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.platforms.registry import platform_facts
from flows.sim.people.crowd_model import HONEST_PROFILES
from tests.small_configs import UNREHEARSED

ROOT = Path(__file__).resolve().parents[1]
PAGES = {  # one, two and five items a page, with the fields' kinds the plan times
    1: '<p>How natural does this sentence sound?</p>\n<p>${text}</p>\n'
       '<input type="range" name="naturalness" min="0" max="100" required>\n',
    2: '<p>Is this review positive or negative? Then say why in a few words.</p>\n<p>${text}</p>\n'
       '<label><input type="radio" name="sentiment" value="pos" required> positive</label>\n'
       '<label><input type="radio" name="sentiment" value="neg"> negative</label>\n'
       '<textarea name="why" required></textarea>\n',
    5: '<p>Which topic is this headline about?</p>\n<p>${text}</p>\n<select name="topic" required><option value="">'
       'choose</option><option>sport</option><option>politics</option><option>science</option></select>\n'}
WORKING = set(HONEST_PROFILES) - {"slow"}  # the slow park the page: their timeouts are theirs, not the model's


def new_page(tmp_path: Path, per_page: int, items: int = 20, edits: dict[str, str] | None = None) -> Path:
    """``hitflow new`` on the page of ``per_page`` items, as a user would; its plan left as written."""
    (tmp_path / "page.html").write_text(PAGES[per_page], encoding="utf-8")
    pd.DataFrame({"item_id": [f"i{n}" for n in range(items)],
                  "text": [f"The team won match {n} after a long season of hard work." for n in range(items)]}
                 ).to_csv(tmp_path / "items.csv", index=False)
    assert main(["new", "mine", "--from", str(tmp_path / "page.html"), "--dir", str(tmp_path),
                 "--items", str(tmp_path / "items.csv")]) == 0
    config = tmp_path / "config" / "mine.toml"
    text = config.read_text(encoding="utf-8").replace("images_per_hit = 1 ", f"images_per_hit = {per_page} ")
    for old, new in (edits or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    config.write_text(text, encoding="utf-8")
    return config


def rehearse(tmp_path: Path, config: Path, platform: str, capsys, *more: str) -> str:
    own = ["--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "out"), "--no-prefect", *more]
    assert main(["run", str(config), "--platform", platform, *own]) == 0
    return capsys.readouterr().out


def working_times(tmp_path: Path) -> tuple[list[float], int]:
    """Seconds of the submitted work by working honest profiles, and how many of their places timed out."""
    profile = {w["worker_id"]: w["profile"] for w in json.loads((tmp_path / "out" / "mine" / "sim_workers.json")
                                                                 .read_text())}
    with sqlite3.connect(tmp_path / "h.db") as db:
        work = db.execute("SELECT worker_id, submit_time - accept_time FROM assignments").fetchall()
        timed_out = db.execute("SELECT participant_id FROM platform_submissions WHERE status = 'TIMED-OUT'").fetchall()
    honest = lambda w: profile.get(w.removeprefix("invite:")) in WORKING  # noqa: E731
    return [s for w, s in work if honest(w)], sum(1 for (w,) in timed_out if honest(w))


def assert_time_follows_the_page(tmp_path: Path, config: Path, platform: str, per_page: int, out: str) -> None:
    """On 2c4fa7dd the Prolific medians were 263-303 s and the links' 474-479 s on these pages, whose plans say
    40-126 s; 42 honest places of the one-slider page timed out on Prolific."""
    seconds, timed_out = working_times(tmp_path)
    cfg = load_campaign(config, platform)  # the plan as the route plans it: whole minutes a place on Prolific
    planned = 60 * kind_of(cfg).plan(cfg).minutes
    stated = 60 * cfg.prolific.estimated_minutes if platform_facts(platform).WHOLE_MINUTES else planned
    assert len(seconds) >= 8 and timed_out == 0
    for plan in (planned, stated):
        assert abs(statistics.median(seconds) - plan) <= 0.25 * plan, (statistics.median(seconds), plan)
    assert ("a place holds" in out) == (cfg.images_per_hit != per_page)  # the run says what a place holds


# the one-item page on Prolific and on MTurk: the two tests of a one-item page below, which check this too
@pytest.mark.parametrize(("per_page", "platform"), [(1, "links"), *((n, route) for n in (2, 5)
                                                                     for route in ("prolific", "mturk", "links"))])
def test_people_s_time_follows_the_page_on_every_route(tmp_path: Path, monkeypatch, capsys, platform: str,
                                                       per_page: int) -> None:
    monkeypatch.chdir(tmp_path)
    config = new_page(tmp_path, per_page, items=6 * max(per_page, 3))  # six places, of up to three short pages
    assert_time_follows_the_page(tmp_path, config, platform, per_page, rehearse(tmp_path, config, platform, capsys))


def test_a_one_item_page_on_prolific_is_a_place_of_whole_minutes(tmp_path: Path, monkeypatch, capsys) -> None:
    """At ca677132 a one-item page of 40 s was a place of its own on Prolific, stated as 1 min (at least one): the
    rehearsal's median was 0.63 of the estimate and the reward paid 1.6 times its hourly rate; the page as it is on
    MTurk and invite links."""
    monkeypatch.chdir(tmp_path)
    config = new_page(tmp_path, 1, items=30)  # ten places of three, as the routes above
    assert "# on Prolific a place holds 3 items, not the page's 1" in config.read_text(encoding="utf-8")
    out = rehearse(tmp_path, config, "prolific", capsys)
    assert_time_follows_the_page(tmp_path, config, "prolific", 1, out)
    seconds, timed_out = working_times(tmp_path)
    with sqlite3.connect(tmp_path / "h.db") as db:
        held = {n for (n,) in db.execute("SELECT count(*) FROM items GROUP BY batch, hit_index")}
    assert held == {3} and "note: on Prolific a place holds 3 items, not the page's 1" in out
    assert timed_out == 0 and 0.75 <= statistics.median(seconds) / 60 <= 1.25, statistics.median(seconds)
    assert {load_campaign(config, route).images_per_hit for route in ("mturk", "links")} == {1}


def test_the_slow_park_a_prolific_page_within_the_maximum_time_it_shows_them(tmp_path: Path, monkeypatch,
                                                                            capsys) -> None:
    """Prolific shows a study's maximum time before a participant starts (its participant help, Timed-Out
    Submissions). On 4c1fff6b the simulator's slow, honest people, parked the page 0.98-1.1 times whatever
    maximum the plan set: most of them timed out, and no maximum could keep them from it."""
    monkeypatch.chdir(tmp_path)
    config = new_page(tmp_path, 1, items=12)  # 12 places or more, whatever a place holds
    (tmp_path / "slow.toml").write_text('seed = 1\n\n[[profile]]\nname = "slow"\ncount = 12\n', encoding="utf-8")
    rehearse(tmp_path, config, "prolific", capsys, "--crowd", str(tmp_path / "slow.toml"))
    profile = {w["worker_id"]: w["profile"] for w in json.loads((tmp_path / "out" / "mine" / "sim_workers.json")
                                                                 .read_text())}
    with sqlite3.connect(tmp_path / "h.db") as db:
        subs = db.execute("SELECT participant_id, status, completed_at - started_at FROM platform_submissions")
        subs = subs.fetchall()
    maximum = 60 * load_campaign(config, "prolific").prolific.maximum_minutes
    done = [s for _, status, s in subs if status != "RETURNED"]  # a place handed back unstarted is no time worked
    assert {profile[p] for p, _, _ in subs} == {"slow"} and len(done) == 12
    assert [status for _, status, _ in subs if status == "TIMED-OUT"] == []
    assert all(0.7 * maximum <= s <= maximum for s in done)  # parked, and back in time


def test_the_dry_run_and_the_run_set_the_plan_against_the_rehearsal_s_times(tmp_path: Path, monkeypatch,
                                                                             capsys) -> None:
    """A plan paying 0.15 GBP for a page whose median is two minutes: under Prolific's 6.00 GBP/hour by the median.
    Before any run the dry run rehearses a first batch, but said nothing of its times: a plan under Prolific's
    floor by the page's own pace went unremarked until money was spent. (One campaign for both: the first dry run
    rehearses in a folder of its own and leaves the ledger as it was.)"""
    monkeypatch.chdir(tmp_path)
    config = new_page(tmp_path, 2, items=12, edits={"[prolific]\n": '[prolific]\nreward = "0.15"\n'
                                                    "estimated_minutes = 1\nmaximum_minutes = 5\n"})
    dry_run = ["run", str(config), "--dry-run", "--platform", "prolific", "--db", str(tmp_path / "h.db"),
               "--out", str(tmp_path / "out")]
    assert main(dry_run) == 0
    said = capsys.readouterr().out.splitlines()
    at = next(n for n, x in enumerate(said) if x.startswith("rehearsal of a first batch on the simulator"))
    assert said[at + 1].startswith("times of ") and sum(x.startswith("times of ") for x in said) == 1, said
    assert any(x.startswith("warning: by the median the reward pays under Prolific's minimum") for x in said)
    assert not (tmp_path / "h.db").exists() and not (tmp_path / "out").exists()  # the run below starts afresh

    out = rehearse(tmp_path, config, "prolific", capsys)
    line = next(x for x in out.splitlines() if x.startswith("times of "))
    assert "the plan: estimated 1 min, maximum 5 min, 0.15 GBP (9.00 GBP/hour by the estimate" in out
    assert "warning: by the median the reward pays under Prolific's minimum of 6.00 GBP/hour" in out
    assert "set [prolific] estimated_minutes = 2" in out
    assert main([*dry_run, *UNREHEARSED]) == 0  # no rehearsal of its own: the times can come from the ledger alone
    said_after = capsys.readouterr().out
    assert line in said_after  # the dry run reads the rehearsal's times from the ledger
    assert "warning: [prolific] estimated_minutes = 1, but the page reads as about" in said_after  # before any run, too


def test_every_item_is_answered_or_named_and_short_ones_are_topped_up(tmp_path: Path, monkeypatch,
                                                                      capsys) -> None:
    """A one-item survey page with a top-up round: items whose judgements were rejected get more, and those
    still short are named in the run's lines, summary.txt, the report and `hitflow status`."""
    from flows.campaigns.summary import short_items  # what names them (on 2c4fa7dd: nothing did)

    monkeypatch.chdir(tmp_path)
    config = new_page(tmp_path, 1, items=30, edits={"# top_up_rounds = 2": "top_up_rounds = 1",
                                                    'budget = "': 'budget = "2'})  # the top-ups' worst case fits
    out = rehearse(tmp_path, config, "mturk", capsys)
    with sqlite3.connect(tmp_path / "h.db") as db:
        extended = db.execute("SELECT count(*) FROM ledger WHERE operation = 'CreateAdditionalAssignmentsForHIT'"
                              ).fetchone()[0]
    assert extended >= 1, out  # rejected work was offered again
    per, short = short_items(Store(tmp_path / "h.db"), "mine")
    answers = pd.read_csv(tmp_path / "out" / "mine" / "answers.csv", dtype=str)
    items = set(pd.read_csv(tmp_path / "items.csv", dtype=str)["item_id"])
    approved = pd.read_csv(tmp_path / "out" / "mine" / "responses.csv", dtype=str)
    approved = approved[approved["decision"] == "approve"].groupby("item_id")["assignment_id"].nunique()
    assert per == 3 and {i for i in items if approved.get(i, 0) < per} == set(short)
    assert set(answers["item_id"]) | set(short) == items
    summary = (tmp_path / "out" / "mine" / "summary.txt").read_text()
    report = (tmp_path / "out" / "mine" / "report.html").read_text()
    assert main(["status", "mine", "--db", str(tmp_path / "h.db")]) == 0
    status = capsys.readouterr().out
    for item, n in list(short.items())[:10]:
        for view in (out, summary, report, status):
            assert f"{item} ({n})" in view
    if not short:  # named nowhere then, and said nowhere either
        assert "items short of accepted answers" not in summary + status


def test_scale_copies_a_custom_page_s_items_and_a_study_refuses_it(tmp_path: Path, monkeypatch, capsys) -> None:
    """--scale 5 on a page of one's own planned the same 6 items; a study now says why it cannot scale."""
    monkeypatch.chdir(tmp_path)
    cfg = load_campaign(new_page(tmp_path, 1, items=6))
    plan = item_plan(cfg, scale=5)
    assert len(plan) == 30 and len({r["item_id"] for r in plan}) == 30
    assert {json.loads(r["payload"])["text"] for r in plan} == {json.loads(r["payload"])["text"] for r in plan[:6]}
    with pytest.raises(ConfigError, match="run it without --scale"):
        item_plan(load_campaign(ROOT / "config" / "expert_rating.toml"), scale=2)


def test_a_rehearsal_on_another_route_is_scaled_to_this_route_s_unit(tmp_path: Path, monkeypatch, capsys) -> None:
    """A one-item page rehearsed on MTurk (a HIT of one item), then planned for Prolific, where a place holds three:
    the MTurk median read as a place's time advised an estimate of one minute, a third of the place's time, and
    the reward followed it."""
    monkeypatch.chdir(tmp_path)
    config = new_page(tmp_path, 1, items=12)
    assert_time_follows_the_page(tmp_path, config, "mturk", 1, rehearse(tmp_path, config, "mturk", capsys))
    seconds, _ = working_times(tmp_path)
    main(["run", str(config), "--dry-run", "--platform", "prolific", "--db", str(tmp_path / "h.db"),
          "--out", str(tmp_path / "out")])  # a PROBLEM: the campaign ran on MTurk (a new attempt would run it)
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("times of "))
    k = load_campaign(config, "prolific").images_per_hit
    assert k == 3 and f"a unit of {k} items here" in line
    said = float(line.split("median ", 1)[1].split(" min", 1)[0])
    assert said == pytest.approx(k * statistics.median(seconds) / 60, rel=0.25)  # not the one item's time
    assert "set [prolific] estimated_minutes = 1\n" not in out + "\n"
    assert line.startswith("times of ") and " accepted on mturk: median " in line


def test_another_route_s_parked_work_sets_no_time_limit_here(tmp_path: Path, monkeypatch) -> None:
    """MTurk's clock runs while a worker parks a HIT: a Prolific dry run after an MTurk run advised a 2-minute study
    a maximum of 182 minutes from the parked tail. The median still plans the pay; the limit comes from Prolific's."""
    from flows.campaigns.page_plan import ACCEPTED_TIMES, RAN_ON, rehearsal_time_lines

    monkeypatch.chdir(tmp_path)
    cfg = load_campaign(new_page(tmp_path, 1, items=6), "prolific")
    times = [{"s": 80.0 + n, "items": cfg.images_per_hit} for n in range(7)] + [{"s": 3000.0, "items": 1}] * 3

    def lines(ran_on: str) -> str:
        answers = {ACCEPTED_TIMES: times, RAN_ON: [{"config_json": json.dumps({"platform": ran_on})}]}

        def rows(sql: str, _: list[Any]) -> list[dict[str, Any]]:
            return answers.get(sql, [{"n": 0}])
        return "\n".join(rehearsal_time_lines(rows, cfg, "prolific", "mine"))

    assert "raise [prolific] maximum_minutes" in lines("prolific")  # its own slow tail: the limit is near
    elsewhere = lines("mturk")
    assert "raise [prolific] maximum_minutes" not in elsewhere and "accepted on mturk: median" in elsewhere
    assert "the plan: estimated" in elsewhere  # the pay is still set against the median

"""Control items: items with known answers mixed into every batch at
``[answers] control_share`` on every route, looking like any item on the page, paid and counted like
one, scored per worker and blocking consistently-wrong workers between batches; never in the
dataset or the answers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from bench.answers_accuracy import HONEST, OPTIONS, project
from flows.answers.control_items import page_counts
from flows.core.config.config import load_config
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.custom.custom_task import custom_item_plan
from flows.driver.campaign_run import run_campaign
from flows.sim.people.latent_choices import latent_truth
from postprocess.answers.control_items import ControlPolicy, control_blocks, control_scores, trusted_controls
from tests.small_configs import UNREHEARSED


def _judgements(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["worker_id", "item_id", "value"]).assign(field="f")


KEY = pd.DataFrame({"item_id": ["g1", "g2", "g3", "g4", "g5"], "field": "f", "answer": ["a", "b", "a", "b", "a"]})


def test_scores_by_hand() -> None:
    given = _judgements([("w1", "g1", "a"), ("w1", "g2", "a"), ("w1", "x", "a"), ("w2", "g3", "a "),
                         ("w2", "g4", ""), ("w3", "x", "b")])
    scores = control_scores(given, KEY).set_index("worker_id")
    assert scores.to_dict("index") == {"w1": {"controls": 2, "correct": 1, "accuracy": 0.5},
                                       "w2": {"controls": 1, "correct": 1, "accuracy": 1.0}}  # blank: no answer


def test_blocks_need_enough_controls_and_a_clear_rate() -> None:
    wrong = _judgements([("bad", g, "c") for g in ("g1", "g2", "g3", "g4")] +
                        [("new", g, "c") for g in ("g1", "g2", "g3")] +
                        [("two", g, "c") for g in ("g1", "g2")] +
                        [("slip", g, v) for g, v in (("g1", "a"), ("g2", "b"), ("g3", "c"), ("g4", "c"), ("g5", "a"))])
    scores = control_scores(wrong, KEY)
    blocks = control_blocks(scores, ControlPolicy())
    # 0 of 3 blocks by default (the rule before it, 4 seen and a Wilson bound, waited for a fourth);
    # "two": 2 seen; "slip": 3 of 5 right
    assert blocks.to_dict("records") == [{"worker_id": "bad", "rules": "control_accuracy 0% (0/4)", "flags": 4,
                                          "captions": 4},
                                         {"worker_id": "new", "rules": "control_accuracy 0% (0/3)", "flags": 3,
                                          "captions": 3}]
    assert control_blocks(scores, ControlPolicy(min_seen=4))["worker_id"].tolist() == ["bad"]
    assert control_blocks(scores, ControlPolicy(min_seen=1, block_below=0)).empty
    assert control_blocks(scores, ControlPolicy(min_seen=1, alpha=0.08))["worker_id"].tolist() == ["bad", "new",
                                                                                                    "two"]
    # alpha 0 (a campaign planned before it): the Wilson rule; the plain share (z = 0): 2 of 5 wrong is
    # not above 1 - 0.5; 0.7 makes it so
    assert control_blocks(scores, ControlPolicy(min_seen=4, alpha=0))["worker_id"].tolist() == ["bad"]
    assert control_blocks(scores, ControlPolicy(min_seen=5, block_below=0.7, confidence=0, alpha=0)
                          )["worker_id"].tolist() == ["slip"]


def _project(tmp_path: Path, items: int = 60, adversaries: int = 6, share: float = 0.2,
             extra: str = "", pooling: bool = False) -> Path:
    """Controls alone by default (the rule these tests pin; tests/test_worker_skill.py the pooled one), on the
    pages only (no quiz first: tests/test_control_quiz.py)."""
    config = project(tmp_path, items, adversaries, share, pooling=pooling)
    text = config.read_text(encoding="utf-8").replace("images_per_hit = 10", "images_per_hit = 5")
    text = text.replace('budget = "100000.00 USD"', 'budget = "100000.00 USD"\nfx_rates = {GBP = "1.27"}')
    config.write_text(text.replace("[answers]\n", f"[answers]\ncontrol_min_seen = 3\nquiz = 0\n{extra}"),
                      encoding="utf-8")
    return config


def test_plan_mixes_controls_into_every_batch(tmp_path: Path) -> None:
    cfg = load_config(_project(tmp_path))
    plan = custom_item_plan(cfg)
    controls = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    is_control = [r["item_id"] in set(controls["item_id"]) for r in plan]
    # 20 ordinary items a batch, and 0.2/0.8 of that in controls: 5 a batch, each used once
    assert [sum(c for c, r in zip(is_control, plan, strict=True) if r["batch"] == b) for b in (1, 2, 3)] == [5, 5, 5]
    assert len(plan) == 75 and len({r["item_id"] for r in plan}) == 75
    assert all(r["hit_index"] < 5 for r in plan)
    for row in (r for r, c in zip(plan, is_control, strict=True) if c):
        assert set(json.loads(row["payload"])) == {"item_id", "text"}  # its answer is not on the page
    ordinary = [r["item_id"] for r, c in zip(plan, is_control, strict=True) if not c]
    assert ordinary == [f"r{k:05d}" for k in range(60)]  # in file order, around the controls
    with pytest.raises(ConfigError, match=r"needs 15 control items .* the file has 3"):
        pd.read_csv(tmp_path / "controls.csv").head(3).to_csv(tmp_path / "controls.csv", index=False)
        custom_item_plan(load_config(tmp_path / "sentiment.toml"))


def _controls_by_page(plan: list[dict[str, Any]], controls: set[str]) -> dict[tuple[int, int], list[int]]:
    """(batch, page) -> the places of its controls on the page."""
    pages: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in plan:
        pages.setdefault((row["batch"], row["hit_index"]), []).append(row)
    return {key: [i for i, r in enumerate(rows) if r["item_id"] in controls] for key, rows in pages.items()}


def test_page_counts_by_hand() -> None:
    # 2 controls over pages of 10, 10, 10, 10, 5: spread, wherever the draw starts
    assert page_counts([10, 10, 10, 10, 5], 2, 0.0) == [0, 0, 1, 0, 1]
    assert page_counts([10, 10, 10, 10, 5], 2, 0.5) == [0, 1, 0, 1, 0]
    assert page_counts([5, 5, 5, 2], 4, 0.0) == [1, 1, 1, 1]
    # the draw would leave the short last page without one (2, 1, 1, 0): it gets the fullest page's
    assert page_counts([5, 5, 5, 2], 4, 0.9) == [1, 1, 1, 1]


@pytest.mark.parametrize(("items", "share", "page"), [(60, 0.2, 5), (1000, 0.05, 20), (1000, 0.05, 10),
                                                      (997, 0.07, 10)])
def test_controls_are_spread_over_the_pages(tmp_path: Path, items: int, share: float, page: int) -> None:
    """With share x page size >= 1 every page carries about that many controls; with less, every page
    carries one all the same (tests/test_controls_first.py); on every page a control sits at no fixed place."""
    config = project(tmp_path, items, 0, share, per_page=page)
    more = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    pd.concat([more, more.assign(item_id=more["item_id"] + "b")]).to_csv(tmp_path / "controls.csv", index=False)
    plan = custom_item_plan(load_config(config))
    controls = set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    by_page = _controls_by_page(plan, controls)
    counts = [len(places) for places in by_page.values()]
    if share * page >= 1:
        assert abs(sum(counts) / len(plan) - share) < 0.01
        assert min(counts) >= 1 and max(counts) <= -(-share * page // 1) + 1
    else:
        assert min(counts) == max(counts) == 1
    places = [p for ps in by_page.values() for p in ps]
    assert len(set(places)) > page // 2  # drawn on each page, not one fixed slot


def test_share_without_a_controls_file_is_refused(tmp_path: Path) -> None:
    config = _project(tmp_path)
    config.write_text(config.read_text().replace('controls = "controls.csv"\n', ""), encoding="utf-8")
    with pytest.raises(ConfigError, match="control_share needs \\[answers\\] controls"):
        custom_item_plan(load_config(config))


def _section(page: str, index: int) -> str:
    """Item ``index``'s section of a page with its id and text taken out."""
    part = page.split(f'<section class="custom-item" id="item-{index}">', 1)[1].split("</section>", 1)[0]
    return re.sub(rf'_{index}"', '_N"', re.sub(r"r\d{5}|Review number \d+", "X", part))


ROUTE_ITEMS = 36  # ordinary items of the campaigns run on every route: 12 a batch, 4 pages of 5 with the controls


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_controls_on_every_route(tmp_path: Path, platform: str) -> None:
    """Controls are posted in the units, answered by the simulated crowd's one model, paid like any
    item, and block the consistently wrong before the last batch; out of dataset and answers."""
    # two controls on every page of 5: an adversary meets three in batches 1-2 in two or three pages
    config = _project(tmp_path, items=ROUTE_ITEMS, share=0.4)
    run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", progress=lambda _: None,
                 platform=platform)
    out, store = tmp_path / "runs" / "sentiment", Store(tmp_path / "h.db")
    controls = set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    planned = json.loads(store.rows("SELECT config_json FROM campaigns")[0]["config_json"])
    # the budget is checked on these, controls included (0.4 / 0.6 of a batch's ordinary items)
    assert planned["items"] == ROUTE_ITEMS + 3 * round(ROUTE_ITEMS / 3 * 0.4 / 0.6)
    responses = pd.read_csv(out / "responses.csv", dtype=str, keep_default_na=False)
    responses["worker_id"] = responses["worker_id"].str.removeprefix("invite:")  # links: invitee = sim worker
    answered = responses[responses["item_id"].isin(controls)]
    assert set(answered["batch"]) == {"1", "2", "3"} and len(answered["item_id"].unique()) >= 12
    assert (answered["decision"] == "approve").any()  # paid as any item of its unit
    assert not controls & set(pd.read_csv(out / "dataset.csv", dtype=str)["item_id"])
    assert not controls & set(pd.read_csv(out / "answers.csv", dtype=str)["item_id"])
    workers = pd.DataFrame(json.loads((out / "sim_workers.json").read_text()))
    wrong = set(workers.loc[workers.get("choices", pd.Series(dtype=str)).fillna("") == "wrong", "worker_id"])
    # the simulator answers a control by its latent model: an adversary is never right on one
    truth = {i: latent_truth(i, "sentiment", OPTIONS) for i in controls}
    adversary_answers = answered[answered["worker_id"].isin(wrong) & (answered["field"] == "sentiment")]
    assert len(adversary_answers) and not (adversary_answers["value"] == adversary_answers["item_id"].map(truth)).any()
    blocks = pd.read_csv(out / "blocked_workers.csv", dtype=str, keep_default_na=False)
    blocks["worker_id"] = blocks["worker_id"].str.removeprefix("invite:")
    by_controls = blocks[blocks["rules"].str.contains("control_accuracy")]
    assert set(by_controls["worker_id"]) and set(by_controls["worker_id"]) <= wrong | set(
        workers.loc[workers["profile"].isin(["speeder", "canned_abuser", "contrarian"]), "worker_id"])
    # every adversary who answered control_min_seen (3) controls in batches 1-2 is blocked before batch 3
    early = adversary_answers[adversary_answers["batch"].astype(int) < 3].groupby("worker_id").size()
    assert set(early[early >= 3].index) and set(early[early >= 3].index) <= set(
        by_controls.loc[by_controls["batch"].astype(int) < 3, "worker_id"])
    scored = pd.read_csv(out / "workers.csv", dtype=str, keep_default_na=False)
    assert (pd.to_numeric(scored["controls"]) > 0).any()
    # the same evidence as flags of the batches they worked, in flags.csv beside the other rules
    flags = pd.read_csv(out / "flags.csv", dtype=str, keep_default_na=False)
    on_controls = flags[flags["rule"] == "control_accuracy"]
    assert set(on_controls["worker_id"].str.removeprefix("invite:")) == set(by_controls["worker_id"])
    evidence = r"known answers over the campaign: control_accuracy \d+% \(\d+/\d+\)"
    assert on_controls["detail"].str.fullmatch(evidence).all()
    # an adversary is never right on a control; careless profiles (random clicks) may be now and then
    of_adversaries = on_controls[on_controls["worker_id"].str.removeprefix("invite:").isin(wrong)]
    assert of_adversaries["detail"].str.endswith(tuple(f"0% (0/{n})" for n in range(1, 100))).all()
    if platform == "mturk":
        shown_to_a_person(tmp_path / "h.db", set(by_controls["worker_id"]), scored)


def shown_to_a_person(db: Path, blocked: set[str], scored: pd.DataFrame) -> None:
    """The review page's cards carry each worker's control answers; `hitflow ui` lists every worker of
    workers.csv with skill and control accuracy, and the answers' confidence."""
    import httpx

    from flows.driver.campaign_status import campaign_status
    from flows.driver.operations import open_campaign_run
    from flows.review.overview_app import OverviewServer, OverviewSite
    from flows.review.review_cards import queue_cards

    with open_campaign_run(str(db), "sentiment", progress=lambda _: None) as run:
        cards = queue_cards(run, "flagged", {})["cards"]
    lines = {c["worker_id"]: c["controls"] for c in cards if c["worker_id"] in blocked}
    # 0 right when blocked; a worker stopped on 0 of 3 while the batch came in may have had more pages already
    # (the simulator's MTurk workers take their pages when the HITs are posted), some right by chance
    found = [re.fullmatch(r"(\d+) of (\d+) right \(\d+%\)", v) for v in lines.values()]
    assert set(lines) == blocked and all(m and int(m[1]) / int(m[2]) < 0.5 for m in found)
    site = OverviewSite(db_path=db, out_root=db.parent / "runs", read_status=campaign_status)
    with OverviewServer(site) as server, httpx.Client(follow_redirects=True) as client:
        page = client.get(f"{server.url}/?token={site.login_token}").text
    assert f"Answers: {ROUTE_ITEMS} (sentiment;" in page and f"skill of {len(scored)} workers" in page
    for w in scored.to_dict("records"):
        assert f"<td>{w['worker_id']}</td>" in page


def test_a_control_looks_like_any_item_on_the_page(tmp_path: Path) -> None:
    from flows.core.pages.templates import page_items
    from flows.custom.custom_task import custom_page

    cfg = load_config(_project(tmp_path))
    plan = custom_item_plan(cfg)
    controls = set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    units = [[r for r in plan if r["batch"] == 1 and r["hit_index"] == h] for h in range(5)]
    unit = next(u for u in units if 0 < sum(r["item_id"] in controls for r in u) < len(u))
    page = custom_page(cfg, page_items(unit))
    sections = {_section(page, i) for i in range(len(unit))}
    assert len(sections) == 1  # with its id and text out, a control's section is any item's
    # every page carries a control at this share (0.2 of 5 items): a page of ordinary items alone to compare
    plain = [r for r in plan if r["item_id"] not in controls][:len(unit)]

    def scrubbed(rows: list[dict[str, str]]) -> str:
        return re.sub(r"r\d{5}|Review number \d+", "X", custom_page(cfg, page_items(rows)))

    assert scrubbed(unit) == scrubbed(plain)  # the whole page, beside a page of ordinary items only


def test_dry_run_says_a_short_controls_file_went_whole_to_the_quiz(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from flows.answers.control_quiz import QUIZ_LEAST
    from flows.cli.main import main

    config = _project(tmp_path)
    controls = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    controls.head(QUIZ_LEAST).to_csv(tmp_path / "controls.csv", index=False)  # no more than the quiz's least
    config.write_text(config.read_text(encoding="utf-8").replace("quiz = 0", f"quiz = {QUIZ_LEAST}"), encoding="utf-8")
    assert main(["run", str(config), "--dry-run", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "o"),
                 *UNREHEARSED]) == 0
    said = capsys.readouterr().out
    assert "control items: none on the pages: the controls file's items all go to the quiz" in said
    assert "control items: 0 of the" not in said and "no page carries one" in said
    assert f"the file's {QUIZ_LEAST} items serve the quiz whole (every worker answers a quiz's item" in said


def test_dry_run_warns_of_a_controls_file_no_page_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Controls of their own (not in the items file) and no control_share: nobody would be scored on them."""
    from flows.cli.main import main

    config = _project(tmp_path, share=0.0)
    assert main(["run", str(config), "--dry-run", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "o"),
                 *UNREHEARSED]) == 0
    said = capsys.readouterr().out
    n = pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"].nunique()
    assert f"warning: {n} of the {n} items in [answers] controls are not in the items file and control_share = 0" \
        in said


def test_controls_of_their_own_are_mixed_in_when_no_share_is_set(tmp_path: Path) -> None:
    """A controls file whose items the items file lacks, control_share left out: they are shown, and it says so."""
    config = _project(tmp_path, share=0.3)
    config.write_text(re.sub(r"(?m)^control_share = .*\n", "", config.read_text(encoding="utf-8")), encoding="utf-8")
    cfg = load_config(config)
    assert cfg.answers.control_share == pytest.approx(0.1, abs=1e-9)
    assert any("mixed in at control_share = 0.1" in n for n in cfg.notes)
    controls = set(pd.read_csv(tmp_path / "controls.csv", dtype=str)["item_id"])
    assert any(r["item_id"] in controls for r in custom_item_plan(cfg))


def test_controls_of_the_items_file_get_the_quiz_when_no_share_is_set(tmp_path: Path) -> None:
    """Rows of the items file named as controls, control_share left out: set apart for the quiz and the pages'
    share, so a worker is judged before their work counts; control_share = 0 leaves them where the file has them."""
    from flows.answers.control_quiz import quiz_record

    config = _project(tmp_path, share=0.3)
    ids = [f"r{k:05d}" for k in range(0, 60, 4)]
    pd.DataFrame({"item_id": ids, "field": "sentiment", "answer": ["positive", "negative", "neutral"] * 5}).to_csv(
        tmp_path / "mine.csv", index=False)
    text = re.sub(r"(?m)^(control_share|quiz) = .*\n", "", config.read_text(encoding="utf-8"))
    config.write_text(text.replace('controls = "controls.csv"', 'controls = "mine.csv"'), encoding="utf-8")
    cfg = load_config(config)
    assert cfg.answers.control_share == pytest.approx(0.1, abs=1e-9)
    assert any("mixed in at control_share = 0.1, after the quiz" in n for n in cfg.notes)
    plan = custom_item_plan(cfg)
    record = quiz_record(cfg, plan)
    assert record is not None and len(record["key"]) >= 10 and {k[0] for k in record["key"]} <= set(ids)
    assert not {k[0] for k in record["key"]} & {r["item_id"] for r in plan}  # the quiz's items are on no page
    config.write_text(config.read_text(encoding="utf-8").replace("[answers]\n", "[answers]\ncontrol_share = 0\n"),
                      encoding="utf-8")
    kept = load_config(config)
    assert kept.answers.control_share == 0 and quiz_record(kept, custom_item_plan(kept)) is None
    assert [r["item_id"] for r in custom_item_plan(kept)] == [f"r{k:05d}" for k in range(60)]


def test_dry_run_names_the_controls_and_other_tasks_refuse_a_share(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from flows.cli.main import main
    from tests.small_configs import small_vizwiz

    config = _project(tmp_path)
    assert main(["run", str(config), "--dry-run", "--db", str(tmp_path / "h.db"), "--out", str(tmp_path / "o"),
                 *UNREHEARSED]) == 0
    said = capsys.readouterr().out
    assert "control items: 15 of the 75 planned items ([answers] control_share = 0.2)" in said
    in_file = len(pd.read_csv(tmp_path / "controls.csv", dtype=str))
    assert in_file > 15  # the file holds more controls than the plan shows: the simulator follows the 15 shown
    assert "simulated answers for sentiment follow the known answers on 15 of 75 items (control items)" in said
    (tmp_path / "c").mkdir()
    captions = small_vizwiz(tmp_path / "c", items=5)
    captions.write_text(captions.read_text().replace("[answers]\n", "[answers]\ncontrol_share = 0.1\n", 1),
                        encoding="utf-8")  # the demo's own [answers] table (caption top-ups) takes the key
    assert main(["run", str(captions), "--dry-run", "--db", str(tmp_path / "c.db"), "--out", str(tmp_path / "o")]) == 2
    assert 'control_share mixes control items into a page of your own (task = "custom")' in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("pooled", [False, True])
def test_a_wrong_answer_file_blocks_nobody(tmp_path: Path, pooled: bool) -> None:
    """Control answers that are themselves wrong: the crowd disagrees with each (2/3 and more of its
    answers), so the file is distrusted there, and no honest worker is blocked on it, by controls alone
    or pooled with agreement (which may block a bad profile on its agreement: a speeder agreeing 22%)."""
    config = _project(tmp_path, items=36, adversaries=0, pooling=pooled)
    controls = pd.read_csv(tmp_path / "controls.csv", dtype=str)
    # the crowd knows the true answers from the items file's own column ([campaign] truth, a
    # rehearsal's crowd follows a known answer), the control file says another
    items = pd.read_csv(tmp_path / "sentiment_items.csv", dtype=str).assign(gold="")
    pd.concat([items, controls[["item_id", "text"]].assign(gold=controls["answer"])]).to_csv(
        tmp_path / "sentiment_items.csv", index=False)
    controls["answer"] = [OPTIONS[(OPTIONS.index(a) + 1) % 3] for a in controls["answer"]]
    controls.to_csv(tmp_path / "controls.csv", index=False)
    config.write_text(re.sub(r"(?m)^(items = .*)$", r'\1\ntruth = {sentiment = "gold"}', config.read_text()))
    config.write_text(config.read_text().replace("control_min_seen = 3", "control_min_seen = 1"), encoding="utf-8")
    run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", progress=lambda _: None)
    blocks = pd.read_csv(tmp_path / "runs" / "sentiment" / "blocked_workers.csv", dtype=str, keep_default_na=False)
    on_controls = set(blocks.loc[blocks["rules"].str.contains("control_accuracy|worker_skill"), "worker_id"])
    workers = pd.DataFrame(json.loads((tmp_path / "runs" / "sentiment" / "sim_workers.json").read_text()))
    assert not on_controls & set(workers.loc[workers["profile"].isin(HONEST), "worker_id"])
    assert pooled or not on_controls
    scored = pd.read_csv(tmp_path / "runs" / "sentiment" / "workers.csv")
    assert scored["controls"].sum() > 20 and scored["control_accuracy"].mean() < 0.3  # as the file sees them


def test_a_control_the_crowd_contradicts_is_not_trusted() -> None:
    given = _judgements([(w, "g1", "b") for w in ("w1", "w2", "w3")] + [("w4", "g1", "a")] +
                        [("w1", "g2", "b"), ("w2", "g2", "a")] + [(w, "g3", "a") for w in ("w1", "w2", "w3")] +
                        [(w, "g5", v) for w, v in (("w1", "b"), ("w2", "b"), ("w3", "c"), ("w4", "c"), ("w5", "a"))])
    kept = trusted_controls(given, KEY)
    # g1: 1 of 4 agree, 3 agree on b; g2: 2 answers, too few; g5: 1 of 5 agree, but no other answer has half
    assert kept["item_id"].tolist() == ["g2", "g3", "g4", "g5"]


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_pooled_controls_on_every_route(tmp_path: Path, platform: str) -> None:
    """Controls pooled with agreement (the default) read the same labels on every route: the
    consistently wrong are blocked before the last batch on them, and no honest profile is. Two controls
    on every page of 5, as above: on Prolific a participant takes one page a batch, and a page of 5
    with fewer controls is short of the two sources a block needs before the last batch."""
    config = _project(tmp_path, items=ROUTE_ITEMS, share=0.4, pooling=True)
    run_campaign(config, db_path=tmp_path / "h.db", out_root=tmp_path / "runs", progress=lambda _: None,
                 platform=platform)
    out = tmp_path / "runs" / "sentiment"
    workers = pd.DataFrame(json.loads((out / "sim_workers.json").read_text()))
    wrong = set(workers.loc[workers.get("choices", pd.Series(dtype=str)).fillna("") == "wrong", "worker_id"])
    blocks = pd.read_csv(out / "blocked_workers.csv", dtype=str, keep_default_na=False)
    blocks["worker_id"] = blocks["worker_id"].str.removeprefix("invite:")
    # or stopped on the task server, after a page, on control answers alone (0 right of the first 3)
    pooled = blocks[blocks["rules"].str.contains("worker_skill|control_accuracy")]
    early = set(pooled.loc[pooled["batch"].astype(int) < 3, "worker_id"])
    honest = set(workers.loc[workers["profile"].isin(HONEST), "worker_id"]) - wrong  # adversaries are "diligent"
    assert early & wrong and not set(pooled["worker_id"]) & honest
    flags = pd.read_csv(out / "flags.csv", dtype=str, keep_default_na=False)
    on_skill = flags[flags["rule"].isin(["worker_skill", "control_accuracy"])]
    assert set(on_skill["worker_id"].str.removeprefix("invite:")) == set(pooled["worker_id"])
    assert on_skill["detail"].str.match("known answers over the campaign: (worker_skill P=|control_accuracy 0%)").all()


def test_the_dry_run_says_what_it_read_of_the_controls_and_what_the_quiz_took(tmp_path: Path) -> None:
    """Controls that are rows of the items file and control_share = 0: a "control items" line says they were read
    (before, nothing did); a share whose controls the quiz takes first: the same line says what the share asks and
    why fewer."""
    from flows.custom.truth_source import control_lines

    config = _project(tmp_path, share=0.0)
    rows = [f"r{k:05d}" for k in range(0, 60, 6)]
    pd.DataFrame({"item_id": rows, "field": "sentiment", "answer": "positive"}).to_csv(tmp_path / "mine.csv",
                                                                                        index=False)
    config.write_text(config.read_text(encoding="utf-8").replace('controls = "controls.csv"',
                                                                 'controls = "mine.csv"'), encoding="utf-8")
    cfg = load_config(config)
    [line] = control_lines(cfg, custom_item_plan(cfg))
    assert line.startswith(f"control items: {len(rows)} of the 60 planned items ([answers] controls = mine.csv, "
                           f"{len(rows)} items, control_share = 0)"), line
    (tmp_path / "quiz").mkdir()
    config = _project(tmp_path / "quiz")
    config.write_text(config.read_text(encoding="utf-8").replace("quiz = 0", "quiz = 10"), encoding="utf-8")
    controls = pd.read_csv(config.parent / "controls.csv", dtype=str)
    controls.head(20).to_csv(config.parent / "controls.csv", index=False)  # the share's 15 and the quiz's 10 do not fit
    cfg = load_config(config)
    plan = custom_item_plan(cfg)
    [line] = control_lines(cfg, plan)
    shown = sum(r["item_id"] in set(pd.read_csv(config.parent / "controls.csv", dtype=str)["item_id"]) for r in plan)
    said = re.search(r"control items: (\d+) of the \d+ planned items \(\[answers\] control_share = 0.2 asks for "
                     r"(\d+); its quiz takes (\d+) of the controls file's (\d+) first, the pages what is left\)", line)
    assert said, line
    assert int(said[1]) == shown < int(said[2]) and int(said[3]) + shown <= int(said[4])

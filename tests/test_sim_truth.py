"""Simulated answers follow a truth source on any page: the items file's answer columns
(``[campaign] truth``), control items, an answer key drive the crowd's choices with each profile's
accuracy; pairs of questions are answered from their own truth; a choice with no truth is declared
content-blind; honest free text is shorter than the text it is about and never a copy of it, and
honest profiles answer optional one-click choices."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.core.config.config import load_config
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import custom_item_plan, custom_page, dry_run_lines, read_custom_items
from flows.custom.truth_source import BLIND, known_answers
from flows.sim.pages.page_filling import fill_form, page_rules
from flows.sim.people.crowd_model import BankEntry, Worker, new_worker, normalise
from flows.sim.people.item_answers import copies
from flows.sim.people.known_answers import add_known
from flows.sim.people.latent_choices import HABIT, accuracy, item_truth
from tests.truth_pages import BLIND_FIELDS, TRUTH, truth_config

HONEST = ("diligent", "typo_prone", "note_paster", "fast_typist", "slow_typist")
WORKERS = 24


def pages(config: Path) -> list[tuple[list[dict[str, Any]], str]]:
    """The campaign's pages as its plan renders them: (the page's item rows, its HTML)."""
    cfg = load_config(config)
    plan = custom_item_plan(cfg)
    out = []
    for hit in sorted({(r["batch"], r["hit_index"]) for r in plan}):
        rows = [r for r in plan if (r["batch"], r["hit_index"]) == hit]
        out.append(([json.loads(r["payload"]) for r in rows], custom_page(cfg, page_items(rows))))
    return out


def crowd(profile: str, n: int = WORKERS) -> list[Worker]:
    rng = random.Random(f"truth-{profile}")
    return [new_worker(profile, {}, rng) for _ in range(n)]


def filled(config: Path, workers: list[Worker], known: bool = True) -> list[tuple[Worker, dict[str, str], dict]]:
    """Every worker on every page: (worker, the item's row, that item's answers without the index)."""
    cfg = load_config(config)
    bank: dict[str, BankEntry] = {}
    if known:  # what the driver hands the simulator (flows/driver/sim_marketplace.py)
        add_known(bank, [{k: r[k] for k in ("item_id", "field", "answer")}
                         for r in known_answers(cfg, read_custom_items(cfg))])
    out, shown = [], pages(config)  # every worker sees the same pages: rendered once, not once a worker
    for k, w in enumerate(workers):
        for p, (rows, html) in enumerate(shown):
            values = fill_form(w, form_fields(html), page_rules(html), 0, 300, bank, random.Random(k * 100 + p),
                               html=html)
            for i, row in enumerate(rows):
                out.append((w, row, {n.rsplit("_", 1)[0]: v for n, v in values.items() if n.endswith(f"_{i}")}))
    return out


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {kind: truth_config(tmp_path_factory.mktemp(kind), kind) for kind in TRUTH}


@pytest.fixture(scope="module")
def diligent(projects: dict[str, Path]) -> dict[str, list[tuple[Worker, dict[str, str], dict]]]:
    return {kind: filled(config, crowd("diligent")) for kind, config in projects.items()}


def expected_accuracy(w: Worker, options: int) -> float:
    """An honest worker's agreement with the truth, computed from the model's documented parts
    (latent_choices.accuracy and slip), not from the simulator's answers."""
    a = accuracy(w)
    return a + (1 - a) * (1 - HABIT) / options


@pytest.mark.parametrize(("kind", "options"), [("stress", 2), ("relevance", 4), ("pairs", 2)])
def test_diligent_choices_match_the_items_truth_at_their_accuracy(diligent, kind: str, options: int) -> None:
    answers = diligent[kind]
    for field, column in TRUTH[kind].items():
        right = [a[field] == row[column] for _, row, a in answers]
        wanted = sum(expected_accuracy(w, options) for w, _, _ in answers) / len(answers)
        assert abs(sum(right) / len(right) - wanted) < 0.05, (kind, field, sum(right) / len(right), wanted)
    # the simulator's latent answer of every item is the items file's own
    latent = {(r["item_id"], r["field"]): r for r in item_truth([w for w, _, _ in answers])}
    for _, row, _ in answers:
        for field, column in TRUTH[kind].items():
            assert latent[(row["item_id"], field)]["answer"] == row[column]
            assert latent[(row["item_id"], field)]["source"] == "known"


def test_without_truth_the_reading_model_reads_the_passage_that_shares_the_querys_words(projects) -> None:
    """The relevance page without its truth column: the simulator's reading model (declared as such,
    source "read") picks the passage sharing the query's content words, "none" where no passage does;
    on these items that is the gold every time (it said "None of the above" for 6 of 6)."""
    answers = filled(projects["relevance"], crowd("diligent", 4), known=False)
    latent = [r for r in item_truth([w for w, _, _ in answers]) if r["field"] == "relevant"]
    gold = {row["item_id"]: row["gold_passage"] for _, row, _ in answers}
    assert len(latent) == 12 and all(r["source"] == "read" and r["answer"] == gold[r["item_id"]] for r in latent)
    assert {r["answer"] for r in latent} == {"passage_1", "passage_2", "passage_3", "none"}


def test_pairs_are_answered_each_from_its_own_truth(diligent) -> None:
    answers = diligent["pairs"]
    alike = sum(a["a_ok"] == a["b_ok"] for _, _, a in answers) / len(answers)  # the truths always differ
    assert alike < 0.3, alike
    per_worker: dict[str, list[float]] = {}
    for w, row, a in answers:
        per_worker.setdefault(w.worker_id, []).append(((a["a_ok"] == row["a_ok"]) + (a["b_ok"] == row["b_ok"])) / 2)
    scores = [sum(s) / len(s) for s in per_worker.values()]
    assert min(scores) > 0.6 and len({round(s, 3) for s in scores}) > 3  # not 50.0% for everyone


def test_an_answer_key_drives_every_items_answer(tmp_path: Path) -> None:
    config = truth_config(tmp_path, "pairs", truth=False, extra='\nanswer_key = "pairs_key.csv"')
    pd.DataFrame({"field": ["a_ok", "a_ok"], "answer": ["no", "yes"], "score": ["0", "1"]}).to_csv(
        config.parent / "pairs_key.csv", index=False)
    answers = filled(config, crowd("diligent", 10))
    said_yes = sum(a["a_ok"] == "yes" for _, _, a in answers) / len(answers)
    wanted = sum(expected_accuracy(w, 2) for w, _, _ in answers) / len(answers)
    assert abs(said_yes - wanted) < 0.06, (said_yes, wanted)


def test_a_choice_without_truth_is_declared_content_blind(projects, tmp_path: Path) -> None:
    for kind, config in projects.items():
        lines = dry_run_lines(load_config(config))
        for field in BLIND_FIELDS[kind]:
            assert BLIND.format(field=field) in lines
        for field, column in TRUTH[kind].items():
            assert f"simulated answers for {field} follow the known answers (column {column})" in lines
            assert BLIND.format(field=field) not in lines
        assert not any("summary" in line or "remark" in line for line in lines if "content-blind" in line)
    bare = dry_run_lines(load_config(truth_config(tmp_path, "stress", truth=False)))
    assert BLIND.format(field="stress") in bare


def test_a_truth_column_the_items_lack_is_one_clear_line(tmp_path: Path) -> None:
    from flows.core.errors import ConfigError

    config = truth_config(tmp_path, "stress")
    config.write_text(config.read_text().replace('"gold_stress"', '"gold_stres"'))
    with pytest.raises(ConfigError, match=r"names column 'gold_stres' for stress, which .* lacks"):
        dry_run_lines(load_config(config))
    config.write_text(config.read_text().replace('stress = "gold_stres"', 'stres = "gold_stress"'))
    assert any(line.startswith("[campaign] truth names stres, which is no answer field of the page")
               for line in dry_run_lines(load_config(config)))


def test_a_summary_shortens_the_passage_and_never_copies_it(diligent) -> None:
    for _, row, a in diligent["relevance"]:
        passages = [row[f"passage_{k}"] for k in (1, 2, 3)]
        assert a["summary"] and len(a["summary"]) < max(len(p) for p in passages)
        assert all(normalise(a["summary"]) != normalise(p) for p in [*passages, row["query"]])
        assert not a["summary"].lower().startswith(("the picture shows", "in the photo"))


def test_optional_boxes_are_filled_at_a_believable_rate_never_with_the_items_text(diligent) -> None:
    remarks = [(row["post"], a.get("remark", "")) for _, row, a in diligent["stress"]]
    share = sum(bool(text) for _, text in remarks) / len(remarks)
    assert 0.1 <= share <= 0.5, share
    assert not any(text and (copies(text, [post]) or normalise(text) in normalise(post)) for post, text in remarks)


def first_workers(answers: list[tuple[Worker, dict[str, str], dict]],
                  n: int) -> list[tuple[Worker, dict[str, str], dict]]:
    """The answers of the diligent crowd's first ``n`` workers: ``crowd("diligent", n)``'s, which are its first."""
    ids = [w.worker_id for w in crowd("diligent", n)]
    assert ids == [w.worker_id for w in crowd("diligent")][:n]  # one draw after another: the same first workers
    return [(w, row, a) for w, row, a in answers if w.worker_id in ids]


@pytest.mark.parametrize("profile", HONEST)
def test_honest_profiles_answer_an_optional_radio_group(projects, diligent, profile: str) -> None:
    if profile == "diligent":  # the module's diligent crowd already worked these pages: its first 12 and 6
        answers = first_workers(diligent["pairs"], 12) + first_workers(diligent["stress"], 6)
    else:
        answers = filled(projects["pairs"], crowd(profile, 12)) + filled(projects["stress"], crowd(profile, 6))
    optional = [a.get("difficulty", a.get("readable", "")) for _, _, a in answers]
    assert sum(v == "" for v in optional) / len(optional) <= 0.05


@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_a_rehearsal_hands_the_truth_over_and_says_what_its_choices_follow(tmp_path: Path, platform: str) -> None:
    """End to end: the driver hands the items' answers to the simulator (MTurk's HITs) or to the links
    route's invitees; the crowd's latent answers are the items file's; the report and summary name the
    content-blind field."""
    from flows.driver.campaign_run import run_campaign

    config = truth_config(tmp_path, "stress", per_page=6, per_item=3)
    run_campaign(config, db_path=tmp_path / "ledger.db", out_root=tmp_path / "runs", seed=3, platform=platform,
                 progress=lambda _line: None)
    out = tmp_path / "runs" / "stress"
    gold = dict(pd.read_csv(config.parent / "stress_items.csv", dtype=str)[["item_id", "gold_stress"]].values)
    latent = pd.DataFrame(json.loads((out / "sim_items.json").read_text()))
    stress = latent[latent["field"] == "stress"]
    assert len(stress) == len(gold) and (stress["source"] == "known").all()
    assert all(gold[i] == a for i, a in zip(stress["item_id"], stress["answer"], strict=True))
    assert (latent.loc[latent["field"] == "readable", "source"] != "known").all()
    summary = (out / "summary.txt").read_text()
    assert BLIND.format(field="readable") in summary and BLIND.format(field="stress") not in summary
    assert "stress: known answers on 24 of 24 items" in summary
    assert BLIND.format(field="readable") in (out / "report.html").read_text()
    data = pd.read_csv(out / "responses.csv", dtype=str, keep_default_na=False)
    profiles = {w["worker_id"]: w["profile"] for w in json.loads((out / "sim_workers.json").read_text())}
    who = data["worker_id"].str.removeprefix("invite:").map(profiles)  # the links route names invitees so
    chosen = data[(data["field"] == "stress") & who.isin(HONEST)]
    assert len(chosen) >= 12 and (chosen["value"] == chosen["item_id"].map(gold)).mean() > 0.75


def test_the_simulators_truth_route_takes_rows_and_refuses_anything_else() -> None:
    import urllib.error
    import urllib.request

    from flows.sim.service.server import SimServer

    def post(sim: SimServer, body: bytes) -> int:
        req = urllib.request.Request(f"{sim.url}/_sim/truth", method="POST", data=body,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as resp:
                return int(resp.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)

    with SimServer() as sim:
        assert post(sim, json.dumps([{"item_id": "a1", "field": "stress", "answer": "stressful"}]).encode()) == 200
        assert [post(sim, b) for b in (b'{"a": 1}', b'[{"item_id": 3}]', b"not json")] == [400, 400, 400]
        assert sim.market.bank["a1"].answers == {"stress": "stressful"} and not sim.market.bank["a1"].captions


def test_the_stress_lexicon_reads_the_issues_two_posts_the_right_way_round() -> None:
    from flows.sim.people.content_choice import content_answers

    options = ["stressful", "not stressful"]
    assert content_answers(["Went for a nice walk with my dog this morning."], options) == ["not stressful"]
    assert content_answers(["I can't pay my rent and the landlord keeps calling."], options) == ["stressful"]
    assert content_answers(["The meeting moved to the second floor room."], options) is None  # no cue: blind


def test_a_crowd_files_accuracy_sets_a_profiles_care(projects) -> None:
    rng = random.Random("exact")
    exact = [new_worker("diligent", {"accuracy": 1.0}, rng) for _ in range(3)]
    answers = filled(projects["stress"], exact)
    assert all(a["stress"] == row["gold_stress"] for _, row, a in answers)
    sloppy = [new_worker("diligent", {"accuracy": 0.0}, rng) for _ in range(6)]
    right = sum(a["stress"] == row["gold_stress"] for _, row, a in filled(projects["stress"], sloppy))
    assert right / (6 * 24) < 0.45  # slips only: half habit (never right), half a coin over two options

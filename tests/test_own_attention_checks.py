"""A page's own attention check (an instructed-response question among its others, Meade & Craig 2012) is found
by ``hitflow new --from``, its answer kept in ``[attention] page_checks``, scored as hitflow's own checks are and
kept out of the answers; simulated honest readers follow it, careless ones do not. The pages are ours
(``tests/pages/instructed/``, written for this test): the answer named by its value, its label, its place, and
a group of boxes to tick one of; ``plain_rating.html`` says "select" without instructing anything."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

from flows.campaigns.attention_scoring import attention_params, check_answers
from flows.campaigns.task_kinds import load_campaign
from flows.cli.main import main
from flows.core.config.config import CampaignConfig
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
from qc.attention_checks import BUILT_IN, FAILED, AttentionCheck, attention_failed, field_name
from qc.instructed_items import instructed_option

PAGES = Path(__file__).resolve().parent / "pages" / "instructed"
ITEMS = PAGES / "items.csv"
# page -> (its check's field, the value its question instructs)
CHECKS = {"by_value": ("check", "3"), "by_label": ("reading", "1"), "by_position": ("quick", "b"),
          "ticks": ("fruit", "orange")}


def imported(tmp: Path, page: str) -> tuple[CampaignConfig, list[str]]:
    notes = scaffold_from(page, PAGES / f"{page}.html", tmp, items=ITEMS)[1]
    return load_campaign(tmp / "config" / f"{page}.toml"), notes


@pytest.mark.parametrize("page", sorted(CHECKS))
def test_the_import_finds_the_pages_own_check_and_says_how_to_undo_it(tmp_path: Path, page: str) -> None:
    cfg, notes = imported(tmp_path, page)
    field, answer = CHECKS[page]
    assert [(c.field, c.answer) for c in cfg.attention.checks] == [(field, answer)]
    assert FAILED in cfg.policy.reject_rules
    said = [n for n in notes if f"{field!r} is the page's own attention check" in n]
    assert len(said) == 1 and "delete its entry" in said[0] and "[attention] page_checks" in said[0]
    template = (tmp_path / "config" / f"{page}.html.j2").read_text(encoding="utf-8")
    assert f'name="{field}_{{{{ i }}}}"' in template  # the page keeps its question; no answer was written into it
    assert f'data-answer="{answer}"' not in template and "hitflow_attention" not in template


def test_a_rating_that_says_select_without_instructing_stays_a_rating(tmp_path: Path) -> None:
    cfg, notes = imported(tmp_path, "plain_rating")
    assert not cfg.attention.checks and not [n for n in notes if "attention" in n]
    scale = [str(n) for n in range(1, 8)]
    for question in ("Select how strongly you agree that the caption fits.", "Select 7 if the caption is perfect.",
                     "Please select 1 (not at all) to 7 (completely).", "Do not select 4 for this one.",
                     "Select the answer that best describes the review.", "Which number did we show? Select it."):
        assert instructed_option(question, scale) is None, question


def filled(tmp: Path, page: str, profiles: tuple[str, ...], seeds: int = 4) -> list[str]:
    """Each simulated worker's answer to the page's check, ``seeds`` workers a profile on every item."""
    return [answer for _, answer in seeded(tmp, page, profiles, seeds)]


def seeded(tmp: Path, page: str, profiles: tuple[str, ...], seeds: int) -> list[tuple[int, str]]:
    """:func:`filled`'s answers with each worker's seed: a worker and its draws depend on its profile, seed and
    item alone, so the answers of the first n seeds are those ``seeds=n`` gives."""
    cfg, _ = imported(tmp, page)
    field = CHECKS[page][0]
    out = []
    # 8 items (12 before, ~1.5 s of CPU more): 384 honest answers a page, about a miss in 60 on the rows-like checks
    # (0.06 allowed), none on the others; the careless still below half on each page
    for k, row in enumerate(read_custom_items(cfg)[:8]):
        html = custom_page(cfg, [{**row, "image_id": row["item_id"]}])
        for p, profile in enumerate(profiles):
            for s in range(seeds):
                worker = new_worker(profile, {}, random.Random(1000 * p + s))
                values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(100 * k + 10 * p + s))
                out.append((s, values.get(f"{field}_0", "")))
    return out


@pytest.fixture(scope="module")
def honest_eight(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, str]]]:
    """Honest readers' answers to each page's check, 8 seeds a profile, filled once for the two tests below (the
    first reads the first 4 seeds' answers, which ``filled(..., seeds=4)`` gives alike)."""
    return {page: seeded(tmp_path_factory.mktemp(page), page, HONEST_PROFILES, 8) for page in sorted(CHECKS)}


@pytest.mark.parametrize("page", sorted(CHECKS))
def test_honest_readers_follow_the_instruction_and_careless_ones_do_not(
        tmp_path: Path, page: str, honest_eight: dict[str, list[tuple[int, str]]]) -> None:
    answer = CHECKS[page][1]
    honest = [a for s, a in honest_eight[page] if s < 4]
    careless = filled(tmp_path / "c", page, ("speeder", "copy_paster", "contrarian"))
    assert sum(a == answer for a in honest) / len(honest) >= 0.9
    assert sum(a == answer for a in careless) / len(careless) <= 0.5


@pytest.mark.parametrize("page", sorted(CHECKS))
def test_honest_readers_miss_a_check_only_where_it_looks_like_the_rows_around_it(
        page: str, honest_eight: dict[str, list[tuple[int, str]]]) -> None:
    """A check among rows of the page's own scale (by_value, by_label) is missed now and then, as attentive people
    miss one; a question standing apart from its neighbours (by_position, ticks) is read by every honest worker."""
    answer = CHECKS[page][1]
    honest = [a for _, a in honest_eight[page]]
    missed = sum(a != answer for a in honest)
    if page in ("by_value", "by_label"):
        assert 0 < missed <= 0.06 * len(honest)
    else:
        assert missed == 0, f"{missed} of {len(honest)} honest answers missed a check that stands apart"


def test_a_failed_page_check_is_flagged_as_a_failed_config_check_once_on_every_item() -> None:
    own = AttentionCheck("", (), "3", "check")
    fields = {"image_id_0": "i1", "check_0": "3", "image_id_1": "i2", "check_1": "5", "image_id_2": "i3"}
    assert check_answers(fields, 1, own) == ("3", "5", "")  # the third item's check left unposted
    assert check_answers({"hitflow_attention_a": "Agree"}, 0, BUILT_IN[0]) == "Agree"
    frame = pd.DataFrame({"assignment_id": ["a", "b"], "worker_id": ["w1", "w2"],
                          field_name(0): ["Strongly disagree", "Strongly disagree"],
                          field_name(1): [("3", "3"), ("3", "6")]})
    flags = attention_failed(frame, {"attention_checks": [BUILT_IN[0], own], "attention_reject_at": 1})
    assert flags["assignment_id"].tolist() == ["b"] and flags["rule"].tolist() == [FAILED]
    assert "1 of 3 attention checks failed" in flags["detail"][0] and "'check' asked for '3'" in flags["detail"][0]


def test_a_run_scores_the_check_on_the_server_and_keeps_it_out_of_the_answers(tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert main(["new", "rev", "--from", str(PAGES / "by_value.html"), "--items", str(ITEMS),
                     "--dir", str(tmp_path)]) == 0
        config = tmp_path / "config" / "rev.toml"
        assert attention_params(load_campaign(config))["attention_checks"]
        assert main(["run", str(config), "--no-prefect"]) == 0
    out = tmp_path / "runs" / "rev"
    assert "check" not in set(pd.read_csv(out / "answers.csv", dtype=str)["field"])
    assert "check" not in set(pd.read_csv(out / "dataset.csv", dtype=str)["field"])
    profile = dict(pd.read_json(out / "sim_workers.json")[["worker_id", "profile"]].values)
    flags = pd.read_csv(out / "flags.csv", dtype=str, keep_default_na=False)
    failed = flags[flags["rule"] == FAILED]
    bad = failed[~failed["worker_id"].map(profile).isin(HONEST_PROFILES)]
    assert len(bad) >= 3 and bad["detail"].str.contains("the page's check 'check' asked for '3'").all()
    responses = pd.read_csv(out / "responses.csv", dtype=str)
    honest = responses[responses["worker_id"].map(profile).isin(HONEST_PROFILES)]["assignment_id"].nunique()
    assert len(failed) - len(bad) <= 0.1 * honest  # an honest reader misses one now and then


def test_the_dry_run_refuses_a_page_check_naming_no_field_of_the_page(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    imported(tmp_path, "by_value")
    config = tmp_path / "config" / "by_value.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('field = "check"', 'field = "chek"'),
                      encoding="utf-8")
    assert main(["run", str(config), "--dry-run"]) == 1
    assert "PROBLEM: [attention] page_checks names 'chek', no field of the page" in capsys.readouterr().out

"""A text box's known answer, read from the items file as a choice's truth is: the column is found by name
(``gold_<box>``, ``gold_<word of the box>``) unless the page shows it or ``[campaign] truth`` names another; the dry
run says once that the box's simulated answers follow it; careful honest workers write one of its alternatives
(alone in a short box, in a sentence of their own in a sentence's box), bad profiles do not; and an honest answer
of one's own never has half its words in runs of the item's (qc/source_copy.py's three
words). Pages and items of our own: ``tests/pages/known_text/``."""

from __future__ import annotations

import csv
import random
import re
import shutil
from pathlib import Path

import pytest

from flows.campaigns.task_kinds import load_campaign
from flows.core.config.config import CampaignConfig
from flows.core.pages.mturk_forms import form_fields
from flows.core.pages.templates import page_items
from flows.custom.custom_task import (
    custom_page,
    custom_spec,
    dry_run_lines,
    field_specs,
    first_page_rows,
    read_custom_items,
)
from flows.custom.scaffold_import import scaffold_from
from flows.custom.truth_source import blank_fields, known_answers, text_columns
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import HONEST_PROFILES, BankEntry, new_worker
from flows.sim.people.known_answers import add_known
from flows.sim.people.known_text import holds, whole
from flows.sim.people.plain_text import copied

PAGES = Path(__file__).resolve().parent / "pages" / "known_text"
BAD = ("copy_paster", "template_paster", "generic_praise", "instruction_echo")


def imported(root: Path, page: str, truth: str = "", drop: str = "") -> CampaignConfig:
    """The page imported as ``hitflow new --from`` does, ``[campaign] truth`` added; ``drop``: a column left out."""
    items = root / f"{page}_items.csv"
    with open(PAGES / f"{page}_items.csv", encoding="utf-8") as f:
        rows = [{k: v for k, v in r.items() if k != drop} for r in csv.DictReader(f)]
    with open(items, "w", newline="", encoding="utf-8") as f:
        out = csv.DictWriter(f, list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    shutil.copy(PAGES / f"{page}.html", root / f"{page}.html")
    scaffold_from(page, root / f"{page}.html", root, items=items)
    toml = root / "config" / f"{page}.toml"
    if truth:
        toml.write_text(toml.read_text().replace("[campaign]\n", f"[campaign]\ntruth = {truth}\n", 1))
    return load_campaign(toml)


def answers(cfg: CampaignConfig, profiles: tuple[str, ...]) -> list[tuple[dict[str, str], str, dict[str, str]]]:
    """(item row, profile, its answers without the index) for every item and profile, the run's known answers in
    the simulator's bank (flows/driver/sim_marketplace.py)."""
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    rows, bank = read_custom_items(cfg), dict[str, BankEntry]()
    add_known(bank, [{k: r[k] for k in ("item_id", "field", "answer")}
                     for r in known_answers(cfg, rows, blank_fields(specs), specs)])
    out = []
    for k, row in enumerate(rows):
        html = custom_page(cfg, [{**row, "image_id": row["item_id"]}])
        for p, profile in enumerate(profiles):
            for seed in range(4):
                worker = new_worker(profile, {}, random.Random(100 * p + seed))
                values = fill_unhinted(worker, form_fields(html), html, bank, random.Random(1000 * k + 10 * p + seed))
                out.append((row, profile, {n.rsplit("_", 1)[0]: v for n, v in values.items() if n.endswith("_0")}))
    return out


@pytest.fixture(scope="module")
def fables(tmp_path_factory: pytest.TempPathFactory) -> CampaignConfig:
    return imported(tmp_path_factory.mktemp("fables"), "fables", '{wiser = "gold_wiser"}')


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory) -> CampaignConfig:
    return imported(tmp_path_factory.mktemp("chats"), "abbreviations")


def test_columns_found_by_the_box_name_never_one_the_page_shows(fables: CampaignConfig,
                                                                 chats: CampaignConfig) -> None:
    for cfg, wanted in ((fables, {"lesson": "gold_lesson"}),
                        (chats, {"meaning": "gold_meaning", "stand_in": "stand_in_answer"})):
        specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
        assert text_columns(cfg, list(read_custom_items(cfg)[0]), specs) == wanted
        # a column the page shows (the abbreviation, the story) is the item's, never its answer
        assert text_columns(cfg, ["gold_wiser", "abbr", "story", "message"], specs) == {}
        # one word of the box's name (4+ letters, a word's start): gold_sound for sounds_like
        assert text_columns(cfg, ["gold_mean"], specs) == ({"meaning": "gold_mean"} if cfg is chats else {})


def test_truth_mapping_names_a_text_box_over_its_found_column(tmp_path: Path) -> None:
    cfg = imported(tmp_path, "abbreviations", '{meaning = "abbr"}')
    rows = read_custom_items(cfg)
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    known = {(r["item_id"], r["field"]): r["answer"] for r in known_answers(cfg, rows, blank_fields(specs), specs)}
    assert known[("m-01", "meaning")] == "ASAP"  # the mapping's column, not gold_meaning
    assert known[("m-01", "stand_in")] == "phone|tablet"


def test_dry_run_says_once_what_a_text_box_follows(fables: CampaignConfig) -> None:
    lines = dry_run_lines(fables)
    said = [line for line in lines if "lesson" in line and "simulated" in line]
    assert said == ["simulated answers for lesson follow the known answers (column gold_lesson)"]
    assert not any("content-blind" in line and "lesson" in line for line in lines)


def test_careful_honest_workers_write_the_known_answer_bad_profiles_do_not(chats: CampaignConfig,
                                                                            fables: CampaignConfig) -> None:
    honest = answers(chats, HONEST_PROFILES)
    right = [holds(a["meaning"], r["gold_meaning"]) for r, _p, a in honest]
    assert sum(right) / len(right) >= 0.7
    assert all(len(a["meaning"]) <= 60 for _r, _p, a in honest)  # the box's maxlength
    assert len({a["meaning"] for r, _p, a in honest if r["item_id"] == "m-01"}) >= 2  # written as people vary
    bad = answers(chats, BAD)
    assert sum(holds(a["meaning"], r["gold_meaning"]) for r, _p, a in bad) / len(bad) < 0.3
    lessons = answers(fables, HONEST_PROFILES)  # a sentence's box: the answer in a sentence, one of 15 words at most
    held = [holds(a["lesson"], r["gold_lesson"]) for r, _p, a in lessons]
    assert sum(held) / len(held) >= 0.7
    assert all(len(a["lesson"].split()) <= 15 for _r, _p, a in lessons)
    assert not any(re.search(r"\b(?:persever|overconfiden|patien|prepar)\b", a["lesson"]) for *_, a in lessons)


def test_a_stem_is_said_as_a_whole_word() -> None:
    assert whole("persever") == "perseverance"
    assert whole("patien") == "patient"
    assert whole("buff") == "buff"  # a word already: never lengthened
    assert whole("paracord") == "paracord"  # no word of the list starts with it: kept


def test_an_answer_of_ones_own_pastes_no_run_of_the_item(tmp_path: Path) -> None:
    cfg = imported(tmp_path, "abbreviations", drop="stand_in_answer")
    for row, _p, a in answers(cfg, HONEST_PROFILES):
        assert a["stand_in"].strip()
        assert not copied(a["stand_in"], [row["message"], a["meaning"]]), (row["item_id"], a["stand_in"])


def test_copied_reads_runs_of_the_item() -> None:
    item = "We have rocks, sticks, paracord, a mallet and a stove."
    assert copied("I'd use rocks sticks paracord a mallet", [item])  # runs of three, punctuation aside
    assert copied("Rocks, sticks, paracord, a mallet.", [item])
    assert not copied("I'd tie it down with the paracord instead.", [item])
    assert copied("Rocks, sticks.", [item])  # a few words, as they stand in the item
    assert not copied("Sticks and rocks.", [item])

"""`hitflow new --from` on an MTurk crowd-elements page whose "tick at least one" is only a script's:
`document.querySelector('crowd-form').onsubmit = ...` (or a `submit` listener on the crowd-form by id) inside the
item's block, so a page of three items repeats it. The check is read as a plain form's is: the group gets
`data-min-selections="1"` on each item's own boxes, and simulated workers never have a blank group approved;
a check on a crowd-form the import cannot find is named, never dropped silently. Pages of our own."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.pages.form_spec import form_spec
from flows.core.pages.mturk_forms import form_fields
from flows.custom.page_import import import_page

TWEET = """<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<crowd-form id="tweets">
  <div class="tweet">
    <p>${tweet}</p>
    <p>Which emotions does this tweet express? (tick at least one)</p>
    <crowd-checkbox name="emotion" value="joy">Joy</crowd-checkbox>
    <crowd-checkbox name="emotion" value="anger">Anger</crowd-checkbox>
    <crowd-checkbox name="emotion" value="sadness">Sadness</crowd-checkbox>
    <p>Is it sarcastic?</p>
    <crowd-radio-group>
      <crowd-radio-button name="sarcastic" value="yes" required>Yes</crowd-radio-button>
      <crowd-radio-button name="sarcastic" value="no">No</crowd-radio-button>
    </crowd-radio-group>
    <script>
      document.querySelector('crowd-form').onsubmit = function (e) {
        if (!document.querySelector('[name="emotion"]:checked')) {
          e.preventDefault();
          alert('Please tick at least one emotion');
        }
      };
    </script>
  </div>
</crowd-form>
"""
# the same item with plain boxes, its check a listener on the crowd-form found by its id
PLAIN = re.sub(r'<crowd-checkbox name="emotion" value="(\w+)">\w+</crowd-checkbox>',
               r'<label><input type="checkbox" name="emotion" value="\1"> \1</label>', TWEET).replace(
    "document.querySelector('crowd-form').onsubmit = function (e) {",
    "document.getElementById('tweets').addEventListener('submit', function (e) {").replace("      };", "      });")


def three_written(page: str) -> str:
    """The page with its item written out three times (`emotion1`...), each block with its own check."""
    block = page[page.index('  <div class="tweet">'):page.index("</crowd-form>")]
    items = "".join(block.replace('"emotion"', f'"emotion{n}"').replace("${tweet}", f"${{tweet{n}}}")
                    .replace('"sarcastic"', f'"sarcastic{n}"') for n in (1, 2, 3))
    return page.replace(block, items)


def minimums(body: str, items: int) -> dict[str, int]:
    """Each many-choice group's fewest ticks on a page of ``items`` items, as the dry run lists them."""
    page = "".join(body.replace("{{ i }}", str(i)) for i in range(items))
    return {r["name"]: r["min"] for r in form_spec(form_fields(page))["fields"] if r["type"] == "many"}


@pytest.mark.parametrize("page", [TWEET, PLAIN], ids=["crowd-checkbox, onsubmit =", "checkbox, listener by id"])
def test_the_crowd_forms_at_least_one_check_becomes_each_items_rule(page: str) -> None:
    imported = import_page(page, "tweets.html")
    said = [n for n in imported.notes if "Please tick at least one emotion" in n]
    assert len(said) == 1 and "is now the page rule data-min-selections=1 on emotion" in said[0], imported.notes
    assert minimums(imported.body, 3) == {"emotion_0": 1, "emotion_1": 1, "emotion_2": 1}  # was min=0 on each
    # the script still finds hitflow's crowd-form in a browser (by its tag, or by the id hitflow's has)
    assert "getElementById('tweets')" not in imported.body
    assert "document.querySelector('crowd-form').onsubmit" in imported.body or \
        "document.getElementById('crowd-form').addEventListener('submit'" in imported.body


def test_a_check_repeated_per_written_item_is_one_rule_per_items_group() -> None:
    imported = import_page(three_written(TWEET), "tweets3.html")
    ruled = [re.search(r"page rule (.*?): hitflow", n)[1] for n in imported.notes if "is now the page rule" in n]
    assert ruled == [f"data-min-selections=1 on emotion{n}" for n in (1, 2, 3)]
    assert minimums(imported.body, 1) == {"emotion1_0": 1, "emotion2_0": 1, "emotion3_0": 1}


def test_a_check_on_a_crowd_form_the_import_cannot_find_is_named() -> None:
    page = TWEET.replace("document.querySelector('crowd-form').onsubmit",
                         "document.querySelectorAll('crowd-form')[0].onsubmit")
    imported = import_page(page, "tweets.html")
    assert any("hooks a submit (`.onsubmit =`)" in n and "checks are not read" in n for n in imported.notes)
    unread = TWEET.replace("if (!document.querySelector('[name=\"emotion\"]:checked')) {",
                           "var n = 0; boxes().forEach(function (b) { n += b.checked; }); if (!n) {")
    note = next(n for n in import_page(unread, "tweets.html").notes if "tick at least one" in n)
    assert "stays in its script only" in note


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_no_approved_assignment_leaves_the_group_blank(tmp_path: Path, monkeypatch, platform: str) -> None:
    (tmp_path / "tweets.html").write_text(TWEET, encoding="utf-8")
    with (tmp_path / "items.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["item_id", "tweet"]] + [[f"t{n}", f"Tweet number {n}, what a day."]
                                                         for n in range(12)])
    assert main(["new", "tw", "--from", str(tmp_path / "tweets.html"), "--items", str(tmp_path / "items.csv"),
                 "--dir", str(tmp_path)]) == 0
    config = tmp_path / "config" / "tw.toml"
    config.write_text(re.sub(r"(?m)^images_per_hit = 1\b", "images_per_hit = 3", config.read_text()))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/tw.toml", "--no-prefect", "--platform", platform]) == 0
    data = pd.read_csv(tmp_path / "runs" / "tw" / "dataset.csv", keep_default_na=False, dtype=str)
    emotion = data[data["field"] == "emotion"]
    assert emotion["assignment_id"].nunique() >= 8  # the run's approved work, each read below
    assert (emotion["value"] != "").all(), emotion[emotion["value"] == ""]

"""``hitflow new NAME --from PAGE``: pages written in other platforms' styles (tests/pages_wild/)
imported as they are and run end to end on the simulator, every field of the page in the dataset;
what cannot be converted is named line by line and nothing is written."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flows.cli.main import main
from flows.core.pages.templates import render_source
from flows.custom.foreign_syntax import _liquid_environment
from flows.custom.page_scripts import with_nonce
from flows.sim.pages.browser_check import available as browser_available
from tests.small_configs import UNREHEARSED
from tests.test_browser_crowd_script import on_a_page
from tests.test_browser_typing import NEEDS_CHROMIUM

WILD = Path(__file__).parent / "pages_wild"


def render_liquid(source: str, item: dict[str, str]) -> str:
    """The page as Ground Truth's Liquid would show ``item``: an empty cell is a key the item lacks (nil,
    falsy in Liquid, where "" is truthy), as hitflow's Jinja treats an empty column as false."""
    return _liquid_environment().from_string(source).render(task={"input": {k: v for k, v in item.items() if v}})

ROWS = {"review_text": ["The kettle boils fast but the lid broke after a week of use.",
                        "Lovely soft scarf, warm and exactly the colour in the photos."],
        "product_url": ["https://example.org/p/kettle", "https://example.org/p/scarf"],
        "product_name": ["Steel kettle", "Wool scarf"], "topic": ["rivers", "cooking"],
        "sentence": ["The Danube flows through ten countries before it reaches the Black Sea.",
                     "Whisk the eggs with sugar until the mixture turns pale and thick."],
        "source_url": ["https://example.org/src/1", ""],
        "sign_image": ["https://example.org/signs/1.jpg", "https://example.org/signs/2.jpg"],
        "caption": ["Morning rush on the bridge", "Saturday stalls by the river"],
        "photo_url": ["https://example.org/street/1.jpg", "https://example.org/street/2.jpg"]}
# page -> (the item columns its placeholders read, the answer fields the page has)
CORPUS = {
    "mturk_requester_ui.html": (["review_text", "product_url", "product_name"], {"sentiment", "reason", "stars"}),
    "crowd_requester_ui.html": (["caption", "photo_url"], {"place_kind", "place_name", "bicycles"}),
    "groundtruth_liquid.html": (["topic", "sentence", "source_url"], {"on_topic", "confidence", "remarks"}),
    "own_form_htmlquestion.xml": (["sign_image"], {"transcription", "readable"}),
    "plain_htmlquestion.xml": ([], {"how_often", "uses", "story"}),
    "questionform.xml": ([], {"capital", "legs", "why_here"}),
}


def imported(tmp_path: Path, page: str, *extra: str) -> Path:
    name = re.sub(r"\W", "_", page.split(".")[0])
    assert main(["new", name, "--from", str(WILD / page), "--dir", str(tmp_path), *extra]) == 0
    return tmp_path / "config" / name


def two_items(stem: Path, columns: list[str]) -> None:
    """The scaffolded item file's header is the page's columns; two real rows replace its sample."""
    items = Path(f"{stem}_items.csv")
    with items.open(encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert header == ["item_id", *columns]
    with items.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows([[f"item-{n}", *[ROWS[c][n] for c in columns]] for n in range(2)])


@pytest.mark.parametrize("page", sorted(CORPUS))
def test_an_imported_page_runs_end_to_end_with_every_field_in_the_dataset(tmp_path: Path, monkeypatch,
                                                                           page: str) -> None:
    columns, fields = CORPUS[page]
    stem = imported(tmp_path, page)
    two_items(stem, columns)
    monkeypatch.chdir(tmp_path)
    assert main(["run", f"config/{stem.name}.toml", "--no-prefect"]) == 0
    data = pd.read_csv(tmp_path / "runs" / stem.name / "dataset.csv", keep_default_na=False, dtype=str)
    assert set(data["field"]) == fields
    assert set(data["item_id"]) == {"item-0", "item-1"}
    assert data.groupby("item_id")["assignment_id"].nunique().ge(2).all()


def test_a_question_form_with_its_answer_key_runs_and_every_response_is_scored(tmp_path: Path,
                                                                              monkeypatch) -> None:
    stem = imported(tmp_path, "questionform.xml", "--answer-key", str(WILD / "questionform_key.xml"))
    key = pd.read_csv(f"{stem}_answer_key.csv", dtype=str)
    assert key.to_dict("records") == [{"field": "capital", "answer": "oslo", "score": "1"}]
    page = Path(f"{stem}.html.j2").read_text()
    assert 'type="number"' in page and 'name="legs_{{ i }}"' in page and 'min="0"' in page
    two_items(stem, [])
    monkeypatch.chdir(tmp_path)
    assert main(["run", f"config/{stem.name}.toml", "--no-prefect"]) == 0
    out = tmp_path / "runs" / stem.name
    data = pd.read_csv(out / "responses.csv", keep_default_na=False, dtype=str)
    scores = pd.read_csv(out / "scores.csv", keep_default_na=False, dtype=str)
    assert set(scores["assignment_id"]) == set(data["assignment_id"])
    capital = data[data["field"] == "capital"].set_index("assignment_id")["value"]
    for row in scores.itertuples():  # 100% exactly where the answer was the key's
        assert float(row.percent) == (100.0 if capital[row.assignment_id] == "oslo" else 0.0)
    assert "answer key:" in (out / "summary.txt").read_text() and (out / "summary.txt").read_text().endswith("\n")


def test_an_answer_key_scores_selections_as_sets_and_divides_by_the_best_sum() -> None:
    from qc.answer_key import score_responses

    key = pd.DataFrame({"field": ["q1", "q1", "q2"], "answer": ["b|a", "a", "Paris"], "score": ["2", "1", "1"]})
    answers = pd.DataFrame({"assignment_id": ["x", "x", "y", "y", "z"], "worker_id": ["w1", "w1", "w2", "w2", "w3"],
                            "field": ["q1", "q2", "q1", "q2", "other"], "value": ["a|b", " paris ", "a", "Rome", "?"]})
    out = score_responses(answers, key).set_index("assignment_id")
    assert out.loc["x", "percent"] == 100.0 and out.loc["y", "points"] == 1.0 and out.loc["y", "max_points"] == 3.0
    assert out.loc["z", "points"] == 0.0


def test_a_liquid_page_shows_what_ground_truth_would(tmp_path: Path) -> None:
    source = (WILD / "groundtruth_liquid.html").read_text()
    stem = imported(tmp_path, "groundtruth_liquid.html")
    row = {"topic": "rivers & <lakes>", "sentence": "The Danube.", "source_url": "https://example.org/s"}
    ours = render_source(Path(f"{stem}.html.j2").read_text(), "t", {"title": "t", "rules": {}, "items": [
        {**row, "item_id": "a"}]})
    theirs = render_liquid(source, row)
    for line in ("<p><strong>Topic:</strong> rivers &amp; &lt;lakes&gt;</p>", "<blockquote>The Danube.</blockquote>",
                 '<img src="https://example.org/s" alt="source">'):
        assert line in theirs and line in ours


def test_what_cannot_be_converted_is_named_line_by_line_and_nothing_is_written(tmp_path: Path, capsys) -> None:
    page = tmp_path / "gt.html"
    page.write_text("<p>{{ task.input.text }}</p>\n{% for l in task.input.labels %}<b>{{ l }}</b>{% endfor %}\n"
                    "<p>{{ task.input.meta.author }}</p>\n<p>{{ task.input.text | truncate: 5 }}</p>\n")
    assert main(["new", "gt", "--from", str(page), "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{page}:2: Liquid tag {{% for l in task.input.labels %}}" in err
    assert f"{page}:3: task.input.meta.author reads inside a value" in err
    assert f"{page}:4: Liquid filter 'truncate' has no hitflow counterpart" in err
    assert not (tmp_path / "config").exists()
    broken = tmp_path / "broken.html"
    broken.write_text("<p>ok</p>\n<p>{% if task.input.x %}open</p>\n")
    assert main(["new", "b", "--from", str(broken), "--dir", str(tmp_path)]) == 2
    assert "Liquid cannot parse the page" in capsys.readouterr().err
    html = WILD / "mturk_requester_ui.html"
    assert main(["new", "k", "--from", str(html), "--dir", str(tmp_path), "--answer-key", str(html)]) == 2
    assert f"{html}:1: --answer-key goes with a QuestionForm" in capsys.readouterr().err
    assert main(["new", "m", "--from", str(tmp_path / "missing.html"), "--dir", str(tmp_path)]) == 2
    assert "cannot read the page" in capsys.readouterr().err
    assert not (tmp_path / "config").exists()


def test_inline_scripts_and_styles_get_the_pages_nonce_and_cdn_scripts_do_not() -> None:
    page = ('<script>a()</script><script src="https://cdn.example.org/x.js"></script><style>p{}</style>'
            '<script type="application/json" id="d">{}</script><script nonce="n0">b()</script>')
    out = with_nonce(page, "N1")
    assert out.count('nonce="N1"') == 2 and '<script src="https://cdn.example.org/x.js">' in out
    assert '<script nonce="n0">' in out


@pytest.mark.browser
@pytest.mark.skipif(not browser_available(), reason="needs /usr/bin/chromium and Playwright (make browser-deps)")
@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_a_script_built_answer_page_is_worked_in_a_browser_within_its_own_rule(tmp_path: Path, monkeypatch,
                                                                             platform: str) -> None:
    """The page's script writes a JSON answer into a hidden field and refuses a submit without a
    tag: simulated workers (MTurk's, and Prolific's on the task server) work it in Chromium, and
    every answer is one the script built."""
    stem = imported(tmp_path, "script_json_answer.html")
    two_items(stem, ["sentence"])
    toml = Path(f"{stem}.toml")  # one worker an item, not three: each is a page in Chromium (~1.5 s of CPU)
    toml.write_text(toml.read_text().replace("assignments_per_image = 3", "assignments_per_image = 1"))
    monkeypatch.chdir(tmp_path)
    assert main(["run", f"config/{stem.name}.toml", "--no-prefect", "--platform", platform]) == 0
    data = pd.read_csv(tmp_path / "runs" / stem.name / "dataset.csv", keep_default_na=False, dtype=str)
    # Prolific's place holds both items, shown one a page (the script finds the field by one id: kept apart)
    assert set(data["field"]) == {"annotation"} and len(data) == 2
    assert data["assignment_id"].nunique() == (2 if platform == "mturk" else 1)
    for value in data["value"]:
        answer = json.loads(value)
        assert answer["tags"] and set(answer["tags"]) <= {"person", "place", "organisation", "none"}
        assert set(answer) == {"tags", "comment"}


def test_the_task_servers_csp_lets_a_custom_page_load_its_listed_origins() -> None:
    from flows.taskserver.task_guard import content_security_policy

    csp = content_security_policy("N", page_origins=["https://cdn.example.org"])
    assert "script-src 'nonce-N' https://cdn.example.org;" in csp
    assert "style-src 'nonce-N' https://cdn.example.org;" in csp
    assert "script-src 'nonce-N';" in content_security_policy("N")


def test_every_handler_the_template_spells_is_hashed_and_one_an_item_filled_is_not() -> None:
    import base64
    import hashlib

    from flows.taskserver.task_guard import static_handler_hashes

    template = '<div onmouseover="a(1)" onclick=\'b(&quot;x&quot;)\'>{{ item.t }}</div><i onclick="c({{ item.n }})">'
    page = '<div onmouseover="a(1)" onclick=\'b(&quot;x&quot;)\'>hi</div><i onclick="c(7)">'
    digest = base64.b64encode(hashlib.sha256(b'b("x")').digest()).decode()
    found = static_handler_hashes(page, template)
    assert len(found) == 2 and f"'sha256-{digest}'" in found  # the code as the browser runs it, entities read


def test_an_external_question_wrapper_is_unwrapped_by_fetching_its_page(tmp_path: Path, capsys) -> None:
    from tests.local_http import QuietHandler, local_http_server

    page = (WILD / "mturk_requester_ui.html").read_bytes()

    class Page(QuietHandler):
        def do_GET(self) -> None:
            self.reply(page, "text/html; charset=utf-8")

    with local_http_server(Page) as url:
        wrapper = tmp_path / "external.xml"
        wrapper.write_text('<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
                           f'2006-07-14/ExternalQuestion.xsd"><ExternalURL>{url}/hit</ExternalURL>'
                           "<FrameHeight>500</FrameHeight></ExternalQuestion>")
        assert main(["new", "ext", "--from", str(wrapper), "--dir", str(tmp_path), "--allow-address", "127.0.0.1"]) == 0
    header = (tmp_path / "config" / "ext_items.csv").read_text().splitlines()[0]
    assert header == "item_id,review_text,product_url,product_name"
    gone = wrapper.with_name("gone.xml")
    gone.write_text(wrapper.read_text())
    assert main(["new", "gone", "--from", str(gone), "--dir", str(tmp_path), "--allow-address", "127.0.0.0/8"]) == 2
    assert "could not be fetched" in capsys.readouterr().err


@contextmanager
def served_page(tmp_path: Path, capsys, handlers: str = "") -> Iterator[str]:
    """script_json_answer.html imported, ``handlers`` put in its item, its one HIT served on the task server
    (its CDN listed in [target] page_origins): yields the page's URL."""
    from flows.campaigns.campaign_plan import Run, plan_items
    from flows.core.config.config import load_config
    from flows.core.ledger.store import Store
    from flows.platforms.mturk import adapter as mturk
    from flows.taskserver.task_server import TaskSite
    from flows.taskserver.task_server_thread import TaskServer

    stem = imported(tmp_path, "script_json_answer.html")
    config, template = Path(f"{stem}.toml"), next((tmp_path / "config").glob("script_json_answer*.html*"))
    template.write_text(template.read_text(encoding="utf-8").replace("{% block item %}", "{% block item %}" + handlers),
                        encoding="utf-8")
    # the hidden JSON answer is the page's field: the plan's line (no rehearsal, whose browser workers are pages in
    # Chromium)
    assert main(["run", str(config), "--dry-run", *UNREHEARSED]) == 0
    assert "fields found: annotation" in capsys.readouterr().out
    config.write_text(config.read_text() + '\n[target]\npage_origins = ["https://cdn.example.org"]\n')
    cfg = load_config(config)
    store = Store(tmp_path / "h.db")
    plan_items(Run(cfg, store, None, mturk.Target("sim", "http://unused")))
    store.table("hits").insert({"hit_id": "H1", "campaign": cfg.name, "batch": 1, "hit_index": 0,
                                "item_ids": json.dumps(["item-001"]), "status": "posted"}, pk=("campaign", "hit_id"))
    with TaskServer(TaskSite(store.path, {cfg.name: cfg}, secret=b"s" * 32)) as server:
        yield f"{server.url}/task/{cfg.name}?hitId=H1&assignmentId=A1&workerId=W1"


def test_the_task_server_serves_an_imported_page_with_its_origins_and_nonce(tmp_path: Path, capsys) -> None:
    import httpx

    with served_page(tmp_path, capsys) as url:
        reply = httpx.get(url)
    assert reply.status_code == 200, reply.text[:200]
    csp = reply.headers["content-security-policy"]
    nonce = re.search(r"script-src 'nonce-([^']+)' https://cdn\.example\.org;", csp)
    assert nonce and "style-src 'nonce-" in csp and "https://cdn.example.org" in csp.split("style-src")[1]
    scripts = re.findall(r"<script\b([^>]*)>\s*var chosen", reply.text)
    assert scripts and f'nonce="{nonce[1]}"' in scripts[0]  # the page's own inline script runs


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_a_pages_own_inline_handlers_run_on_the_task_server_and_an_item_valued_one_does_not(
        tmp_path: Path, capsys) -> None:
    """Tiles whose onclick the template spells (entities included) run in Chromium under the task server's CSP, by
    hash; a handler holding an item's value would run whatever the item says, so it stays blocked."""
    handlers = ('<p id="said">none</p><b id="own" onclick="document.getElementById(\'said\').textContent='
                '\'tile &amp; one\'">own</b><b id="item" onclick="document.getElementById(\'said\').textContent='
                '\'{{ item.sentence | e }}\'">item</b>\n')

    def click_both(page: Any) -> tuple[str, str]:
        page.goto(url)
        page.click("#item")
        after_item = page.inner_text("#said")
        page.click("#own")
        return after_item, page.inner_text("#said")
    with served_page(tmp_path, capsys, handlers) as url:
        # on the browser workers' Chromium (the import's probe and the workers' runs use it), not the page fixture's
        after_item, after_own = on_a_page(click_both)
    assert after_item == "none"
    assert after_own == "tile & one"


def test_dollar_placeholders_read_by_where_they_stand() -> None:
    from flows.custom.foreign_syntax import dollar_to_jinja

    out = dollar_to_jinja('<!-- ${old} --><img src="${photo}"><p>${caption} {{ not jinja }}</p>\n'
                          '<script>var t = "${caption}"; var u = `${local}`;</script>')
    assert out.columns == ["photo", "caption"]
    assert '<img src="{{ item.photo | safe_url }}">' in out.text and "<p>{{ item.caption }} {{ '{{' }}" in out.text
    assert 'var t = {{ item.caption | tojson }};' in out.text and "`${local}`" in out.text
    assert [line for line, _ in out.notes] == [2] and "old" not in out.text
    rendered = render_source(out.text, "t", {"item": {"photo": "javascript:x", "caption": 'a "b" </script>'}})
    assert 'src="about:blank"' in rendered and "{{ not jinja }}" in rendered and "</script>\";" not in rendered


def test_liquid_conditions_and_json_attributes_mean_what_they_meant() -> None:
    import html

    from flows.custom.foreign_syntax import liquid_to_jinja

    source = ('{% unless task.input.hide %}<p>shown</p>{% endunless %}'
              '<div data-labels="{{ task.input.labels | to_json | escape }}"></div>'
              '{% if task.input.a == "x" %}A{% elsif task.input.b %}B{% else %}C{% endif %}')
    out = liquid_to_jinja(source)
    assert not out.problems and out.columns == ["hide", "labels", "a", "b"]
    rows = ({"hide": "", "labels": 'say "hi"', "a": "x", "b": ""}, {"hide": "y", "labels": "[1]", "a": "", "b": "1"})
    for row in rows:
        ours = render_source(out.text, "t", {"item": row})
        assert html.unescape(ours) == html.unescape(render_liquid(source, row))


def test_a_hitflow_jinja_page_is_taken_as_it_is(tmp_path: Path) -> None:
    starter = Path(__file__).parents[1] / "hit_templates" / "starter" / "page.html.j2"
    assert main(["new", "again", "--from", str(starter), "--dir", str(tmp_path), "--keep-jinja"]) == 0
    assert (tmp_path / "config" / "again.html.j2").read_text() == starter.read_text()
    assert (tmp_path / "config" / "again_items.csv").read_text().splitlines()[0] == "item_id,image_url,note"


def test_the_pages_own_form_gives_way_and_its_onsubmit_check_moves_to_hitflows_form() -> None:
    from flows.custom.page_import import restructure

    body, notes = restructure('<form id="f" onsubmit="return ok(&quot;x&quot;)"><input name=a>'
                              '<input type="hidden" name="assignmentId"><input type="submit"></form>'
                              '<script>document.getElementById("f").elements["a"].value = 1;</script>')
    assert "<form" not in body and 'name="assignmentId"' not in body and 'type="submit"' not in body
    assert '<input name="a_{{ i }}">' in body and 'getElementById("hit-form").elements["a_{{ i }}"]' in body
    assert 'return ok("x") }).call(this, event) === false) { event.preventDefault(); }' in body
    assert any("own <form>" in n for n in notes)


def test_a_crowd_element_page_is_brought_onto_the_crowd_base(tmp_path: Path, capsys) -> None:
    """Its <crowd-form> and MTurk's element script give way to _crowd_page.html.j2's (which posts
    taskAnswers and draws the elements); every named element belongs to its item."""
    page = Path(f"{imported(tmp_path, 'crowd_requester_ui.html')}.html.j2").read_text()
    assert page.startswith('{% extends "_crowd_page.html.j2" %}') and "_custom_page" not in page
    assert "<crowd-form" not in page and "</crowd-form>" not in page and "assets.crowd.aws" not in page
    assert re.findall(r'<crowd-[a-z-]+ name="([^"]+)"', page) == ["place_kind_{{ i }}", "place_name_{{ i }}",
                                                                    "bicycles_{{ i }}"]
    assert 'src="{{ item.photo_url | safe_url }}"' in page
    assert "extends _crowd_page.html.j2" in capsys.readouterr().err


def test_an_imported_page_loads_its_own_stylesheet_on_the_task_servers_routes_too(tmp_path: Path, capsys) -> None:
    """The page's CDN stylesheet loads on MTurk; `hitflow new` lists its origin in [target] page_origins so the task
    server's pages (Prolific, invite links) load it as well, and the dry run has nothing to warn about it."""
    from flows.core.config.config import load_config

    stem = imported(tmp_path, "mturk_requester_ui.html")
    assert list(load_config(Path(f"{stem}.toml")).page_origins) == ["https://cdn.example.org"]
    capsys.readouterr()
    main(["run", f"{stem}.toml", "--dry-run", "--platform", "links"])
    said = capsys.readouterr().out
    assert "fields found:" in said and "warning: the page loads" not in said


def test_a_campaign_is_titled_by_the_heading_that_names_it_not_instructions() -> None:
    """An "Instructions" heading names no campaign: the next heading does, else none (``hitflow new`` then uses
    the name given)."""
    from flows.custom.page_import import import_page

    body = '<p>${text}</p><textarea name="why" required></textarea>'
    named = import_page("<h3>Instructions</h3><p>Read it.</p><h3>Photo description</h3>" + body, "p.html")
    assert named.title == "Photo description"
    assert import_page("<h2>Task instructions:</h2>" + body, "p.html").title == ""
    assert import_page("<title>Bake sale orders</title><h3>Instructions</h3>" + body, "p.html").title == \
        "Bake sale orders"

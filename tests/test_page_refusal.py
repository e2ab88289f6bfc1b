"""Never punish the crowd for the page: a page the dry run finds unreadable is
named line by line and never posted, on every route; a rule that would reject or block most of a
batch holds the batch for a person instead of deciding it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.custom.custom_task import UnreadablePage
from flows.custom.scaffold import scaffold
from flows.driver.campaign_run import run_campaign

HEAD = "{% extends '_custom_page.html.j2' %}{% block item %}\n"
FIELD = '<textarea name="description_{{ i }}" required minlength="5"></textarea>\n'
BROKEN = {  # the kind of page -> (its template, what the PROBLEM line must say)
    "no_field": (HEAD + "<p>{{ item.note }}</p>\n{% endblock %}", "the page has no answer field"),
    "requester_ui": (HEAD + "<p>${text}</p>\n" + FIELD + "{% endblock %}",
                     "html.j2:2: an MTurk requester-UI placeholder '${text}' is left over"),
    "liquid": (HEAD + "<img src=\"{% raw %}{{ task.input.taskObject }}{% endraw %}\">\n" + FIELD + "{% endblock %}",
               "a Liquid/Mustache placeholder '{{ task.input.taskObject }}' is left over"),
    "own_form": (HEAD + '<form action="/mine">\n' + FIELD + "</form>\n{% endblock %}",
                 "html.j2:2: a <form> inside the page's form"),
    "unnamed": (HEAD + FIELD + '<input type="text" id="tags">\n{% endblock %}', "a <input> without a name"),
    "radio_without_value": (HEAD + '<label><input type="radio" name="done_{{ i }}"> Yes</label>\n'
                            '<label><input type="radio" name="done_{{ i }}"> No</label>\n{% endblock %}',
                            "html.j2:2: a radio button of 'done' without a value posts \"on\""),
    "unknown_crowd": (HEAD + FIELD + '<crowd-polygon name="area_{{ i }}"></crowd-polygon>\n{% endblock %}',
                      "<crowd-polygon> 'area_0'"),
    "question_xml": ('<?xml version="1.0"?><QuestionForm xmlns="x"><Question/></QuestionForm>',
                     "is MTurk question XML (<QuestionForm>), not an HTML page"),
    "plain_text": ("Describe the photo in one sentence.\n", "holds no HTML element at all"),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    scaffold("page", tmp_path)
    return tmp_path


def broken(project: Path, kind: str) -> Path:
    (project / "config" / "page.html.j2").write_text(BROKEN[kind][0], encoding="utf-8")
    return project / "config" / "page.toml"


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_the_dry_run_names_what_makes_a_page_unreadable(project: Path, kind: str, capsys) -> None:
    assert main(["run", str(broken(project, kind)), "--dry-run"]) == 1
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("PROBLEM")]
    assert any(BROKEN[kind][1] in line for line in problems), problems


def test_a_binary_template_is_a_problem_line_not_a_crash(project: Path, capsys) -> None:
    (project / "config" / "page.html.j2").write_bytes(b"%PDF-1.4\x00\x01\x02")
    assert main(["run", str(project / "config" / "page.toml"), "--dry-run"]) == 1
    out = capsys.readouterr().out
    assert "PROBLEM: " in out and "is not a text file (binary or not UTF-8)" in out


def test_item_text_with_braces_and_a_script_template_literal_are_not_leftovers(project: Path, capsys) -> None:
    items = project / "config" / "page_items.csv"
    items.write_text('item_id,image_url,note\nx1,https://example.org/a.jpg,"costs ${price} {{ sic }}"\n',
                     encoding="utf-8")
    (project / "config" / "page.html.j2").write_text(
        HEAD + "<p>{{ item.note }}</p><script>const s = `${1 + 1}`;</script>\n" + FIELD + "{% endblock %}",
        encoding="utf-8")
    assert main(["run", str(project / "config" / "page.toml"), "--dry-run"]) == 0
    assert "PROBLEM" not in capsys.readouterr().out


@pytest.mark.parametrize("platform", ["mturk", "prolific", "links"])
def test_run_refuses_an_unreadable_page_on_every_route(project: Path, platform: str, sim, capsys) -> None:
    config = broken(project, "no_field")
    assert main(["run", str(config), "--dry-run"]) == 1
    dry = [line for line in capsys.readouterr().out.splitlines() if line.startswith("PROBLEM")]
    db = project / "h.db"
    route = ["--endpoint-url", sim.url] if platform != "links" else ["--invite", "ann"]
    code = main(["run", str(config), "--no-prefect", "--platform", platform, "--db", str(db),
                 "--out", str(project / "runs"), *route])
    out, err = capsys.readouterr()
    assert code == 2 and "nothing was posted" in err and len(err.strip().splitlines()) == 1
    assert [line for line in out.splitlines() if line.startswith("PROBLEM")] == dry  # the dry run's own lines
    assert not sim.market.hits and not sim.market.hit_types and not sim.prolific.studies
    assert not db.exists() or not sqlite3.connect(db).execute(
        "SELECT name FROM sqlite_master WHERE name = 'ledger'").fetchall() or \
        sqlite3.connect(db).execute("SELECT count(*) FROM ledger").fetchone() == (0,)


def test_a_flow_that_skips_the_cli_is_refused_before_it_posts(project: Path, sim) -> None:
    """Schedules and deployments call the run directly: the driver refuses the page too."""
    with pytest.raises(UnreadablePage, match="nothing was posted"):
        run_campaign(broken(project, "own_form"), endpoint_url=sim.url, db_path=project / "h.db",
                     out_root=project / "runs", progress=lambda _: None)
    assert not sim.market.hits and not sim.market.hit_types


# --- a rule that would reject most of a batch holds it ------------------------------------------

def self_contradicting(project: Path, extra_policy: str = "") -> Path:
    """The starter page with a count nobody can give (min 10, max 5): every answer breaks the page's rule."""
    page = project / "config" / "page.html.j2"
    page.write_text(page.read_text().replace('min="0" max="50"', 'min="10" max="5"'), encoding="utf-8")
    config = project / "config" / "page.toml"
    if extra_policy:
        key = extra_policy.split("=")[0].strip()  # the starter may set it already: a TOML key is set once
        kept = [line for line in config.read_text().splitlines(keepends=True) if not line.startswith(f"{key} =")]
        config.write_text("".join(kept).replace("[policy]\n", f"[policy]\n{extra_policy}\n"), encoding="utf-8")
    return config


def decisions_and_blocks(db: Path) -> tuple[dict[str, int], int]:
    con = sqlite3.connect(db)
    decided = dict(con.execute("SELECT action, count(*) FROM decisions GROUP BY action").fetchall())
    return decided, con.execute("SELECT count(*) FROM blocks").fetchone()[0]


def test_a_page_that_breaks_its_own_rule_holds_the_batch_instead_of_rejecting_everyone(project: Path,
                                                                                        capsys) -> None:
    config, db = self_contradicting(project), project / "h.db"
    argv = ["run", str(config), "--no-prefect", "--db", str(db), "--out", str(project / "runs")]
    assert main(argv) == 10
    err = capsys.readouterr().err
    assert err.startswith("hitflow: batch 1 HELD") and "error:" not in err  # a stop for a person, not a crash
    assert "batch 1 HELD for review, nothing rejected or blocked: rule invalid_answer would reject or block" in err
    assert "(100%, over the 50% of [policy] hold_share)" in err and "--release-hold approve" in err
    typed = " ".join(argv)  # the commands printed are the one typed (its ledger, outputs, platform), not a bare one
    assert f"`hitflow {typed} --release-hold approve`" in err and f"`hitflow {typed} --dry-run`" in err
    assert decisions_and_blocks(db) == ({}, 0)
    assert main(["status", "page", "--db", str(db)]) == 0
    status = capsys.readouterr().out
    assert "HELD for review (nothing rejected or blocked): rule invalid_answer" in status
    assert f"hitflow run {config} --release-hold approve" in status
    # a person looked, found the page at fault and pays the work: nobody rejected or blocked for the rule
    assert main([*argv, "--release-hold", "approve"]) in (0, 8)
    decided = decisions_and_blocks(db)[0]
    assert decided.get("approve", 0) >= 3 and not sqlite3.connect(db).execute(
        "SELECT 1 FROM decisions WHERE reasons LIKE '%invalid_answer%'").fetchall()
    assert not sqlite3.connect(db).execute("SELECT 1 FROM blocks WHERE rules LIKE '%invalid_answer%'").fetchall()
    assert "HELD" not in (capsys.readouterr(), main(["status", "page", "--db", str(db)]),
                          capsys.readouterr().out)[2]


def test_a_batch_paid_despite_its_hold_is_not_followed_on_the_same_page(project: Path, capsys) -> None:
    """Approving the held work pays it; the next batch waits for the page (or the rule) to change, since
    the same rule would hold it again (the next batch was posted on the same page)."""
    config, db = self_contradicting(project), project / "h.db"
    config.write_text(config.read_text().replace("batches = 1 ", "batches = 2 "), encoding="utf-8")
    argv = ["run", str(config), "--no-prefect", "--db", str(db), "--out", str(project / "runs")]
    assert main(argv) == 10
    capsys.readouterr()
    assert main([*argv, "--release-hold", "approve"]) == 10
    err = capsys.readouterr().err
    assert "batch 2 not posted: batch 1 was held (invalid_answer on most of its workers) and paid" in err
    con = sqlite3.connect(db)
    assert con.execute("SELECT DISTINCT batch FROM hits").fetchall() == [(1,)]  # nothing of batch 2 posted
    assert decisions_and_blocks(db)[0].get("approve", 0) >= 3  # the held batch is paid
    assert main(argv) == 10 and "batch 2 not posted" in capsys.readouterr().err  # still the same page
    page = project / "config" / "page.html.j2"
    page.write_text(page.read_text().replace('min="10" max="5"', 'min="0" max="50"'), encoding="utf-8")
    assert main(argv) in (0, 8)  # the page fixed: batch 2 is posted and decided by the rules
    assert sqlite3.connect(db).execute("SELECT count(*) FROM hits WHERE batch = 2").fetchone()[0] > 0


def test_without_the_hold_the_same_page_rejects_and_blocks_everyone(project: Path, capsys) -> None:
    """What the hold prevents (hold_share = 1 can never be exceeded): the crowd punished for the page."""
    config, db = self_contradicting(project, "hold_share = 1.0"), project / "h.db"
    main(["run", str(config), "--no-prefect", "--db", str(db), "--out", str(project / "runs")])
    decided, blocked = decisions_and_blocks(db)
    assert decided.get("reject", 0) >= 3 and not decided.get("approve") and blocked >= 3


def test_releasing_by_the_rules_decides_as_the_rules_say(project: Path, capsys) -> None:
    config, db = self_contradicting(project), project / "h.db"
    argv = ["run", str(config), "--no-prefect", "--db", str(db), "--out", str(project / "runs")]
    assert main(argv) == 10
    assert main([*argv, "--release-hold", "rules"]) in (0, 8)
    assert decisions_and_blocks(db)[0].get("reject", 0) >= 3
    assert main([*argv, "--release-hold", "rules"]) == 2  # nothing is held any more
    assert "no batch of page is held" in capsys.readouterr().err

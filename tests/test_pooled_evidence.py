"""The pooled control rule's evidence where a user decides (postprocess/answers/worker_skill.py): after
`hitflow run` of a classification campaign with control items on the simulator, workers.csv's
``pooled_*`` columns hold every worker the rule judged and equal the rule recomputed here from the
ledger, written anew from its description in docs/reference/outputs.md (plain loops; the posterior by
quadrature over the exact Jeffreys density, not the rule's grid), and lie within bounds
scipy.stats.beta gives from the counts alone. The report, the review page and `hitflow ui` show them,
a worker id escaped like any text. A campaign planned without the rule keeps workers.csv as it was."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from bench.answers_accuracy import project
from flows.cli.main import main
from postprocess.answers.aggregation import WORKER_COLUMNS
from postprocess.answers.worker_skill import POOLED_COLUMNS

NAME = "sentiment"
HOSTILE = '<b>x"y</b>'


def _run(folder: Path, pooling: bool, items: int = 60) -> Path:
    config = project(folder, items, 6, share=0.2, per_page=5, pooling=pooling)
    # a threshold of the campaign's own, which the report and hitflow ui count the answers below; no quiz, so the
    # pooled rule itself meets the bad workers a quiz would stop first
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("[answers]\n", "[answers]\nthreshold = 0.995\nquiz = 0\n"), encoding="utf-8")
    assert main(["run", str(config), "--no-prefect", "--db", str(folder / "h.db"), "--out", str(folder / "runs")]) == 0
    return folder


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("pooled"), pooling=True)


def _workers(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "runs" / NAME / "workers.csv", dtype={"worker_id": str})


def _ledger_labels(db: Path) -> pd.DataFrame:
    """Every choice label of the campaign (rejected work and blocked workers too), a worker's last per item."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT a.worker_id, x.item_id, TRIM(x.value), a.assignment_id FROM answers x "
                           "JOIN assignments a ON a.assignment_id = x.assignment_id WHERE a.campaign = ? "
                           "AND a.batch > 0 AND x.field = 'sentiment' ORDER BY a.rowid, x.rowid", [NAME]).fetchall()
    labels = pd.DataFrame(rows, columns=["worker_id", "item_id", "value", "unit"])
    return labels[labels["value"] != ""].drop_duplicates(["worker_id", "item_id"], keep="last")


def _trusted(labels: pd.DataFrame, key: dict[str, str]) -> dict[str, str]:
    """The controls without those whose answer under a third of 3+ answers gave while over half gave another."""
    kept = {}
    for item, answer in key.items():
        given = labels.loc[labels["item_id"] == item, "value"].tolist()
        top, top_n = Counter(given).most_common(1)[0] if given else ("", 0)
        distrusted = len(given) >= 3 and given.count(answer) / len(given) < 1 / 3 and top != answer \
            and top_n / len(given) > 0.5
        if not distrusted:
            kept[item] = answer
    return kept


def _one_coin_votes(labels: pd.DataFrame, key: dict[str, str], k: int, options: list[str]) -> dict[str, float]:
    """Each worker's vote log(a (K - 1) / (1 - a)), ``a`` by 30 rounds of MAP-EM (prior 0.7 worth 2 labels,
    controls clamped to their answer, ``a`` held within 0.01 and 0.99 in the votes)."""
    accuracy = dict.fromkeys(labels["worker_id"], 0.7)
    by_item = defaultdict(list)
    for w, i, v in zip(labels["worker_id"], labels["item_id"], labels["value"], strict=True):
        by_item[i].append((w, v))

    def vote(w: str) -> float:
        a = min(max(accuracy[w], 0.01), 0.99)
        return math.log(a * (k - 1) / (1 - a))

    for _ in range(30):
        right: dict[str, float] = defaultdict(float)
        for item, given in by_item.items():
            post = _option_probabilities(given, vote, options) if item not in key else \
                {o: float(o == key[item]) for o in options}
            for w, v in given:
                right[w] += post[v]
        seen = Counter(labels["worker_id"])
        accuracy = {w: (right[w] + 0.7 * 2) / (seen[w] + 2) for w in accuracy}
    return {w: vote(w) for w in accuracy}


def _option_probabilities(given: list[tuple[str, str]], vote: Any, options: list[str]) -> dict[str, float]:
    score = {o: sum(vote(w) for w, v in given if v == o) for o in options}
    top = max(score.values())
    total = sum(math.exp(s - top) for s in score.values())
    return {o: math.exp(s - top) / total for o, s in score.items()}


def _recomputed(db: Path, controls: Path) -> pd.DataFrame:
    """The pooled rule from the ledger, per worker: its counts, evidence, posterior mean and P(a >= 0.5)."""
    labels = _ledger_labels(db)
    key = _trusted(labels, dict(pd.read_csv(controls, dtype=str)[["item_id", "answer"]].itertuples(index=False)))
    options = sorted(set(labels["value"]) | set(key.values()))
    k = max(2, len(options))
    votes = _one_coin_votes(labels, key, k, options)
    given = defaultdict(list)
    for w, i, v in zip(labels["worker_id"], labels["item_id"], labels["value"], strict=True):
        given[i].append((w, v))
    rows = []
    for w, mine in labels.groupby("worker_id"):
        terms = []  # (p, slip, weight, unit or "" for a control)
        per_unit = Counter(u for u, i in zip(mine["unit"], mine["item_id"], strict=True) if i not in key)
        for i, v, u in zip(mine["item_id"], mine["value"], mine["unit"], strict=True):
            others = [(o, x) for o, x in given[i] if o != w]
            p = float(v == key[i]) if i in key else _option_probabilities(others, votes.get, options)[v]
            terms.append((p, (1 - p) / (k - 1), 1.0 if i in key else min(1.0, 5 / per_unit[u]),
                          "" if i in key else u))
        rows.append({"worker_id": w, **_posterior(terms), **_counts(terms)})
    return pd.DataFrame(rows).set_index("worker_id").add_prefix("r_")


def _counts(terms: list[tuple[float, float, float, str]]) -> dict[str, Any]:
    told: dict[str, float] = defaultdict(float)
    for p, slip, _, unit in terms:
        if unit:
            told[unit] += 1 - min(p, slip) / max(p, slip)
    controls = [p for p, _, _, unit in terms if not unit]
    return {"controls": len(controls), "right": int(sum(controls)), "labels": len(terms) - len(controls),
            "pages": len(told), "evidence": len(controls) + sum(min(1.0, t / 5) for t in told.values()),
            "m": sum(weight for _, _, weight, unit in terms if unit)}


def _posterior(terms: list[tuple[float, float, float, str]]) -> dict[str, float]:
    """Jeffreys prior times the labels' likelihoods; with a = sin(t)^2 the prior is uniform in t on
    [0, pi/2], so the integrands are smooth where the density in a is infinite (at 0 and 1)."""
    p, slip, weight = (np.array([t[i] for t in terms]) for i in range(3))

    def log_like(t: float) -> float:
        a = math.sin(t) ** 2
        with np.errstate(divide="ignore"):
            return float(weight @ np.log(p * a + slip * (1 - a)))

    grid = np.sin(np.linspace(1e-6, math.pi / 2 - 1e-6, 2001)) ** 2  # the peak's scale, on the grid at once
    with np.errstate(divide="ignore"):
        peak = float((weight @ np.log(np.outer(p, grid) + np.outer(slip, 1 - grid))).max())

    def mass(lo: float, hi: float, moment: bool = False) -> float:
        return integrate.quad(lambda t: math.exp(log_like(t) - peak) * (math.sin(t) ** 2 if moment else 1.0),
                              lo, hi, limit=200, epsabs=1e-13)[0]

    whole = mass(0, math.pi / 2)
    return {"above": mass(math.pi / 4, math.pi / 2) / whole, "accuracy": mass(0, math.pi / 2, True) / whole}


def test_workers_csv_holds_the_rule_recomputed_from_the_ledger(pooled: Path) -> None:
    workers = _workers(pooled).set_index("worker_id")
    assert list(workers.reset_index().columns) == [*WORKER_COLUMNS, *POOLED_COLUMNS[1:], "pooled_note"]
    ours = _recomputed(pooled / "h.db", pooled / "controls.csv")
    assert set(workers.index) == set(ours.index)  # every worker the rule judged, blocked ones too
    assert workers[POOLED_COLUMNS[1:]].notna().drop(columns="pooled_agreement").all().all()
    both = workers.join(ours)
    counts = both[["pooled_controls", "pooled_controls_right", "pooled_labels", "pooled_pages"]].to_numpy()
    assert counts.tolist() == both[["r_controls", "r_right", "r_labels", "r_pages"]].to_numpy().tolist()
    for w, row in both.iterrows():
        assert row["pooled_evidence"] == pytest.approx(row["r_evidence"], abs=2e-4), w
        assert row["pooled_p_above"] == pytest.approx(row["r_above"], rel=3e-3, abs=1e-5), w
        assert row["pooled_accuracy"] == pytest.approx(row["r_accuracy"], abs=5e-4), w
        due = row["r_above"] < 0.05 and row["r_evidence"] >= 2
        assert row["pooled_status"] == ("block" if due else "at risk" if row["r_above"] < 0.5 else "ok"), w
    assert set(both["pooled_status"]) == {"block", "at risk", "ok"}  # this campaign shows all three
    # a row whose two control counts differ says why on the row, in the direction of the difference
    notes = both["pooled_note"].fillna("")
    differ = both["controls"] != both["pooled_controls"]
    assert differ.any() and (notes[differ] != "").all() and (notes[~differ] == "").all()
    fewer = both["pooled_controls"] < both["controls"]
    assert notes[fewer].str.contains("judged as ordinary items").all()
    assert notes[differ & ~fewer].str.contains("rejected or blocked work").all()


def test_the_probability_lies_within_the_beta_bounds_of_its_counts(pooled: Path) -> None:
    """The posterior is the Jeffreys prior times Beta kernels of the controls and, per ordinary label, a
    factor s (1 - a) + p a raised to its weight: between the cases where every such label is wrong and
    where every one is right, Beta(1/2 + right, 1/2 + wrong + m) and Beta(1/2 + right + m, 1/2 + wrong),
    m the labels' weights summed (each page's labels weigh min(labels, 5) together)."""
    workers = _workers(pooled).set_index("worker_id")
    m = _recomputed(pooled / "h.db", pooled / "controls.csv")["r_m"]
    for w, row in workers.iterrows():
        right, wrong = row["pooled_controls_right"], row["pooled_controls"] - row["pooled_controls_right"]
        low = stats.beta(0.5 + right, 0.5 + wrong + m[w]).sf(0.5)
        high = stats.beta(0.5 + right + m[w], 0.5 + wrong).sf(0.5)
        assert low - 1e-3 <= row["pooled_p_above"] <= high + 1e-3, w
        assert m[w] <= 5 * row["pooled_pages"] and m[w] <= row["pooled_labels"]


def _percent(text: str) -> float:
    return 0.0 if text == "<0.0001%" else float(text.rstrip("%")) / 100


def _blocks(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "runs" / NAME / "blocked_workers.csv", dtype=str, keep_default_na=False)


def test_the_report_shows_why_a_worker_is_doubted(pooled: Path) -> None:
    """Every worker the rule would block or finds at risk, and every blocked worker, with the figures of
    workers.csv; the block's own line gives its probability, not 0.0%."""
    report = (pooled / "runs" / NAME / "report.html").read_text(encoding="utf-8")
    section = report[report.index('id="pooled-rule"'):]
    rows = re.findall(r"<tr[^>]*><td>([^<]*)</td><td>([^<]*)</td><td>(yes|no)</td><td>([^<]*)</td><td>[^<]*</td>"
                      r"<td>(\d+) of (\d+)</td><td>(\d+) \((\d+)\)</td>", section[:section.index("</table>")])
    shown = {r[0]: r[1:] for r in rows}
    workers, blocks = _workers(pooled), _blocks(pooled)
    doubted = workers[(workers["pooled_status"] != "ok") | workers["worker_id"].isin(blocks["worker_id"])]
    assert set(shown) == set(doubted["worker_id"]) and len(rows) == len(doubted)
    for w in doubted.itertuples():
        status, blocked, p, right, seen, labels, pages = shown[w.worker_id]
        assert (status, blocked) == (w.pooled_status, "yes" if w.worker_id in set(blocks["worker_id"]) else "no")
        assert _percent(p) == pytest.approx(w.pooled_p_above, rel=0.05, abs=1e-6)
        assert (int(right), int(seen), int(labels), int(pages)) == (w.pooled_controls_right, w.pooled_controls,
                                                                    w.pooled_labels, w.pooled_pages)
    on_skill = blocks[blocks["rules"].str.startswith("worker_skill")]
    assert len(on_skill) and all(_percent(re.search(r"P=(\S+)", r)[1]) > 0 for r in on_skill["rules"])  # type: ignore[index]


def _hostile_ledger(folder: Path) -> tuple[Path, str]:
    """A copy of the ledger in which a worker the pooled rule blocked is named with markup."""
    victim = _blocks(folder).query("rules.str.startswith('worker_skill')", engine="python")["worker_id"].iloc[0]
    hostile = folder / "hostile.db"
    with sqlite3.connect(folder / "h.db") as source, sqlite3.connect(hostile) as copy:
        source.backup(copy)
        for table in ("assignments", "blocks"):
            copy.execute(f"UPDATE {table} SET worker_id = ? WHERE worker_id = ?", [HOSTILE, victim])
    return hostile, victim


def test_the_review_page_shows_why_escaped(pooled: Path) -> None:
    """Above the cards, every worker the rule doubts with their evidence; on a card, the worker's evidence as
    the block step judged it after that batch (a card of a block the rule made reads "block")."""
    from markupsafe import escape

    from tests.review_helpers import review_server

    hostile, victim = _hostile_ledger(pooled)
    with review_server(hostile, NAME) as (server, site), httpx.Client(base_url=server.url) as client:
        client.get(f"/?token={site.login_token}")
        page = client.get("/").text
    assert HOSTILE not in page and str(escape(HOSTILE)) in page
    table = page[page.index('id="doubted"'):page.index("</details>", page.index('id="doubted"'))]
    listed = re.findall(r'<code class="worker">([^<]*)</code></td><td>(block|at risk); P\(accuracy &gt;= 0.5\) = '
                        r'(\S+) ', table)
    workers = _workers(pooled).replace({"worker_id": {victim: str(escape(HOSTILE))}})
    doubted = workers[workers["pooled_status"] != "ok"].set_index("worker_id")
    assert {w for w, _, _ in listed} == set(doubted.index)
    for w, status, p in listed:
        assert status == doubted.loc[w, "pooled_status"]
        assert _percent(p) == pytest.approx(doubted.loc[w, "pooled_p_above"], rel=0.05, abs=1e-6)
    cards = re.findall(r'<section class="card.*?</section>', page, re.S)
    skill_cards = [c for c in cards if "<strong>block</strong>" in c and "worker_skill P=" in c]
    assert skill_cards and any(str(escape(HOSTILE)) in c for c in skill_cards)
    for card in skill_cards:
        batch = re.search(r"&middot; batch (\d+) &middot;", card)[1]  # type: ignore[index]
        assert f"Pooled rule (control items with agreement), after batch {batch}: block; " in card


def test_hitflow_ui_shows_every_worker_with_the_rule_escaped(pooled: Path) -> None:
    from markupsafe import escape

    from flows.driver.campaign_status import campaign_status
    from flows.review.overview_app import OverviewServer, OverviewSite

    _, victim = _hostile_ledger(pooled)
    shown = pooled / "ui" / NAME
    shown.mkdir(parents=True)
    (shown / "answers.csv").write_bytes((pooled / "runs" / NAME / "answers.csv").read_bytes())
    written = pd.read_csv(pooled / "runs" / NAME / "workers.csv", dtype=str, keep_default_na=False)
    written.replace({"worker_id": {victim: HOSTILE}}).to_csv(shown / "workers.csv", index=False)
    site = OverviewSite(db_path=pooled / "h.db", out_root=pooled / "ui", read_status=campaign_status)
    with OverviewServer(site) as server, httpx.Client(follow_redirects=True) as client:
        page = client.get(f"{server.url}/?token={site.login_token}").text
    assert HOSTILE not in page and str(escape(HOSTILE)) in page and "built-in method" not in page
    answers = pd.read_csv(pooled / "runs" / NAME / "answers.csv")
    below = int((answers["confidence"] < 0.995).sum())
    method = ", ".join(sorted(set(answers["method"])))  # auto's pick on this campaign's evidence
    assert 0 < below < len(answers) and f"Answers: {len(answers)} (sentiment; {method}), mean confidence " in page
    assert f", {below} below 0.995; skill of {len(_workers(pooled))} workers</summary>" in page
    rows = dict(re.findall(r"<tr><td>([^<]*)</td><td>(block|at risk|ok)</td><td>[^<]*</td>", page))
    workers = _workers(pooled).replace({"worker_id": {victim: str(escape(HOSTILE))}})
    assert rows == dict(zip(workers["worker_id"], workers["pooled_status"], strict=True))
    order = list(rows)
    assert [rows[w] for w in order[:3]] == ["block"] * 3  # least likely above the line first


def test_a_campaign_planned_without_the_rule_keeps_its_outputs(tmp_path: Path) -> None:
    from flows.driver.operations import open_campaign_run
    from flows.review.review_cards import queue_cards

    folder = _run(tmp_path, pooling=False, items=20)  # what a plan without the rule writes: 20 flag three cards
    assert list(_workers(folder).columns) == WORKER_COLUMNS
    with sqlite3.connect(folder / "h.db") as con:
        plan = json.loads(con.execute("SELECT config_json FROM campaigns WHERE name = ?", [NAME]).fetchone()[0])
    assert plan.get("skill") is None and plan["controls"]  # as a campaign planned before the rule reads
    assert 'id="pooled-rule"' not in (folder / "runs" / NAME / "report.html").read_text(encoding="utf-8")
    with open_campaign_run(str(folder / "h.db"), NAME, progress=lambda _: None) as run:
        cards = queue_cards(run, "flagged", {})
    assert cards["cards"] and cards["doubted"] == [] and not any(c["pooled"] for c in cards["cards"])

"""The control quiz of a custom campaign (``[answers] quiz``; docs/how-to/control-items.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.answers.control_items import KEY_COLUMNS, control_rows, read_controls
from flows.core.config.config import CampaignConfig
from flows.core.errors import HitflowError
from flows.core.inputs.csv_files import read_csv_table
from flows.platforms.quiz_record import stored_quiz as stored_quiz  # read where the quiz is judged
from postprocess.answers import control_items as rules

if TYPE_CHECKING:
    from flows.core.ledger.store import Store


QUIZ_LEAST = 10  # taken from the pages' controls where the file is short: the sequential test's evidence


def quiz_size(cfg: CampaignConfig, pool: int, pages: int) -> int:
    """The quiz's share of a controls file of ``pool`` items for ``pages`` (docs/how-to/control-items.md)."""
    least = QUIZ_LEAST if pool >= QUIZ_LEAST else 0
    return max(0, min(cfg.answers.quiz, max(pool - pages, least), pool))


def quiz_controls(cfg: CampaignConfig) -> pd.DataFrame | None:
    """The controls file a quiz is drawn from (None: the campaign has no quiz's pool)."""
    return read_controls(cfg) if cfg.task == "custom" and cfg.answers.control_share > 0 else None


def kept_key(cfg: CampaignConfig, controls: pd.DataFrame, planned_ids: set[str]) -> pd.DataFrame:
    """The quiz's known answers from the controls the planned pages left (none when too few for a pass mark)."""
    key = quiz_key(cfg, controls[~controls["item_id"].astype(str).isin(planned_ids)])
    return key if len(key) and rules.quiz_mark(len(key)) > 0 else key.iloc[:0]


def planned_quiz_size(cfg: CampaignConfig, planned: Callable[[], list[dict[str, Any]]]) -> int:
    """How many controls the quiz of the plan ``planned`` makes asks (0: none), as :func:`quiz_record` keeps them."""
    controls = quiz_controls(cfg)
    return 0 if controls is None else len(kept_key(cfg, controls, {r["item_id"] for r in planned()}))


def quiz_record(cfg: CampaignConfig, planned: list[dict[str, Any]], options: dict[str, list[str]] | None = None
                ) -> dict[str, Any] | None:
    """The quiz the plan keeps: its items' rows as rendered, known answers, pass mark, size asked, and the page's
    ``options`` per field (MTurk's quiz offers the same)."""
    controls = quiz_controls(cfg)
    if controls is None:
        return None
    key = kept_key(cfg, controls, {r["item_id"] for r in planned})
    if key.empty:
        return None
    mark = rules.quiz_mark(len(key))
    items = [] if set(controls.columns) - set(KEY_COLUMNS) else [  # a control shown from the items file's row
        {k: (v or "").strip() for k, v in r.items() if k} for r in read_csv_table(cfg.items, (), "the item file").rows]
    shown = {r["item_id"]: r for r in control_rows(cfg, controls, items)}
    rows = [{"item_id": i, "file_name": "", "url": shown[i].get("url") or shown[i].get("image_url", ""),
             "payload": json.dumps(shown[i])} for i in dict.fromkeys(key["item_id"])]
    offered = (options or {}).get(str(key["field"].iloc[0])) or []
    return {"mark": mark, "key": key.values.tolist(), "rows": rows, "asked": cfg.answers.quiz,
            "pool": int(controls["item_id"].nunique()), "apart": kept_apart(cfg),
            "options": offered if set(key["answer"]) <= set(offered) else sorted(set(key["answer"]))}


def kept_apart(cfg: CampaignConfig) -> str:
    """Why the page keeps its items apart ("": they may share a page): a quiz asked apart from the pages (Prolific's
    screening study) then shows one control a page (flows/taskserver/quiz_pages.py)."""
    from flows.core.task_kinds import declared, kind_name  # the kinds' modules plan with this one

    kind = declared(kind_name(cfg))
    try:
        return kind.plan(cfg).kept_apart if kind is not None else ""
    except HitflowError:
        return ""


def quiz_key(cfg: CampaignConfig, spare: pd.DataFrame, size: int | None = None) -> pd.DataFrame:
    """Up to ``size`` controls of the single-choice field with most, taken in turn from each answer's, seeded."""
    spare = spare[list(KEY_COLUMNS)].astype(str).map(str.strip)
    spare = rules.single_choice(spare.drop_duplicates(["item_id", "field"]))
    fields = spare.groupby("field")["answer"].agg(["size", "nunique"])
    size = cfg.answers.quiz if size is None else size
    if fields.empty or size <= 0:
        return spare.iloc[:0]
    spare = spare[spare["field"] == fields.sort_values(["size", "nunique"]).index[-1]]
    rng = random.Random(f"{cfg.seed}:quiz")
    groups = [g.sample(frac=1, random_state=rng.randrange(2**32)).values.tolist()
              for _, g in sorted(spare.groupby("answer"), key=lambda kv: str(kv[0]))]
    turns = [row for k in range(max(map(len, groups))) for g in groups if k < len(g) for row in [g[k]]]
    return pd.DataFrame(turns[:size], columns=list(KEY_COLUMNS))


def quiz_line(record: dict[str, Any] | None) -> str:
    """The dry run's words for the quiz: its size, the test, the pass mark and its chances."""
    if not record:
        return "quiz: none ([answers] quiz = 0, or the controls file holds no single-choice control for one)"
    size, mark, honest, asked = len(record["key"]), int(record["mark"]), rules.QUIZ_HONEST, record.get("asked", 0)
    short = f" ({asked} asked: the controls file's {record.get('pool')} items serve it first)" if size < asked else ""
    k = max(2, len(record.get("options") or {a for _, _, a in record["key"]}))
    chance, need = 1 - rules.fails_quiz(size, mark, 1 / k), rules.quiz_to_tell(k)
    # random clicks on two options are right half the time: on a short quiz no mark fails them and spares honest
    # workers (the sequential test, at an honest 70%, needs far more answers), so the dry run says what it takes
    weak = (f"; a quiz of {need} fails 9 in 10 of them ([answers] quiz = {need}, from a controls file that holds "
            "them): on fewer, random clickers who pass are flagged by the page rules, not blocked") \
        if size < need else ""
    return (f"quiz: {size} control items before any work{short}, never again on a page (links: on a worker's first "
            "page, then one sequential test over every control answer stops an honest worker right "
            f"{rules.HONEST_ACCURACY:.0%} of the time with chance under {rules.FALSE_ALARM:.2%}; Prolific: a "
            "screening study of its own, whose passers alone get the batches' studies; MTurk: the "
            f"qualification test; every route: pass mark {mark} right, the most an honest worker right {honest:.0%} "
            f"of the time fails with chance under {rules.QUIZ_RISK:.1%} ({rules.fails_quiz(size, mark, honest):.2%}); "
            f"one clicking at random among the field's {k} options passes with chance {chance:.0%}{weak})")


def quiz_rows(store: Store, campaign: str) -> dict[str, dict[str, Any]]:
    """The quiz items' rows as the items table holds a page's (item_id, file_name, url, payload)."""
    return {r["item_id"]: r for r in stored_quiz(store, campaign).get("rows", [])}

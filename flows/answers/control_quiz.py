"""The control quiz of a custom campaign (``[answers] quiz``; docs/how-to/control-items.md): spare controls a
worker answers before any work, kept in the ledger beside the campaign (``config_json["quiz"]``)."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

import pandas as pd

from flows.answers.control_items import KEY_COLUMNS, control_rows, read_controls
from flows.core.config.config import CampaignConfig
from flows.core.inputs.csv_files import read_csv_table
from postprocess.answers import control_items as rules

if TYPE_CHECKING:
    from flows.core.ledger.store import Store


def quiz_record(cfg: CampaignConfig, planned: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The quiz the plan keeps: its items' rows as a page renders them, their known answers, the pass mark."""
    controls = read_controls(cfg) if cfg.task == "custom" and cfg.answers.control_share > 0 else None
    if controls is None:
        return None
    planned_ids = {r["item_id"] for r in planned}
    key = quiz_key(cfg, controls)  # set apart before the batches took theirs (custom_task.custom_item_plan)...
    if set(key["item_id"]) & planned_ids:  # ...or, too few for both, what the batches left
        key = quiz_key(cfg, controls[~controls["item_id"].astype(str).isin(planned_ids)])
    mark = rules.quiz_mark(len(key)) if len(key) else 0
    if mark <= 0:
        return None
    items = [] if set(controls.columns) - set(KEY_COLUMNS) else [  # a control shown from the items file's row
        {k: (v or "").strip() for k, v in r.items() if k} for r in read_csv_table(cfg.items, (), "the item file").rows]
    shown = {r["item_id"]: r for r in control_rows(cfg, controls, items)}
    rows = [{"item_id": i, "file_name": "", "url": shown[i].get("url") or shown[i].get("image_url", ""),
             "payload": json.dumps(shown[i])} for i in dict.fromkeys(key["item_id"])]
    return {"mark": mark, "key": key.values.tolist(), "rows": rows}


def quiz_key(cfg: CampaignConfig, spare: pd.DataFrame) -> pd.DataFrame:
    """Up to ``quiz`` controls of one single-choice field (the one with most, then most answers), taken in turn
    from each answer's (one answer to everything gets a share right only), drawn from the campaign's seed."""
    spare = spare[list(KEY_COLUMNS)].astype(str).map(str.strip)
    spare = rules.single_choice(spare.drop_duplicates(["item_id", "field"]))
    fields = spare.groupby("field")["answer"].agg(["size", "nunique"])
    if fields.empty or cfg.answers.quiz <= 0:
        return spare.iloc[:0]
    spare = spare[spare["field"] == fields.sort_values(["size", "nunique"]).index[-1]]
    rng = random.Random(f"{cfg.seed}:quiz")
    groups = [g.sample(frac=1, random_state=rng.randrange(2**32)).values.tolist()
              for _, g in sorted(spare.groupby("answer"), key=lambda kv: str(kv[0]))]
    turns = [row for k in range(max(map(len, groups))) for g in groups if k < len(g) for row in [g[k]]]
    return pd.DataFrame(turns[:cfg.answers.quiz], columns=list(KEY_COLUMNS))


def stored_quiz(store: Store, campaign: str) -> dict[str, Any]:
    rows = store.rows("SELECT config_json FROM campaigns WHERE name = ?", [campaign])
    return (json.loads(rows[0]["config_json"] or "{}").get("quiz") if rows else None) or {}


def quiz_line(record: dict[str, Any] | None) -> str:
    """The dry run's words for the quiz."""
    if not record:
        return "quiz: none ([answers] quiz = 0, or no control item is left over from the batches for one)"
    size, mark, honest = len(record["key"]), int(record["mark"]), rules.QUIZ_HONEST
    return (f"quiz: {size} control items before any work (links and Prolific: on a worker's first page; MTurk: the "
            f"qualification test), pass mark {mark} right; an honest worker right {honest:.0%} of the time fails it "
            f"with chance {rules.fails_quiz(size, mark, honest):.1%}, one clicking at random among two options "
            f"{rules.fails_quiz(size, mark, 0.5):.0%}, among three {rules.fails_quiz(size, mark, 1 / 3):.0%}")


def failed_quiz(store: Store, campaign: str, session_id: str, participant: str) -> dict[str, str]:
    """The participant, with the rule's words, when their answers in this session fail the quiz; a quiz item most
    takers contradict is a mistake in the file, dropped with a mark."""
    record = stored_quiz(store, campaign)
    key = pd.DataFrame(record.get("key", []), columns=list(KEY_COLUMNS))
    given = store.frame(f"SELECT a.worker_id, x.item_id, x.field, x.value, x.assignment_id FROM answers x JOIN "
                        f"assignments a ON a.campaign = x.campaign AND a.assignment_id = x.assignment_id WHERE "
                        f"a.campaign = ? AND x.item_id IN ({','.join('?' * len(key))})", [campaign, *key["item_id"]],
                        ["worker_id", "item_id", "field", "value", "assignment_id"]) if record else None
    if given is None or session_id not in set(given["assignment_id"]):
        return {}
    trusted = rules.trusted_controls(given, key)
    mine = given[(given["assignment_id"] == session_id) & (given["worker_id"] == participant)]
    return rules.quiz_failures(mine, trusted, int(record["mark"]) - (len(key) - len(trusted)))


def quiz_rows(store: Store, campaign: str) -> dict[str, dict[str, Any]]:
    """The quiz items' rows as the items table holds a page's (item_id, file_name, url, payload)."""
    return {r["item_id"]: r for r in stored_quiz(store, campaign).get("rows", [])}

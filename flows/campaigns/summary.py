"""The end-of-run summary, read back from a campaign's output folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flows.core.ledger.store import Store
from flows.core.terminal import on_terminal, print_table

if TYPE_CHECKING:  # read where used: `hitflow status` prints shortfall_lines and loads no pandas (~0.35 s)
    import pandas as pd

WHAT_TO_DO = ("what to do: extend the short HITs (UpdateExpirationForHIT, CreateAdditionalAssignmentsForHIT), "
              "repost the missing items (a new campaign name with --limit), or relax [policy]/[gating] if the crowd "
              "has nobody eligible left; set [campaign] accept_partial = true to accept what came in")
# an invite round has places for people, not HITs to extend (flows/platforms/batch_window.record_unfilled)
WHAT_TO_DO_ROUNDS = ("what to do: post the missing items again (a new campaign name with --limit), keep rounds open "
                     "longer ([timing] batch_open_s), or invite more people; set [campaign] accept_partial = true to "
                     "accept what came in")
# a Prolific study has places, not HITs: MTurk's extension calls mean nothing there
WHAT_TO_DO_PLACES = ("what to do: add places to the study on Prolific (its total_available_places), repost the missing "
                     "items (a new campaign name with --limit), or relax [study] screening/[gating] if the eligible "
                     "pool is too small; set [campaign] accept_partial = true to accept what came in")


def shortfalls(store: Store, campaign: str) -> list[dict[str, Any]]:
    """Batches whose HITs closed short of their work, and batches never posted after one got nothing."""
    rows = store.rows("SELECT batch, status, shortfall FROM batches WHERE campaign = ? AND batch > 0 "
                      "ORDER BY batch", [campaign])
    out = [{"batch": r["batch"], **json.loads(r["shortfall"])} for r in rows if r.get("shortfall")]
    for s in out:  # an invitee's answer that came after the round closed is late work, reviewed, and counts
        if s.get("route") == "links":
            s["got"] = max(s["got"], store.table("assignments").count_where("campaign = ? AND batch = ?",
                                                                            [campaign, s["batch"]]))
    out = [s for s in out if s["got"] < s["expected"]]
    planned = {r["batch"] for r in store.rows("SELECT DISTINCT batch FROM items WHERE campaign = ?", [campaign])}
    posted = {r["batch"] for r in store.rows("SELECT DISTINCT batch FROM hits WHERE campaign = ?", [campaign])}
    posted |= {r["batch"] for r in rows if r["status"] not in ("planned", None)}  # invite rounds post no HITs
    if out and not out[-1]["got"] and planned - posted:
        out.append({"batch": min(planned - posted), "not_posted": sorted(planned - posted)})
    return out


def shortfall_lines(store: Store, campaign: str) -> list[str]:
    """The honest ending: one line per incomplete batch with its numbers, then what to do."""
    lines, found = [], shortfalls(store, campaign)
    for s in found:
        if "not_posted" in s:
            lines.append(f"INCOMPLETE: batch(es) {', '.join(map(str, s['not_posted']))} not posted: the batch "
                         "before got no work at all")
        elif s.get("route") == "prolific":
            lines.append(f"INCOMPLETE: batch {s['batch']}: {s['got']} of {s['expected']} places finished when its "
                         "study stopped (each participant takes a study once: is the eligible pool big enough?)")
        elif s.get("route") == "links":
            lines.append(f"INCOMPLETE: batch {s['batch']}: {s['got']} of {s['expected']} places filled when the round "
                         "closed (invite more people with `hitflow serve --invite NAME`: a link works in every batch)")
        elif not s["got"]:
            lines.append(f"INCOMPLETE: batch {s['batch']} got no work: 0 of {s['expected']} assignments on "
                         f"{s['hits']} HITs (nobody took them: is anyone eligible?)")
        else:
            lines.append(f"INCOMPLETE: batch {s['batch']}: {s['got']} of {s['expected']} assignments; "
                         f"{s['short_hits']} of {s['hits']} HITs expired short of their assignments")
    if not lines:
        return []
    worked = [s for s in found if "got" in s]
    if worked and all(s.get("route") == "links" for s in worked):
        return [*lines, WHAT_TO_DO_ROUNDS]
    if worked and all(s.get("route") == "prolific" for s in worked):
        return [*lines, WHAT_TO_DO_PLACES]
    return [*lines, WHAT_TO_DO]


SHORT_ITEMS = """SELECT i.item_id, COUNT(DISTINCT CASE WHEN d.action = 'approve' THEN an.assignment_id END) AS n
FROM items i JOIN batches b ON b.campaign = i.campaign AND b.batch = i.batch
LEFT JOIN answers an ON an.campaign = i.campaign AND an.item_id = i.item_id
LEFT JOIN decisions d ON d.campaign = an.campaign AND d.assignment_id = an.assignment_id
WHERE i.campaign = ? AND b.status IN ('decided', 'blocked') GROUP BY i.batch, i.item_id ORDER BY i.batch, i.item_id"""


def short_items(store: Store, campaign: str) -> tuple[int, dict[str, int]]:
    """Judgements planned per item, and the decided batches' items with fewer accepted (controls left out)."""
    info = store.recorded_config(campaign)
    per = int(info.get("assignments_per_image") or 0)
    controls = {str(k[0]) for k in (info.get("controls") or {}).get("key", [])}
    return per, {r["item_id"]: r["n"] for r in store.rows(SHORT_ITEMS, [campaign])
                 if r["n"] < per and r["item_id"] not in controls}


def short_item_lines(store: Store, campaign: str, most: int = 10) -> list[str]:
    """The items a decided batch left short of accepted judgements, named (every item is answered or named)."""
    per, short = short_items(store, campaign)
    if not short:
        return []
    rounds = int(store.recorded_config(campaign).get("top_up_rounds") or 0)
    fill = (f"raise [answers] top_up_rounds (the batches ran out of their {rounds} round(s))" if rounds else
            "set [answers] top_up_rounds = 1 before a campaign's batches run (short items then get more places "
            "within each batch)")
    none = sum(1 for n in short.values() if not n)
    shown = ", ".join(f"{item} ({n})" for item, n in list(short.items())[:most]) + (", ..." if len(short) > most
                                                                                    else "")
    return [f"items short of accepted answers: {len(short)} with fewer than {per} ({none} with none: every answer "
            f"rejected or never given): {shown}",
            "  next: their answers rest on fewer workers (answers.csv's confidence says how far); to fill them, put "
            f"their rows in an items file of their own and run it as a campaign, or {fill}"]


def met_the_campaign(truth: pd.DataFrame | None) -> bool:
    """Whether any simulated worker worked or was gated out."""
    return truth is not None and not truth.empty and bool(truth["worked"].sum() + truth["gated_out"].sum())


def summarize(out_dir: Path) -> str:
    head, truth, tail = summary_parts(out_dir)
    table = [] if truth is None else ["blocked vs the simulator's ground truth:", truth.to_string(index=False)]
    return "\n".join([*head, *table, *tail])


def show_summary(out_dir: Path) -> None:
    """The end-of-run summary on stdout; on a terminal its table is drawn as one."""
    head, truth, tail = summary_parts(out_dir)
    if truth is None or not on_terminal():
        print(summarize(out_dir))
        return
    print("\n".join(head))
    print_table("blocked vs the simulator's ground truth", list(truth.columns), truth.to_dict("split")["data"])
    print("\n".join(tail))


SHORT_WHY = {"rounds": "ran out of rounds", "after": "short after the rounds ended", "cap": "at the cap",
             "unfilled": "on a unit the crowd did not fill", "unposted": "on no posted unit"}


def top_up_lines(out_dir: Path) -> list[str]:
    """Caption top-ups: how many images got more assignments, and how many ran out of rounds short."""
    short_file, topped_file = out_dir / "short_images.csv", out_dir / "top_ups.csv"
    if not short_file.is_file():
        return []  # no top-up rounds in this campaign
    import pandas as pd

    short = pd.read_csv(short_file, dtype=str)
    if not topped_file.is_file():  # a platform that cannot add assignments to posted work
        return [f"images short of accepted captions: {len(short)}, not topped up (this platform cannot add "
                f"assignments yet){f' ({short_file})' if len(short) else ''}"]
    if len(topped := pd.read_csv(topped_file, dtype=str)):
        # a unit id names one unit within its batch (invite links' invite:u0 recurs in every batch)
        hits = topped.drop_duplicates([c for c in ("batch", "hit_id") if c in topped.columns])
        # the task server names its units <study id>:u<k> (Prolific) or invite:u<k>: those are not MTurk HITs
        units = "unit(s)" if hits["hit_id"].str.contains(":u", regex=False).all() else "HIT(s)"
        lines = [f"images topped up: {topped['image_id'].nunique()} on {len(hits)} {units} where QC left an image "
                 f"short, {int(hits['more_assignments'].astype(int).sum())} more assignment(s) ({topped_file})"]
    else:
        lines = ["images topped up: none (QC left no image short of accepted captions)"]
    if len(short):
        why = ("ran out of rounds" if "reason" not in short.columns  # a run folder from before reasons were kept
               else ", ".join(f"{n} {SHORT_WHY[r]}" for r, n in short["reason"].value_counts().items()))
        return [*lines, f"images short of accepted captions after the last top-up round: {len(short)} ({why}) "
                        f"({short_file})"]
    return [*lines, "images short of accepted captions after the top-up rounds: none"]


def summary_parts(out_dir: Path) -> tuple[list[str], pd.DataFrame | None, list[str]]:
    """The summary's lines before its table, the table (blocking against the simulator's truth) and the lines after."""
    for name in ("study_summary.txt", "summary.txt"):  # an evaluation study; a campaign on the user's own page
        if (out_dir / name).is_file():
            return [(out_dir / name).read_text(encoding="utf-8").rstrip("\n")], None, []
    import pandas as pd

    from flows.captions.content_blind import read_notes
    from postprocess.report_data import blocking_vs_truth

    dataset = pd.read_csv(out_dir / "dataset.raw.csv")  # the exact rows (dataset.csv is neutralised)
    blocked = pd.read_csv(out_dir / "blocked_workers.csv")
    flags = pd.read_csv(out_dir / "flags.csv", keep_default_na=False)
    review = flags[flags["rule"] == "random_sample"]
    lines = [f"captions: {len(dataset)} ({int(dataset['is_rejected'].sum())} marked is_rejected, "
             f"{int(dataset['is_precanned'].sum())} canned) on {dataset['image_id'].nunique()} images",
             f"workers blocked: {len(blocked)}"]
    if len(review):
        # a sample for a look, not a count of what waits for a person (`hitflow status` says that, as every view)
        lines.append(f"sampled for a look: {review['assignment_id'].nunique()} assignment(s) (rule random_sample in "
                     f"{out_dir / 'flags.csv'}); what needs a person: `hitflow status`")
    lines += top_up_lines(out_dir)
    lines += read_notes(out_dir)  # on the simulator: captions of images its bank lacks are content-blind
    scores_file = out_dir / "qualification_scores.csv"
    if scores_file.is_file():
        scores = pd.read_csv(scores_file)
        captioners = set(dataset["worker_id"])
        below = int((~scores["passed"].astype(bool) & scores["worker_id"].isin(captioners)).sum())
        lines.append(f"qualification: {len(scores)} took the test, {int(scores['passed'].astype(bool).sum())} passed; "
                     f"{below} worker(s) below the pass mark captioned")
    table = None
    truth_file = out_dir / "sim_workers.json"
    if truth_file.is_file():
        truth = pd.DataFrame(json.loads(truth_file.read_text(encoding="utf-8")))
        work = dataset.groupby("worker_id")["assignment_id"].nunique().rename("assignments").reset_index()
        table = blocking_vs_truth(truth, blocked, work)
        table = table if met_the_campaign(table) else None
    return lines, table, [f"dataset: {out_dir / 'dataset.json'} and {out_dir / 'dataset.csv'}",
                          f"report:  {out_dir / 'report.html'}"]

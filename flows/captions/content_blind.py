"""On how many items a simulator rehearsal's captions are content-blind (a made-up scene)."""

from __future__ import annotations

from pathlib import Path

from flows.campaigns.campaign_plan import Run
from flows.core.errors import ConfigError
from flows.core.pages.templates import TEMPLATE_DIR
from flows.custom.truth_source import BLIND

NOTES_FILE = "content_blind.txt"  # the lines, one each, for the summary read back from the run folder
CAPTION_BLIND = (f"{BLIND.format(field='caption')} ({{blind}} of {{total}} items: the simulator's caption bank "
                 "({crowd}) does not hold their images, so its workers described a scene of its own making there, "
                 "never another image's captions)")


def caption_blind_lines(run: Run) -> list[str]:
    """The line, once a campaign, when simulator captions were written content-blind; [] otherwise."""
    # the ledger's record of the run's target (a re-export reads the same): the in-process simulator only
    if run.store.recorded_config(run.cfg.name).get("target_kind") != "sim" or not caption_page(run.cfg.task):
        return []
    # here, not at the top: the simulator is reached only through targets, and only when asked for
    from flows.platforms.targets import crowd_file_used, sim_uncaptioned

    crowd = crowd_file_used(Path(run.notes["crowd_file"]) if run.notes.get("crowd_file") else run.cfg.sim_crowd)
    ids = [str(r["item_id"]) for r in run.store.rows(
        "SELECT DISTINCT item_id FROM items WHERE campaign = ? AND batch > 0 ORDER BY item_id", [run.cfg.name])]
    try:
        blind = sim_uncaptioned(crowd, ids)
    except ConfigError as exc:  # the run loaded this crowd: it cannot be unreadable now unless edited since
        return [f"the simulator's crowd ({crowd}) cannot be read to say whether its captions saw the images: {exc}"]
    return [CAPTION_BLIND.format(blind=len(blind), total=len(ids), crowd=crowd.name)] if blind else []


def write_notes(out_dir: Path, lines: list[str]) -> None:
    """``content_blind.txt`` with the lines, or none (a re-export after a fix leaves no stale one)."""
    path = out_dir / NOTES_FILE
    if lines:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        path.unlink(missing_ok=True)


def read_notes(out_dir: Path) -> list[str]:
    path = out_dir / NOTES_FILE
    return path.read_text(encoding="utf-8").splitlines() if path.is_file() else []


def caption_page(task: str) -> bool:
    """Whether the task's own page has a caption box the simulator fills (the dry run asks it too)."""
    template = TEMPLATE_DIR / f"{task}.html.j2"
    return template.is_file() and 'data-sim-fill="caption"' in template.read_text(encoding="utf-8")

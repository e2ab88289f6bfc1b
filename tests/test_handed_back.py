"""Work handed back is offered again, on MTurk's side of the simulator: a worker who
returns an assignment, or abandons it past its AssignmentDurationInSeconds, frees the slot and another
worker takes it while the HIT lives (flows/sim/mturk/handed_back.py cites MTurk's documents); before,
the slot stayed empty and the HIT expired short ("1 of 2 HITs expired short of their assignments")."""

from __future__ import annotations

import shutil
from pathlib import Path

import boto3

from flows.core.pages.mturk_forms import html_question
from flows.sim.service.server import SimServer
from tests.conftest import advance
from tests.mturk_walk import PAGE, TYPE

ROOT = Path(__file__).resolve().parents[1]
FIVE_ITEMS = PAGE.replace("</form>", "".join(
    f"<textarea name='caption_{i}' data-sim-fill='caption' data-item='{i + 1}'></textarea>" for i in range(1, 5))
    + "</form>")


def crowd_file(tmp_path: Path, return_rate: float) -> Path:
    """Twelve diligent workers, each returning a HIT they accepted with ``return_rate``."""
    shutil.copy(ROOT / "config/items/vizwiz_demo_captions.csv", tmp_path / "bank.csv")
    path = tmp_path / "returners.toml"
    path.write_text(f'seed = 1\ncaption_bank = "bank.csv"\n\n'
                    f'[[profile]]\nname = "diligent"\ncount = 12\nreturn_rate = {return_rate}\n')
    return path


def worked(crowd: Path, seed: int, page: str = PAGE, slots: int = 4, duration: int = 3600
           ) -> tuple[list[str], list[str], int]:
    """(workers who submitted, workers who gave it back, assignments still available) for one HIT of
    ``slots`` assignments, the clock moved on an hour at a time for its day on the market."""
    with SimServer(seed=seed, crowd_file=crowd) as sim:
        client = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                              aws_access_key_id="dummy", aws_secret_access_key="dummy")
        type_id = client.create_hit_type(**{**TYPE, "AssignmentDurationInSeconds": duration})["HITTypeId"]
        hit_id = client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=slots, LifetimeInSeconds=86400,
                                                 Question=html_question(page))["HIT"]["HITId"]
        for _ in range(23):
            advance(sim, 3600)
        done = client.list_assignments_for_hit(HITId=hit_id, MaxResults=100)["Assignments"]
        view = client.get_hit(HITId=hit_id)["HIT"]
        return [a["WorkerId"] for a in done], list(sim.market.hits[hit_id].returned), \
            view["NumberOfAssignmentsAvailable"]


def test_a_returned_slot_is_taken_by_another_worker(tmp_path: Path) -> None:
    submitted, returned, available = worked(crowd_file(tmp_path, 0.4), seed=5)
    assert returned, "with a return rate of 0.4 someone among the first four gives the HIT back"
    assert len(submitted) == 4 and len(set(submitted)) == 4  # every slot filled, each by another worker
    assert not set(returned) & set(submitted)  # a slot given back goes to someone else
    assert available == 0
    assert worked(crowd_file(tmp_path, 0.4), seed=5)[:2] == (submitted, returned)  # one seed, one outcome


def test_an_abandoned_slot_is_offered_again_while_the_hit_lives(tmp_path: Path) -> None:
    """Assignments of 300 s on five items a diligent worker takes ~55 s each over: some outlast it and are
    abandoned at their deadline; the slot goes to the next worker, until one finishes in time."""
    submitted, returned, available = worked(crowd_file(tmp_path, 0.0), seed=2, page=FIVE_ITEMS, slots=2,
                                            duration=300)
    assert returned  # some ran past the 300 s
    assert len(submitted) == 2 and not set(returned) & set(submitted) and available == 0


def test_a_returned_or_timed_out_prolific_place_is_taken_by_another_participant(tmp_path: Path) -> None:
    """Prolific: "RETURNED: ... The study place becomes available for another participant" (its Submission
    object's documentation), and a timed-out participant's "place will open up to a new participant" (its
    help on the maximum allowed time): the simulator's participants take a place given back."""
    from flows.campaigns.summary import shortfall_lines
    from flows.core.ledger.store import Store
    from flows.driver.campaign_run import run_campaign
    from tests.small_configs import small_vizwiz

    with SimServer(seed=5) as sim:
        sim.prolific.pumps[0].return_rate = 0.3  # type: ignore[attr-defined]
        # the demo's ten images in two studies, not five: every study is filled the same way
        config = small_vizwiz(tmp_path, edits={"batches = 5 ": "batches = 2 "}, items=10, top_ups=True)
        run_campaign(config, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=tmp_path,
                     progress=lambda _: None, platform="prolific")
        subs = list(sim.prolific.submissions.values())
        places = {s["id"]: s["total_available_places"] for s in sim.prolific.studies.values()}
    given_back = [s for s in subs if s["status"] in ("RETURNED", "TIMED-OUT")]
    assert given_back
    for study, wanted in places.items():
        taken = [s for s in subs if s["study_id"] == study and s["status"] in ("AWAITING REVIEW", "APPROVED",
                                                                                 "REJECTED")]
        assert len(taken) == wanted  # every place filled, the given-back ones by someone else
        assert not {s["participant_id"] for s in taken} & {s["participant_id"] for s in given_back
                                                            if s["study_id"] == study}
    assert shortfall_lines(Store(tmp_path / "h.db"), "vizwiz_captions") == []


def test_a_browser_worker_whose_submit_the_page_refuses_gives_the_hit_back_to_another(tmp_path: Path) -> None:
    """Browser workers (a page's script run in Chromium): the page refuses the submit of half the crowd, as a
    page's own check refuses a rule-breaker; the refused worker gives the HIT back after three tries and the
    slot goes to one whose submit it takes. Before, "1 of 2 HITs expired short of their assignments"."""
    import json

    import pytest

    from flows.sim.pages.browser_check import missing

    if missing():
        pytest.skip(f"browser workers cannot run here: {missing()}")
    with SimServer(seed=7, crowd_file=crowd_file(tmp_path, 0.0)) as sim:
        refused = sorted(sim.market.workers)[::2]
        page = ('<form id="hit-form" method="post" action="https://www.mturk.com/mturk/externalSubmit" '
                'data-sim-workers="browser"><input type="hidden" name="assignmentId">'
                "<textarea name='caption_0' data-item='1'></textarea>"
                '<button type="submit" id="submit-btn">Submit</button></form><script>'
                f"const refused = {json.dumps(refused)};"
                "document.getElementById('hit-form').addEventListener('submit', e => {"
                " if (refused.includes(new URLSearchParams(location.search).get('workerId'))) e.preventDefault(); });"
                "</script>")
        client = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                              aws_access_key_id="dummy", aws_secret_access_key="dummy")
        type_id = client.create_hit_type(**TYPE)["HITTypeId"]
        hit_id = client.create_hit_with_hit_type(HITTypeId=type_id, MaxAssignments=2, LifetimeInSeconds=86400,
                                                 Question=html_question(page))["HIT"]["HITId"]
        for _ in range(12):
            advance(sim, 3600)
        done = [a["WorkerId"] for a in client.list_assignments_for_hit(HITId=hit_id)["Assignments"]]
        returned = list(sim.market.hits[hit_id].returned)
    assert returned and set(returned) <= set(refused), (done, refused)  # the page refused them; they gave it back
    assert len(done) == 2 and not set(done) & set(refused)  # both slots taken by workers the page accepts

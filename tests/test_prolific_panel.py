"""Prolific's panel is far larger than a demo crowd, and a participant takes a study once: the
simulated panel brings newcomers of the crowd's own mix once the crowd has had a study's offer,
so a study's places fill as they would on Prolific (they ran short before: 31-44 of 100)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.sim.people import crowd
from flows.sim.prolific.prolific_people import Participants
from flows.sim.service.server import SimServer

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "vizwiz_captions.toml"


def tiny_crowd(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text('seed = 4\n[[profile]]\nname = "diligent"\ncount = 4\n\n[[profile]]\nname = "speeder"\n'
                    'count = 1\n', encoding="utf-8")
    return path


def test_newcomers_follow_the_crowds_mix_and_are_the_same_people_after_a_restart(tmp_path: Path) -> None:
    workers, bank = crowd.load_crowd(tiny_crowd(tmp_path))
    first, again = Participants(workers, bank), Participants(workers, bank)
    newcomers = first.more_people(200)
    assert [p["id"] for p in newcomers] == [p["id"] for p in again.more_people(200)]
    assert not {p["id"] for p in newcomers} & {p["worker_id"] for p in Participants(workers, bank).truth()}
    mix = Counter(p["worker"].profile for p in newcomers)
    assert mix == {"diligent": 160, "speeder": 40}  # the crowd's 4:1, dealt exactly
    assert len(first.truth()) == 5 + 200


def test_a_five_person_crowd_fills_every_place_of_every_study(tmp_path: Path) -> None:
    root = tmp_path / "out"
    with SimServer(seed=2, crowd_file=tiny_crowd(tmp_path)) as sim:
        run_campaign(CONFIG, endpoint_url=sim.url, db_path=tmp_path / "h.db", out_root=root, limit=40,
                     progress=lambda _: None, platform="prolific")
        studies = Store(tmp_path / "h.db").rows("SELECT study_id FROM studies")
        for study in studies:
            on_platform = sim.prolific.studies[study["study_id"]]
            finished = [s for s in sim.prolific.submissions.values()
                        if s["study_id"] == study["study_id"] and s["status"] in ("APPROVED", "REJECTED")]
            assert len(finished) == on_platform["total_available_places"] > 5
    truth = pd.read_json(root / "vizwiz_captions" / "sim_workers.json")
    worked = set(pd.read_csv(root / "vizwiz_captions" / "dataset.csv")["worker_id"])
    assert len(worked) > 5 and worked <= set(truth["worker_id"])  # newcomers are in the ground truth

"""A crowd that scales like a marketplace: size rule, shares, heavy-tailed activity, no repeats."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.core.errors import ConfigError
from flows.sim.mturk.eligible_pool import EligiblePool
from flows.sim.people.captions import write_caption
from flows.sim.people.crowd import BankEntry, load_crowd
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker, normalise
from qc.submit_rules import SubmitRules, violations

ROOT = Path(__file__).resolve().parents[1]
FULL_CROWD = ROOT / "config" / "crowds" / "vizwiz_full_scale.toml"
RULES = SubmitRules()
BANK = {"1": BankEntry(["A red mug of coffee on a wooden kitchen table by the window.",
                        "A coffee mug that is red sitting on a table in a kitchen."], 0)}


def crowd_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "crowd.toml"
    path.write_text("seed = 3\n" + body)
    return path


SHARES = """
[[profile]]
name = "diligent"
share = 0.9
[[profile]]
name = "template_ring"
share = 0.1
"""


def test_size_rule_grows_the_crowd_with_posted_images(tmp_path: Path) -> None:
    crowd, _ = load_crowd(crowd_file(tmp_path, "[size]\nimages_per_worker = 24\nmin_workers = 10\n" + SHARES))
    assert len(crowd) == 10  # who is there before any work is posted
    arrived = [w for hit in range(480) for w in crowd.recruit(f"HIT{hit}", 5, now=1000.0 + hit)]
    assert len(crowd) == 2400 // 24 == 10 + len(arrived)
    assert crowd.recruit("HIT0", 5, now=9999.0) == []  # the same HIT is counted once
    counts = Counter(w.profile for w in crowd)
    assert counts == {"diligent": 90, "template_ring": 10}  # shares hold at every size
    rings = Counter(w.params["ring"] for w in crowd if w.profile == "template_ring")
    assert set(rings.values()) <= {3, 1} and len(rings) == 4  # rings of ring_size = 3 accounts


def test_fixed_count_and_departures(tmp_path: Path) -> None:
    body = "[size]\ncount = 40\n[arrivals]\nstay_days_mean = 2\n" + SHARES
    crowd, _ = load_crowd(crowd_file(tmp_path, body))
    assert len(crowd) == 40 and crowd.recruit("HIT", 5000, now=0.0) == []
    gone = [w for w in crowd if not w.present(10 * 86400)]
    assert 30 <= len(gone) <= 40  # most leave within ten days of a two-day mean stay
    assert all(w.present(0.0) for w in crowd)


@pytest.mark.parametrize(("body", "needle"), [
    (SHARES, r"need a \[size\] table"),
    ("[size]\ncount = 5\n" + SHARES.replace("0.9", "0.5"), "add up to 0.600"),
    ("[size]\ncount = 5\n[activity]\ndistribution = 'zipfian'\n" + SHARES, "lognormal or pareto"),
    ("[[profile]]\nname = 'spammer'\ncount = 1\n", "unknown profile 'spammer'"),
])
def test_bad_crowd_files_get_one_line_errors(tmp_path: Path, body: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle) as err:
        load_crowd(crowd_file(tmp_path, body))
    assert "\n" not in str(err.value)


def test_activity_is_heavy_tailed() -> None:
    """As on MTurk: a few workers do most HITs, most do a handful."""
    crowd, _ = load_crowd(FULL_CROWD)
    for hit in range(39181 // 5):
        crowd.recruit(f"HIT{hit}", 5, now=0.0)
    assert 1500 <= len(crowd) <= 1700  # VizWiz: 1,623 workers for 39,181 images
    rng = random.Random(1)
    weights = [w.params["activity"] for w in crowd]
    done = Counter(w.worker_id for w in rng.choices(list(crowd), weights=weights, k=39181))
    per_worker = sorted((done.get(w.worker_id, 0) for w in crowd), reverse=True)
    top_tenth = sum(per_worker[: len(per_worker) // 10])
    assert top_tenth >= 0.45 * sum(per_worker)  # the busiest 10% do about half of the HITs
    assert per_worker[len(per_worker) // 2] <= 0.5 * sum(per_worker) / len(per_worker)  # the median: a handful


def honest(profile: str = "diligent", n: int = 0) -> Worker:
    return Worker(f"W{profile}{n}", profile, dict(PROFILE_DEFAULTS[profile]), 1000, 99)


@settings(max_examples=25, deadline=None)
@given(items=st.lists(st.text("abcdef0123456789~", min_size=1, max_size=8), min_size=1, max_size=120, unique=True),
       seed=st.integers(0, 10_000), profile=st.sampled_from(["diligent", "typo_prone", "caps_locker", "speeder"]))
def test_no_worker_types_the_same_caption_twice(items: list[str], seed: int, profile: str) -> None:
    """Distinct images get distinct text, even from a two-caption bank (then: variations)."""
    worker, rng = honest(profile), random.Random(seed)
    texts = [write_caption(worker, item, BANK, RULES, rng) for item in [*items, "1", "1", "1"]]
    own = [normalise(t) for t in texts if t != RULES.canned_text]
    assert len(own) == len(set(own))
    assert not any(violations(t, RULES) for t in texts)


def test_generated_images_agree_within_and_differ_across() -> None:
    _, bank = load_crowd(FULL_CROWD)
    rng = random.Random(5)
    writers = [honest("diligent", i) for i in range(5)]
    first = [write_caption(w, "VizWizSynth_00000001", bank, RULES, rng) for w in writers]
    second = [write_caption(w, "VizWizSynth_00000002", bank, RULES, rng) for w in writers]
    scene = first[0].rsplit(",", 1)[-1]  # the image's own scene detail ends each of its captions
    assert all(t.endswith(scene) for t in first if t != RULES.canned_text)
    assert not {normalise(t) for t in first} & {normalise(t) for t in second}


def test_abuse_profiles_write_what_vizwiz_rejected() -> None:
    rng = random.Random(2)
    ring = [Worker(f"R{i}", "template_ring", {**PROFILE_DEFAULTS["template_ring"], "ring": 0}, 900, 99)
            for i in range(3)]
    pasted = {write_caption(w, str(i), BANK, RULES, rng) for w in ring for i in range(4)}
    assert len(pasted) == 1  # several accounts, one template, every image
    solo = honest("template_paster")
    assert len({write_caption(solo, str(i), BANK, RULES, rng) for i in range(6)}) == 1
    praise = [write_caption(honest("generic_praise"), "1", BANK, RULES, rng) for _ in range(10)]
    assert all("mug" not in p.lower() for p in praise) and any("view" in p.lower() for p in praise)
    echo = [write_caption(honest("instruction_echo"), "1", BANK, RULES, rng) for _ in range(20)]
    assert any("person who is blind" in e or "on the phone to a friend" in e for e in echo)
    assert any('-"There is/There are' in e for e in echo)
    assert not any(violations(e, RULES) for e in echo + praise)  # the page lets all of it through


def test_the_kept_pool_is_the_whole_scan_in_the_same_order() -> None:
    """The pool kept between posts equals a scan of every worker who ever came: through arrivals,
    departures, a clock set back (a reloaded state), other requirements and a forget."""
    rng, workers, kept = random.Random(5), {}, EligiblePool()
    now, banned = 0.0, set()
    for step in range(400):
        for _ in range(rng.randint(0, 3)):
            w = honest(n=len(workers))
            w.worker_id, w.leaves_at = f"W{len(workers)}", now + rng.expovariate(1 / 5000)
            workers[w.worker_id] = w
        now = now - 20000 if step == 300 else now + rng.choice([0.0, 0.0, rng.uniform(0, 400)])
        if step % 50 == 49:  # a block: the marketplace forgets the pool
            banned.add(rng.choice(list(workers)))
            kept.forget()
        key = "strict" if step % 7 == 0 else "plain"
        expected = [w for w in workers.values() if w.present(now) and w.worker_id not in banned
                    and (key == "plain" or int(w.worker_id[1:]) % 2 == 0)]
        pool, weights = kept.workers(key, workers, now, lambda w, key=key: w.worker_id not in banned
                                     and (key == "plain" or int(w.worker_id[1:]) % 2 == 0))
        assert pool == expected and weights == [w.params["activity"] for w in expected]
    assert 0 < len(expected) < len(workers) / 2  # departures happened, so a stale pool would have shown


def test_posting_from_the_kept_pool_picks_the_workers_a_whole_scan_picks(monkeypatch) -> None:
    """The same HITs, approvals and a block through boto3, with the pool kept and with a scan per HIT:
    the same worker takes the same slot of the same HIT."""
    import boto3

    from flows.sim.service.server import SimServer

    def picks() -> list[tuple[str, str]]:
        with SimServer(seed=4, crowd_file=FULL_CROWD) as sim:
            client = boto3.client("mturk", endpoint_url=sim.url, region_name="us-east-1",
                                  aws_access_key_id="x", aws_secret_access_key="x")
            page = ('<HTMLQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
                    '2011-11-11/HTMLQuestion.xsd"><HTMLContent><![CDATA[<form><textarea name="caption">'
                    '</textarea></form>]]></HTMLContent><FrameHeight>0</FrameHeight></HTMLQuestion>')
            reqs = [{"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
                     "IntegerValues": [97]}]
            for i in range(60):
                client.create_hit(MaxAssignments=3, LifetimeInSeconds=86400, AssignmentDurationInSeconds=600,
                                  Reward="0.10", Title="t", Description="d", Question=page,
                                  RequesterAnnotation=f"hit-{i}", QualificationRequirements=reqs)
                if i == 30:  # decisions and a block between posts
                    sim.market.advance(3600)
                    done = [a for a in sim.market.assignments.values() if a.submit_time is not None]
                    client.reject_assignment(AssignmentId=done[0].assignment_id, RequesterFeedback="no")
                    client.create_worker_block(WorkerId=done[1].worker_id, Reason="test")
            sim.market.advance(60)  # workers are chosen for the HITs posted since the clock last moved
            return sorted((sim.market.hits[a.hit_id].fields["RequesterAnnotation"], a.worker_id)
                          for a in sim.market.assignments.values())

    kept = picks()
    keep = EligiblePool.workers
    monkeypatch.setattr(EligiblePool, "workers", lambda self, *args: (self.forget(), keep(self, *args))[1])
    assert picks() == kept and len(kept) > 100

"""A crowd file says what population a rehearsal has: a typo'd key, a parameter out of range or a
file without profiles is refused in one line before anything is posted (it was silently ignored, or,
for a file without profiles, a batch was posted that nobody could take, then a KeyError)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from flows.core.errors import ConfigError
from flows.sim.people.crowd import load_crowd
from flows.sim.people.crowd_keys import PROFILE_KEYS, TOP_KEYS, check_crowd_keys
from tests.forked_hitflow import ForkServer

ROOT = Path(__file__).resolve().parents[1]


def refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "crowd.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_crowd(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


@pytest.mark.parametrize(("text", "expected"), [
    ('seed = 1\n', "no [[profile]] table"),
    ('seed = 1\nprofile = "diligent"\n', "no [[profile]] table"),
    ('[[profile]]\nname = "diligent"\ncuont = 30\n',
     "unknown key `cuont` in [[profile]] 'diligent'; did you mean `count`?"),
    ('sede = 3\n[[profile]]\nname = "diligent"\ncount = 3\n', "unknown key `sede` at the top; did you mean `seed`?"),
    ('[size]\ncuont = 3\n[[profile]]\nname = "diligent"\nshare = 1.0\n', "unknown key `cuont` in [size]"),
    ('[[profile]]\nname = "typo_prone"\ncount = 3\ntypo_rate = 7\n', "typo_rate must be a number in [0, 1] (got 7)"),
    ('[[profile]]\nname = "diligent"\ncount = 3\nseconds_per_item = -5\n', "seconds_per_item must be a number"),
    ('[[profile]]\nname = "diligent"\ncount = 3\npercent_approved = 95.5\n', "percent_approved must be a whole number"),
    ('[[profile]]\nname = "diligent"\ncount = 3\nblur_rate = "high"\n', "blur_rate must be a number"),
])
def test_a_wrong_crowd_file_is_refused_naming_the_key(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in refusal(tmp_path, text)


def test_every_project_crowd_file_passes_and_every_key_it_uses_is_known() -> None:
    used: set[str] = set()
    paths = sorted((ROOT / "config" / "crowds").glob("*.toml"))
    assert len(paths) >= 5
    for path in paths:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
        check_crowd_keys(path, spec)  # raises on anything unknown
        used |= set(spec) | {k for p in spec["profile"] for k in p}
    assert {"seed", "profile", "name", "count", "share", "size"} <= used
    assert used <= set(TOP_KEYS) | set(PROFILE_KEYS)


def test_the_cli_refuses_an_empty_crowd_before_posting_anything(tmp_path: Path, hitflow_forks: ForkServer) -> None:
    crowd = tmp_path / "empty.toml"
    crowd.write_text("seed = 1\n", encoding="utf-8")
    # forked from the session's server (tests/forked_hitflow.py): the command's own process, without importing
    # hitflow again
    done = hitflow_forks.run(["run", str(ROOT / "config" / "vizwiz_captions.toml"), "--crowd", str(crowd), "--limit",
                              "5", "--no-prefect", "--db", str(tmp_path / "l.db"), "--out", str(tmp_path / "out")],
                             text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no [[profile]] table" in done.stderr and "Traceback" not in done.stderr
    assert "batch 1" not in done.stdout  # nothing was posted


def test_a_profile_sets_how_it_answers_attention_checks_as_the_docs_say(tmp_path: Path) -> None:
    import random

    from flows.sim.people.attention_answers import attention_answer

    path = tmp_path / "crowd.toml"
    path.write_text('seed = 4\n[[profile]]\nname = "diligent"\ncount = 3\nattention = "constant"\n'
                    'attention_slip = 0.0\n', encoding="utf-8")
    workers, _ = load_crowd(path)
    assert len(workers) == 3 and all(attention_answer(w, ["no", "yes"], "yes", random.Random(2)) == "no"
                                     for w in workers)
    assert "attention must be one of follow, random, constant" in refusal(
        tmp_path, '[[profile]]\nname = "diligent"\ncount = 3\nattention = "sometimes"\n')

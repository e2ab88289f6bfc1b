"""Start-up cost: ``hitflow --help`` and loading every shipped config stay clear of the heavy libraries.

Every ``hitflow`` process (and every CLI test) pays for what these paths import. scikit-learn alone cost
~3 s CPU per config load before it was imported where the TF-IDF fit needs it.
The check runs in a child interpreter, so modules this test process already imported cannot hide a regression.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from postprocess.answers.crowdkit_models import LIGHT

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("sklearn", "matplotlib", "statsmodels", "prefect")
# what a run imports only where it is used: Liquid for a Ground Truth page (~0.12 s), httpx for Prolific,
# link and external pages (~0.15 s with httpcore)
RUN_LAZY = ("liquid", "httpx")

_CHILD = """
import contextlib, io, json, sys
from pathlib import Path
from flows.cli.main import main

with contextlib.redirect_stdout(io.StringIO()) as shown, contextlib.suppress(SystemExit):
    main(["--help"])
after_help = sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})
from flows.core.config.config import load_config
names = [load_config(p).name for p in sorted(Path("config").glob("*.toml"))]
after_configs = sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})
import flows.driver.campaign_run  # what `hitflow run` imports, --dry-run included
after_run = sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})
run_lazy = sorted({{m.split(".")[0] for m in sys.modules}} & {run_lazy})
import flows.driver.review_demo, tests.review_helpers  # `make demo-review`; imported by every xdist worker
after_review = sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})
print(json.dumps({{"help": shown.getvalue(), "after_help": after_help, "configs": names,
                  "after_configs": after_configs, "after_run": after_run, "run_lazy": run_lazy,
                  "after_review": after_review,
                  "scipy_stats": "scipy.stats" in sys.modules}}))
"""


def test_help_and_config_loading_import_no_heavy_library() -> None:
    child = _CHILD.format(heavy=set(HEAVY), run_lazy=set(RUN_LAZY))
    done = subprocess.run([sys.executable, "-c", child], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert "usage: hitflow" in seen["help"]  # --help really ran
    assert len(seen["configs"]) >= 5  # the shipped configs really loaded
    assert seen["after_help"] == [], f"hitflow --help imported {seen['after_help']}"
    assert seen["after_configs"] == [], f"loading a config imported {seen['after_configs']}"
    assert seen["after_run"] == [], f"hitflow run's modules imported {seen['after_run']}"
    assert seen["run_lazy"] == [], f"hitflow run's modules imported {seen['run_lazy']}"
    # the review demo imported run_campaign through the Prefect flow module: Prefect and its server, ~7 s CPU
    assert seen["after_review"] == [], f"the review demo's modules imported {seen['after_review']}"
    assert not seen["scipy_stats"], "hitflow run's modules imported scipy.stats (~1.5 s CPU)"


_AGGREGATE = """
import contextlib, io, json, sys
from flows.cli.main import main

with contextlib.redirect_stdout(io.StringIO()) as shown:
    code = main(["aggregate", sys.argv[1], "--out", sys.argv[2]])
print(json.dumps({{"code": code, "loaded": sorted({{m.split(".")[0] for m in sys.modules}} & {heavy}),
                  "crowdkit": sorted(m for m in sys.modules if m.startswith("crowdkit"))}}))
"""


def test_aggregate_imports_no_statistics_library(tmp_path: Path) -> None:
    # `hitflow aggregate` on a small file cost 2.1 s of CPU, 1.5 s of it the study analysis' statistics
    # libraries (pingouin, statsmodels, scipy.stats) for a five-line filter, and the adaptive replay's
    # scipy.special (bench/cli_startup.py measures the command)
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,worker_id,label\n" + "".join(f"i{i},w{w},{'ab'[(i + w) % 2]}\n"
                                                            for i in range(4) for w in range(3)))
    heavy = {*HEAVY, "pingouin", "scipy", "nltk"}
    child = _AGGREGATE.format(heavy=heavy)
    done = subprocess.run([sys.executable, "-c", child, str(labels), str(tmp_path / "answers.csv")], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["code"] == 0 and (tmp_path / "answers.csv").read_text().count("\n") == 5  # 4 items answered
    assert seen["loaded"] == [], f"hitflow aggregate imported {seen['loaded']}"
    # of crowd-kit, the modules of the models used alone (its package's __init__ loads every model, nltk and
    # scikit-learn: ~1.1 s of CPU; postprocess/answers/crowdkit_models.py)
    light = {f"crowdkit.aggregation.{module}" for module, _ in LIGHT.values()}  # majority vote, Dawid-Skene
    assert set(seen["crowdkit"]) <= {"crowdkit", "crowdkit.aggregation.base", "crowdkit.aggregation.utils",
                                     *light}, seen["crowdkit"]


_STATUS = """
import contextlib, io, json, sys
from flows.cli.main import main

with contextlib.redirect_stdout(io.StringIO()) as shown:
    code = main(["status", "--db", sys.argv[1]])
with contextlib.redirect_stdout(io.StringIO()) as as_json:
    code_json = main(["status", "--db", sys.argv[1], "--json"])
print(json.dumps({{"code": code, "shown": shown.getvalue(), "code_json": code_json, "json": as_json.getvalue(),
                  "loaded": sorted({{m.split(".")[0] for m in sys.modules}} & {heavy})}}))
"""


def test_status_on_an_sqlite_ledger_imports_no_platform_or_postgres_client(tmp_path: Path) -> None:
    # `hitflow status` cost ~1.2 s of CPU, all of it imports: psycopg (~0.15 s, registered with the ledger's
    # backends though the ledger is an SQLite file) and boto3 (~0.15 s, through the platform registry) among
    # them (bench/cli_startup.py measures the command). Then ~0.7 s: pandas (~0.35 s, through
    # sqlite-utils, the ledger's frames, the review queue and the config's CSV reader), the config's schema
    # (pydantic) and pages (jinja2), the MTurk client's retry policy (tenacity, botocore): a campaign whose
    # review is "none" needs none of them, text or JSON (a reviewed one reads the states its run kept:
    # tests/test_kept_states.py)
    from flows.core.ledger.store import Store

    db = tmp_path / "h.db"
    store = Store(db)
    # as a run records it: its config (loaded by status for the review mode and policy), one batch on MTurk
    store.table("campaigns").insert({"name": "c", "config_path": str(REPO / "config" / "vizwiz_captions.toml"),
                                     "config_json": json.dumps({"batches": 1, "platform": "mturk", "unit_cost": "0.10",
                                                                "assignments_per_image": 3}),
                                     "target": "sim", "created_at": 0.0, "status": "done"})
    store.close()
    heavy = {*HEAVY, "psycopg", "boto3", "botocore", "scipy", "pandas", "numpy", "pyarrow", "pydantic", "jinja2",
             "tenacity"}
    done = subprocess.run([sys.executable, "-c", _STATUS.format(heavy=heavy), str(db)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["code"] == 0 and seen["shown"].startswith("c ")  # the campaign's line really printed
    assert seen["code_json"] == 0 and json.loads(seen["json"])[0]["needs"]["needs_person"] == 0  # and its JSON
    assert seen["loaded"] == [], f"hitflow status imported {seen['loaded']}"


_FROZEN = """
import gc, json, sys
from flows.cli.process_life import loaded_then_frozen

seen = {}
for thaw in (True, False):
    gc.unfreeze()
    with loaded_then_frozen(thaw=thaw) as loaded:
        seen[f"off_while_loading_{thaw}"] = not gc.isenabled()
        import flows.cli.parser  # noqa: F401
        loaded()
        seen[f"frozen_{thaw}"], seen[f"on_for_the_work_{thaw}"] = gc.get_freeze_count() > 0, gc.isenabled()
    seen[f"frozen_after_{thaw}"], seen[f"on_after_{thaw}"] = gc.get_freeze_count() > 0, gc.isenabled()
gc.freeze()  # a caller that froze objects itself (a test worker): left as it is, its objects not thawed
with loaded_then_frozen() as loaded:
    seen["caller_kept_on"] = gc.isenabled()
    loaded()
seen["caller_kept_frozen"] = gc.get_freeze_count() > 0 and gc.isenabled()  # a thaw makes it 0
print(json.dumps(seen))
"""


def test_a_command_loads_with_the_collector_off_then_works_with_what_it_loaded_frozen() -> None:
    # a 20-image `hitflow run --no-prefect` spent 0.52 s of 3.4 s CPU in 6 full collections walking what its
    # imports made; under Prefect 0.94 s in 8 (flows/cli/process_life.py); the outputs are the same
    # (tests/test_determinism.py)
    done = subprocess.run([sys.executable, "-c", _FROZEN], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    for thaw in (True, False):
        assert seen[f"off_while_loading_{thaw}"] and seen[f"frozen_{thaw}"] and seen[f"on_for_the_work_{thaw}"]
        assert seen[f"on_after_{thaw}"]
    assert not seen["frozen_after_True"]  # thawed: a caller's main() in-process collects it all again
    assert seen["frozen_after_False"]  # the program ends with the command: no walk of it all at the end
    assert seen["caller_kept_on"] and seen["caller_kept_frozen"]


def test_the_simulator_service_imports_no_pandas_or_httpx() -> None:
    # `hitflow sim serve` (bench/chaos.py starts one per scenario) loaded pandas for the names of the error
    # categories its judges tick: 0.65 s of CPU to its first answer, 0.36 s without (postprocess/error_categories.py);
    # httpx is for its Prolific participants' pages, imported when the first one opens
    child = ("import json, sys\nimport flows.sim.service.server\nloaded = {m.split('.')[0] for m in sys.modules}\n"
             "print(json.dumps(sorted(loaded & {'pandas', 'numpy', 'pyarrow', 'httpx'})))")
    done = subprocess.run([sys.executable, "-c", child], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [], f"the simulator's service imported {done.stdout}"

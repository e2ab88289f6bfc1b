"""The platform seam holds: production code asks the platform (``platform_for``) and never
branches on its name, and every platform module offers the whole interface."""

from __future__ import annotations

import ast
import inspect
import json
import shutil
from pathlib import Path

import pytest

from flows.campaigns.review_data import campaign_queue
from flows.core.errors import ConfigError
from flows.core.ledger.store import Store
from flows.platforms import PLATFORMS
from flows.platforms.interface import Platform
from flows.platforms.registry import platform_facts, platform_for
from qc.decisions import DecisionPolicy

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "flows" / "platforms" / "registry.py"  # the one place that maps a name to its module


def _names_platform(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "platform") or \
        (isinstance(node, ast.Attribute) and node.attr == "platform")


def _is_platform_name(node: ast.expr) -> bool:
    values = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return any(isinstance(v, ast.Constant) and v.value in PLATFORMS for v in values)


def branches_on_the_name(source: str) -> list[int]:
    """Lines comparing a ``platform`` with a platform's name, or looking a table up by it."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and _names_platform(node.left) \
                and any(_is_platform_name(c) for c in node.comparators):
            lines.append(node.lineno)
        if isinstance(node, ast.Subscript) and _names_platform(node.slice):
            lines.append(node.lineno)
    return lines


def test_the_finder_sees_each_kind_of_branch() -> None:
    source = ('if run.platform == "prolific": pass\nif platform in ("prolific", "links"): pass\n'
              'x = SENDERS[run.platform]\nif run.platform == other: pass\n')
    assert branches_on_the_name(source) == [1, 2, 3]


def test_no_production_code_branches_on_the_platform_name() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "flows").rglob("*.py"))
             if "sim" not in path.relative_to(ROOT).parts and path != REGISTRY
             for line in branches_on_the_name(path.read_text(encoding="utf-8"))]
    assert not found, f"ask platform_for(name) instead of branching on the name: {found}"


@pytest.mark.parametrize("name", PLATFORMS)
def test_every_platform_offers_the_whole_interface(name: str) -> None:
    facts = {m for c in Platform.__mro__ for m in vars(c).get("__annotations__", {})}  # NAME: str ... (no value)
    members = sorted(m for m in {*dir(Platform), *facts} if not m.startswith("_"))
    module = platform_for(name)
    missing = [m for m in members if not hasattr(module, m)]
    assert not missing and name == module.NAME and {"NAME", "TOPS_UP_CAPTIONS", "publish"} <= set(members)
    for member in members:
        declared = getattr(Platform, member, None)
        if inspect.isfunction(declared):  # same parameters, less the protocol's self
            wanted = list(inspect.signature(declared).parameters)[1:]
            assert list(inspect.signature(getattr(module, member)).parameters)[:len(wanted)] == wanted, member


def test_an_unknown_platform_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown platform 'mechanical'; use one of mturk, prolific, links"):
        platform_for("mechanical")
    unknown = platform_facts("mechanical")  # a ledger row's: shown under its name, nothing posted or paid
    assert unknown.NAME == "mechanical" and "unknown platform" in unknown.LABEL and not unknown.SENDS_DECISIONS


@pytest.mark.parametrize("name", PLATFORMS)
def test_a_platform_s_facts_are_its_module_s(name: str) -> None:
    """`hitflow status` reads a platform's facts without its client (platform_facts): the same values."""
    facts, module = platform_facts(name), platform_for(name)
    assert name == facts.NAME and facts is not module
    assert (facts.LABEL, facts.SENDS_DECISIONS) == (module.LABEL, module.SENDS_DECISIONS)


# Task kinds (and what they import) reach a platform through the protocol, never one platform's own modules.
KIND_PACKAGES = ("campaigns", "captions", "studies", "custom")


def platform_imports(path: Path) -> set[str]:
    """The platforms (``mturk``, ``prolific``, ``links``) whose own subpackage ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
        found |= {n.split(".")[2] for n in names if n.startswith("flows.platforms.") and n.split(".")[2] in PLATFORMS}
    return found


def kind_modules(root: Path) -> list[Path]:
    return [p for package in KIND_PACKAGES for p in sorted((root / "flows" / package).rglob("*.py"))]


def kinds_importing_a_platform(root: Path) -> list[tuple[str, str]]:
    """(module, platform) for each task-kind module under ``root`` importing a platform's own subpackage."""
    return sorted((p.relative_to(root).as_posix(), name) for p in kind_modules(root) for name in platform_imports(p))


def test_the_task_kinds_hold_no_platform_specific_module() -> None:
    named = [p.name for p in kind_modules(ROOT) if any(name in p.stem for name in PLATFORMS)]
    assert not named, f"a platform's module lives in flows/platforms/<name>/, not with the task kinds: {named}"
    found = kinds_importing_a_platform(ROOT)
    assert not found, f"task kinds importing one platform's modules (ask platform_for(run.platform)): {found}"


def test_the_layers_above_the_task_kinds_import_no_platform_module() -> None:
    """The driver once imported MTurk's modules, and its qualify step ran MTurk's paid test HIT on every
    platform: it asks the platform now (``gate_test``), as the task server, the review and the CLI do."""
    found = sorted((p.relative_to(ROOT).as_posix(), name) for package in ("taskserver", "review", "driver", "cli")
                   for p in sorted((ROOT / "flows" / package).rglob("*.py")) for name in platform_imports(p))
    assert not found, f"modules importing one platform's modules (ask platform_for(run.platform)): {found}"


def test_the_module_check_sees_a_platform_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from flows.platforms.prolific.batches import x\nimport flows.platforms.links.platform\n"
                     "from flows.platforms.units import page_html\nfrom flows.platforms.registry import platform_for\n")
    assert platform_imports(probe) == {"prolific", "links"}
    probe.write_text("def cost():\n    from flows.platforms import mturk\n")  # a subpackage, inside a function
    assert platform_imports(probe) == {"mturk"}


def test_a_platform_import_planted_in_a_task_kind_is_caught(tmp_path: Path) -> None:
    for package in KIND_PACKAGES:  # a copy of the task kinds, clean until one import is planted
        shutil.copytree(ROOT / "flows" / package, tmp_path / "flows" / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    assert kinds_importing_a_platform(tmp_path) == []
    outputs = tmp_path / "flows" / "captions" / "outputs.py"
    outputs.write_text(outputs.read_text(encoding="utf-8") + "\n\ndef _planted() -> None:\n"
                       "    from flows.platforms.mturk.qualifications import cost_per_assignment  # noqa: F401\n",
                       encoding="utf-8")
    assert kinds_importing_a_platform(tmp_path) == [("flows/captions/outputs.py", "mturk")]


@pytest.mark.parametrize("name", PLATFORMS)
def test_the_review_queue_leaves_out_only_what_the_campaigns_platform_settled_unpaid(tmp_path: Path,
                                                                                     name: str) -> None:
    """Two flagged submissions stored with Prolific's spellings: one returned (settled unpaid on
    Prolific), one awaiting review. Only the campaign's own platform decides which need no verdict."""
    store = Store(tmp_path / "h.db")
    store.table("campaigns").upsert({"name": "c", "config_path": "", "target": "sim", "created_at": 0.0,
                                     "status": "running", "config_json": json.dumps({"platform": name})}, pk="name")
    store.table("assignments").insert_all(
        [{"assignment_id": a, "hit_id": "h", "campaign": "c", "batch": 1, "worker_id": w, "status": status,
          "auto_approval_time": 1e9} for a, w, status in [("s1", "P1", "RETURNED"), ("s2", "P2", "AWAITING REVIEW")]],
        pk=("campaign", "assignment_id"))
    store.table("qc_flags").insert_all([{"campaign": "c", "batch": 1, "worker_id": w, "rule": "min_words", "value": "1",
                                         "threshold": "3", "assignment_id": a, "image_id": "i", "detail": ""}
                                        for a, w in [("s1", "P1"), ("s2", "P2")]])
    queue = campaign_queue(store, "c", DecisionPolicy(), "flagged", now=0.0)
    listed = set(queue.loc[queue["kind"] == "assignment", "assignment_id"])
    assert listed == ({"s2"} if "RETURNED" in platform_for(name).SETTLED_UNPAID else {"s1", "s2"})
    assert ("RETURNED" in platform_for(name).SETTLED_UNPAID) == (name == "prolific")

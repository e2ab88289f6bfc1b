"""The layers of flows/ hold, checked by the tools that hold them (docs/architecture.md).

``make lint`` runs import-linter's contracts (``[tool.importlinter]`` in pyproject.toml): each layer
imports only those below it, the three platforms know nothing of each other, the task kinds reach a
platform only through the protocol, the simulator knows no upper layer. These tests show the
contracts bite (an upward or sideways import planted in a copy of the tree fails ``lint-imports``),
that the answers' models (postprocess/answers/) stay pure and layered, and that the product (flows, qc,
postprocess) has no import cycle in grimp's graph, which counts imports inside functions
too (imports under ``if TYPE_CHECKING:`` load nothing and are left out).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "qc", "postprocess")  # the product: import-linter's root_packages
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
GRAPH = ("import json, sys, grimp\n"
         f"PACKAGES = {PACKAGES!r}\n"
         "g = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=sys.argv[1] == 'run', cache_dir=None)\n"
         "print(json.dumps({m: sorted(g.find_modules_directly_imported_by(m)) for m in g.modules}))\n")


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return cycles


def test_import_cycle_finder_finds_a_cycle() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def import_graph(root: Path, type_hints: bool = False) -> dict[str, set[str]]:
    """grimp's graph of the product's packages under ``root`` (in a process of its own, so a copy is read);
    with ``type_hints``, imports under ``if TYPE_CHECKING:`` count too."""
    done = subprocess.run([sys.executable, "-c", GRAPH, "hints" if type_hints else "run"], capture_output=True,
                          text=True, cwd=root, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    return {m: set(targets) for m, targets in json.loads(done.stdout).items()}


def copy_of_the_tree(tmp_path: Path) -> Path:
    """The product's packages and the contracts, where a test may plant an import without touching the real tree."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def plant(root: Path, module: str, statement: str) -> None:
    """An import inside a function at the end of ``module`` (the kind a cycle used to hide in)."""
    path = root / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text(encoding="utf-8") + f"\n\ndef _planted() -> None:\n    {statement}\n",
                    encoding="utf-8")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    if not LINT_IMPORTS.is_file():
        pytest.skip("lint-imports is not installed: `make .venv/.installed` installs the dev extra (import-linter)")
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], capture_output=True, text=True, cwd=root, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(root)})


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """grimp's graph of the real tree, for the two tests that read it."""
    return import_graph(ROOT)


# What the tests below plant (an upward, sideways or circular import; a module nobody placed), by test: all of it
# in one copy of the tree, read by one lint and one graph (a copy, a lint and a graph a test cost ~2 s of CPU
# more). Each test asserts what its own plants break, module by module, which no other test's plants break (each
# test fails with its own plants left out and the others' in).
PLANTS = {
    "contracts": [("flows.platforms.units", "from flows.driver import campaign_status"),
                  ("flows.platforms.mturk.fees", "from flows.platforms.prolific import fees"),
                  ("flows.captions.outputs", "from flows.platforms.mturk import fees")],
    "core": [("flows.core.ledger.store_base", "from flows.core.config import config"),
             ("flows.core.pages.templates", "from flows.core.ledger import store"),
             ("flows.core.errors", "from flows.core.inputs import text_files")],
    "sim": [("flows.sim.people.captions", "from flows.sim.pages import filling"),
            ("flows.sim.pages.filling", "from flows.sim.mturk import market"),
            ("flows.sim.mturk.journal", "from flows.sim.prolific import prolific_state")],
    "answers": [("postprocess.answers.calibration", "from flows.answers import label_files"),
                ("postprocess.answers.method_choice", "import sqlite3"),
                ("postprocess.answers.skill_posterior", "from postprocess.answers import aggregation"),
                ("flows.answers.label_files", "from flows.campaigns import summary")],
    "cycle": [("flows.core.errors", "from flows.core.ledger import store")]}  # store imports errors
UNPLACED = {"core": "flows/core/loose_ends.py", "sim": "flows/sim/loose_ends.py",
            "answers": "postprocess/answers/loose_model.py"}
HINT = ("flows/core/ledger/campaign_lock.py", "from flows.core.ledger.store_base import Store",
        "from flows.core.ledger.store import Store")  # a type hint that makes a cycle


def planted_tree(root: Path, tests: tuple[str, ...] = tuple(PLANTS)) -> Path:
    """``tests``' plants in ``root``, a copy of the tree."""
    for test in tests:
        for module, statement in PLANTS.get(test, []):
            plant(root, module, statement + "  # noqa: F401")
        if test in UNPLACED:
            (root / UNPLACED[test]).write_text('"""A module nobody placed."""\n', encoding="utf-8")
    if "hint" in tests:
        path, old, new = root / HINT[0], *HINT[1:]
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return planted_tree(copy_of_the_tree(tmp_path_factory.mktemp("planted")))


@pytest.fixture(scope="module")
def planted_graph(planted: Path) -> dict[str, set[str]]:
    return import_graph(planted)


@pytest.fixture(scope="module")
def broken(planted: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports on the planted copy."""
    return lint_imports(planted)


def test_no_import_cycle_counting_imports_inside_functions(graph: dict[str, set[str]]) -> None:
    assert "flows.sim.service.server" in graph["flows.platforms.targets"]  # imported inside a function: it counts
    cycles = import_cycles(graph)
    assert not cycles, "import cycles (move the shared part down into a module both import): " + \
        "; ".join(" <-> ".join(c) for c in cycles)


def test_no_import_cycle_even_through_type_hints() -> None:
    """A module that names another's type only to annotate still depends on it: a type both need
    lives below both (a Protocol where the user is, as flows/sim/mturk/market_records.MarketState)."""
    graph = import_graph(ROOT, type_hints=True)
    # its hints name the market's state
    assert "flows.sim.mturk.market_records" in graph["flows.sim.pages.browser_worker"]
    cycles = import_cycles(graph)
    assert not cycles, "import cycles through type hints: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_a_cycle_through_an_import_inside_a_function_is_found(planted_graph: dict[str, set[str]]) -> None:
    cycles = import_cycles(planted_graph)
    assert any({"flows.core.errors", "flows.core.ledger.store"} <= set(cycle) for cycle in cycles), cycles


def test_a_cycle_through_a_type_hint_is_found(tmp_path: Path) -> None:
    # a copy of its own: the planted copy's cycle through flows.core.errors takes these two modules in too
    root = planted_tree(copy_of_the_tree(tmp_path), ("hint",))
    cycles = import_cycles(import_graph(root, type_hints=True))
    assert any({"flows.core.ledger.campaign_lock", "flows.core.ledger.store"} <= set(c) for c in cycles), cycles


def test_the_contracts_hold_and_fail_on_an_upward_or_sideways_import(
        tmp_path: Path, broken: subprocess.CompletedProcess[str]) -> None:
    clean = lint_imports(copy_of_the_tree(tmp_path))
    assert clean.returncode == 0 and clean.stdout.count("KEPT") == 8, clean.stdout + clean.stderr
    assert broken.returncode == 1
    assert "flows.platforms is not allowed to import flows.driver" in broken.stdout
    assert "flows.platforms.mturk is not allowed to import flows.platforms.prolific" in broken.stdout
    assert "flows.captions is not allowed to import flows.platforms.mturk" in broken.stdout


def assert_an_unplaced_module_is_refused(refused: subprocess.CompletedProcess[str], path: str) -> None:
    """An exhaustive contract: a new module nobody gave a place (at ``path`` in the planted copy) fails the lint."""
    dotted = path.removesuffix(".py").replace("/", ".")
    assert refused.returncode != 0 and dotted in refused.stdout + refused.stderr, refused.stdout


def test_the_core_is_layered_and_every_module_of_it_has_a_place(broken: subprocess.CompletedProcess[str]) -> None:
    """Inside flows/core: the ledger may not read the config, pages and the ledger know nothing of
    each other, and a new module at the core's top must be given a layer (the contract is exhaustive)."""
    assert broken.returncode == 1
    assert "flows.core.ledger is not allowed to import flows.core.config" in broken.stdout, broken.stdout
    assert "flows.core.pages is not allowed to import flows.core.ledger" in broken.stdout, broken.stdout
    assert "flows.core.errors is not allowed to import flows.core.inputs" in broken.stdout, broken.stdout
    assert_an_unplaced_module_is_refused(broken, UNPLACED["core"])


def test_the_simulators_rooms_are_layered_and_every_module_of_it_has_a_room(
        broken: subprocess.CompletedProcess[str]) -> None:
    """Inside flows/sim: the crowd knows no page, the pages no marketplace, MTurk's side nothing of
    Prolific's, and a module left loose at the simulator's top must be given a room (exhaustive)."""
    assert broken.returncode == 1
    assert "flows.sim.people is not allowed to import flows.sim.pages" in broken.stdout, broken.stdout
    assert "flows.sim.pages is not allowed to import flows.sim.mturk" in broken.stdout, broken.stdout
    assert "flows.sim.mturk is not allowed to import flows.sim.prolific" in broken.stdout, broken.stdout
    assert_an_unplaced_module_is_refused(broken, UNPLACED["sim"])


def test_the_answers_models_stay_pure_and_layered(broken: subprocess.CompletedProcess[str],
                                                  planted_graph: dict[str, set[str]]) -> None:
    """postprocess/answers/ reads and writes no file and knows nothing of flows (its I/O is flows/answers/, which
    knows no task kind), and inside it a model imports only those below it: the skill posterior reading the
    aggregation again (the circle postprocess/answers.py and skill_posterior.py once made) fails, and a new
    module must be given a place (the contract is exhaustive)."""
    assert broken.returncode == 1
    assert "postprocess.answers is not allowed to import flows" in broken.stdout, broken.stdout
    assert "postprocess.answers.calibration -> flows.answers.label_files" in broken.stdout, broken.stdout
    assert "postprocess.answers is not allowed to import sqlite3" in broken.stdout, broken.stdout
    assert "postprocess.answers.method_choice -> sqlite3" in broken.stdout, broken.stdout
    assert "- postprocess.answers.skill_posterior -> postprocess.answers.aggregation (l." in broken.stdout
    assert "flows.answers is not allowed to import flows.campaigns" in broken.stdout, broken.stdout  # its I/O too
    assert any({"postprocess.answers.aggregation", "postprocess.answers.skill_posterior"} <= set(cycle)
               for cycle in import_cycles(planted_graph)), "the planted circle is not found"
    assert_an_unplaced_module_is_refused(broken, UNPLACED["answers"])


def test_aggregate_on_a_labels_file_loads_no_task_kind(graph: dict[str, set[str]]) -> None:
    """`hitflow aggregate`'s work (flows/answers/answers_files.py) reaches no caption campaign, study or custom
    page module, in grimp's graph (imports inside functions count)."""
    seen, todo = set(), ["flows.answers.answers_files"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += [m for m in graph.get(module, ()) if m in graph]
    assert "postprocess.answers.aggregation" in seen
    kind_packages = (["flows", "campaigns"], ["flows", "captions"], ["flows", "studies"], ["flows", "custom"])
    kinds = sorted(m for m in seen if m.split(".")[:2] in kind_packages)
    assert not kinds, kinds

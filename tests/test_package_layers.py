"""The subpackages of ``flows/`` import only what their docstrings say they may.

Each ``flows/<package>/__init__.py`` opens with what it owns and a "May import:" paragraph naming
``flows.<package>``s, ``qc``, ``postprocess`` and "the core modules at the top of ``flows/``"; this
test reads that paragraph and checks every import in the package (module level and inside
functions) against it, so the docstring and the tree cannot drift apart. The core itself (the
modules at the top of ``flows/`` but the CLI) may import only ``qc`` and ``postprocess``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.test_architecture import ROOT, SIM_SEAMS, _imported, _is_type_checking, _modules, _rel, imports

FLOWS = ROOT / "flows"
PACKAGES = sorted(p.name for p in FLOWS.iterdir() if (p / "__init__.py").is_file())
NAMED = re.compile(r"``(flows\.\w+|qc|postprocess)``")

# Imports that cross a declared line today, each with why; the test fails on a new one and on a
# stale entry, so the list only shrinks.
KNOWN_BREAKS = {
    ("flows/core/config.py", "flows.studies"): "the config composes the [study] and [screen] sections",
    ("flows/core/config_schema.py", "flows.studies"): "the config composes the [study] and [screen] sections",
    ("flows/core/templates.py", "flows.studies"): "the demographic screen's labels, inside a function",
}


def unit(module: str) -> str:
    """What a module belongs to: a subpackage, the core, the CLI, the simulator, qc or postprocess."""
    parts = module.split(".")
    if parts[0] != "flows":
        return parts[0]
    if len(parts) > 1 and parts[1] in ("cli", "core"):
        return parts[1]
    if len(parts) > 1 and (parts[1] in PACKAGES or parts[1] == "sim"):
        return f"flows.{parts[1]}"
    return "core"


def declared(package: str) -> set[str]:
    doc = ast.get_docstring(ast.parse((FLOWS / package / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert "May import:" in doc, f"flows/{package}/__init__.py: say what the package may import ('May import: ...')"
    allowed = doc.split("May import:", 1)[1].split("\n\n", 1)[0]
    names = {"core" if n == "flows.core" else n for n in NAMED.findall(allowed)}
    return names | ({"core"} if "top of ``flows/``" in allowed else set())


def test_every_subpackage_says_what_it_owns_and_may_import() -> None:
    assert {"platforms", "campaigns", "studies", "taskserver"} <= set(PACKAGES)
    for package in PACKAGES:
        doc = ast.get_docstring(ast.parse((FLOWS / package / "__init__.py").read_text(encoding="utf-8"))) or ""
        assert "Owns" in doc and declared(package), f"flows/{package}/__init__.py: say what it owns and may import"


def crossings() -> dict[tuple[str, str], str]:
    """Every (file, unit) pair where a module imports a unit its package does not declare."""
    allowed = {f"flows.{p}": declared(p) for p in PACKAGES} | {"core": {"core", "qc", "postprocess"}}
    found = {}
    for module, path in _modules().items():
        source = unit(module)
        if source not in allowed:
            continue  # the CLI may import everything; qc/ and postprocess/ have their own test
        top, lazy = imports(path, module)
        for name in (top | lazy) - type_only(path, module):
            target = unit(name)
            seam = target == "flows.sim" and _rel(path) in SIM_SEAMS  # the simulator's one door, tested apart
            if name.split(".")[0] in ("flows", "qc", "postprocess") and target not in {source, *allowed[source]} \
                    and not seam:
                found[(_rel(path), target)] = name
    return found


def type_only(path: Path, module: str) -> set[str]:
    """Names imported under ``if TYPE_CHECKING:`` (for hints only: nothing is loaded at run time)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    blocks = [n for n in ast.walk(tree) if isinstance(n, ast.If) and _is_type_checking(n)]
    return {name for block in blocks for node in block.body for name in _imported(node, module)}


def test_packages_import_only_what_their_docstrings_declare() -> None:
    found = crossings()
    new = [f"{path} imports {found[(path, target)]} ({target}), which its package does not declare"
           for path, target in sorted(found) if (path, target) not in KNOWN_BREAKS]
    stale = [key for key in KNOWN_BREAKS if key not in found]
    assert not new, "\n".join(new) + "\n(import through a declared package, or move the shared part down)"
    assert not stale, f"{stale} no longer cross a line: remove them from KNOWN_BREAKS"


def test_the_layer_check_sees_a_crossing() -> None:
    assert unit("flows.platforms.mturk.adapter") == "flows.platforms" and unit("flows.core.store") == "core"
    assert unit("flows.cli.run") == "cli" and unit("flows.sim.market") == "flows.sim"
    assert "flows.sim" not in declared("platforms")  # "never the simulator" is not a permission

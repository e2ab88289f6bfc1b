"""The house rules of docs/architecture.md, checked on the source: production code keeps away
from the simulator, modules under 300 lines, a CLI whose every option has help
and whose ``--help`` does not import Prefect. Read with ``ast`` and ``argparse``; nothing runs."""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = ("flows", "qc", "postprocess")
SIM = "flows.sim"
MAX_LINES = 300

# The seam: the only production modules that may start or reach the simulator, and only inside a
# function (so importing them never loads it). Everything else asks flows.platforms.targets for a session.
SIM_SEAMS = {
    "flows/platforms/targets.py": "opens a session: an in-process simulator, its ground truth, Prolific ids",
    "flows/cli/main.py": "`hitflow sim serve` starts the simulator as a server",
}
# No other production module imports it: MTurk's XML codec and fee table and Prolific's fee rule
# are production modules the simulator imports (flows/core/pages/mturk_forms.py, mturk_fees.py,
# prolific_fees.py); the links route's simulated invitees come through targets too.



def _modules() -> dict[str, Path]:
    found = {}
    for top in PRODUCTION:
        for path in sorted((ROOT / top).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.stmt, module: str) -> set[str]:
    """The modules an import statement names (``from a import b`` names ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".")[: -node.level]
            base = ".".join([*package, base] if base else package)
        return {base} | {f"{base}.{a.name}" for a in node.names}
    return set()


def imports(path: Path, module: str) -> tuple[set[str], set[str]]:
    """(imports run when the module is imported, imports anywhere else: in functions or classes' methods)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            top.update(_imported(node, module))
            if isinstance(node, ast.If) and not _is_type_checking(node):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody):
                    visit(block)

    visit(tree.body)
    everywhere = {name for node in ast.walk(tree) if isinstance(node, ast.stmt) for name in _imported(node, module)}
    return top, everywhere - top


def _sim_modules(names: set[str], modules: dict[str, Path]) -> set[str]:
    """The simulator's modules among imported names (``flows.sim.mturk.market.mturk_fee`` is
    ``flows.sim.mturk.market``)."""
    found = set()
    for name in names:
        if name == SIM or name.startswith(SIM + "."):
            parts = name.split(".")
            prefixes = (".".join(parts[:n]) for n in range(len(parts), 2, -1))
            found.add(next((p for p in prefixes if p in modules), SIM))  # flows/sim/ has no __init__.py
    return found


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_production_code_reaches_the_simulator_only_through_its_seam() -> None:
    problems = []
    modules = _modules()
    for module, path in modules.items():
        if module == SIM or module.startswith(SIM + "."):
            continue
        rel = _rel(path)
        top, lazy = (_sim_modules(names, modules) for names in imports(path, module))
        if rel in SIM_SEAMS:
            if top:
                problems.append(f"{rel} is the simulator's seam but imports {sorted(top)} at module level; "
                                "import inside the function that starts it")
            continue
        if top | lazy:
            problems.append(f"{rel} imports {sorted(top | lazy)}: production code reaches the simulator "
                            f"only through {', '.join(SIM_SEAMS)} (docs/architecture.md)")
    assert not problems, "\n".join(problems)


# qc/ and postprocess/ are pure: DataFrames in, DataFrames out. I/O and platforms live in flows/.
IMPURE = ("flows", "sqlite3", "sqlite_utils", "httpx", "boto3", "botocore", "prefect", "starlette", "uvicorn",
          "urllib", "socket", "subprocess", "requests")


def test_qc_and_postprocess_import_no_io_and_nothing_from_flows() -> None:
    problems = []
    for module, path in _modules().items():
        if module.split(".")[0] not in ("qc", "postprocess"):
            continue
        top, lazy = imports(path, module)
        bad = sorted(n for n in top | lazy if n.split(".")[0] in IMPURE)
        if bad:
            problems.append(f"{_rel(path)} imports {bad}: qc/ and postprocess/ stay pure (I/O belongs in flows/)")
    assert not problems, "\n".join(problems)


def test_no_module_over_300_lines() -> None:
    sizes = {_rel(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules().values()}
    too_long = [f"{m}: {n} lines" for m, n in sorted(sizes.items()) if n > MAX_LINES]
    assert not too_long, f"modules over {MAX_LINES} lines; split them: {too_long}"


def test_the_architecture_page_names_only_files_that_exist() -> None:
    """docs/architecture.md names modules as the tree is now: a moved or renamed file fails here."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    tokens = re.findall(r"[\w./<>*-]+", doc)  # whole path-like words; patterns such as <kind>.html.j2 are skipped
    names = {t.rstrip(".") for t in tokens if re.search(r"\.(py|j2|js|toml)\.?$", t) and not set(t) & set("<>*")}
    folders = [ROOT / f for f in ("flows", "qc", "postprocess", "tests", "hit_templates", "config")] + sorted(
            d for top in ("flows", "postprocess") for d in (ROOT / top).rglob("*")
            if d.is_dir() and d.name != "__pycache__")  # platforms/mturk/ and postprocess/answers/ too
    missing = [n for n in sorted(names) if not any((f / n).exists() for f in [ROOT, *folders])]
    assert len(names) > 60 and not missing, f"docs/architecture.md names files that do not exist: {missing}"


def _arguments(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _arguments(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            found.append((path, action))
    return found


def test_every_cli_option_and_argument_has_help() -> None:
    from flows.cli.main import _parser

    arguments = _arguments(_parser(), "hitflow")
    assert len(arguments) > 60  # every subcommand was walked
    missing = [f"{where} {'/'.join(a.option_strings) or a.dest}" for where, a in arguments
               if not (a.help and a.help.strip() and a.help != argparse.SUPPRESS)]
    assert not missing, f"CLI arguments without help text: {missing}"


def test_the_cli_names_the_analysis_kinds_that_exist() -> None:
    from flows.cli.main import ANALYZE_KINDS
    from flows.studies.analysis import KINDS

    assert ANALYZE_KINDS == KINDS


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"]])
def test_help_does_not_import_prefect(argv: list[str]) -> None:
    probe = ("import sys\nfrom flows.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n"
             "    assert exc.code == 0, exc.code\n"
             "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & {'prefect', 'pandas', 'boto3'}))")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=True)
    assert "usage: hitflow" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "LOADED []"

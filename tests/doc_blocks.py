"""The shell examples of README.md and docs/, as tests/test_docs_examples.py runs them.

Every ```sh (or ```bash) block, at any indentation (a block inside a list item), sits directly
under one marker saying what the test does with it:

- ``<!-- test: runs on the simulator -->`` / ``<!-- test: runs offline -->``: run by ``bash -e``.
- ``<!-- test: runs with servers -->``: the block starts servers. A command ending in ``&`` is
  started by the test in the background, which then waits for its ``--port`` to answer; a command
  that serves until Ctrl-C (``hitflow review``, ``hitflow ui``) is started, its printed one-time link
  is opened (it must give the page), then it gets Ctrl-C and must exit 0; the commands between run
  by ``bash -e``. Fixed ports in the page's blocks (8765, 8080, ...) become free ones, the same
  number the same free port on the whole page. Servers stay up until the page's last block ends.
- ``<!-- test: not run: WHY -->``: not run here, for the reason given (a real Prolific token, a
  PostgreSQL host, a Docker work pool); each is a skipped test saying why, so the count shows.

Any of the run markers may end ``, exit N``: the block's last command ends with N.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKED = re.compile(r"^( *)<!-- test: (runs on the simulator|runs offline|runs with servers|not run: [^\n]*?)"
                    r"(?:, exit (\d+))? -->\n\1```(?:sh|bash)\n(.*?)\n\1```", re.S | re.M)
SHELL_BLOCK = re.compile(r"^( *)```(?:sh|bash)\n", re.M)
ANY_MARKER = re.compile(r"^ *<!-- test:", re.M)
# A fixed port of an example: after a loopback address or --port.
PORT = re.compile(r"(?:127\.0\.0\.1:|localhost:|--port )(\d{4,5})\b")
SERVES_UNTIL_CTRL_C = re.compile(r"^hitflow (review|ui)\b")
LINK = re.compile(r"http://127\.0\.0\.1:\d+/\?token=\S+")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    kind: str  # "run", "servers" or "not run"
    script: str
    exit_code: int
    why: str = ""


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _block(page: str, text: str, m: re.Match[str]) -> Block:
    indent = len(m[1])
    script = "\n".join(line[indent:] for line in m[4].splitlines())
    line = text.count("\n", 0, m.start()) + 1
    marker = m[2]
    if marker.startswith("not run: "):
        return Block(page, line, "not run", script, 0, marker.removeprefix("not run: ").strip())
    return Block(page, line, "servers" if marker == "runs with servers" else "run", script, int(m[3] or 0))


def marked_blocks() -> dict[str, list[Block]]:
    """page -> its marked shell blocks, in order."""
    found: dict[str, list[Block]] = {}
    for path in doc_pages():
        page, text = str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
        for m in MARKED.finditer(text):
            found.setdefault(page, []).append(_block(page, text, m))
    return found


def unmarked_blocks() -> list[str]:
    """``page:line`` of every shell block with no marker right above it (or a marker with no block)."""
    out = []
    for path in doc_pages():
        text = path.read_text(encoding="utf-8")
        marked = {text.count("\n", 0, m.start()) + 2 for m in MARKED.finditer(text)}  # the ``` line
        for m in SHELL_BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if line not in marked:
                out.append(f"{path.relative_to(ROOT)}:{line}")
        if len(ANY_MARKER.findall(text)) != len(marked):
            out.append(f"{path.relative_to(ROOT)}: a '<!-- test:' marker not right above a ```sh block")
    return out


def commands(script: str) -> list[str]:
    """The block's commands (one continued with ``\\`` or holding a here-document kept whole), comment-only
    and blank lines dropped."""
    out: list[str] = []
    continued, heredoc = False, ""
    for line in script.splitlines():
        if continued or heredoc:
            out[-1] += "\n" + line
            heredoc = "" if line == heredoc else heredoc
        elif line.strip() and not line.lstrip().startswith("#"):
            out.append(line)
            heredoc = m[1] if (m := re.search(r"<<-?'?(\w+)'?", line)) else ""
        continued = bool(out) and out[-1].endswith("\\") and not heredoc
    return out


def without_comment(command: str) -> str:
    return re.sub(r"\s+#.*$", "", command).rstrip()


def with_free_ports(scripts: list[str], free: dict[str, str]) -> list[str]:
    """Each fixed port number of the page replaced by its free port (the same number, the same port)."""
    def swap(text: str) -> str:
        return re.sub(r"\b(\d{4,5})\b", lambda m: free.get(m[1], m[1]), text) if free else text

    return [swap(s) for s in scripts]


def fixed_ports(scripts: list[str]) -> list[str]:
    return sorted({m[1] for s in scripts for m in PORT.finditer(s)})


# Paths the docs name: a file or folder of the project, a glob, or a module and one of its names.
PROJECT_PATH = re.compile(r"(?<![\w/.-])((?:flows|qc|postprocess|tests|bench|hit_templates|deploy)/[\w./*-]*[\w*])")
DOTTED = re.compile(r"(?<![\w./-])(flows(?:\.\w+)+)")


def _defines(module: Path, name: str) -> bool:
    pattern = rf"^\s*(?:(?:async\s+)?def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*[:=]"
    return module.is_file() and re.search(pattern, module.read_text(encoding="utf-8"), re.M) is not None


def resolves(ref: str) -> bool:
    """``flows/core/ledger/store.py``, ``tests/test_fuzz_*.py``, ``flows/core/inputs/text_files.MAX_INPUT_BYTES`` and
    ``flows.core.run.prefect_api.free_port`` each name something that exists."""
    if "/" not in ref:  # dotted: a package, a module, or a module's name
        ref = ref.replace(".", "/")
        parts = ref.rsplit("/", 1)
        return ((ROOT / ref).is_dir() or (ROOT / f"{ref}.py").is_file()
                or _defines(ROOT / f"{parts[0]}.py", parts[1]))
    if "*" in ref:
        return any(ROOT.glob(ref))
    if (ROOT / ref).exists():
        return True
    module, _, name = ref.rpartition(".")
    return bool(module) and _defines(ROOT / f"{module}.py", name)


def missing_paths() -> list[str]:
    out = []
    for path in doc_pages():
        text = path.read_text(encoding="utf-8")
        for m in [*PROJECT_PATH.finditer(text), *DOTTED.finditer(text)]:
            if not resolves(m[1]):
                out.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m[1]}")
    return out

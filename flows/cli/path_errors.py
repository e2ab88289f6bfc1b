"""The one line an OSError with a path ends a command with: a path the user chose, or hitflow's own file."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWN = ("flows", "hit_templates", "qc", "postprocess")  # hitflow's code and page templates


def own_file(path: str) -> bool:
    """A path inside hitflow's own code or page templates (never one a command line or config names)."""
    return any(Path(path).resolve().is_relative_to(ROOT / part) for part in OWN)


def path_error(exc: OSError) -> tuple[str, int]:
    """The line and exit code; a file of hitflow's own that cannot be read is our defect (exit 1)."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.filename and own_file(str(exc.filename)):
        return (f"hitflow: error: hitflow's own file{where} cannot be read ({exc.strerror or exc}): a defect in "
                "hitflow or an incomplete install; reinstall it or report the command"), 1
    return f"hitflow: error: cannot use{where}: {exc.strerror or exc}; choose another path", 2

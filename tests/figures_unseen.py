"""The environment of a process a test starts whose Python processes (it and what it starts) draw no report
figure: tests/figures_unseen_site/sitecustomize.py first on their ``PYTHONPATH``."""

from __future__ import annotations

import os
from pathlib import Path

SITE = Path(__file__).resolve().parent / "figures_unseen_site"


def figures_unseen(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the folder whose ``sitecustomize`` makes runs draw no figure first on ``PYTHONPATH``."""
    return {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(SITE), env.get("PYTHONPATH", "")) if p)}

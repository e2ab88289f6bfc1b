"""``hitflow new NAME``: a campaign on your own page, ready to run on the simulator.

Writes ``config/NAME.toml`` (every key commented), ``config/NAME.html.j2`` (a starter page on
hitflow's shared base page) and ``config/NAME_items.csv`` (three items), from the files in
``hit_templates/starter/``. Nothing is overwritten.
"""

from __future__ import annotations

import re
from pathlib import Path

from flows.core.errors import ConfigError

NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

STARTER = Path(__file__).resolve().parents[2] / "hit_templates" / "starter"
NAME_MARK = "NAME"  # in starter/campaign.toml: replaced by the campaign's name


def scaffold(name: str, root: Path = Path(".")) -> list[Path]:
    """Write the three files under ``root/config``; the paths written."""
    if not NAME.match(name):
        raise ConfigError(f"campaign name {name!r} must be 1-40 letters, digits, - or _; try another NAME")
    folder = root / "config"
    config = (STARTER / "campaign.toml").read_text(encoding="utf-8").replace(NAME_MARK, name)
    return write_new(folder, {folder / f"{name}.toml": config,
                              folder / f"{name}.html.j2": (STARTER / "page.html.j2").read_text(encoding="utf-8"),
                              folder / f"{name}_items.csv": (STARTER / "items.csv").read_text(encoding="utf-8")})


def write_new(folder: Path, files: dict[Path, str]) -> list[Path]:
    """Write every file, or none when one exists already."""
    existing = [str(p) for p in files if p.exists()]
    if existing:
        raise ConfigError(f"{', '.join(existing)} already exist(s); nothing was written. Pick another NAME or "
                          "move the files away")
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return list(files)

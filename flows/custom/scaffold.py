"""``hitflow new NAME``: a config, starter page and three items, nothing overwritten; budget sized to the items."""

from __future__ import annotations

import math
import re
from decimal import ROUND_CEILING, Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from flows.core.errors import ConfigError, HitflowError
from flows.core.task_kinds import HOURLY

if TYPE_CHECKING:
    from flows.core.config.config import CampaignConfig

NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

STARTER = Path(__file__).resolve().parents[2] / "hit_templates" / "starter"
NAME_MARK = "NAME"  # in starter/campaign.toml: replaced by the campaign's name
KEYWORDS_MARK = "KEYWORDS"  # replaced by words of the campaign's name
BUDGET_LINE = re.compile(r'(?m)^budget = "[^"]*"( +#.*)?\n# BUDGET_NOTE\n')
PROLIFIC_NOTE = "# PROLIFIC_NOTE\n"  # in starter/campaign.toml's [prolific]: the figures the page gives
COMMENT_AT = 33  # the column the starter's comments start in
HEADROOM = Decimal("1.25")  # over the estimate: a top-up or a re-posted page should not stop the run
FLOOR_USD = 20  # room for a first pilot of a dozen items on either platform without editing the budget


def scaffold(name: str, root: Path = Path("."), items: Path | None = None) -> list[Path]:
    """Write the three files under ``root/config`` (``items``: the user's items file, copied); the paths written."""
    if not NAME.match(name):
        raise ConfigError(f"campaign name {name!r} must be 1-40 letters, digits, - or _; try another NAME")
    folder = root / "config"
    rows = own_items(items, ["image_url", "note"]) if items else (STARTER / "items.csv").read_text(encoding="utf-8")
    written = write_new(folder, {folder / f"{name}.toml": starter_config(name),
                                 folder / f"{name}.html.j2": (STARTER / "page.html.j2").read_text(encoding="utf-8"),
                                 folder / f"{name}_items.csv": rows})
    size_reward(written[0])
    size_budget(written[0])
    return written


def own_items(path: Path, columns: list[str], template: str = "") -> str:
    """The user's items file when its header has an id column and every column the page reads, and each value the
    template's styles show is one CSS value; else a refusal."""
    from flows.core.inputs.csv_files import read_csv_table
    from flows.core.inputs.text_files import read_text
    from flows.core.pages.css_values import css_value_problems

    table = read_csv_table(path, (), "the items file")
    header = table.columns
    missing = [c for c in columns if c not in header and c not in ("item_id", "image_id")]
    if "item_id" not in header and "image_id" not in header:
        missing.insert(0, "item_id")
    if missing:
        raise ConfigError(f"{path}: the items file lacks the column(s) {', '.join(missing)} the page reads (it has "
                          f"{', '.join(header) or 'none'}); nothing was written")
    if unstyled := css_value_problems(table.rows, template, str(path)):
        raise ConfigError("; ".join(unstyled) + "; nothing was written")
    return read_text(path, "the items file")


def starter_config(name: str) -> str:
    """starter/campaign.toml for ``name``: its name, and search keywords made of the name's words."""
    words = [w for w in re.split(r"[_\-\s]+", name.lower()) if w]
    keywords = ", ".join(dict.fromkeys(words)) or name
    text = (STARTER / "campaign.toml").read_text(encoding="utf-8")
    text = text.replace(f'"{KEYWORDS_MARK}" ', f'"{keywords}"'.ljust(COMMENT_AT - len("keywords = ")))
    return text.replace(NAME_MARK, name)


REWARD_LINE = re.compile(r'(?m)^reward_usd = "[^"]*"( +#.*)?\n')


def size_reward(config: Path) -> None:
    """The MTurk reward set to the page's time at the Prolific hourly rate (the starter's 0.30 USD paid ~4 USD/hour)."""
    from flows.campaigns.task_kinds import kind_of, load_campaign

    text = config.read_text(encoding="utf-8")
    try:
        cfg = load_campaign(str(config), "mturk")
        minutes = kind_of(cfg).plan(cfg).minutes
    except (HitflowError, ValueError, ArithmeticError):
        return
    reward = max(Decimal("0.01"), (HOURLY["USD"] * Decimal(str(minutes)) / 60).quantize(Decimal("0.01"), ROUND_CEILING))
    head = f'reward_usd = "{reward}"'.ljust(COMMENT_AT)
    line = f"{head}# per HIT before fees: {HOURLY['USD']} USD an hour of the page's about {minutes:.1f} min\n"
    config.write_text(REWARD_LINE.sub(lambda _: line, text, count=1), encoding="utf-8")


def size_budget(config: Path) -> None:
    """The budget set to the items' estimate (dearer platform, headroom, ``FLOOR_USD``), and what another item costs."""
    text = config.read_text(encoding="utf-8")
    try:
        per_item, items, prolific = _dearest_per_item(config)
    except (HitflowError, ValueError, ArithmeticError):
        text = text.replace(PROLIFIC_NOTE, "")
        config.write_text(BUDGET_LINE.sub(lambda m: m.group(0).replace("# BUDGET_NOTE\n", ""), text), encoding="utf-8")
        return
    text = text.replace(PROLIFIC_NOTE, prolific)
    budget = max(FLOOR_USD, math.ceil(per_item * items * HEADROOM))
    head = f'budget = "{budget}.00 USD"'.ljust(COMMENT_AT)
    line = (f"{head}# the whole estimate (reward + fees) must fit before anything is posted\n"
            f"# sized to the {items} item(s) written (at least {FLOOR_USD} USD): about {per_item:.2f} USD an item "
            "with fees (the dearer of MTurk and Prolific);\n"
            f"# raise it as you add items (`hitflow run config/{config.name} --dry-run` says by how much)\n")
    config.write_text(BUDGET_LINE.sub(lambda _: line, text, count=1), encoding="utf-8")


def _dearest_per_item(config: Path) -> tuple[Decimal, int, str]:
    """(USD an item on the dearer platform, items in the file, the [prolific] comments)."""
    from flows.campaigns.task_kinds import load_campaign
    from flows.core.config.money import to_budget_currency
    from flows.core.inputs.csv_files import csv_rows
    from flows.platforms.registry import platform_for

    costs, page = [], load_campaign(str(config))
    items, cfg = sum(1 for _ in csv_rows(page.items, what="the items file")[1]), page
    for platform in ("mturk", "prolific"):
        cfg = load_campaign(str(config), platform)  # a unit as the route plans it: whole minutes on Prolific
        est = platform_for(platform).estimate(cfg, {1: max(1, math.ceil(items / cfg.images_per_hit))}, None)
        costs.append(to_budget_currency(cfg, est.total, est.currency))
    return (max(costs) / max(items, 1)).quantize(Decimal("0.01")), items, prolific_comments(cfg, page.notes)


def prolific_comments(cfg: CampaignConfig, page_notes: tuple[str, ...]) -> str:
    """The [prolific] figures taken from the page as commented keys, after the plan's notes (``page_notes``)."""
    from flows.campaigns.page_plan import unit_line

    p, (said, _) = cfg.prolific, unit_line(cfg)
    lines = [(f'reward = "{p.reward}"', f"per participant in {p.currency}: 1.5 times Prolific's hourly floor"),
             (f"estimated_minutes = {p.estimated_minutes}", said.split(": ", 1)[-1]),
             (f"maximum_minutes = {p.maximum_minutes}", "Prolific times a participant out after this: 3 times "
                                                         "the estimate, at least Prolific's own minimum")]
    return "".join(f"# {n.removeprefix('note: ')}\n" for n in cfg.notes if n not in page_notes) + \
        "".join(f"# {key}".ljust(COMMENT_AT) + f"# {why}\n" for key, why in lines)


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

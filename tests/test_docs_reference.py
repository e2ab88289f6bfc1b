"""The site's generated reference pages name every config key and every command option.

The site itself is built by `make docs` (`mkdocs build --strict`), a step of `make test`: a broken link,
a missing page or a page left out of the nav fails there (not repeated here: it takes ~20 s on 2 loaded cores)."""

from __future__ import annotations

import re
from pathlib import Path

from flows.cli.parser import _parser
from flows.cli.reference_pages import all_commands, config_markdown, render
from flows.core.config.config_schema import ConfigFile

ROOT = Path(__file__).resolve().parent.parent


def keys_from_json_schema() -> set[str]:
    """section.key for every key, read from pydantic's JSON schema (not from the code that writes the page)."""
    schema = ConfigFile.model_json_schema()
    defs = schema["$defs"]
    keys = set()
    for section, prop in schema["properties"].items():
        refs = [prop, *prop.get("anyOf", []), *prop.get("allOf", [])]
        ref = next(r["$ref"] for r in refs if "$ref" in r)
        keys |= {f"{section}.{key}" for key in defs[ref.split("/")[-1]]["properties"]}
    return keys


def keys_on_page(markdown: str) -> set[str]:
    found, section = set(), ""
    for line in markdown.splitlines():
        if m := re.fullmatch(r"## `\[(\w+)\]`", line):
            section = m[1]
        elif (m := re.match(r"\| `(\w+)` \| ([^|]+) \| ([^|]+) \| (.+) \|$", line)) and section:
            assert all(cell.strip() for cell in m.groups()), f"an empty cell in {line}"
            found.add(f"{section}.{m[1]}")
    return found


def test_config_reference_lists_every_schema_key() -> None:
    page = render((ROOT / "docs" / "reference" / "config.md").read_text(encoding="utf-8"))
    assert keys_on_page(page) == keys_from_json_schema()
    assert len(keys_on_page(page)) > 80


def test_config_reference_shows_type_default_and_bounds() -> None:
    page = config_markdown()
    assert '| `reward_usd` | amount, quoted ("0.55") | required |' in page
    assert "| `time_outlier_sigmas` | number, 0 to 100 (above the low end) | `1.95` |" in page
    assert '| `device_compatibility` | list of `"desktop"` or `"tablet"` or `"mobile"` | `["desktop"]` |' in page


def test_commands_reference_names_every_option() -> None:
    page = render((ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8"))
    for parser in all_commands(_parser())[1:]:
        path = " ".join(parser.prog.split()[1:])
        section = page.split(f"## `hitflow {path}`\n")[1].split("\n## ")[0]
        for action in parser._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert f"`{flag}" in section, f"hitflow {path}: {flag} missing from the commands page"
        assert "Examples:" in section and "Exit codes: 0, 1, 2" in section

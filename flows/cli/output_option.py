"""``--out`` as the commands that use a run folder take it (option, ``$HITFLOW_OUT``, config)."""

from __future__ import annotations

import argparse
import contextlib
import os

from flows.core.errors import HitflowError
from flows.core.outputs.output_location import (
    chosen_output,
    credentials_to_fsspec,
    is_output_url,
    shown_output,
    staging_root,
)


def chosen_out(a: argparse.Namespace, configured: str = "") -> str:
    """--out, else $HITFLOW_OUT, else [target] out, else runs/; a URL's credentials go to fsspec."""
    typed = chosen_output(a.out, configured)
    if not a.out:  # --out was checked as it was parsed; $HITFLOW_OUT and the config's out are checked here
        _checked_default(typed, configured)
    out = typed if a.command == "deploy" else credentials_to_fsspec(typed)
    if typed != out:
        a.argv = [word.replace(typed, out) for word in getattr(a, "argv", [])]
    return out


def _checked_default(out: str, configured: str) -> None:
    """A default output root refused in the words --out would get, naming where it came from."""
    from flows.cli.args import output_root
    from flows.core.errors import ConfigError
    from flows.core.outputs.output_location import OUT_ENV

    source = f"${OUT_ENV}" if os.environ.get(OUT_ENV) else "the config's [target] out" if configured else ""
    if not source:
        return
    try:
        output_root(out)
    except argparse.ArgumentTypeError as exc:
        raise ConfigError(f"{source}: {exc}") from exc


def copied_line(out: str, campaign: str) -> str:
    """Where the outputs are for a person on another host ("" when they are only here)."""
    if not is_output_url(out):
        return ""
    return (f"outputs copied to {shown_output(out).rstrip('/')}/{campaign}/ (the paths above are this host's "
            f"copy, {staging_root(out) / campaign})")


def copy_last_lines(out: str, campaign: str) -> None:
    """The run's closed log to the URL too, when the run got as far as copying there once."""
    from flows.core.outputs.output_mirror import mirror, mirrored_before

    if is_output_url(out) and mirrored_before(out, campaign):
        with contextlib.suppress(HitflowError):
            mirror(out, campaign)


def configured_out(config: str) -> str:
    """The config's ``[target] out`` ("" when it names none)."""
    from flows.core.config.config import load_config

    return load_config(config).out

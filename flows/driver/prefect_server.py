"""Prefect's temporary API server started in a session of its own (safe from Ctrl-C)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from types import ModuleType, SimpleNamespace
from typing import Any

SERVER_MODULE = "prefect.server.api.server"  # where Prefect 3.8 starts its temporary server (SubprocessASGIServer)


def keep_ephemeral_server_out_of_terminal_signals() -> None:
    """Make the ephemeral server start in a session of its own once Prefect's server module is imported."""
    if SERVER_MODULE in sys.modules:
        _own_session(sys.modules[SERVER_MODULE])
    elif not any(isinstance(finder, _PatchOnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Finds Prefect's server module as the path finder does, and patches it right after it runs."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if fullname != SERVER_MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_patch(module: ModuleType) -> None:
            exec_module(module)
            _own_session(module)

        spec.loader.exec_module = exec_then_patch  # type: ignore[method-assign]  # this spec's loader only
        return spec


def _own_session(server: ModuleType) -> None:
    """If a Prefect release moves the code, nothing changes (the server is then as Prefect starts it)."""
    if not hasattr(server, "SubprocessASGIServer") or getattr(server.subprocess, "hitflow_own_session", False):
        return
    popen: Any = partial(subprocess.Popen, start_new_session=True)
    # the module's ``subprocess`` name only: every other user of subprocess.Popen is unchanged
    server.subprocess = SimpleNamespace(Popen=popen, TimeoutExpired=subprocess.TimeoutExpired,  # type: ignore[attr-defined]
                                        hitflow_own_session=True)

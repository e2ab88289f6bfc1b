"""pandas' ``str`` columns kept in Python strings, not Arrow (pandas 3's default): hitflow's frames are small and
many, and Arrow pays per call. Set on importing ``qc``, ``postprocess`` or ``flows``, unless a program chose."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

OPTION = "mode.string_storage"


def use_python_strings() -> None:
    """Python storage for ``str`` columns, unless the program already chose one (``auto``: it did not)."""
    import pandas as pd  # loaded already, by the program or by _WhenPandasLoads

    if pd.get_option(OPTION) == "auto":
        pd.set_option(OPTION, "python")


class _WhenPandasLoads(importlib.abc.MetaPathFinder):
    """Finds pandas as Python would, and calls :func:`use_python_strings` once it has loaded (then leaves)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "pandas":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("pandas")
        loader = spec.loader if spec is not None else None
        if loader is not None:
            load = loader.exec_module

            def load_then_set(module: ModuleType) -> None:
                load(module)
                use_python_strings()

            loader.exec_module = load_then_set  # type: ignore[method-assign]
        return spec


def _set_now_or_when_pandas_loads() -> None:
    if "pandas" in sys.modules:
        use_python_strings()
    elif not any(isinstance(finder, _WhenPandasLoads) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WhenPandasLoads())


_set_now_or_when_pandas_loads()

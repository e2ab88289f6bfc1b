"""sqlite-utils imported without pandas."""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any

_HIDDEN = ("pandas", "numpy")
_NUMPY_TYPES = {**{f"{k}{n}": "INTEGER" for k in ("int", "uint") for n in (8, 16, 32, 64)},
                **{f"float{n}": "REAL" for n in (16, 32, 64)}}  # sqlite-utils 4's list (sqlite_utils/db.py)


class LateTypes(dict[Any, str]):
    """sqlite-utils' ``COLUMN_TYPE_MAPPING`` with numpy's and pandas' entries added on a first miss."""

    def __missing__(self, key: Any) -> str:
        if self._add_loaded() and dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def _add_loaded(self) -> bool:
        """Add the types of the hidden libraries loaded since; False when none is."""
        added = False
        numpy, pandas = sys.modules.get("numpy"), sys.modules.get("pandas")
        if numpy is not None:
            self.update({getattr(numpy, name): kind for name, kind in _NUMPY_TYPES.items() if hasattr(numpy, name)})
            added = True
        if pandas is not None and hasattr(pandas, "Timestamp"):
            self[pandas.Timestamp] = "TEXT"
            added = True
        return added


def import_without_pandas() -> None:
    """Import ``sqlite_utils`` once, hiding pandas and numpy from it unless loaded (one thread only)."""
    if "sqlite_utils.db" in sys.modules:
        return
    hidden = [name for name in _HIDDEN if name not in sys.modules] if threading.active_count() == 1 else []
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # None: "import X" raises ImportError
    try:
        db: Any = importlib.import_module("sqlite_utils.db")
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    db.COLUMN_TYPE_MAPPING = LateTypes(db.COLUMN_TYPE_MAPPING)
    # its module globals stay as they were set (None for a hidden library): nothing else reads them

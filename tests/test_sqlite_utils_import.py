"""sqlite-utils imported without pandas (flows/core/ledger/sqlite_utils_import.py) answers as its own
import does: the same column type for every type sqlite-utils maps, numpy's and pandas' included once
they are loaded, and the same tables made from them. Each side runs in a child interpreter, so what
this test process imported cannot decide the result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# The ledger's way (the package imports sqlite-utils first, hiding pandas), or sqlite-utils' own import
# with pandas and numpy loaded first; then every mapped type's column type, and a table made from numpy
# and pandas values and types.
_CHILD = """
import json, sys
if sys.argv[1] == "ledger":
    import flows.core.ledger
    loaded_first = sorted({"pandas", "numpy"} & set(sys.modules))
    import numpy as np, pandas as pd
else:
    import numpy as np, pandas as pd
    loaded_first = None
import sqlite_utils
from sqlite_utils.db import COLUMN_TYPE_MAPPING as mapping

names = {f"numpy.{n}": getattr(np, n) for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                                "uint64", "float16", "float32", "float64", "bool_", "str_")}
names |= {"pandas.Timestamp": pd.Timestamp, "str": str, "int": int, "float": float, "bytes": bytes,
          "datetime": __import__("datetime").datetime, "list": list}
db = sqlite_utils.Database(memory=True)
db["values"].insert({"a": np.int64(3), "b": np.float32(0.5), "c": pd.Timestamp("2026-01-05").isoformat()})
db.create_table("types", {"a": np.uint16, "b": np.float64, "c": pd.Timestamp})
print(json.dumps({"first": loaded_first, "types": {k: mapping.get(t) for k, t in names.items()},
                  "looked_up": {k: mapping[t] for k, t in names.items() if mapping.get(t) is not None},
                  "schemas": [db["values"].schema, db["types"].schema]}))
"""


def child(way: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", _CHILD, way], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_the_ledger_s_sqlite_utils_maps_every_type_as_sqlite_utils_own_import() -> None:
    ledger, own = child("ledger"), child("own")
    assert ledger["first"] == []  # the ledger's import really loaded neither library
    assert ledger["types"] == own["types"] and ledger["looked_up"] == own["looked_up"]
    assert ledger["schemas"] == own["schemas"]
    assert own["types"]["numpy.int64"] == "INTEGER" and own["types"]["pandas.Timestamp"] == "TEXT"  # they were mapped

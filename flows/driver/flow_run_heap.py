"""The collector spared the imports of a flow run's own process (flows/cli/process_life.py's
``loaded_then_frozen``, for the processes hitflow's CLI does not start): a scheduled run's process
(``hitflow serve-schedules``: Prefect's runner spawns a Python that unpickles the flow, importing this
package), or Prefect's ``python -m prefect.engine`` on a pool whose command is Prefect's own. Importing
flows/driver/campaign_flow.py there, with the collector off, then its heap frozen for the rest of the
process (which ends with its run) saves the import's collections and makes each later full collection
nearly free. Elsewhere (a CLI command, a test worker, a notebook, a long-lived
server) the collector is left as it is: a freeze there would keep whatever garbage the heap held."""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
from collections.abc import Iterator

from flows.core.run.heap_owner import caller_manages_collector


@contextlib.contextmanager
def flow_run_imports() -> Iterator[None]:
    """The block's imports with the collector off in a flow run's own process, then what they made frozen
    (later collections skip it) and the collector on again; elsewhere nothing changes."""
    in_flow_run = multiprocessing.parent_process() is not None or bool(os.environ.get("PREFECT__FLOW_RUN_ID"))
    if not in_flow_run or caller_manages_collector():
        yield
        return
    gc.disable()
    try:
        yield
        gc.freeze()
    finally:
        gc.enable()

"""A batch's summary and flag table in Prefect's UI, sent in order by a thread of their own."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from flows.core.run.run_context import Run
from flows.driver.campaign_status import batch_markdown

_SENDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hitflow-artifacts")  # one: a key's versions in order
_PENDING: list[Future[None]] = []


def publish_batch_artifacts(run: Run, batch: int) -> None:
    """Queue batch ``batch``'s summary and flag table (read now) for Prefect's UI."""
    key = f"{run.cfg.name}-batch-{batch}".lower().replace("_", "-")
    markdown, flag_rows = batch_markdown(run.store, run.cfg.name, batch)
    context = contextvars.copy_context()  # the flow run's: Prefect finds the run the artifacts belong to there
    _PENDING.append(_SENDER.submit(context.run, _send, key, markdown, flag_rows, f"{run.cfg.name} batch {batch}"))


def _send(key: str, markdown: str, flag_rows: list[dict[str, Any]], description: str) -> None:
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    create_markdown_artifact(markdown=markdown, key=key, description=description)
    create_table_artifact(table=flag_rows, key=f"{key}-flags", description="QC flags per rule")


@contextmanager
def artifacts_sent() -> Iterator[None]:
    """At the block's end every queued artifact is sent (a failed one raises); Ctrl-C drops the rest."""
    try:
        yield
    except Exception:
        _wait(quietly=True)
        raise
    except BaseException:
        while _PENDING:
            _PENDING.pop(0).cancel()
        raise
    _wait(quietly=False)


def _wait(quietly: bool) -> None:
    while _PENDING:
        error = _PENDING.pop(0).exception()  # waits for it
        if error is not None and not quietly:
            raise error

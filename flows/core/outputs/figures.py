"""Report figures: one way to make them, one way to draw them (tests/figure_checks.py checks them)."""

from __future__ import annotations

import base64
import contextvars
import gc
import hashlib
import io
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import matplotlib

matplotlib.use("Agg")  # pyplot, where pandas' plotting or a test asks for it, draws off screen
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from flows.core.outputs.figure_layout import RowLayout

# PNGs kept per process (~2 MB at most): a report rewritten (a hold, a cancel, a resume) draws the same figures
MEMO_SIZE = 64
DPI = 90
_MEMO: OrderedDict[bytes, Any] = OrderedDict()
_MEMO_LOCK = threading.Lock()


def new_figure(width: float, height: float, ncols: int = 1, **kwargs: Any) -> tuple[Figure, Any]:
    """A row of ``ncols`` panels laid out by :class:`~flows.core.outputs.figure_layout.RowLayout`, at the saved dpi,
    on Agg's canvas of its own (not pyplot's)."""
    # Titles at the axes' top: else matplotlib measures every axis at each draw to lift them over top tick labels
    with matplotlib.rc_context({"axes.titley": 1.0}):
        fig = Figure(figsize=(width, height), dpi=DPI, layout=RowLayout())
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, ncols, squeeze=False, **kwargs)
    return fig, axes


def legend_beside(ax: Any, **kwargs: Any) -> None:
    """The legend right of the axes, outside the plotted area, so it never covers a bar."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=7, **kwargs)


def histogram(ax: Any, values: Any, bins: Any, color: str | None = None) -> None:
    """``ax.hist(values, bins)``'s shape as one filled outline, not a rectangle a bin (~15% less CPU); NaNs left out."""
    values = np.asarray(values, dtype=float)
    counts, edges = np.histogram(values[~np.isnan(values)], bins=bins)
    ax.stairs(counts, edges, fill=True, color=color)


def to_png(fig: Figure) -> str:
    """The figure as a base64 PNG (for a data: URI)."""
    buf = io.BytesIO()
    engine = fig.get_layout_engine()
    if engine is not None and fig.dpi == DPI:
        # laid out here, then saved without the engine, which savefig would run by drawing the figure once more
        engine.execute(fig)
        fig.set_layout_engine(None)
    fig.savefig(buf, format="png", dpi=DPI)
    return base64.b64encode(buf.getvalue()).decode("ascii")


# True in a run whose outputs nobody reads (the dry run's rehearsal): no figure is drawn, the report says ""
UNSEEN = contextvars.ContextVar("figures_unseen", default=False)


def figure_png(builder: Callable[..., Figure], *args: Any) -> str:
    """``to_png(builder(*args))``, drawn once per process for the same inputs; ``builder``: a module's function."""
    if UNSEEN.get():
        return ""
    return _memo(builder, args, lambda: _collector_paused(lambda: to_png(builder(*args))))  # type: ignore[no-any-return]


def figures_png(builder: Callable[..., list[tuple[str, Figure]]], *args: Any) -> list[tuple[str, str]]:
    """(caption, base64 PNG) of each (caption, figure) ``builder(*args)`` returns, memoised as one."""
    if UNSEEN.get():
        return []
    return list(_memo(builder, args, lambda: _collector_paused(
        lambda: tuple((caption, to_png(fig)) for caption, fig in builder(*args)))))


def _collector_paused(draw: Callable[[], Any]) -> Any:
    """``draw()`` without the cyclic collector: a figure makes ~10,000 objects, each full collection meanwhile
    walks the run's heap again (~8% of the demo's figures' CPU); the figure's own cycles go at the next one."""
    if not gc.isenabled():  # turned off by the caller (or another thread drawing): theirs to turn back on
        return draw()
    gc.disable()
    try:
        return draw()
    finally:
        gc.enable()


def _memo(builder: Callable[..., Any], args: tuple[Any, ...], draw: Callable[[], Any]) -> Any:
    """``draw()``, or what it gave for the same builder and inputs' SHA-256 (the figures depend on nothing else:
    the project sets no matplotlib rcParams); least recently used dropped past MEMO_SIZE."""
    digest = _Digest()
    try:
        _Pickler(digest, protocol=5).dump((builder.__module__, builder.__qualname__, args))
    except (pickle.PicklingError, TypeError, AttributeError):  # an input that cannot pickle or hash: no memo
        return draw()
    key = digest.sha.digest()
    with _MEMO_LOCK:  # a flow's tasks may run in threads: the dict's order is changed under the lock only
        if key in _MEMO:
            _MEMO.move_to_end(key)
            return _MEMO[key]
    value = draw()
    with _MEMO_LOCK:
        _MEMO[key] = value
        while len(_MEMO) > MEMO_SIZE:
            _MEMO.popitem(last=False)
    return value


class _Digest:
    """A file that keeps only the SHA-256 of what is written to it: no copy of the pickle is held."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()

    def write(self, data: bytes) -> None:
        self.sha.update(data)


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj: Any) -> str | None:
        return _frame_digest(obj) if isinstance(obj, pd.DataFrame | pd.Series) else None


def _frame_digest(frame: pd.DataFrame | pd.Series) -> str:
    """A frame's or series' SHA-256 hashed by pandas per row: pickling COCO's flags took ~0.2 s and ~57 MB."""
    labels = (type(frame).__name__, frame.columns.tolist() if isinstance(frame, pd.DataFrame) else frame.name,
              frame.dtypes.astype(str).tolist() if isinstance(frame, pd.DataFrame) else str(frame.dtype),
              frame.index.names, str(frame.index.dtype), frame.attrs)
    sha = hashlib.sha256(repr(labels).encode())
    sha.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    return sha.hexdigest()

"""What collides in a drawn report figure: the tests' legibility check of flows/core/outputs/figures.py's plots."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from matplotlib.figure import Figure
from matplotlib.transforms import Bbox


def _tick_labels(axis: Any) -> list[Any]:
    """The tick labels matplotlib draws: those of ticks inside the view (it keeps others it skips)."""
    low, high = sorted(axis.get_view_interval())
    span = (high - low) * 1e-9
    return [t.label1 for t in axis.get_major_ticks() if low - span <= t.get_loc() <= high + span]


def _texts(ax: Any) -> list[Any]:
    labels = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
              ax.xaxis.offsetText, ax.yaxis.offsetText]  # an axis's "1e6" must not run into its title
    ticks = _tick_labels(ax.xaxis) + _tick_labels(ax.yaxis)
    return [t for t in labels + ticks if t.get_visible() and t.get_text().strip()]


def _overlap(a: Bbox, b: Bbox, slack: float = 0.5) -> bool:
    return a.x0 + slack < b.x1 and b.x0 + slack < a.x1 and a.y0 + slack < b.y1 and b.y0 + slack < a.y1


def overlapping_text(fig: Figure) -> list[str]:
    """What collides once drawn: two texts (titles, axis labels, tick labels, figure texts); a text
    over another panel's plotted area; a legend over any plotted area; a text or legend past the figure's
    edge. Empty when legible."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # Agg's canvas has one
    fig.draw(renderer)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    texts: list[tuple[str, Bbox, Any]] = [(t.get_text(), t.get_window_extent(renderer), ax)
                                          for ax in axes for t in _texts(ax)]
    texts += [(t.get_text(), t.get_window_extent(renderer), None) for t in fig.texts if t.get_text().strip()]
    problems = [f"{a!r} overlaps {b!r}" for (a, box_a, _), (b, box_b, _) in combinations(texts, 2)
                if _overlap(box_a, box_b)]
    areas = [(ax, ax.get_window_extent(renderer)) for ax in axes]
    problems += [f"{text!r} lies over another panel" for text, box, owner in texts
                 for ax, area in areas if ax is not owner and _overlap(box, area)]
    legends = [legend for ax in axes if (legend := ax.get_legend()) is not None and legend.get_visible()]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        problems += ["a legend covers a plot" for _, area in areas if _overlap(box, area)]
    canvas = Bbox.from_bounds(0, 0, fig.bbox.width, fig.bbox.height).padded(0.5)
    boxes = [(text, box) for text, box, _ in texts] + [("a legend", lg.get_window_extent(renderer)) for lg in legends]
    problems += [f"{text!r} runs off the figure" for text, box in boxes if not canvas.contains(box.x0, box.y0)
                 or not canvas.contains(box.x1, box.y1)]
    return problems

"""The report figures' layout: one row of panels, each given the room its own texts take (measured once per text)."""

from __future__ import annotations

from typing import Any, NamedTuple

from matplotlib.font_manager import FontProperties
from matplotlib.layout_engine import LayoutEngine
from matplotlib.text import Text

PAD_PT = 3.0  # between the texts and the figure's edge (constrained layout's own pad)
GAP_PT = 6.0  # between one panel's texts and the next panel's
METRICS_KEPT = 4096
_METRICS: dict[tuple[Any, ...], tuple[float, float]] = {}


class Room(NamedTuple):
    """Pixels a panel's texts take beyond its plotting area on each side."""

    left: float
    right: float
    bottom: float
    top: float


class RowLayout(LayoutEngine):
    """Panels side by side, of one width and height, with their texts inside the figure."""

    _adjust_compatible = False
    _colorbar_gridspec = False

    def execute(self, fig: Any) -> None:
        axes = [ax for ax in fig.axes if ax.get_visible()]
        if not axes:
            return
        width, height = fig.bbox.width, fig.bbox.height
        renderer = fig.canvas.get_renderer()
        pad, gap = PAD_PT * fig.dpi / 72, GAP_PT * fig.dpi / 72
        # measured once: nothing moves before the positions are set below, so the second pass reads the same texts
        texts = [_texts(ax, renderer) for ax in axes]
        rough = width / len(axes)  # x tick labels reach past a panel's edge by how far their tick is from it
        rooms = [_room(t, rough) for t in texts]
        rooms = [_room(t, _panel_width(rooms, width, pad, gap)) for t in texts]
        bottom = pad + max(r.bottom for r in rooms)
        top = pad + max(r.top for r in rooms) + _suptitle_room(fig, renderer)
        panel, x = _panel_width(rooms, width, pad, gap), pad
        for ax, room in zip(axes, rooms, strict=True):
            x += room.left
            ax.set_position([x / width, bottom / height, panel / width, (height - top - bottom) / height])
            x += panel + room.right + gap
            for axis in (ax.xaxis, ax.yaxis):  # an empty label is not placed: that updated and measured the ticks
                axis._autolabelpos = _shown(axis.label)  # again at each draw (no report figure places one by hand)


def _panel_width(rooms: list[Room], width: float, pad: float, gap: float) -> float:
    return max(1.0, (width - 2 * pad - gap * (len(rooms) - 1) - sum(r.left + r.right for r in rooms)) / len(rooms))


def text_size(text: str, prop: FontProperties, renderer: Any) -> tuple[float, float]:
    """Width and height in pixels of one line drawn with ``prop``: the renderer asked once a process."""
    key = (text, prop.get_family()[0], prop.get_style(), prop.get_weight(), prop.get_size_in_points(), renderer.dpi)
    size = _METRICS.get(key)  # read once: another thread's figure may empty the dict meanwhile
    if size is None:
        if len(_METRICS) >= METRICS_KEPT:  # titles carry numbers: a long-lived process would keep every one
            _METRICS.clear()
        w, h, _ = renderer.get_text_width_height_descent(text, prop, ismath=False)
        size = _METRICS[key] = (w, h)
    return size


def _size(label: Text, renderer: Any) -> tuple[float, float]:
    """A text's extent as laid out (a vertical one turned), lines stacked at matplotlib's spacing."""
    prop = label.get_fontproperties()
    lines = [text_size(line, prop, renderer) for line in label.get_text().split("\n")]
    tall = text_size("lp", prop, renderer)[1]  # a line is at least as tall as one with an ascender and a descender
    w = max(line[0] for line in lines)
    h = sum(max(line[1], tall) for line in lines) * (1.0 if len(lines) == 1 else 1.2)  # matplotlib's line spacing
    return (h, w) if round(label.get_rotation()) % 180 == 90 else (w, h)


def _shown(label: Any) -> bool:
    return bool(label.get_visible() and label.get_text().strip())


def _tick_labels(axis: Any) -> list[tuple[float, Text]]:
    """(where along the view 0..1, label) of the tick labels drawn, their text set for the current view."""
    low, high = sorted(axis.get_view_interval())
    span = (high - low) or 1.0
    ticks = axis._update_ticks()  # what a draw does first: the ticks inside the view, labelled
    return [((tick.get_loc() - low) / span, tick.label1) for tick in ticks if _shown(tick.label1)]


def _offset(axis: Any, dpi: float) -> float:
    """Pixels from the axis line to its tick labels: the tick outside it and the labels' pad."""
    ticks = axis.get_major_ticks()
    return (ticks[0].get_tick_padding() + ticks[0].get_pad()) * dpi / 72 if ticks else 0.0


class _Texts(NamedTuple):
    """A panel's texts as measured: the room left, below and above, the x tick labels (where, size), the legend."""

    left: float
    bottom: float
    top: float
    xs: list[tuple[float, tuple[float, float]]]
    legend: tuple[float, float] | None  # its anchor's x in axes units and its width in pixels


def _texts(ax: Any, renderer: Any) -> _Texts:
    dpi = ax.get_figure(root=True).dpi
    axis_label = [(a.label, a.labelpad * dpi / 72) for a in (ax.xaxis, ax.yaxis)]
    ys = [_size(label, renderer)[0] for _, label in _tick_labels(ax.yaxis)]
    left = (max(ys) + _offset(ax.yaxis, dpi) if ys else 0.0) + _label_room(*axis_label[1], renderer, 0)
    xs = [(at, _size(label, renderer)) for at, label in _tick_labels(ax.xaxis)]
    bottom = (max(h for _, (_, h) in xs) + _offset(ax.xaxis, dpi) if xs else 0.0)
    bottom += _label_room(*axis_label[0], renderer, 1)
    titles = [_size(t, renderer)[1] for t in (ax.title, ax._left_title, ax._right_title) if _shown(t)]
    top = max(titles) + ax.titleOffsetTrans.get_matrix()[1, 2] if titles else 0.0
    if _shown(ax.yaxis.offsetText):
        top = max(top, _size(ax.yaxis.offsetText, renderer)[1] + 2 * PAD_PT * dpi / 72)
    return _Texts(left, bottom, top, xs, _legend(ax, renderer))


def _room(texts: _Texts, panel: float) -> Room:
    """The room a panel ``panel`` pixels wide needs for its measured texts."""
    reach_left = max([w / 2 - at * panel for at, (w, _) in texts.xs] + [0.0])
    reach_right = max([w / 2 - (1 - at) * panel for at, (w, _) in texts.xs] + [0.0])
    legend = texts.legend
    beside = max(0.0, legend[0] - 1) * panel + legend[1] if legend is not None and legend[0] >= 1 else 0.0
    return Room(max(texts.left, reach_left), max(beside, reach_right), texts.bottom, texts.top)


def _label_room(label: Text, labelpad: float, renderer: Any, along: int) -> float:
    return _size(label, renderer)[along] + labelpad if _shown(label) else 0.0


def _legend(ax: Any, renderer: Any) -> tuple[float, float] | None:
    """A legend anchored right of the panel (flows.core.outputs.figures.legend_beside): its anchor and width."""
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return None
    anchor = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    return (anchor.x0, legend.get_window_extent(renderer).width) if anchor.x0 >= 1 else None


def _suptitle_room(fig: Any, renderer: Any) -> float:
    title = fig._suptitle
    if title is None or not _shown(title):
        return 0.0
    return _size(title, renderer)[1] + (1 - title.get_position()[1]) * fig.bbox.height

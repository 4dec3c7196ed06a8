"""What every drawing of :mod:`xdt.plot` shares: the colours, and the one gate to matplotlib.

matplotlib is imported only when a ``plot_*`` function is called; every one of them checks
for it first, before looking at its arguments, through :func:`needs_matplotlib`, and
without it raises :class:`PlotDependencyError` (an ``ImportError``) saying
``pip install "xdt[plot]"``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from xdt.errors import XdtError

#: One colour per feature (tab20, light shades first), in order of first test in the tree.
PALETTE = ("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
           "#dbdb8d", "#9edae5", "#c7c7c7", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
           "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#7f7f7f")
LEAF_COLOUR = "#ffffff"
PATH_COLOUR = "#d62728"


class PlotDependencyError(XdtError, ImportError):
    """matplotlib, needed by the ``xdt.plot`` drawing functions, is not installed."""


def pyplot():
    """``matplotlib.pyplot``, the one place xdt.plot imports it.

    Raises
    ------
    PlotDependencyError
        matplotlib is not installed (or cannot be imported).
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotDependencyError(
            f'xdt.plot needs matplotlib ({exc}): pip install "xdt[plot]" (or pip install '
            f'"matplotlib>=3.7"); to_dot works without it') from exc
    return plt


_F = TypeVar("_F", bound=Callable)


def needs_matplotlib(func: _F) -> _F:
    """Decorator of every public drawing function: import matplotlib (:func:`pyplot`) before
    anything else, so that without it each raises :class:`PlotDependencyError` at once."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        pyplot()
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def figure_axes(ax, figsize):
    plt = pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
    return ax.figure, ax

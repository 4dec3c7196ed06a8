"""Tree-level measures of explanation-redundancy: the columns of Table 1 of Izza, Ignatiev &
Marques-Silva, "On Explaining Decision Trees" (Section 6).

:func:`redundancy_report` runs the whole-tree redundancy check
(:func:`xdt.explain.queries.path_redundancy`) and summarises it per tree:

====== ===================================================================================
D      depth (edges on the longest path)
#N     number of nodes
%A     accuracy on the given rows and labels (the paper's test accuracy, on test rows)
#P     number of consistent paths (dead leaves no point reaches are not counted)
%R     share of those paths that are explanation-redundant (not a PI-explanation)
%C     share of the *feature space* covered by redundant paths (categorical/binary only)
%C_data share of the given *data rows* whose path is redundant
%m     smallest share of redundant literals among redundant paths
%M     largest share of redundant literals among redundant paths
%avg   mean share of redundant literals over redundant paths
====== ===================================================================================

Examples
--------
>>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
>>> t = DecisionTree([Feature("x", "ordinal")], ["lo", "hi"],
...                  ThresholdSplit("x", 0.5, Leaf("lo"), Leaf("hi")))
>>> r = redundancy_report(t)
>>> r.n_paths, r.pct_redundant, r.pct_covered
(2, 0.0, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from xdt.errors import InstanceShapeError, ParameterError
from xdt.explain.queries._redundant_paths import PathRedundancy, path_redundancy
from xdt.ir._tree import DecisionTree

__all__ = ["RedundancyReport", "redundancy_report", "covered_share"]


@dataclass
class RedundancyReport:
    """The Table 1 columns of one tree (see :func:`redundancy_report`).

    Percentages are in ``[0, 100]``; ``None`` where a column is not defined (no data, no
    redundant path, or an ordinal feature for ``pct_covered``).

    Attributes
    ----------
    depth, n_nodes, n_paths, n_redundant : int
        D, #N, #P and the number of redundant paths.
    accuracy : float or None
        %A: the accuracy on the given rows that have a label (test accuracy only when they
        are test rows); None without labels.
    pct_redundant : float
        %R (0 for a tree without consistent paths, which cannot happen for a valid tree).
    pct_covered : float or None
        %C over the product space of the (all categorical/binary) features.
    pct_covered_data : float or None
        %C_data over the given rows.
    n_rows : int or None
        Rows behind %C_data (and %A when labels were given).
    data : str or None
        Where the rows come from (e.g. a file name), for the text of %A.
    pct_min, pct_max, pct_avg : float or None
        %m, %M, %avg.
    per_path : list of PathRedundancy
        One entry per consistent path, in ``tree.paths`` order.
    """

    depth: int
    n_nodes: int
    n_paths: int
    n_redundant: int
    pct_redundant: float
    accuracy: float | None = None
    pct_covered: float | None = None
    pct_covered_data: float | None = None
    n_rows: int | None = None
    pct_min: float | None = None
    pct_max: float | None = None
    pct_avg: float | None = None
    data: str | None = None
    per_path: list[PathRedundancy] = field(default_factory=list, repr=False)

    #: (attribute, Table 1 column name), in the paper's column order
    COLUMNS = (("depth", "D"), ("n_nodes", "#N"), ("accuracy", "%A"), ("n_paths", "#P"),
               ("pct_redundant", "%R"), ("pct_covered", "%C"),
               ("pct_covered_data", "%C_data"), ("pct_min", "%m"), ("pct_max", "%M"),
               ("pct_avg", "%avg"))

    def to_dict(self, per_path: bool = False) -> dict:
        """The columns by their Table 1 names (``"D"``, ``"%R"``, ...) plus ``n_redundant``,
        ``n_rows`` and ``data`` (the rows behind ``%A`` and ``%C_data``); with ``per_path``,
        also ``"paths"``: one dict per consistent path."""
        out: dict = {name: getattr(self, attr) for attr, name in self.COLUMNS}
        out["n_redundant"] = self.n_redundant
        out["n_rows"] = self.n_rows
        out["data"] = self.data
        if per_path:
            out["paths"] = [{"path": p.path, "redundant": p.redundant,
                             "features": list(p.features),
                             "pi_explanation": list(p.pi_explanation),
                             "n_literals": p.n_literals,
                             "redundant_literals": p.redundant_literals}
                            for p in self.per_path]
        return out

    def __str__(self) -> str:
        def pct(v: float | None, why: str) -> str:
            return f"{v:.1f}%" if v is not None else f"n/a ({why})"

        rows = "" if self.n_rows is None else f" of {self.n_rows} rows"
        on = ("" if self.accuracy is None
              else f" on {self.data} ({self.n_rows} rows)" if self.data is not None
              else f" on the {self.n_rows} given rows")
        lines = [
            f"D    depth                        {self.depth}",
            f"#N   nodes                        {self.n_nodes}",
            f"%A   accuracy                     {pct(self.accuracy, 'no labelled data')}{on}",
            f"#P   paths                        {self.n_paths}",
            f"%R   redundant paths              {pct(self.pct_redundant, '')} "
            f"({self.n_redundant} of {self.n_paths})",
            f"%C   feature space covered        "
            f"{pct(self.pct_covered, 'an ordinal feature: no finite space')}",
            f"%C_data rows on redundant paths   {pct(self.pct_covered_data, 'no data')}{rows}",
            f"%m   min redundant literals       {pct(self.pct_min, 'no redundant path')}",
            f"%M   max redundant literals       {pct(self.pct_max, 'no redundant path')}",
            f"%avg mean redundant literals      {pct(self.pct_avg, 'no redundant path')}",
        ]
        return "\n".join(lines)


def covered_share(tree: DecisionTree, paths) -> float | None:
    """Share (in [0, 1]) of the product space of ``tree``'s features covered by ``paths``
    (:class:`~xdt.ir.Path` objects); ``None`` if any feature is ordinal.

    A path covers, for every feature it tests, the values its mask allows, and any value of
    the others: its share is the product over tested features of (allowed values / domain
    size). Paths of a tree cover disjoint sets of points, so the shares add up exactly.
    """
    if any(f.is_ordinal for f in tree.features):
        return None
    total = 0.0
    for p in paths:
        share = 1.0
        for f, mask in p.masks.items():
            share *= bin(mask).count("1") / tree.cells[f].n_cells
        total += share
    return total


def missing_label(value: object) -> bool:
    """Whether a label is missing: None, NaN (a CSV's empty cell) or pandas' NA."""
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, NaT
    except TypeError:  # pandas.NA, whose comparisons are NA
        return True


def labelled_accuracy(predicted: Sequence, y: Sequence) -> tuple[float | None, int]:
    """``(accuracy, labelled)``: the share, in percent, of the rows with a label (not
    missing: :func:`missing_label`) whose prediction equals it, and how many rows have one
    (``None`` and 0 when none has). Labels are compared by their text too, so that a CSV's
    ``1`` matches a class ``"1"``; a label that is no class of the model never matches.

    >>> labelled_accuracy(["a", "b", "a"], ["a", "a", None])
    (50.0, 2)
    """
    pairs = [(p, t) for p, t in zip(list(predicted), list(y), strict=True)
             if not missing_label(t)]
    if not pairs:
        return None, 0
    right = sum(1 for p, t in pairs if p == t or str(p) == str(t))
    return 100.0 * right / len(pairs), len(pairs)


def redundancy_report(model: DecisionTree, X_test=None, y_test=None, *,
                      data: str | None = None) -> RedundancyReport:
    """Explanation-redundancy of a decision tree's paths, as in Table 1 of Izza, Ignatiev &
    Marques-Silva, "On Explaining Decision Trees" (Section 6).

    Every consistent path is checked with the paper's linear-time test
    (:func:`~xdt.explain.queries.path_redundancy`); a path is *redundant* when it
    is not a PI-explanation of its leaf's class (some of its literals can be dropped). For each
    redundant path one PI-explanation is extracted, and the share of the path's literals it
    drops is that path's share of redundant literals.

    Parameters
    ----------
    model : DecisionTree
    X_test : array-like, DataFrame or list of dicts, optional
        Rows (see :meth:`DecisionTree.encode`); gives %C_data, and %A with ``y_test``: the
        accuracy on these rows, whichever they are (test accuracy on test rows).
    y_test : array-like, optional
        True labels of ``X_test``; a label that is not a class of the model counts as a
        wrong prediction, and a missing one (None, NaN: an empty CSV cell) is left out of %A.
    data : str, optional
        Where the rows come from (a file name), kept as ``data`` to say what %A is on.

    Returns
    -------
    RedundancyReport

    Notes
    -----
    Two coverage columns, because the paper's %C ("the percentage of data instances
    (measured for the entire feature space) covered by redundant paths") needs a finite
    feature space:

    * ``%C`` (``pct_covered``): the share of the product space of the features' domains
      (each point of the space counts once) that falls in redundant paths. It is computed
      exactly from the paths' cell masks: per redundant path, the product over its tested
      features of (allowed values / domain size), summed over redundant paths. Defined only
      when every feature is categorical or binary; ``None`` otherwise (an ordinal feature
      has no finite domain).
    * ``%C_data`` (``pct_covered_data``): the share of the given rows ``X_test`` whose path
      is redundant; ``None`` without rows. Defined for any feature kinds, but it depends
      on the data's distribution, unlike ``%C``.

    %m, %M and %avg are the min, max and mean of ``100 * redundant_literals / n_literals``
    over the redundant paths (``None`` when no path is redundant).

    Raises
    ------
    InstanceError
        (and subclasses) when ``X_test`` cannot be read against the model's features.
    ParameterError
        When ``y_test`` is given without ``X_test``.
    InstanceShapeError
        When ``y_test`` has another number of labels than ``X_test`` has rows.
    """
    per_path = path_redundancy(model)
    redundant = [r for r in per_path if r.redundant]
    n_paths = len(per_path)
    report = RedundancyReport(
        depth=model.depth, n_nodes=model.n_nodes, n_paths=n_paths, n_redundant=len(redundant),
        pct_redundant=100.0 * len(redundant) / n_paths if n_paths else 0.0,
        data=data, per_path=per_path)
    share = covered_share(model, [model.paths[r.path] for r in redundant])
    report.pct_covered = None if share is None else 100.0 * share
    if redundant:
        shares = [100.0 * r.redundant_share for r in redundant]
        report.pct_min, report.pct_max = min(shares), max(shares)
        report.pct_avg = float(np.mean(shares))
    if y_test is not None and X_test is None:
        raise ParameterError("y_test needs X_test: the rows whose labels these are; pass "
                             "both, or neither")
    if X_test is not None:
        leaves = model.leaf_paths(model.encode(X_test))
        is_redundant = np.zeros(len(model.paths), dtype=bool)
        is_redundant[[r.path for r in redundant]] = True
        report.n_rows = len(leaves)
        if len(leaves):
            report.pct_covered_data = 100.0 * float(is_redundant[leaves].mean())
        if y_test is not None:
            y = list(y_test)
            if len(y) != len(leaves):
                raise InstanceShapeError(f"y_test has {len(y)} labels for {len(leaves)} rows of "
                                         "X_test; give one label per row")
            report.accuracy = labelled_accuracy(
                [model.paths[leaf].label for leaf in leaves.tolist()], y)[0]
    return report

"""Probabilistic abductive explanations (delta-AXps) and the coverage of an explanation.

For an instance ``x`` predicted ``c`` and a set ``S`` of its features, the **precision** of
``S`` is the probability that a point ``z`` agreeing with ``x`` on ``S`` is predicted ``c``:

    ``Pr(model(z) = c | z_S = x_S)``

(Izza, Huang, Ignatiev, Narodytska, Cooper & Marques-Silva, "On Computing Probabilistic
Abductive Explanations", IJAR 2023, Section 3: a *weak PAXp* is a set whose precision is at
least ``delta``; Arenas, Barcelo, Romero & Subercaseaux, "On Computing Probabilistic
Explanations for Decision Trees", NeurIPS 2022, Section 2: a *delta-sufficient reason*).
"Agreeing" is read in the model's cells: ``z`` lies in ``x``'s cell on every feature of
``S`` (two points in one cell are the same point to the model). A set with precision 1 under
a distribution that gives every cell positive mass is a weak AXp; an AXp has precision 1
under every distribution.

Two distributions of ``z``:

* :class:`ProductDistribution` — the features independent, each with a distribution over
  its cells (estimated from a dataset's counts, or given). Conditioning on ``z_S = x_S``
  then fixes those features and leaves the others to their marginals, so the precision is
  well defined even where ``x``'s own cell has mass 0. For a decision tree it is exact and
  polynomial (:func:`precision`): the sum, over the paths of class ``c`` that do not
  contradict ``x`` on ``S``, of the product over their other tested features of the mass of
  the path's cell set on that feature — O(paths x features) integer operations (Izza et
  al., IJAR 2023, Section 4, under the uniform distribution; here any product one).
* :class:`EmpiricalDistribution` — the rows of a dataset, each of weight 1: the precision is
  the share, among the rows agreeing with ``x`` on ``S``, of those the model predicts ``c``.
  Any model (decision trees, DNFs, decision lists, tree ensembles).

Every number is an exact :class:`fractions.Fraction`. A **locally minimal delta-AXp**
(:meth:`xdt.Explainer.delta_axp`, built on :mod:`xdt.explain.queries._delta_axp`) is a set of
precision at least ``delta`` none of whose features can be dropped keeping precision at least
``delta`` (Izza et al., IJAR 2023, Section 3, "locally-minimal PAXp"). Precision is not
monotone (fixing one more feature can lower it), so one deletion pass does not make a set
locally minimal; the deletion here repeats its passes until one drops nothing, which keeps it
polynomial for trees under a product distribution (at most ``|S|`` passes of ``|S|``
precisions each). A subset-minimal or a smallest delta-sufficient reason is NP-hard to find
even for trees (Arenas et al., NeurIPS 2022, Theorems 1-2), and is not attempted.

The **coverage** of an explanation (:func:`coverage`, :meth:`Explanation.coverage`) is the
measure of its region — each of its features held to its cells (the instance's cell, the
path's literal, or an inflated AXp's widened set), the other features free — under the
product of per-feature marginals, and the share of a dataset's rows that lie in it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Real

import numpy as np
import pandas as pd

from xdt.errors import (
    CertificateError,
    ConstraintViolationError,
    DataError,
    EmptyConditionError,
    EngineNotAvailableError,
    InstanceError,
    MissingFeatureError,
    ParameterError,
    UnknownFeatureError,
)
from xdt.explain.engines import _deadline
from xdt.explain.engines._oracle import bits
from xdt.ir._cells import Cells, IntervalCells, cells_of
from xdt.ir._instances import as_frame, check_unique_columns
from xdt.ir._protocol import PATHS, offers
from xdt.ir._tree import DecisionTree
from xdt.ir._values import exact_number, integer_scale

MAX_BRUTE_POINTS = 1 << 16
"""Most cell points a certificate check enumerates to recompute a precision under a product
distribution by its definition; beyond it (trees only), the check sums over the tree's leaf
boxes, each labelled by ``model.predict`` on one point of it."""


# ---------------------------------------------------------------------- numbers
def _exact(value: object, what: str) -> Fraction:
    """``value`` as an exact non-negative Fraction (:func:`~xdt.ir._values.exact_number`: a
    float is read as the decimal it prints as, ``0.1`` is 1/10)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParameterError(f"{what} must be a non-negative number, got {value!r}")
    out = exact_number(value)
    if out is None:
        raise ParameterError(f"{what} must be a finite non-negative number, got {value!r}")
    if out < 0:
        raise ParameterError(f"{what} must be non-negative, got {value!r}")
    return out


def check_delta(delta: object) -> Fraction:
    """``delta`` as an exact Fraction in ``(0, 1]``; raises :class:`ParameterError` else."""
    if isinstance(delta, bool) or not isinstance(delta, Real) or (
            isinstance(delta, float) and not math.isfinite(delta)):
        raise ParameterError(f"delta must be a number in (0, 1], got {delta!r}")
    d = _exact(delta, "delta") if delta >= 0 else None
    if d is None or not 0 < d <= 1:
        raise ParameterError(
            f"delta must be in (0, 1] (the least precision accepted; 1: an exact AXp), got "
            f"{delta!r}")
    return d


# ---------------------------------------------------------------------- cells
def same_cells(a: Cells, b: Cells) -> bool:
    """Whether two features' cells are the same partition of one domain."""
    if type(a) is not type(b) or a.name != b.name or a.n_cells != b.n_cells:
        return False
    if isinstance(a, IntervalCells):
        return bool(np.array_equal(a.thresholds, b.thresholds))
    return a.domain == b.domain


def _encode_columns(cells: Sequence[Cells], frame: pd.DataFrame) -> np.ndarray:
    """Cells (int64 (n, len(cells))) of a frame's columns, one per cell object in order.

    A value the cells cannot read raises the model's usual error (:class:`InstanceError`,
    :class:`~xdt.errors.UnknownCategoryError`, :class:`~xdt.errors.MissingValueError`,
    ...), of the same class, naming the first row that holds such a value (its 0-based
    position and index label)."""
    out = np.empty((len(frame), len(cells)), dtype=np.int64)
    for i, c in enumerate(cells):
        column = frame.iloc[:, i]
        try:
            out[:, i] = c.encode(column)
        except InstanceError as e:
            for pos, value in enumerate(column.tolist()):
                try:
                    c.cell_of(value)
                except InstanceError as inner:
                    label = frame.index[pos]
                    where = f"row {pos}" + (f" (index {label!r})" if label != pos else "")
                    raise type(e)(f"{where} of the data: {inner}") from None
            raise
    return out


def _frame(data: object, names: Sequence[str], space=None) -> pd.DataFrame:
    """The columns ``names`` of a DataFrame (other columns ignored), or, given the model's
    feature space, of rows in another form :func:`~xdt.ir._instances.as_frame` reads (in
    feature order); at least one row."""
    if isinstance(data, pd.DataFrame):
        check_unique_columns(data, names)
        missing = [n for n in names if n not in data.columns]
        if missing:
            raise MissingFeatureError(
                f"the data has no column(s) {missing}; it needs one column per feature "
                f"({', '.join(names)}); other columns are ignored")
        frame = data.loc[:, list(names)]
    elif space is not None and not isinstance(data, str | bytes) and data is not None:
        frame = as_frame(space, data)
    else:
        raise DataError(f"the data must be a pandas DataFrame (one column per feature), got "
                        f"{type(data).__name__}; read a CSV file with pandas.read_csv first")
    if len(frame) == 0:
        raise DataError("the data has no rows; a distribution needs at least one row")
    return frame


def _model_cells(model: object) -> tuple[tuple[str, ...], tuple[Cells, ...]]:
    cells = getattr(model, "cells", None)
    features = getattr(model, "features", None)
    if cells is None or features is None:
        raise EngineNotAvailableError(
            f"a distribution is built over a model's cells: give a DecisionTree, DNF, "
            f"DecisionList or TreeEnsemble, not {type(model).__name__}")
    return tuple(features.names), tuple(cells)


# ---------------------------------------------------------------------- distributions
class ProductDistribution:
    """Independent features, each with a distribution over the model's cells of it.

    Parameters
    ----------
    model : DecisionTree, DNF, DecisionList or TreeEnsemble
        The model whose cells the distribution is over (``model.cells``).
    marginals : mapping of feature name -> weights
        For every feature, either a sequence of one non-negative weight per cell (length
        ``model.cells[f].n_cells``, in cell order) or a mapping of values to weights (a
        categorical value, or a number whose cell receives the weight; weights of values in
        one cell add up). Weights are normalised per feature (their total must be positive);
        ints, Fractions and floats are accepted, a float read as the decimal it prints as.

    Attributes
    ----------
    names : tuple of str
    cells : tuple of Cells
        The model's cells, one per feature.
    weights : tuple of tuple of int
        Per feature, integer weights per cell with the marginal's ratios.
    n_rows : int or None
        The rows counted, for a distribution estimated by :meth:`from_data`.
    smoothing : Fraction
        The Laplace pseudo-count added to every cell by :meth:`from_data` (0: none).

    Raises
    ------
    MissingFeatureError
        A feature has no marginal.
    UnknownFeatureError
        A marginal names a feature the model lacks.
    ParameterError
        A weight is negative or not a number, a feature's weights add up to 0, or a
        sequence has the wrong length.
    UnknownCategoryError, MissingValueError, InstanceError
        A value of a mapping the feature's cells cannot read.

    Examples
    --------
    >>> from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit
    >>> tree = DecisionTree([Feature("x", "ordinal")], [0, 1],
    ...                     ThresholdSplit("x", 0.5, Leaf(0), Leaf(1)))
    >>> d = ProductDistribution(tree, {"x": [1, 3]})
    >>> d.marginal("x")
    (Fraction(1, 4), Fraction(3, 4))
    """

    def __init__(self, model, marginals: Mapping[str, Sequence | Mapping]):
        names, cells = _model_cells(model)
        if not isinstance(marginals, Mapping):
            raise ParameterError(
                "marginals must be a mapping of feature name -> weights per cell (or per "
                f"value), got {type(marginals).__name__}")
        unknown = [k for k in marginals if k not in names]
        if unknown:
            raise UnknownFeatureError(
                f"marginals name feature(s) {unknown} that the model does not have; its "
                f"features are: {', '.join(names)}")
        missing = [n for n in names if n not in marginals]
        if missing:
            raise MissingFeatureError(
                f"marginals give no distribution for feature(s) {missing}; give one per "
                "feature, or estimate them with ProductDistribution.from_data")
        weights = []
        for name, c in zip(names, cells, strict=True):
            given = marginals[name]
            per_cell = [Fraction(0)] * c.n_cells
            if isinstance(given, Mapping):
                for value, w in given.items():
                    per_cell[c.cell_of(value)] += _exact(w, f"the weight of {name}={value!r}")
            else:
                if isinstance(given, str | bytes) or not isinstance(given, Iterable):
                    raise ParameterError(
                        f"the marginal of feature {name!r} must be weights per cell (a "
                        f"sequence of {c.n_cells}) or a mapping of values to weights, got "
                        f"{type(given).__name__} {given!r}")
                given = list(given)
                if len(given) != c.n_cells:
                    raise ParameterError(
                        f"feature {name!r} has {c.n_cells} cells in this model, and its "
                        f"marginal gives {len(given)} weights; give one per cell (or a "
                        "mapping of values to weights)")
                per_cell = [_exact(w, f"a weight of feature {name!r}") for w in given]
            weights.append(per_cell)
        self._setup(names, cells, weights, None, Fraction(0))

    def _setup(self, names: tuple[str, ...], cells: tuple[Cells, ...],
               weights: Sequence[Sequence[Fraction]], n_rows: int | None,
               smoothing: Fraction) -> None:
        for name, w in zip(names, weights, strict=True):
            if sum(w) <= 0:
                raise ParameterError(
                    f"the weights of feature {name!r} add up to 0; a marginal needs a "
                    "positive total")
        self.names = names
        self.cells = cells
        self.weights = tuple(integer_scale(list(w)) for w in weights)
        self.totals = tuple(sum(w) for w in self.weights)
        self.n_rows = n_rows
        self.smoothing = smoothing
        self._index = {n: i for i, n in enumerate(names)}

    @classmethod
    def _of(cls, names, cells, weights, n_rows: int | None = None,
            smoothing: Fraction = Fraction(0)) -> ProductDistribution:
        self = object.__new__(cls)
        self._setup(tuple(names), tuple(cells), weights, n_rows, smoothing)
        return self

    @classmethod
    def from_data(cls, data, model, *, smoothing: object = 0) -> ProductDistribution:
        """The product of the per-feature distributions of a dataset's rows over the
        model's cells: each cell's mass is its share of the rows (plus ``smoothing``).

        Parameters
        ----------
        data : pandas.DataFrame
            One column per feature (by name; other columns, such as the target, ignored),
            at least one row; or rows in another form :func:`~xdt.ir._instances.as_frame`
            reads (in feature order).
        model : DecisionTree, DNF, DecisionList or TreeEnsemble
        smoothing : number
            A pseudo-count added to every cell of every feature (Laplace smoothing; default
            0: none). With a positive one every cell has positive mass, so a set of
            precision 1 is a weak AXp.

        Raises
        ------
        MissingFeatureError
            A feature has no column.
        DataError
            No rows, or data that is not a table.
        InstanceError, UnknownCategoryError, MissingValueError, ValueOutOfRangeError
            A value the model cannot read, naming its row.
        ParameterError
            A negative or non-numeric ``smoothing``.
        """
        names, cells = _model_cells(model)
        alpha = _exact(smoothing, "smoothing")
        encoded = _encode_columns(cells, _frame(data, names, model.features))
        weights = [[Fraction(int(k)) + alpha for k in
                    np.bincount(encoded[:, f], minlength=c.n_cells)]
                   for f, c in enumerate(cells)]
        return cls._of(names, cells, weights, len(encoded), alpha)

    @classmethod
    def uniform(cls, model) -> ProductDistribution:
        """Every cell of every feature of equal mass: the uniform distribution over the
        model's cell space (for binary and categorical features, over their values; Arenas
        et al., NeurIPS 2022, and Izza et al., IJAR 2023, take the uniform distribution).
        For an ordinal feature it is uniform over the intervals between the model's
        thresholds, which depends on the model, not on the data."""
        names, cells = _model_cells(model)
        return cls._of(names, cells, [[Fraction(1)] * c.n_cells for c in cells])

    def _feature(self, feature: str | int) -> int:
        if isinstance(feature, int) and not isinstance(feature, bool):
            return feature
        try:
            return self._index[feature]
        except KeyError:
            raise UnknownFeatureError(
                f"unknown feature {feature!r}; the distribution's features are: "
                f"{', '.join(self.names)}") from None

    def marginal(self, feature: str | int) -> tuple[Fraction, ...]:
        """The mass of each cell of ``feature`` (name or position), exact, summing to 1."""
        f = self._feature(feature)
        total = self.totals[f]
        return tuple(Fraction(w, total) for w in self.weights[f])

    def mass(self, feature: str | int, cells: int) -> Fraction:
        """The mass of a set of cells (bit mask) of ``feature``."""
        f = self._feature(feature)
        return Fraction(self._weight(f, cells), self.totals[f])

    def _weight(self, f: int, cells: int) -> int:
        w = self.weights[f]
        return sum(w[j] for j in cells_of(cells) if j < len(w))

    def measure(self, held: Mapping[str | int, int]) -> Fraction:
        """The mass of the box holding each feature of ``held`` (name or position -> bit
        mask of cells) and leaving the others free: the product of the masses."""
        num, den = 1, 1
        for feature, cells in held.items():
            f = self._feature(feature)
            num *= self._weight(f, cells)
            den *= self.totals[f]
        return Fraction(num, den)

    def check_cells(self, names: Sequence[str], cells: Sequence[Cells], what: str) -> None:
        """Raise :class:`ParameterError` unless the distribution has these features with
        these cells (``what`` names the model or explanation in the message)."""
        _check_same(self.names, self.cells, names, cells, what)

    def __repr__(self) -> str:
        source = (f"estimated from {self.n_rows} rows" if self.n_rows is not None
                  else "given marginals")
        smooth = f", smoothing {self.smoothing}" if self.smoothing else ""
        return (f"ProductDistribution({len(self.names)} features, "
                f"{sum(c.n_cells for c in self.cells)} cells, {source}{smooth})")


def _check_same(have_names, have_cells, names, cells, what: str) -> None:
    at = {n: c for n, c in zip(have_names, have_cells, strict=True)}
    for n, c in zip(names, cells, strict=True):
        mine = at.get(n)
        if mine is None or not same_cells(mine, c):
            why = ("has no feature " + repr(n)) if mine is None else \
                f"cuts feature {n!r} into other cells"
            raise ParameterError(
                f"the distribution {why} than {what}: it was built for another model; build "
                "it for this one (ProductDistribution.from_data(data, model) or "
                "EmpiricalDistribution(data, model)), or pass the DataFrame itself")


class EmpiricalDistribution:
    """The rows of a dataset, each of mass ``1 / n``, read once into the model's cells.

    Parameters
    ----------
    data : pandas.DataFrame
        One column per feature (by name; other columns ignored), at least one row; or rows
        in another form :func:`~xdt.ir._instances.as_frame` reads.
    model : DecisionTree, DNF, DecisionList or TreeEnsemble

    Attributes
    ----------
    names : tuple of str
    cells : tuple of Cells
    frame : pandas.DataFrame of shape (n, F)
        The rows' feature values, in feature order (index 0 .. n-1).
    row_cells : numpy.ndarray of shape (n, F), int64
        Each row's cell per feature.
    predictions : numpy.ndarray of shape (n,), int64
        The model's class index of each row.

    Raises
    ------
    MissingFeatureError, DataError, InstanceError, UnknownCategoryError, MissingValueError,
    ValueOutOfRangeError
        As :meth:`ProductDistribution.from_data` (a bad value's error names its row).
    """

    def __init__(self, data, model):
        names, cells = _model_cells(model)
        frame = _frame(data, names, model.features).reset_index(drop=True)
        self.names = names
        self.cells = cells
        self.row_cells = _encode_columns(cells, frame)
        self.frame = frame
        constraints = getattr(model, "constraints", None)
        if constraints:  # rows the constraints exclude are no points of the distribution
            ok = constraints.allows(self.row_cells)  # conditions: exact on the cells
            for a, b, strict in constraints.orders:  # orderings: on the values
                x = frame[names[a]].to_numpy(dtype=float)
                y = frame[names[b]].to_numpy(dtype=float)
                ok &= (x < y) if strict else (x <= y)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                broken = constraints.violated(frame.iloc[i][list(names)].tolist(),
                                              self.row_cells[i])
                raise ConstraintViolationError(
                    f"row {i} violates the model's background constraint {str(broken)!r}: "
                    "an empirical distribution of such a model holds only rows that "
                    "satisfy its constraints; drop the row or fix the constraint")
        self.predictions = np.asarray(model.predict_cells(self.row_cells), dtype=np.int64)
        self._model_id = id(model)

    @classmethod
    def from_data(cls, data, model) -> EmpiricalDistribution:
        """The same as ``EmpiricalDistribution(data, model)``."""
        return cls(data, model)

    @property
    def n_rows(self) -> int:
        return len(self.row_cells)

    def marginals(self, smoothing: object = 0) -> ProductDistribution:
        """The product of the rows' per-feature distributions (as
        :meth:`ProductDistribution.from_data` on the same rows)."""
        alpha = _exact(smoothing, "smoothing")
        weights = [[Fraction(int(k)) + alpha for k in
                    np.bincount(self.row_cells[:, f], minlength=c.n_cells)]
                   for f, c in enumerate(self.cells)]
        return ProductDistribution._of(self.names, self.cells, weights, self.n_rows, alpha)

    def agreeing(self, cells: Sequence[int], mask: int) -> np.ndarray:
        """Positions of the rows in the same cell as ``cells`` on every feature of ``mask``."""
        keep = np.ones(self.n_rows, dtype=bool)
        for f in bits(mask):
            keep &= self.row_cells[:, f] == cells[f]
        return np.flatnonzero(keep)

    def check_cells(self, names: Sequence[str], cells: Sequence[Cells], what: str) -> None:
        """As :meth:`ProductDistribution.check_cells`."""
        _check_same(self.names, self.cells, names, cells, what)

    def __repr__(self) -> str:
        return f"EmpiricalDistribution({self.n_rows} rows, {len(self.names)} features)"


Distribution = ProductDistribution | EmpiricalDistribution


def as_distribution(distribution: object, model) -> Distribution:
    """A distribution for ``model``: a :class:`ProductDistribution` or
    :class:`EmpiricalDistribution` (checked to be over the model's cells), or a DataFrame,
    read as ``ProductDistribution.from_data(distribution, model)``."""
    names, cells = _model_cells(model)
    if isinstance(distribution, ProductDistribution | EmpiricalDistribution):
        distribution.check_cells(names, cells, "this model")
        return distribution
    if isinstance(distribution, pd.DataFrame):
        return ProductDistribution.from_data(distribution, model)
    raise ParameterError(
        "distribution must be a ProductDistribution, an EmpiricalDistribution or a pandas "
        f"DataFrame (its product distribution), got {type(distribution).__name__}")


# ---------------------------------------------------------------------- precision
class TreePrecision:
    """The precision of feature sets for one instance of a decision tree under a product
    distribution, exactly, in O(paths x features) integer operations per set.

    Parameters
    ----------
    tree : DecisionTree
    distribution : ProductDistribution
        Over the tree's cells.
    cells : sequence of int
        The instance's cell per feature.
    prediction : int
        The class index whose probability is measured (the instance's prediction).

    Notes
    -----
    The paths of a tree partition its cell space, so ``Pr(tree(z) = c | z_S = x_S)`` is the
    sum over the consistent paths of class ``c`` whose literals hold at ``x`` on every
    feature of ``S`` that they test, of ``prod_f mass_f(path's cells on f)`` over the path's
    tested features outside ``S`` (Izza et al., IJAR 2023, Section 4). With integer weights
    ``w_f`` of totals ``W_f``, every term shares the denominator ``prod W_f`` over the free
    features the paths test, so the sum is one integer over it.
    """

    def __init__(self, tree: DecisionTree, distribution: ProductDistribution,
                 cells: Sequence[int], prediction: int):
        self.totals = distribution.totals
        self.terms: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
        tested_any = 0
        for p in tree.paths:
            if p.class_index != prediction or not p.consistent:
                continue
            outside = 0  # features on which the path's literal excludes x
            tested = 0
            weights = []
            for f, m in p.masks.items():
                tested |= 1 << f
                if not (m >> cells[f]) & 1:
                    outside |= 1 << f
                weights.append((f, distribution._weight(f, m)))
            self.terms.append((outside, tested, tuple(weights)))
            tested_any |= tested
        self.tested = tested_any

    def __call__(self, mask: int) -> Fraction:
        """The precision of the features of bit mask ``mask``."""
        free = self.tested & ~mask
        denominator = 1
        for f in bits(free):
            denominator *= self.totals[f]
        total = 0
        for outside, tested, weights in self.terms:
            if outside & mask:
                continue
            term = 1
            for f, w in weights:
                if not (mask >> f) & 1:
                    term *= w
            # the free features this path does not test: their whole mass
            for f in bits(free & ~tested):
                term *= self.totals[f]
            total += term
        return Fraction(total, denominator)


class EmpiricalPrecision:
    """The precision of feature sets for one instance under an
    :class:`EmpiricalDistribution`: among the rows agreeing with the instance on the set,
    the share predicted the instance's class (any model).

    Calling it raises :class:`~xdt.errors.EmptyConditionError` when no row agrees with
    the instance on the set: the conditional probability is then undefined.
    """

    def __init__(self, distribution: EmpiricalDistribution, cells: Sequence[int],
                 prediction: int, names: Sequence[str]):
        self.distribution = distribution
        self.cells = tuple(cells)
        self.hit = distribution.predictions == prediction
        self.names = names

    def support(self, mask: int) -> np.ndarray:
        return self.distribution.agreeing(self.cells, mask)

    def __call__(self, mask: int) -> Fraction:
        rows = self.support(mask)
        if len(rows) == 0:
            held = [self.names[f] for f in bits(mask)]
            raise EmptyConditionError(
                f"no row of the data ({self.distribution.n_rows} rows) lies in the "
                f"instance's cells of {held}, so the empirical precision of this set is "
                "undefined; use more data, include the instance's row, or a product "
                "distribution (ProductDistribution.from_data)", features=tuple(held))
        return Fraction(int(self.hit[rows].sum()), len(rows))


def precision_function(model, distribution: Distribution, cells: Sequence[int],
                       prediction: int):
    """A callable ``mask -> Fraction``: the precision of each feature set (bit mask) for the
    instance of ``cells`` predicted ``prediction``.

    Raises
    ------
    EngineNotAvailableError
        A product distribution with a model that is not a decision tree.
    """
    if isinstance(distribution, EmpiricalDistribution):
        return EmpiricalPrecision(distribution, cells, prediction, model.features.names)
    if not offers(model, PATHS):
        from xdt.explain._models import kind_name

        raise EngineNotAvailableError(
            f"the precision under a product distribution is computed exactly for decision "
            f"trees (a sum over their paths), and this model is a {kind_name(model)}; use an "
            "empirical distribution instead: EmpiricalDistribution(data, model)")
    if getattr(model, "constraints", None):
        raise EngineNotAvailableError(
            "this tree carries background constraints, and a product of per-feature "
            "distributions gives mass to points they exclude (the precision conditioned on "
            "them is not a sum over the paths); use an empirical distribution of rows that "
            "satisfy them: EmpiricalDistribution(data, model)")
    return TreePrecision(model, distribution, cells, prediction)


# ---------------------------------------------------------------------- delta-AXps
@dataclass(frozen=True)
class PrecisionCertificate:
    """The evidence that a delta-AXp is one: its exact precision, at least ``delta``, and the
    precision after dropping each of its features, each below ``delta`` (local minimality).

    Attributes
    ----------
    instance : dict
        The explained instance (feature name -> value).
    prediction : object
        Its class.
    delta : Fraction
    precision : Fraction
        The precision of the delta-AXp's features (``>= delta``).
    drops : dict of str -> Fraction
        Per feature of the delta-AXp, the precision of the others alone (``< delta``).
    distribution : {"product", "empirical"}
    n_rows : int or None
        The rows of the distribution's data (None for given marginals).
    support : int or None
        For an empirical distribution: the rows agreeing with the instance on the
        delta-AXp's features (the precision's denominator).
    start : tuple of str
        The features the deletion started from (the AXp, by default).
    """

    instance: dict
    prediction: object
    delta: Fraction
    precision: Fraction
    drops: dict = field(default_factory=dict)
    distribution: str = "product"
    n_rows: int | None = None
    support: int | None = None
    start: tuple = ()
    kind: str = "delta-AXp"

    def to_dict(self) -> dict:
        """A JSON-ready dict; each precision as ``{"exact": "p/q", "float": x}``."""
        from xdt.ir._values import to_python

        return {"kind": self.kind, "instance": {k: to_python(v) for k, v in
                                                self.instance.items()},
                "prediction": to_python(self.prediction), "delta": fraction_dict(self.delta),
                "precision": fraction_dict(self.precision),
                "drops": {k: fraction_dict(v) for k, v in self.drops.items()},
                "distribution": self.distribution, "n_rows": self.n_rows,
                "support": self.support, "start": list(self.start)}


def fraction_dict(value: Fraction) -> dict:
    """``{"exact": "p/q", "float": p / q}`` (JSON-ready)."""
    return {"exact": str(value), "float": float(value)}


def delta_axp_mask(precision, start: int, delta: Fraction,
                   order: Sequence[int]) -> tuple[int, Fraction, dict[int, Fraction]]:
    """A locally minimal set of precision ``>= delta`` inside ``start``, by deletion.

    Tries the features of ``start`` for removal in ``order`` (features of ``start`` that
    ``order`` does not list are tried after it, in increasing position), dropping each one
    whose removal keeps the precision at least ``delta``, and repeats the pass until one
    drops nothing: precision is not monotone, so a feature kept early may become removable
    after later removals. Returns ``(mask, its precision, {feature: precision without
    it})``.

    The active deadline (:mod:`xdt.explain.engines._deadline`) is polled before each
    precision.

    Raises
    ------
    ParameterError
        ``start`` itself has precision below ``delta``.
    EnumerationStopped
        When the active deadline passes first.
    """
    current = precision(start)
    if current < delta:
        raise ParameterError(
            f"the starting set has precision {float(current):.6g} ({current}), below delta "
            f"{float(delta):.6g}: start from a set of precision at least delta (the AXp has "
            "precision 1)")
    seq = [f for f in dict.fromkeys(int(g) for g in order) if (start >> f) & 1]
    seq += [f for f in bits(start) if f not in seq]
    mask = start
    drops: dict[int, Fraction] = {}
    changed = True
    while changed:
        changed = False
        drops = {}
        for f in seq:
            if not (mask >> f) & 1:
                continue
            _deadline.check()
            p = precision(mask & ~(1 << f))
            if p >= delta:
                mask &= ~(1 << f)
                current = p
                changed = True
                drops = {}  # the values found before this removal no longer hold
            else:
                drops[f] = p
    # a pass with no removal: every kept feature was tried against the final set
    return mask, current, {f: drops[f] for f in bits(mask)}


def brute_force_precision(model, distribution: Distribution, values: Sequence,
                          cells: Sequence[int], label: object, mask: int,
                          max_points: int = MAX_BRUTE_POINTS) -> Fraction:
    """The precision of the features of ``mask`` recomputed independently of
    :class:`TreePrecision` / :class:`EmpiricalPrecision`, with ``model.predict`` on points
    given by their values.

    * Empirical: ``model.predict`` on the data rows whose cells agree with ``cells`` on
      ``mask``; the share predicted ``label``.
    * Product, when the free features' positive-mass cells span at most ``max_points``
      points: every such point (free features at one value of each cell, the others at the
      instance's values), predicted with ``model.predict`` and weighted by the product of
      its cells' masses.
    * Product, larger (decision trees): every leaf box of the tree that meets the instance's
      cells on ``mask``, labelled by ``model.predict`` on one point of it and weighted by
      the product of its masses on the free features; the boxes' masses must add up to 1.

    Raises
    ------
    EmptyConditionError
        Empirical, and no row agrees.
    ComputationLimitError
        Product, a model that is not a tree, and more than ``max_points`` points.
    CertificateError
        The leaf boxes' masses do not add up to 1 (the tree's paths do not partition its
        cells).
    """
    from xdt.errors import ComputationLimitError

    names = model.features.names
    if isinstance(distribution, EmpiricalDistribution):
        rows = distribution.agreeing(cells, mask)
        if len(rows) == 0:
            raise EmptyConditionError(
                "no row of the data agrees with the instance on "
                f"{[names[f] for f in bits(mask)]}", features=tuple(
                    names[f] for f in bits(mask)))
        got = model.predict(distribution.frame.iloc[rows])
        return Fraction(int(sum(1 for g in got if g == label)), len(rows))
    model_cells = model.cells
    free = [f for f in range(len(names)) if not (mask >> f) & 1]
    choices = []
    size = 1
    for f in free:
        live = [j for j, w in enumerate(distribution.weights[f]) if w > 0]
        choices.append(live)
        size *= len(live)
    if size <= max_points:
        # every point, as one column per feature: free features at a value of each of their
        # positive-mass cells, the others at the instance's values
        grids = np.meshgrid(*[np.arange(len(c)) for c in choices], indexing="ij") \
            if free else []
        columns: dict[str, object] = {}
        weight = np.ones(size, dtype=object)
        for k, f in enumerate(free):
            live = choices[k]
            at = grids[k].reshape(-1)
            shown = np.empty(len(live), dtype=object)
            shown[:] = [model_cells[f].value(j) for j in live]
            columns[names[f]] = shown[at]
            w = np.empty(len(live), dtype=object)
            w[:] = [int(distribution.weights[f][j]) for j in live]
            weight = weight * w[at]
        for f in range(len(names)):
            if names[f] not in columns:
                fixed = np.empty(size, dtype=object)
                fixed[:] = [values[f]] * size
                columns[names[f]] = fixed
        den = 1
        for f in free:
            den *= distribution.totals[f]
        got = np.asarray(model.predict(pd.DataFrame(columns, columns=list(names))),
                         dtype=object)
        return Fraction(int(sum(weight[got == label], 0)), den)
    if not offers(model, PATHS):
        raise ComputationLimitError(
            f"recomputing the precision by enumeration needs {size} points, more than "
            f"max_points={max_points}", limit="max_points")
    points, weights = [], []
    total = Fraction(0)
    for p in model.paths:
        if not p.consistent or any((mask >> f) & 1 and not (m >> cells[f]) & 1
                                   for f, m in p.masks.items()):
            continue
        point = list(values)
        w = Fraction(1)
        for f, m in p.masks.items():
            if not (mask >> f) & 1:
                point[f] = model_cells[f].value(next(iter(cells_of(m))))
                w *= distribution.mass(f, m)
        points.append(dict(zip(names, point, strict=True)))
        weights.append(w)
        total += w
    if total != 1:
        raise CertificateError(
            f"the leaf boxes that meet the instance's cells add up to mass {total}, not 1",
            reason="leaf boxes do not partition the cell space")
    got = model.predict(points)
    return sum((w for w, g in zip(weights, got, strict=True) if g == label), Fraction(0))


def check_precision_certificate(model, explanation, distribution: Distribution, *,
                                max_points: int = MAX_BRUTE_POINTS) -> None:
    """Re-check a delta-AXp's :class:`PrecisionCertificate` with
    :func:`brute_force_precision` (``model.predict`` on points, not the precision code):
    the instance is predicted the explanation's class, the precision of its features equals
    the certificate's and is at least ``delta``, and dropping each feature gives the
    certificate's precision, below ``delta``.

    Raises
    ------
    CertificateError
        Naming what failed.
    """
    cert = explanation.certificate
    if not isinstance(cert, PrecisionCertificate):
        raise CertificateError("the explanation has no precision certificate",
                               reason="no precision certificate")
    names = model.features.names
    values = [cert.instance[n] for n in names]
    cells = [c.cell_of(v) for c, v in zip(model.cells, values, strict=True)]
    row = dict(zip(names, values, strict=True))
    label = model.predict([row])[0]
    if label != explanation.prediction:
        raise CertificateError(
            f"the instance is predicted {label!r}, not {explanation.prediction!r}",
            row=row, reason="prediction")
    index = {n: i for i, n in enumerate(names)}
    mask = sum(1 << index[n] for n in explanation.features)

    def check(m: int, stated: Fraction, what: str) -> Fraction:
        _deadline.check()  # a re-check run by a limited call shares its deadline
        got = brute_force_precision(model, distribution, values, cells, label, m, max_points)
        if got != stated:
            raise CertificateError(
                f"the precision of {what} is {got} ({float(got):.6g}) by enumeration, and "
                f"the certificate states {stated} ({float(stated):.6g})", row=row,
                reason="precision")
        return got

    if check(mask, cert.precision, "the delta-AXp") < cert.delta:
        raise CertificateError(f"the precision {cert.precision} is below delta {cert.delta}",
                               row=row, reason="precision below delta")
    if set(cert.drops) != set(explanation.features):
        raise CertificateError("the certificate does not give the precision after dropping "
                               "each feature", row=row, reason="drops")
    for n, stated in cert.drops.items():
        if check(mask & ~(1 << index[n]), stated, f"the delta-AXp without {n!r}") >= cert.delta:
            raise CertificateError(
                f"dropping {n!r} keeps precision {stated} >= delta {cert.delta}: the "
                "delta-AXp is not locally minimal", row=row, reason="not locally minimal")


# ---------------------------------------------------------------------- coverage
@dataclass(frozen=True)
class Coverage:
    """How general an explanation is: the share of the feature space and of a dataset's rows
    that its region covers.

    Attributes
    ----------
    product : Fraction
        The mass of the region under the product of the per-feature marginals: of the whole
        cell space, without the model's background constraints (if it has any, ``rows`` is
        the share among points that exist).
    rows : Fraction or None
        The share of the dataset's rows in the region (None for given marginals).
    covered : int or None
        How many rows lie in it.
    n_rows : int or None
        The dataset's rows.
    """

    product: Fraction
    rows: Fraction | None = None
    covered: int | None = None
    n_rows: int | None = None

    def __repr__(self) -> str:
        text = f"Coverage(product={float(self.product):.6g} [{self.product}]"
        if self.rows is not None:
            text += f", rows={self.covered}/{self.n_rows} = {float(self.rows):.6g}"
        return text + ")"

    def to_dict(self) -> dict:
        """A JSON-ready dict (each share as ``{"exact", "float"}``)."""
        return {"product": fraction_dict(self.product),
                "rows": None if self.rows is None else fraction_dict(self.rows),
                "covered": self.covered, "n_rows": self.n_rows}


def coverage(explanation, data: object) -> Coverage:
    """The coverage of an abductive explanation (see :class:`Coverage`).

    Parameters
    ----------
    explanation : Explanation
        An AXp (plain, path-restricted or inflated) or a delta-AXp, made by an
        :class:`~xdt.Explainer` (which records the model's cells with it).
    data : pandas.DataFrame, ProductDistribution or EmpiricalDistribution
        A DataFrame (a column per feature of the explanation at least; other columns
        ignored): the product of its per-feature marginals, and its rows. An
        EmpiricalDistribution: the same for its rows. A ProductDistribution: its measure
        only (``rows`` is None).

    Raises
    ------
    ParameterError
        A CXp (its features are the ones that change: it has no region), an explanation that
        does not know its model's cells, or a distribution over other cells.
    MissingFeatureError, DataError, InstanceError
        As for :class:`ProductDistribution.from_data` (only the explanation's features are
        read).
    """
    if explanation.kind == "CXp":
        raise ParameterError(
            "coverage is the share of the space an abductive explanation's rule covers, and "
            "a CXp names the features to change; take the coverage of an AXp")
    model_cells = getattr(explanation, "model_cells", None)
    if model_cells is None:
        raise ParameterError(
            "this explanation does not know its model's cells (it was not made by an "
            "Explainer); make it with xdt.Explainer(model)")
    return region_coverage(model_cells, explanation.features, explanation.cells, data)


def region_coverage(model_cells: Sequence[Cells], features: Sequence[str],
                    held: Sequence[int], data: object) -> Coverage:
    """The coverage (:class:`Coverage`) of the region holding each of ``features`` to its
    cells (``held``: one bit mask per feature, over the model's cells ``model_cells``), the
    other features free; ``data`` as in :func:`coverage`."""
    by_name = {c.name: c for c in model_cells}
    names = list(features)
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UnknownFeatureError(f"the model has no feature(s) {unknown}")
    cells = [by_name[n] for n in names]
    held = dict(zip(names, held, strict=True))
    if isinstance(data, ProductDistribution):
        data.check_cells(names, cells, "the explanation's model")
        return Coverage(data.measure(held))
    if isinstance(data, EmpiricalDistribution):
        data.check_cells(names, cells, "the explanation's model")
        at = {n: i for i, n in enumerate(data.names)}
        encoded = data.row_cells[:, [at[n] for n in names]] if names else \
            np.zeros((data.n_rows, 0), dtype=np.int64)
    elif isinstance(data, pd.DataFrame):
        encoded = _encode_columns(cells, _frame(data, names))
    else:
        raise ParameterError(
            "coverage takes a pandas DataFrame, a ProductDistribution or an "
            f"EmpiricalDistribution, got {type(data).__name__}")
    n = len(encoded)
    inside = np.ones(n, dtype=bool)
    num, den = 1, 1
    for i, n_ in enumerate(names):
        m = held[n_]
        allowed = np.array([(m >> j) & 1 for j in range(cells[i].n_cells)], dtype=bool)
        inside &= allowed[encoded[:, i]]
        counts = np.bincount(encoded[:, i], minlength=cells[i].n_cells)
        num *= int(counts[allowed].sum())
        den *= n
    covered = int(inside.sum())
    return Coverage(Fraction(num, den), Fraction(covered, n), covered, n)

"""What xdt's tree learners share: scikit-learn's estimator conventions around a grown tree.

A subclass supplies the options of the growth kernel that give its split rule
(:meth:`TreeClassifierBase._kernel_options`) and, if it wants, a weight preprocessing step;
:meth:`TreeClassifierBase.fit` reads the data, grows the tree with
:func:`xdt.learn._growth.grow_compiled`, merges sibling leaves and keeps the tree as the IR.
"""

from __future__ import annotations

import contextlib
import gc
import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from xdt.errors import (
    DataError,
    NotFittedError,
    ParameterError,
)
from xdt.ir._tree import DecisionTree
from xdt.learn._criteria import CRITERIA
from xdt.learn._data import (
    check_int,
    check_rows,
    label_for_ir,
    read_labels,
    read_sample_weight,
    read_training_data,
)
from xdt.learn._growth import Compiled, grow_compiled, merge_table, table_to_ir


class LearnerNotFittedError(NotFittedError, SklearnNotFittedError):
    """A learner was used before ``fit``: both xdt's :class:`~xdt.errors.NotFittedError` and
    scikit-learn's ``NotFittedError``, so either ``except`` clause catches it."""


class TreeClassifierBase(ClassifierMixin, BaseEstimator):
    """Base class of :class:`~xdt.learn.CARTClassifier` and :class:`~xdt.learn.SERDTClassifier`.

    Fitted attributes
    -----------------
    tree_ : xdt.ir.DecisionTree
        The fitted tree over the columns of ``X`` (categorical columns keep their values).
    classes_ : numpy.ndarray of shape (n_classes,)
        The class labels, sorted (as scikit-learn).
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    leaf_weights_ : numpy.ndarray of shape (n_leaves,), float64
        Training sample weight reaching each leaf, in ``tree_.paths`` order (the weights of
        the explanation-size averages in :mod:`xdt.metrics`).
    leaf_class_weights_ : numpy.ndarray of shape (n_leaves, n_classes), float64
        Training sample weight per class at each leaf (``predict_proba`` normalises it).
    leaf_samples_ : numpy.ndarray of shape (n_leaves,), int64
        Training rows reaching each leaf.
    n_merged_ : int
        Pairs of same-class sibling leaves merged after growth.
    """

    def _wpm_weights(self, weight: np.ndarray) -> np.ndarray | None:
        """The weights ``w`` of ``wpm = P * w`` when the learner uses its own (SER-DT's
        preprocessing); ``None`` otherwise."""
        return None

    def _check_params(self) -> None:
        depth = self.max_depth
        if depth is not None and (isinstance(depth, bool) or not isinstance(
                depth, numbers.Integral) or depth < 0):
            raise ParameterError(f"max_depth must be None or an integer >= 0, got {depth!r}")
        check_int("min_samples_leaf", self.min_samples_leaf, 1)
        if self.criterion not in CRITERIA:
            raise ParameterError(f"criterion must be one of {', '.join(CRITERIA)}, got "
                                 f"{self.criterion!r}")
        if not isinstance(self.merge_leaves, bool | np.bool_):
            raise ParameterError(f"merge_leaves must be True or False, got "
                                 f"{self.merge_leaves!r}")

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` and ``y``.

        Parameters
        ----------
        X : array-like of shape (n, n_features) or pandas.DataFrame
            Numbers (ordinal features, split by thresholds), or — in DataFrames, object
            arrays or columns named in ``categorical_features`` — categories (split by
            ``x = v`` against ``x != v``). ``bool`` columns are binary features. No missing
            values.
        y : array-like of shape (n,)
            Class labels (strings or integers; any number of classes). The name of a pandas
            Series becomes the tree's ``target`` (``IF ... THEN class = good``).
        sample_weight : array-like of shape (n,), optional
            Non-negative weights (default 1 each). Rows of weight 0 are ignored.

        Returns
        -------
        self

        Raises
        ------
        MissingValueError
            ``X`` or ``y`` has missing values (NaN, None).
        InstanceShapeError
            ``X`` is not 2-d, or ``y`` does not have one label per row.
        DataError
            Bad parameters, infinite values, continuous targets, bad sample weights,
            sparse input.
        """
        self._check_params()
        data = read_training_data(X, self.categorical_features)
        n = data.n_rows
        classes, codes = read_labels(y, n)
        weight = read_sample_weight(sample_weight, n)
        keep = weight > 0
        if not keep.all():  # scikit-learn's convention: weight 0 = not in the data
            data = _select_rows(data, keep)
            codes, weight = codes[keep], weight[keep]
        # impurities are scale-free: divide by the mean weight so that sums of squares can
        # neither underflow nor overflow, and report leaf weights in the user's units
        top = float(weight.max())      # the mean of weights over 1e306 would overflow
        scale = float((weight / top).mean()) * top
        weight = weight / scale
        ir_classes = [label_for_ir(c) for c in classes]
        if len(set(ir_classes)) != len(ir_classes):
            raise DataError(f"class labels {classes.tolist()} are not distinct as text; "
                            "use distinct strings or integers")
        # a named pandas Series names the predicted attribute in the IR's rules
        target = str(y.name) if isinstance(y, pd.Series) and y.name is not None else None
        with _no_gc():  # the tree's many small acyclic objects would trigger full collections
            compiled = self._grow(data, codes, weight, len(classes), ir_classes, target)
        self.tree_: DecisionTree = compiled.tree
        self.classes_ = classes
        self.n_features_in_ = len(data.features)
        if data.feature_names_in is not None:
            self.feature_names_in_ = data.feature_names_in
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        inner = compiled.leaf_class_weight
        self._leaf_distribution = inner / inner.sum(axis=1, keepdims=True)
        with np.errstate(over="ignore"):  # weights summing past float64's range: inf
            self.leaf_class_weights_ = inner * scale
        self.leaf_weights_ = self.leaf_class_weights_.sum(axis=1)
        self.leaf_samples_ = compiled.leaf_rows
        return self

    def _grow(self, data, codes: np.ndarray, weight: np.ndarray, n_classes: int,
              ir_classes: list, target: str | None) -> Compiled:
        """The grown tree, merged (sets ``n_merged_``) and as the IR, by the compiled kernel
        (:func:`xdt.learn._growth.grow_compiled`) with the learner's :meth:`_kernel_options`.

        The one step between the data read and the fitted attributes: the reference learners
        of the tests (``tests/reference/learners.py``) override it to grow the same tree with
        the numpy splitter, and the tests compare the two.

        Parameters
        ----------
        data : TrainingData
        codes : numpy.ndarray of shape (n,), int64
            Class number of each row.
        weight : numpy.ndarray of shape (n,), float64
            Positive sample weights, scaled to mean 1.
        n_classes : int
        ir_classes : list
            The class labels as the IR keeps them.
        target : str or None
            The name of the predicted attribute.
        """
        table = grow_compiled(data, codes, weight, n_classes, self.criterion,
                              int(self.min_samples_leaf), self.max_depth,
                              wpm_weight=self._wpm_weights(weight), **self._kernel_options())
        self.n_merged_ = merge_table(table) if self.merge_leaves else 0
        return table_to_ir(table, data.features, ir_classes, target=target)

    def _kernel_options(self) -> dict:
        """The options of :func:`~xdt.learn._growth.grow_compiled` that give the learner's
        split rule (none: CART's)."""
        return {}

    # ------------------------------------------------------------------ prediction
    def _check_fitted(self) -> None:
        if not hasattr(self, "tree_"):
            raise LearnerNotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, y) first")

    def _rows(self, X):
        """``X`` as the IR reads it: DataFrames by column name (positionally when fitted
        without names), anything else as a 2-d array of ``n_features_in_`` columns."""
        self._check_fitted()
        named = hasattr(self, "feature_names_in_")
        if isinstance(X, pd.DataFrame):
            if named and all(isinstance(c, str) for c in X.columns):
                return X
            if named:
                warnings.warn(f"X has non-string column names, but {type(self).__name__} "
                              "was fitted with feature names; columns are taken by position",
                              UserWarning, stacklevel=3)
            elif all(isinstance(c, str) for c in X.columns):
                warnings.warn(f"X has feature names, but {type(self).__name__} was fitted "
                              "without feature names; columns are taken by position",
                              UserWarning, stacklevel=3)
            X = X.to_numpy()
        return check_rows(X, self.n_features_in_, type(self).__name__)

    def to_ir(self) -> DecisionTree:
        """The fitted tree as an :class:`xdt.ir.DecisionTree` (same as ``tree_``), ready for
        :class:`xdt.Explainer` and :func:`xdt.save_model`.

        Raises
        ------
        NotFittedError
        """
        self._check_fitted()
        return self.tree_

    def apply(self, X) -> np.ndarray:
        """Index of the leaf (in ``tree_.paths``) each row of ``X`` reaches; shape (n,), int64.

        Raises
        ------
        NotFittedError, InstanceError
            (shape, missing value, unknown category: see :meth:`xdt.ir.DecisionTree.encode`)
        """
        rows = self._rows(X)
        return self.tree_.leaf_paths(self.tree_.encode(rows))

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: the training weight share of each class at the row's leaf.

        Returns
        -------
        numpy.ndarray of shape (n, n_classes), float64, columns in ``classes_`` order.
        """
        leaf = self.apply(X)
        dist = getattr(self, "_leaf_distribution", None)  # from the scaled weights
        if dist is None:
            dist = self.leaf_class_weights_ / self.leaf_weights_[:, None]
        return dist[leaf]

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithm of :meth:`predict_proba` (``-inf`` for a class absent from the leaf)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def get_depth(self) -> int:
        """Largest number of tests on a root-to-leaf path of the fitted tree."""
        self._check_fitted()
        return self.tree_.depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        self._check_fitted()
        return self.tree_.n_leaves

    def predict(self, X) -> np.ndarray:
        """The predicted class of each row of ``X``; shape (n,), values from ``classes_``.

        Raises
        ------
        NotFittedError, InstanceError
        """
        self._check_fitted()
        return self.classes_[self.tree_._path_classes[self.apply(X)]]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags


@contextlib.contextmanager
def _no_gc():
    """Python's cyclic garbage collector paused (and restored) for the block."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _select_rows(data, keep: np.ndarray):
    from dataclasses import replace

    return replace(data, ordinal=data.ordinal[keep], codes=data.codes[keep])

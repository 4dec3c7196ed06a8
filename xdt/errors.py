"""The one hierarchy of xdt's exceptions.

Every error xdt raises on bad input derives from :class:`XdtError`, and also from the
built-in exception a Python user would expect (``ValueError``, ``LookupError``,
``TypeError``), so ``except ValueError`` keeps working. Messages say what was wrong and
what to do about it.

::

    XdtError
    ├── ModelError (ValueError)            a model or model file is not acceptable
    │   ├── ModelFormatError                 not an ``xdt-model/1`` document, malformed JSON,
    │   │   │                                  a malformed XGBoost/LightGBM file
    │   │   └── ModelSizeError                 a model file over the size limit (``max_bytes``)
    │   ├── UnsupportedModelError            a known model kind this version cannot use yet
    │   └── InvalidModelError                breaks a rule of the IR (names the node)
    │       ├── ValueOutsideDomainError
    │       ├── BranchCoverageError          branches overlap or do not cover the domain
    │       ├── UnknownNodeFeatureError      a node tests a feature the model lacks
    │       └── InvalidConstraintError       a background constraint is not acceptable
    │           ├── ConstraintFeatureError     it names a feature the model lacks
    │           ├── ConstraintValueError       it names a value outside a domain
    │           └── OrderingFeatureError       an ordering x <= y on a non-ordinal feature
    ├── UnknownFeatureError (LookupError)  a feature name the model does not have
    │   ├── UnknownNodeFeatureError          (also an InvalidModelError)
    │   ├── ConstraintFeatureError           (also an InvalidModelError)
    │   └── NoSelectorError (KeyError)       a CNF query has no selector for the name
    ├── InstanceError (ValueError)         an instance or data matrix is not acceptable
    │   ├── MissingFeatureError
    │   ├── UnknownCategoryError
    │   ├── MissingValueError                NaN / None / empty cell
    │   ├── ValueOutOfRangeError             infinite, or beyond the float32 range compared
    │   ├── InstanceShapeError               wrong length or number of columns
    │   └── ConstraintViolationError         violates a background constraint of the model
    ├── EstimatorError                     a scikit-learn estimator cannot be imported
    │   ├── NotFittedError (ValueError)
    │   └── UnsupportedEstimatorError (TypeError)
    ├── EngineError                        an explanation engine cannot serve a request
    │   ├── EngineNotAvailableError (ValueError)
    │   └── EngineClosedError (RuntimeError)   used after close, or its model is gone
    ├── CertificateError                   an explanation's certificate fails its re-check
    ├── NoExplanationError (LookupError)   no explanation of the kind asked meets the terms
    ├── DataError (ValueError)             a data file or table is not usable
    │   ├── FieldCountError                  a CSV line has more fields than the header
    │   ├── InvalidRowError                  a row of a batch run cannot be explained
    │   └── EmptyConditionError              no row of the data agrees with an instance
    ├── MissingFileError (FileNotFoundError)  no model or data file at the path given
    ├── OutputError (OSError)              an output file or folder cannot be written
    │   ├── OutputExistsError (FileExistsError)  it exists, and replacing it was not asked
    │   ├── OutputEncodingError (ValueError)     its text holds what UTF-8 cannot encode
    │   └── OutputLockedError                    another run is writing it
    ├── ParameterError (ValueError)        a parameter is out of its range or not of its form
    │   └── ParameterTypeError (TypeError)   a parameter of the wrong type
    ├── ComputationLimitError (RuntimeError)  an exact computation exceeds a limit set for it
    │   └── BruteForceLimitError (ValueError)  a brute-force check's space is over its limit
    └── InternalError (RuntimeError)       xdt broke a rule of its own: a bug, not bad input
"""

from __future__ import annotations

__all__ = [
    "BranchCoverageError", "BruteForceLimitError", "CertificateError",
    "ComputationLimitError", "ConstraintFeatureError", "ConstraintValueError",
    "ConstraintViolationError", "DataError", "EmptyConditionError", "EngineClosedError",
    "EngineError", "EngineNotAvailableError", "EstimatorError", "FieldCountError",
    "InstanceError", "InstanceShapeError", "InternalError", "InvalidConstraintError",
    "InvalidModelError", "InvalidRowError", "MissingFeatureError", "MissingFileError",
    "MissingValueError", "ModelError", "ModelFormatError", "ModelSizeError",
    "NoExplanationError", "NoSelectorError", "NotFittedError", "OrderingFeatureError",
    "OutputEncodingError", "OutputError", "OutputExistsError", "OutputLockedError",
    "ParameterError", "ParameterTypeError", "UnknownCategoryError", "UnknownFeatureError",
    "UnknownNodeFeatureError", "UnsupportedEstimatorError", "UnsupportedModelError",
    "ValueOutOfRangeError", "ValueOutsideDomainError", "XdtError",
]


class XdtError(Exception):
    """Base class of every error raised by xdt."""


class ModelError(XdtError, ValueError):
    """A model, or a model file, is not acceptable."""


class ModelFormatError(ModelError):
    """The document is not an ``xdt-model/1`` model (missing/unknown ``format``, bad JSON), or
    a model file of XGBoost or LightGBM breaks its library's format (a child index out of range
    or reached twice, a feature index past the feature count, a threshold that is not a finite
    number, counts the file cannot hold): xdt checks these files before the library reads
    them, as the libraries' own readers can crash the process on them. The message names the
    tree and node."""


class ModelSizeError(ModelFormatError):
    """A model file is larger than the limit its reader was given (``max_bytes`` of
    :func:`xdt.load_model`, :func:`xdt.from_xgboost`, :func:`xdt.from_lightgbm`; by default
    512 MiB, or the environment variable ``XDT_MAX_MODEL_BYTES``), checked before it is read.

    Attributes
    ----------
    size, limit : int
        The file's size and the limit, in bytes.
    """

    def __init__(self, message: str, size: int = 0, limit: int = 0):
        self.size = size
        self.limit = limit
        super().__init__(message)


class UnsupportedModelError(ModelError):
    """The model kind is known to the format but not supported by this version of xdt."""


class InvalidModelError(ModelError):
    """A model breaks a rule of the IR.

    ``where`` names the offending part, e.g. the node's path from the root.
    """

    def __init__(self, message: str, where: str | None = None):
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class ValueOutsideDomainError(InvalidModelError):
    """A split names a value that is not in the feature's domain."""


class BranchCoverageError(InvalidModelError):
    """The branches of a split overlap, or together do not cover the feature's domain."""


class UnknownFeatureError(XdtError, LookupError):
    """A feature name is not one of the model's features."""

    def __str__(self) -> str:  # LookupError would quote the message like a dict key
        return str(self.args[0]) if self.args else ""


class UnknownNodeFeatureError(InvalidModelError, UnknownFeatureError):
    """A tree node tests a feature that is not among the model's features."""


class InvalidConstraintError(InvalidModelError):
    """A background constraint of a model (:mod:`xdt.ir._constraints`) is not acceptable:
    unreadable text, an empty combination, a condition of the wrong form for its feature,
    or contradictory orderings. ``where`` names the constraint (``constraints[i]``)."""


class ConstraintFeatureError(InvalidConstraintError, UnknownFeatureError):
    """A background constraint names a feature that is not among the model's features."""


class ConstraintValueError(InvalidConstraintError, ValueOutsideDomainError):
    """A condition of a background constraint names a value outside its feature's domain."""


class OrderingFeatureError(InvalidConstraintError):
    """An ordering constraint (``x <= y``, ``x < y``) names a feature that is not ordinal
    (orderings compare numbers)."""


class NoSelectorError(UnknownFeatureError, KeyError):
    """A CNF query (:class:`xdt.explain.export.CnfQuery`) has no selector variable for a
    feature name: the name is not one of the query's candidate features (for a
    path-restricted query, the features of the instance's path). Also a ``KeyError``, as a
    lookup of the query's ``selectors`` by that name."""


class InstanceError(XdtError, ValueError):
    """An instance (or a matrix of instances) cannot be read against the model's features."""


class MissingFeatureError(InstanceError):
    """An instance lacks a value for one of the model's features."""


class UnknownCategoryError(InstanceError):
    """A categorical/binary value is not in the feature's domain."""


class MissingValueError(InstanceError):
    """A value is missing (NaN, None or an empty cell); xdt's models do not route missing values."""


class ValueOutOfRangeError(InstanceError):
    """A number lies outside the range the model compares: it is infinite, or, for a tree
    that compares float32 values (``input_dtype="float32"``, imported from scikit-learn), its
    magnitude is beyond float32's largest value, so it would become infinite as float32 (and
    scikit-learn's ``predict`` rejects it)."""


class InstanceShapeError(InstanceError):
    """A sequence or array has the wrong length or number of columns."""


class ConstraintViolationError(InstanceError):
    """The instance to explain violates a background constraint of the model: no explanation
    under the constraints is about it."""


class EstimatorError(XdtError):
    """A scikit-learn estimator cannot be turned into an xdt model."""


class NotFittedError(EstimatorError, ValueError):
    """The estimator has not been fitted."""


class UnsupportedEstimatorError(EstimatorError, TypeError):
    """The estimator is not a kind xdt can import (e.g. a regressor)."""


class EngineError(XdtError):
    """An explanation engine cannot serve the request."""


class EngineNotAvailableError(EngineError, ValueError):
    """The engine does not exist, or cannot explain this kind of model."""


class EngineClosedError(EngineError, RuntimeError):
    """An engine's resource was used after it ended: a SAT oracle after ``close()`` (or its
    Explainer's), or a SAT encoding whose model has been garbage-collected (the encoding
    keeps only a weak reference to it). Make a new oracle, or keep the model alive."""


class CertificateError(XdtError):
    """The certificate of an explanation does not check out against the model's ``predict``
    (see :func:`xdt.explain.checks.check_certificate`): a witness point is predicted
    the explained class or leaves its allowed cells, or the proof of entailment misses or
    mislabels a path. This is not bad input: it means an engine returned a wrong answer.

    Attributes
    ----------
    row : object
        The instance (or row label) whose explanation failed.
    reason : str
        What failed.
    """

    def __init__(self, message: str, row: object = None, reason: str | None = None):
        self.row = row
        self.reason = reason if reason is not None else message
        super().__init__(message)


class NoExplanationError(XdtError, LookupError):
    """No explanation of the kind asked exists under the terms given: e.g. no AXp avoids the
    excluded features, because fixing every other feature still admits another class.

    Attributes
    ----------
    counterexample : dict or None
        A point (feature name -> value) showing it: it agrees with the instance on every
        feature the explanation could use and is predicted ``counterexample_class``.
    counterexample_class : str, int or None
    """

    def __init__(self, message: str, counterexample: dict | None = None,
                 counterexample_class: object = None):
        self.counterexample = counterexample
        self.counterexample_class = counterexample_class
        super().__init__(message)


class DataError(XdtError, ValueError):
    """A data file or table cannot be used as asked (missing target column, empty, ...)."""


class FieldCountError(DataError):
    """A line of a CSV file has more fields than its header (an unquoted delimiter in a
    value, or one at the end of the line), so its values cannot be matched to the columns.

    Attributes
    ----------
    path : str
        The file.
    line : int
        The line, 1-based as a text editor counts (the header is line 1; a quoted value over
        several lines counts them all); the first line of the record when it spans several.
    fields, header_fields : int
        The number of fields of that line and of the header.
    """

    def __init__(self, message: str, path: str = "", line: int = 0, fields: int = 0,
                 header_fields: int = 0):
        self.path = path
        self.line = line
        self.fields = fields
        self.header_fields = header_fields
        super().__init__(message)



class InvalidRowError(DataError):
    """A row of a batch run (:mod:`xdt.run`) cannot be explained: one of its values is not
    acceptable to the model (an unknown category, a missing value, text for a number), and
    the run was not asked to skip such rows. The run stopped; what it wrote is complete.

    Attributes
    ----------
    row : object
        The row's label (its index label, or its 0-based position in the files).
    reason : str
        What is wrong with it (the :class:`InstanceError` message).
    written : int
        Rows written before the run stopped.
    outputs : list of str
        The files holding them.
    failed : list of int
        Dask partitions that stopped at a bad row and wrote no file (empty on one process).
    detail : str
        The message without its closing advice (to skip such rows, ``on_invalid="skip"``).
    """

    def __init__(self, detail: str, *, row: object, reason: str, written: int,
                 outputs: list[str], failed: list[int] | None = None,
                 advice: str = 'fix the row, or skip invalid rows with on_invalid="skip"'):
        self.row, self.reason, self.written = row, reason, written
        self.outputs, self.failed = list(outputs), list(failed or [])
        self.detail = detail
        super().__init__(f"{detail}; {advice}")


class EmptyConditionError(DataError):
    """No row of a dataset lies in an instance's cells on a set of features, so a probability
    conditioned on them under the dataset's empirical distribution (the precision of a
    delta-AXp, :mod:`xdt.explain.queries._probability`) is undefined.

    Attributes
    ----------
    features : tuple of str
        The features of the condition.
    """

    def __init__(self, message: str, features: tuple = ()):
        self.features = tuple(features)
        super().__init__(message)


class MissingFileError(XdtError, FileNotFoundError):
    """No file exists at a path given to read: a model file (:func:`xdt.ir.load_model`, the
    XGBoost and LightGBM importers) or a data file (the commands' ``--data``, the files of
    :func:`xdt.run.explain_dask`). Also a ``FileNotFoundError``. ``path`` is that path."""

    def __init__(self, message: str, path: object = None):
        self.path = path
        super().__init__(message)


class OutputError(XdtError, OSError):
    """An output file or folder cannot be written: its folder does not exist, a file stands
    where a folder is needed, permission is denied, the disk is full, it is an input of the
    same run... The message names the path and what to do. ``path`` is the path that could
    not be written. When a batch run (:mod:`xdt.run`) stopped on it, ``written`` is the
    number of rows whose records are on disk, complete, in the files ``outputs``."""

    def __init__(self, message: str, path: object = None, *, written: int = 0,
                 outputs: list[str] | None = None):
        self.path = path
        self.written = written
        self.outputs = list(outputs or [])
        super().__init__(message)


class OutputExistsError(OutputError, FileExistsError):
    """An output file (or a folder's partition files) exists, and replacing it was not asked
    (``overwrite=True``; ``--force`` on the command line). ``existing`` lists the files;
    ``detail`` is the message without its closing advice."""

    def __init__(self, detail: str, path: object = None, existing: list[str] | None = None,
                 advice: str = "pass overwrite=True to replace it, or choose another path"):
        self.existing = list(existing or [])
        self.detail = detail
        super().__init__(f"{detail}; {advice}", path)


class OutputEncodingError(OutputError, ValueError):
    """The text to write holds a character that UTF-8 cannot encode (a lone surrogate such
    as ``"\\ud800"`` in a feature name read from a file that was not valid Unicode); nothing
    was written. Also a ``ValueError``."""


class OutputLockedError(OutputError):
    """Another run is writing the same output (it holds the lock file beside it). ``holder``
    is what the lock file says of that run: ``pid``, ``host``, ``started``."""

    def __init__(self, message: str, path: object = None, holder: dict | None = None):
        self.holder = dict(holder or {})
        super().__init__(message, path)


class ParameterError(XdtError, ValueError):
    """A parameter is out of its range or not of its form: a learner's (e.g.
    ``max_depth=-1``; raised by ``fit``, as scikit-learn validates parameters), an
    Explainer method's (a limit out of range, ``max_count=0``, ``time_limit=-1``; a
    ``what`` naming no known output), or any other function's (an ``against`` class that is
    not another class, cell sets that do not entail the prediction where they must)."""


class ParameterTypeError(ParameterError, TypeError):
    """A parameter is not of a type the function takes (e.g. ``data`` that is neither a Dask
    DataFrame nor a path). Also a ``TypeError``."""


class ComputationLimitError(XdtError, RuntimeError):
    """An exact computation would exceed, or has exceeded, a limit the caller set (the size of
    the space it must enumerate, its amount of work, or its time), so it stopped without an
    answer. Raise the limit, or use a smaller model.

    Attributes
    ----------
    limit : str
        The name of the parameter whose limit was hit, e.g. ``"max_points"``,
        ``"max_work"``, ``"max_edges"`` or ``"time_limit"``.
    """

    def __init__(self, message: str, limit: str | None = None):
        self.limit = limit
        super().__init__(message)


class BruteForceLimitError(ComputationLimitError, ValueError):
    """A brute-force check (:mod:`xdt.explain.checks._verify`) would enumerate more than its limit:
    the points of a box or of the cell space (``limit="max_points"``,
    :data:`~xdt.explain.checks._verify.MAX_POINTS` by default), or the subsets of too many
    candidate features (``limit="MAX_CANDIDATES"``). Check with the polynomial or SAT-based
    checks instead, or use a smaller model. Also a ``ValueError``, as these checks have
    always raised."""


class InternalError(XdtError, RuntimeError):
    """xdt broke a rule of its own, or a solver it calls returned an answer that does not
    check out: a bug, not bad input (e.g. a tree that disagrees with the estimator it was
    read from, or a hitting set from HiGHS that misses a set). Please report it with the
    message."""

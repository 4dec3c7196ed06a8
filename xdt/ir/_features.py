"""Features and feature spaces.

A feature has a *kind*:

* ``binary`` — domain ``(0, 1)``;
* ``categorical`` — a finite, unordered domain of JSON scalars (strings or numbers);
* ``ordinal`` — real numbers, compared only through thresholds ``x <= t``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdt.errors import InvalidModelError, UnknownFeatureError

FEATURE_KINDS = ("binary", "categorical", "ordinal")
BINARY_DOMAIN = (0, 1)


def _is_scalar(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str | int):
        return True
    return isinstance(value, float) and math.isfinite(value)


@dataclass(frozen=True)
class Feature:
    """One input feature of a model.

    Parameters
    ----------
    name : str
        Unique name of the feature (a column name).
    kind : {"binary", "categorical", "ordinal"}
    domain : sequence of str/int/float, optional
        Required for categorical features (distinct values, in the order shown to users);
        implicitly ``(0, 1)`` for binary features; not allowed for ordinal features.

    Raises
    ------
    InvalidModelError
        On an unknown kind, or a missing, empty, repeated or ill-typed domain.
    """

    name: str
    kind: str
    domain: tuple | None = None
    # Whether a binary feature's (fixed) domain was written out, to round-trip JSON exactly.
    explicit_domain: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        where = f"feature {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise InvalidModelError("a feature name must be a non-empty string", where)
        if self.kind not in FEATURE_KINDS:
            raise InvalidModelError(
                f"unknown kind {self.kind!r}; use one of {', '.join(FEATURE_KINDS)}", where
            )
        if self.kind == "ordinal":
            if self.domain is not None:
                raise InvalidModelError(
                    "an ordinal feature has no domain (its cells come from the thresholds); "
                    "drop 'domain' or make the feature categorical", where)
            return
        if self.kind == "binary":
            if self.domain is not None and tuple(self.domain) != BINARY_DOMAIN:
                raise InvalidModelError(
                    f"a binary feature's domain is [0, 1], not {list(self.domain)}; "
                    "use kind 'categorical' for other values", where)
            object.__setattr__(self, "explicit_domain", self.domain is not None)
            object.__setattr__(self, "domain", BINARY_DOMAIN)
            return
        if self.domain is None or len(self.domain) == 0:
            raise InvalidModelError("a categorical feature needs a non-empty 'domain'", where)
        domain = tuple(self.domain)
        if not set(map(type, domain)) <= {str, int}:  # else all scalar, at C speed
            bad = [v for v in domain if not _is_scalar(v)]
            if bad:
                raise InvalidModelError(
                    f"domain values must be strings or finite numbers, got {bad[0]!r}", where)
        if len(dict.fromkeys(domain)) == len(domain):  # no value repeated
            object.__setattr__(self, "domain", domain)
            return
        seen: dict = {}
        for v in domain:
            if v in seen:
                raise InvalidModelError(f"domain value {v!r} is repeated", where)
            seen[v] = True
        object.__setattr__(self, "domain", domain)

    @property
    def is_ordinal(self) -> bool:
        """Whether the feature is ordinal (split by thresholds, cells are intervals)."""
        return self.kind == "ordinal"

    def to_dict(self) -> dict:
        """The feature as in the ``features`` list of an ``xdt-model/1`` document."""
        out: dict = {"name": self.name, "kind": self.kind}
        if self.kind == "categorical" or (self.kind == "binary" and self.explicit_domain):
            out["domain"] = list(self.domain)
        return out


class FeatureSpace(Sequence):
    """An ordered collection of uniquely named features.

    Indexing by position gives a :class:`Feature`; :meth:`index` maps a name to its position.
    """

    def __init__(self, features: Iterable[Feature]):
        self._features = tuple(features)
        self._index: dict[str, int] = {}
        for i, f in enumerate(self._features):
            if not isinstance(f, Feature):
                raise InvalidModelError(f"features must be Feature objects, got {f!r}")
            if f.name in self._index:
                raise InvalidModelError(f"feature name {f.name!r} is used twice")
            self._index[f.name] = i
        self._names = tuple(self._index)
        self._read_cache: dict = {}

    @property
    def read_cache(self) -> dict:
        """What the instance reader (:mod:`xdt.ir._instances`) keeps between calls for this
        feature space: the last index of a Series or DataFrame it read and where each
        feature is in it. Not pickled."""
        cache = self.__dict__.get("_read_cache")
        if cache is None:  # a feature space unpickled without it
            cache = self.__dict__["_read_cache"] = {}
        return cache

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_read_cache", None)
        return state

    def __getitem__(self, i):
        """The feature at position ``i``, or the feature named ``i`` when ``i`` is a string."""
        if isinstance(i, str):
            return self._features[self.index(i)]
        return self._features[i]

    def __len__(self) -> int:
        return len(self._features)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FeatureSpace) and self._features == other._features

    def __hash__(self) -> int:
        return hash(self._features)

    def __repr__(self) -> str:
        return f"FeatureSpace({[f.name for f in self._features]})"

    @property
    def names(self) -> tuple[str, ...]:
        """Feature names, in feature order."""
        return self._names

    def index(self, name: str) -> int:  # type: ignore[override]
        """Position of the feature called ``name``; raises :class:`UnknownFeatureError`."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise UnknownFeatureError(
                f"unknown feature {name!r}; the model's features are: "
                f"{', '.join(self.names)}") from None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._index


def check_classes(classes: tuple) -> None:
    """Raise :class:`InvalidModelError` unless ``classes`` is a non-empty list of distinct
    string or integer labels (bools are not labels)."""
    if len(classes) == 0:
        raise InvalidModelError("'classes' is empty; list the class labels")
    seen: dict = {}
    for c in classes:
        if isinstance(c, bool) or not isinstance(c, str | int):
            raise InvalidModelError(f"class labels must be strings or integers, got {c!r}")
        if c in seen:
            raise InvalidModelError(f"class label {c!r} is listed twice in 'classes'")
        seen[c] = True
    shown: dict[str, object] = {}
    for c in classes:
        if str(c) in shown:
            raise InvalidModelError(
                f"class labels {shown[str(c)]!r} and {c!r} print alike, so rules and "
                "explanations could not tell them apart; rename one")
        shown[str(c)] = c

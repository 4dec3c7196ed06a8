"""One SAT encoding per model object, shared by every explainer and instance of that model.

The cache holds each model weakly: when a model is garbage-collected its encoding is dropped
and its solvers released. Trees, DNFs and decision lists get a
:class:`~xdt.explain.engines.ModelEncoding`; tree ensembles an
:class:`~xdt.explain.engines.EnsembleEncoding`.
"""

from __future__ import annotations

import threading
import weakref

from xdt.explain._models import Model
from xdt.explain.engines._registry import encoding_class
from xdt.explain.engines._sat import ModelEncoding, _release_all

__all__ = ["release_solvers", "shared_encoding"]

_SHARED: dict[int, ModelEncoding] = {}
_SHARED_LOCK = threading.Lock()


def shared_encoding(model: Model) -> ModelEncoding:
    """The one :class:`ModelEncoding` of ``model`` (this model object), made on first use.

    A tree ensemble's leaf clauses are not built here but by the first query that needs
    them, under its deadline, and resumed by the next one when that deadline stops them
    (:meth:`~xdt.explain.engines.EnsembleEncoding.build`), so making it is cheap.

    Every :class:`~xdt.Explainer` of the model, and every instance, uses it and its solvers.
    The cache holds the model weakly: when the model is garbage-collected its encoding is
    dropped and its solvers are released. :func:`release_solvers` releases them earlier.

    Raises
    ------
    UnsupportedModelError
        For a model the encoder does not know.
    """
    key = id(model)
    enc = _SHARED.get(key)
    if enc is not None and enc._ref() is model:
        return enc
    with _SHARED_LOCK:  # one encoding per model, even when two threads ask at once
        enc = _SHARED.get(key)
        if enc is None or enc._ref() is not model:
            enc = encoding_class(model)(model, lazy=True)  # built by the first query
            enc._held = None  # the cache must not keep the model alive
            _SHARED[key] = enc
            weakref.finalize(model, _forget, key, enc)
    return enc


def _forget(key: int, enc: ModelEncoding) -> None:
    """The model of ``enc`` was garbage-collected: drop its encoding, release its solvers.

    Garbage collection may run this inside any call, :func:`shared_encoding` included, so it
    takes no lock. No other object can have the dead model's ``id`` while its finalisers
    run (its memory is not freed yet), so the entry checked is the one removed."""
    if _SHARED.get(key) is enc:
        _SHARED.pop(key, None)
    _release_all(enc._solvers, wait=False)


def release_solvers(model: Model) -> None:
    """Release the SAT solvers the model's shared encoding holds (see
    :func:`shared_encoding`); a later query starts them again. A no-op when the SAT engine
    never explained this model."""
    enc = _SHARED.get(id(model))
    if enc is not None and enc._ref() is model:
        enc.release()

"""``njit`` for every compiled kernel of xdt: ``numba.njit`` whose disk cache falls back to
compiling once per process where no folder is writable; and the uint64 bit helpers the
bitset kernels share (:func:`popcount`, :func:`lowest_bit`).

With ``cache=True`` numba keeps compiled kernels beside their module (or in the user cache
folder), so they are compiled once per machine. Where neither is writable (a read-only
install and home folder, e.g. a container run as an unprivileged user) numba refuses to
compile; the kernels are then compiled without a disk cache, and one warning, for all of
xdt's kernels, says how to keep them (``NUMBA_CACHE_DIR``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numba
import numpy as np

_CACHE_ON_DISK = True
"""Whether numba keeps the compiled kernels on disk; False once it found no writable folder
for them."""


def njit(**options):
    """``numba.njit(**options)`` with the fallback of the module docstring."""
    def wrap(func):
        global _CACHE_ON_DISK
        if options.get("cache") and _CACHE_ON_DISK:
            try:
                return numba.njit(**options)(func)
            except RuntimeError as e:  # numba's "cannot cache function ...: no locator"
                if "no locator available" not in str(e):
                    raise
                _CACHE_ON_DISK = False
                warnings.warn(
                    "numba found no writable folder to cache xdt's compiled kernels in "
                    f"(beside the package in {Path(__file__).parent} or in the user cache "
                    "folder), so they are compiled again in every process (several seconds "
                    "of CPU on first use); set NUMBA_CACHE_DIR to a writable folder to keep "
                    "them", RuntimeWarning, stacklevel=2)
        return numba.njit(**{**options, "cache": False})(func)
    return wrap


ONE = np.uint64(1)
ZERO = np.uint64(0)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a uint64 (the SWAR count: no CPU instruction is assumed)."""
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@njit(cache=True, inline="always")
def lowest_bit(x):
    """Position of the lowest set bit of a non-zero uint64."""
    return np.int64(popcount((x & (~x + ONE)) - ONE))

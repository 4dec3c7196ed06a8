"""``njit`` for every compiled kernel of xdt: ``numba.njit`` whose disk cache falls back to
compiling once per process where no folder is writable; the uint64 bit helpers the
bitset kernels share (:func:`popcount`, :func:`lowest_bit`); and :func:`clock_ns`, the clock a
kernel reads to stop at a deadline.

With ``cache=True`` numba keeps compiled kernels beside their module (or in the user cache
folder), so they are compiled once per machine. Where neither is writable (a read-only
install and home folder, e.g. a container run as an unprivileged user) numba refuses to
compile; the kernels are then compiled without a disk cache, and one warning, for all of
xdt's kernels, says how to keep them (``NUMBA_CACHE_DIR``).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

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


_HAS_CLOCK_GETTIME = sys.platform != "win32"


@intrinsic
def _clock_gettime_ns(typingctx, clock_id):
    """``clock_gettime(clock_id)`` in nanoseconds, as an int64 (0 where the C library has no
    ``clock_gettime``). Reads a ``struct timespec`` of two 64-bit fields (LP64)."""
    sig = numba.types.int64(clock_id)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        if not _HAS_CLOCK_GETTIME:
            return ir.Constant(i64, 0)
        i32 = ir.IntType(32)
        timespec = ir.LiteralStructType([i64, i64])
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(i32, [i32, timespec.as_pointer()]),
            "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [builder.trunc(args[0], i32), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return sig, codegen


@njit(cache=True, inline="always")
def clock_ns(clock_id):
    """The clock ``clock_id`` (``time.CLOCK_MONOTONIC``: the reading of
    ``time.clock_gettime_ns(time.CLOCK_MONOTONIC)``) in nanoseconds; 0 for ``clock_id < 0``
    (no clock: :data:`xdt.explain.engines._deadline.KERNEL_CLOCK`). A vDSO call on Linux, a
    few tens of nanoseconds."""
    if clock_id < 0:
        return np.int64(0)
    return _clock_gettime_ns(np.int64(clock_id))

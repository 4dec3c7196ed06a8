"""Whole tables: chunked runs on one process, partitioned runs on a Dask cluster.

Both functions run the batch path-walker (:meth:`xdt.Explainer.explain_batch`: one AXp and
all CXps per row of a decision tree) and write one record per row, so the answers are the
same whichever is used:

* :func:`explain_table` explains a table in chunks of rows on this process and appends each
  chunk to a JSON lines file (or writes it as one Parquet file of a directory) as soon as it
  is done, with a progress bar. Interrupted (Ctrl-C), it leaves only complete records: the
  rows explained so far.
* :func:`explain_dask` explains a Dask DataFrame, or CSV/Parquet files read with Dask,
  partition by partition on a ``distributed`` cluster, and writes one file per partition.

A record holds ``row`` (the row's index label in the input; for files, its 0-based
position over all the files), ``prediction``, ``axp`` and ``axp_size`` (with ``"axp"`` in
``what``), ``cxps`` and ``n_cxps`` (with ``"cxps"``)::

    {"row": 0, "prediction": "good", "axp": ["checking_status", "duration"], "axp_size": 2,
     "cxps": [["duration"], ["checking_status", "age"]], "n_cxps": 2}

A row the model cannot read (an unknown category, a missing value, text for a number)
stops the run with :class:`~xdt.errors.InvalidRowError`, which names the row and says what
was written before it and where. With ``on_invalid="skip"`` such rows are left out and
written, with their reason, to a side file of JSON lines, by default ``OUT.invalid.jsonl``
next to the output ``OUT.jsonl`` (or ``OUT/``; see :func:`default_invalid_output`)::

    {"row": 150000, "reason": "feature 'purpose' has value 'spaceship', which is not in its
     domain [...]; map it to one of these values", "values": {"checking_status": "<0", ...}}

An output that exists (a file, or a folder's ``part-*`` files, or the side file) is not
replaced unless ``overwrite=True``: :class:`~xdt.errors.OutputExistsError`. A path that
cannot be written raises :class:`~xdt.errors.OutputError` saying why and what to do.

Dask is optional: ``pip install "xdt[dask]"``. Without it :func:`explain_dask` raises
:class:`DaskNotInstalledError`; Parquet output needs pyarrow (which ``xdt[dask]`` brings).
"""

from xdt.run._chunked import explain_table
from xdt.run._distributed import explain_dask, local_cluster, read_dask, read_outputs
from xdt.run._records import (
    DEFAULT_CHUNK_ROWS,
    BatchInterrupted,
    BatchSummary,
    DaskNotInstalledError,
    default_invalid_output,
)

__all__ = ["DEFAULT_CHUNK_ROWS", "BatchInterrupted", "BatchSummary", "DaskNotInstalledError",
           "default_invalid_output", "explain_dask", "explain_table", "local_cluster",
           "read_dask", "read_outputs"]

"""Whole tables: one function explains many rows, and every row gets one record.

:func:`explain_table` explains a table in memory, chunk by chunk to files, or partition by
partition on a Dask cluster (chosen by its arguments: ``output``, a Dask DataFrame, files,
``client``), with the batch path-walker (:meth:`xdt.Explainer.explain_batch`: one AXp and
all CXps per row of a decision tree) or row by row with an :class:`~xdt.explain.Explainer`
(``engine=``, ``options=``: any model, certificates, enumerations, the user's terms).
:func:`explain_dask`, ``xdt explain`` (row by row, ``--batch``, ``--workers``,
``--scheduler``) and the HTML report (:func:`xdt.report._html.explain_rows`) call it:

* in memory it returns the records as a DataFrame;
* with ``output`` it appends each chunk to a JSON lines file (or writes it as one Parquet
  file of a folder) as soon as it is done, with a progress bar; interrupted (Ctrl-C), it
  leaves only complete records: the rows explained so far;
* given a stream of chunks (:func:`read_chunks` of a CSV file) it reads, explains, writes
  and drops one chunk at a time, so that memory does not grow with the file's length;
* on Dask it explains a Dask DataFrame, or CSV/Parquet files read with Dask, on a
  ``distributed`` cluster, and writes one file per partition.

Every record is built by :func:`explanation_record` and follows the schema
``xdt-explanation/1`` (``encodings/xdt-explanation-1.schema.json``; ``format`` names it):
``row`` (the row's index label in the input; for files, its 0-based position over all the
files), ``prediction``, ``axp`` and ``axp_size``, ``cxps`` and ``n_cxps``, each explanation
an object with its ``features`` (the batch path-walker writes ``kind`` and ``features``; the
per-row engines the whole :meth:`~xdt.explain.Explanation.to_dict`)::

    {"format": "xdt-explanation/1", "row": 0, "prediction": "good",
     "axp": {"kind": "AXp", "features": ["checking_status", "duration"]}, "axp_size": 2,
     "cxps": [{"kind": "CXp", "features": ["duration"]},
              {"kind": "CXp", "features": ["checking_status", "age"]}], "n_cxps": 2}

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

Dask is optional: ``pip install "xdt[dask]"``. Without it a Dask run raises
:class:`DaskNotInstalledError`; Parquet output needs pyarrow (which ``xdt[dask]`` brings).
"""

from xdt.run._distributed import local_cluster, read_dask, read_outputs
from xdt.run._instance import ExplainInterrupted, InstanceExplanation, explain_instance
from xdt.run._record import (
    RECORD_FORMAT,
    explanation_object,
    explanation_record,
    explanation_records,
)
from xdt.run._records import (
    DEFAULT_CHUNK_ROWS,
    BatchInterrupted,
    BatchSummary,
    DaskNotInstalledError,
    default_invalid_output,
)
from xdt.run._table import explain_dask, explain_table, read_chunks

__all__ = ["DEFAULT_CHUNK_ROWS", "RECORD_FORMAT", "BatchInterrupted", "BatchSummary",
           "DaskNotInstalledError", "ExplainInterrupted", "InstanceExplanation",
           "default_invalid_output", "explain_dask", "explain_instance", "explain_table",
           "explanation_object", "explanation_record", "explanation_records", "local_cluster",
           "read_chunks", "read_dask", "read_outputs"]

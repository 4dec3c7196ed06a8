"""The ``xdt`` command line, one module per subcommand.

The group is :mod:`xdt.cli._app`, the helpers the commands share are in :mod:`xdt.cli._common`,
and the demo's job is :mod:`xdt.cli._demo_job`.

::

    xdt fit DATA.csv --target COL [-o MODEL.json]   learn a tree (CART, SER-DT), measure, save
    xdt explain MODEL.json --instance '{...}'       explain one prediction (AXp, CXps)
    xdt explain MODEL.json --data DATA.csv          explain many rows (text or JSON lines)
    xdt encode MODEL.json --instance '{...}' -o Q.cnf  the SAT query of one instance (DIMACS)
    xdt crosscheck MODEL.json --data DATA.csv       path engine vs SAT engine, row by row
    xdt redundancy MODEL.json [--data DATA.csv -t COL]  redundant paths (Izza et al. Table 1)
    xdt cluster DATA.csv -t COL --positive VALUE    supervised clusters of one class as rules
    xdt import FILE --from xgboost|lightgbm -o MODEL.json  a boosted model as an xdt model
    xdt report MODEL.json --data DATA.csv -o R.html  an HTML audit report of the rows
    xdt demo                                        the whole job on a shipped dataset

Errors of the user's making (a missing file, an unknown feature, a NaN, a malformed model)
end with the message of the :mod:`xdt.errors` exception and a non-zero exit code, never a
traceback: every command catches :class:`~xdt.errors.XdtError` at its boundary
(:func:`xdt.cli._common.cli_errors`). The command modules import numpy, pandas, the engines
and the learners inside the commands, so that ``xdt --help`` starts without them.
"""

from xdt.cli import (  # noqa: F401  (importing a command module registers its command)
    _cluster,
    _crosscheck,
    _demo,
    _encode,
    _explain,
    _fit,
    _import_model,
    _redundancy,
    _report,
)
from xdt.cli._app import main

__all__ = ["main"]

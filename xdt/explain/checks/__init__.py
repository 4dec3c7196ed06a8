"""Checks of the answers, independent of the engine that gave them.

* :mod:`~xdt.explain.checks._certificates` — the evidence attached to each explanation and its
  check against the model's own ``predict``;
* :mod:`~xdt.explain.checks._verify` — brute force over small cell spaces, counterexample search
  in boxes, reference answers;
* :mod:`~xdt.explain.checks._crosscheck` — every engine against the other on the rows of a table;
* :mod:`~xdt.explain.checks._optimality` — certificates that a smallest or cheapest explanation
  is optimal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdt._lazy import lazy_names

if TYPE_CHECKING:  # what type checkers and the API reference see; at run time, lazy_names
    from xdt.explain.checks._certificates import (
        AxpCertificate,
        CxpCertificate,
        check_certificate,
        check_certificates,
    )
    from xdt.explain.checks._crosscheck import (
        CrosscheckReport,
        EnsembleCrosscheckReport,
        crosscheck,
        crosscheck_ensemble,
        crosscheck_rules,
    )
    from xdt.explain.checks._optimality import OptimalityCertificate
    from xdt.explain.checks._verify import (
        AxpCheck,
        BruteForce,
        brute_force,
        brute_force_axps,
        brute_force_cxps,
        check_axp,
    )

#: Public name -> the module it comes from, imported on first access.
_WHERE = {
    "AxpCertificate": "xdt.explain.checks._certificates",
    "AxpCheck": "xdt.explain.checks._verify",
    "BruteForce": "xdt.explain.checks._verify",
    "CrosscheckReport": "xdt.explain.checks._crosscheck",
    "CxpCertificate": "xdt.explain.checks._certificates",
    "EnsembleCrosscheckReport": "xdt.explain.checks._crosscheck",
    "OptimalityCertificate": "xdt.explain.checks._optimality",
    "brute_force": "xdt.explain.checks._verify",
    "brute_force_axps": "xdt.explain.checks._verify",
    "brute_force_cxps": "xdt.explain.checks._verify",
    "check_axp": "xdt.explain.checks._verify",
    "check_certificate": "xdt.explain.checks._certificates",
    "check_certificates": "xdt.explain.checks._certificates",
    "crosscheck": "xdt.explain.checks._crosscheck",
    "crosscheck_ensemble": "xdt.explain.checks._crosscheck",
    "crosscheck_rules": "xdt.explain.checks._crosscheck",
}

__all__ = [
    "AxpCertificate", "AxpCheck", "BruteForce", "CrosscheckReport", "CxpCertificate",
    "EnsembleCrosscheckReport", "OptimalityCertificate", "brute_force",
    "brute_force_axps", "brute_force_cxps", "check_axp", "check_certificate",
    "check_certificates", "crosscheck", "crosscheck_ensemble", "crosscheck_rules",
]

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

"""Reference implementations the tests compare the package's compiled kernels with: slow,
obviously right, and not shipped.

The package ships one implementation of each algorithm, the compiled one. The ones kept here
are the earlier numpy/Python formulations of the same algorithms, written for clarity rather
than speed; a test runs both on the same input and asserts the same answer.

* :mod:`reference.splitter`, :mod:`reference.criteria`, :mod:`reference.grow`,
  :mod:`reference.learners` -- CART and SER-DT grown node by node by the vectorised numpy
  splitter, against the growth kernel of :mod:`xdt.learn.growth` (``tests/test_growth_kernel.py``,
  ``tests/test_learn.py``).

The tests import it as ``reference`` (pytest puts ``tests/`` on ``sys.path``).
"""

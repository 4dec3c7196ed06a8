"""Reference implementations the tests compare the package's compiled kernels with: slow,
obviously right, and not shipped.

The package ships one implementation of each algorithm, the compiled one. The ones kept here
are the earlier numpy/Python formulations of the same algorithms, written for clarity rather
than speed; a test runs both on the same input and asserts the same answer.

* :mod:`reference.splitter`, :mod:`reference.criteria`, :mod:`reference.grow`,
  :mod:`reference.learners` -- CART and SER-DT grown node by node by the vectorised numpy
  splitter, against the growth kernel of :mod:`xdt.learn._growth` (``tests/test_growth_kernel.py``,
  ``tests/test_learn.py``).
* :mod:`reference.batch` -- the batch path-walker as (rows x paths) numpy matrices of one-word
  masks, against the kernels of :mod:`xdt.explain.engines._vectorised` (``tests/test_kernels.py``,
  ``tests/test_batch.py``).
* :mod:`reference.cluster` -- a supervised-clustering round's training rows taken from the
  table, then adapted and transformed, against the views' one reading per fit
  (``tests/test_cluster_fast.py``).

The tests import it as ``reference`` (pytest puts ``tests/`` on ``sys.path``).
"""

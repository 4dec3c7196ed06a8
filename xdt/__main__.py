"""``python -m xdt``: the same as the ``xdt`` command (see :mod:`xdt.cli`)."""

from xdt.cli import main

if __name__ == "__main__":
    main(prog_name="xdt")

"""Running the ``xdt`` command in process, and what a clean failure of it looks like."""

from __future__ import annotations

from click.testing import CliRunner, Result

from xdt.cli import main


def run(*args: str) -> Result:
    """``xdt ARGS`` through click's runner (standard error kept apart in ``result.stderr``)."""
    return CliRunner().invoke(main, list(args))


def assert_clean_failure(result: Result, *fragments: str) -> None:
    """Non-zero exit, no traceback nor click's "Aborted!", and each fragment in the message on
    standard error."""
    assert result.exit_code not in (0, None), result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and "Aborted!" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr

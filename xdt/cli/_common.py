"""What the commands share: error handling at the boundary, reading CSV files and instances,
row ranges, option types, wrapping rules to the terminal, the explanations of one instance."""

from __future__ import annotations

import functools
import json
import shutil
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from xdt.errors import (
    DataError,
    InstanceError,
    MissingFileError,
    XdtError,
)

# numpy, pandas, the engines and the learners are imported inside the command, so that
# `xdt --help` (and every command's --help) starts without them
if TYPE_CHECKING:
    import pandas as pd

    from xdt.explain import Explainer
    from xdt.explain._models import Model


F = TypeVar("F", bound=Callable[..., Any])


#: Rows above which ``xdt explain`` shows a progress bar (unless ``--quiet``).
PROGRESS_MIN_ROWS = 20

#: Seconds each row of ``xdt report`` and of ``xdt explain --data`` (row by row) may spend
#: listing explanations unless ``--time-limit`` says otherwise: a tree lists all its CXps in
#: milliseconds, while a forest of 100 depth-6 trees can take minutes for one row; 10 s
#: lets a forest list its first CXps and keeps a 30-row report within about 5 minutes.
DEFAULT_ROW_TIME_LIMIT = 10.0

#: Words of ``--time-limit`` meaning "no limit".
NO_LIMIT_WORDS = ("none", "off", "no")


# ---------------------------------------------------------------------- safe output
def _escape_table(json_style: bool) -> dict[int, str]:
    """Code point -> visible escape, for the characters a terminal acts on: the C0
    controls but tab and line feed, DEL, the C1 controls (CSI, OSC, ... in 8-bit form),
    the bidirectional overrides and isolates, and the Unicode line and paragraph
    separators. ``json_style``: every one as ``\\uXXXX`` (an escape valid in a JSON
    string), else ``\\xNN`` below 256."""
    points = [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F,
              *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]
    keep = () if json_style else (0x09, 0x0A)
    return {c: (f"\\u{c:04x}" if json_style or c > 0xFF else f"\\x{c:02x}")
            for c in points if c not in keep}


_TERMINAL = _escape_table(json_style=False)
_JSON = {c: e for c, e in _escape_table(json_style=True).items() if c >= 0x7F}


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on written as a visible escape
    (``\\x1b``, ``\\x07``, ``\\u202e``), tab and line feed kept: what ``xdt`` prints of
    names and values read from files (feature names, classes, categories, file names)
    cannot set the window title, clear the screen or reorder the line.

    >>> terminal_safe("age\\x1b]0;pwned\\x07 \\x1b[2J")
    'age\\\\x1b]0;pwned\\\\x07 \\\\x1b[2J'
    """
    return text.translate(_TERMINAL)


def json_safe(text: str) -> str:
    """JSON text (of :func:`json.dumps`, whose strings already escape the C0 controls) with
    DEL, the C1 controls, the bidirectional controls and the line separators written as
    ``\\uXXXX`` escapes: the same JSON value, safe to print to a terminal."""
    return text.translate(_JSON)


def echo(message: object = "", err: bool = False, nl: bool = True) -> None:
    """:func:`click.echo` of ``message`` made :func:`terminal_safe`: how every command
    prints."""
    click.echo(terminal_safe(str(message)), err=err, nl=nl)


def load_model(path: str | Path) -> Model:
    """:func:`xdt.load_model` of ``path`` for a command that prints the model's names.

    Raises
    ------
    ModelFormatError
        Besides :func:`xdt.load_model`'s errors: a name holds a line feed
        (:func:`check_one_line_names`).
    """
    import xdt

    return check_one_line_names(xdt.load_model(path), path)


def check_one_line_names(model: Model, source: object) -> Model:
    """``model``, checked for names a command can print on its lines: every control
    character is printed as an escape (:func:`terminal_safe`), but line feeds are how the
    commands lay out their output, so a name holding one could forge lines of it.

    Raises
    ------
    ModelFormatError
        A feature name, category, class or target of ``model`` (read from ``source``)
        holds a line feed.
    """
    from xdt.errors import ModelFormatError

    texts = [("feature name", f.name) for f in model.features]
    texts += [(f"category of feature {f.name!r}", v) for f in model.features
              if f.kind == "categorical" for v in f.domain]
    texts += [("class", c) for c in model.classes]
    texts.append(("target", getattr(model, "target", None)))
    for what, text in texts:
        if isinstance(text, str) and "\n" in text:
            raise ModelFormatError(
                f"{source}: the {what} {text!r} holds a line break, which would break the "
                "lines xdt prints; rename it (one line of text)")
    return model


# ---------------------------------------------------------------------- shared helpers
def cli_errors(fn: F) -> F:
    """Turn xdt's errors, and missing files, into click errors (message, exit code 1)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except click.ClickException as e:
            e.message = terminal_safe(e.message)
            raise
        except (XdtError, FileNotFoundError, IsADirectoryError, PermissionError) as e:
            raise click.ClickException(terminal_safe(error_message(e))) from None

    return wrapper  # type: ignore[return-value]


def error_message(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        return f"{e.strerror}: {e.filename}"
    return str(e)


def read_csv(path: str | Path, dtype: dict | None = None) -> pd.DataFrame:
    """Read a CSV file (``.gz`` and other compressions by extension) into a DataFrame.

    Only empty cells are missing values; text such as ``NA`` or ``None`` is kept as a value.

    A line with fewer fields than the header is read with its last cells empty (missing
    values, which the commands report by row).

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) No file at ``path``.
    FieldCountError
        A line has more fields than the header (:mod:`xdt.interop._csvfile`; the message
        names the line, 1-based with the header as line 1).
    DataError
        The path is empty or a folder; the file is empty, not parseable as CSV, not text,
        has no rows, or is a damaged compressed file (``.gz`` that ends early or is not
        gzip).
    """
    import pandas as pd

    from xdt.interop import _csvfile as csvfile

    if not str(path):
        raise DataError("no data file named (an empty path); give the CSV file's path")
    path = Path(path)
    if not path.exists():
        raise MissingFileError(f"no data file at {str(path)!r}", path=str(path))
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a data file; give a CSV file's path")
    try:
        csvfile.check_first_line(path)  # pandas would read its extra field as a row label
        # only empty cells are missing: text such as "None" or "NA" is a category's name
        # (e.g. Capital Gain = None in the discretised Adult data); low_memory=False reads
        # each column in one piece, so a column with text among numbers gets one type
        # (the rows' own checks then name the bad value) and pandas warns of nothing
        frame = pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values=[""],
                            low_memory=False)
    except XdtError:  # FieldCountError from the first line's check
        raise
    except (EOFError, OSError) as e:  # a damaged .gz/.bz2/.xz/.zip file (not a missing one)
        raise DataError(f"{path}: cannot read it ({e or type(e).__name__}); the file is "
                        "damaged or not in the compression its name says") from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty; a CSV file with a header row is "
                        "expected") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        if isinstance(e, pd.errors.ParserError):
            csvfile.find_long_line(path)  # pandas counts records, not lines
        raise DataError(f"{path}: cannot read it as CSV ({e})") from None
    if len(frame) == 0:
        raise DataError(f"{path}: the file has a header but no rows")
    return frame


def pack_tokens(tokens: Sequence[str], width: int, max_lines: int | None = None,
                indent: int = 0) -> list[str]:
    """Pack ``tokens`` (joined by spaces) into lines of at most ``width`` characters.

    A token longer than a line is broken at spaces. With ``max_lines``, what does not fit
    is dropped and the last kept line ends with ``... (+k more)`` (``k`` tokens not shown
    at all). Lines after the first are meant to be shown ``indent`` characters further
    right, so they get ``width - indent`` characters.

    >>> pack_tokens(["{alpha}", "{beta, gamma}", "{delta}", "{epsilon}"], 24, max_lines=1)
    ['{alpha} ... (+3 more)']
    """
    width = max(width, 20)
    pieces = [(piece, k) for k, tok in enumerate(tokens)
              for piece in textwrap.wrap(tok, width - indent, break_on_hyphens=False) or [""]]
    lines: list[list[tuple[str, int]]] = [[]]

    def length(line: list[tuple[str, int]]) -> int:
        return sum(len(p) for p, _ in line) + max(len(line) - 1, 0)

    for piece, k in pieces:
        room = width - (indent if len(lines) > 1 else 0)
        if lines[-1] and length(lines[-1]) + 1 + len(piece) > room:
            lines.append([])
        lines[-1].append((piece, k))
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        room = width - (indent if max_lines > 1 else 0)
        while True:
            kept = sum(len(line) for line in lines)
            cut = {k for _, k in pieces[kept:]}  # tokens with a piece not shown
            more = len(cut)
            tail = f"... (+{more} more)"
            if not last or length(last) + 1 + len(tail) <= room:
                break
            last.pop()
        last.append((tail, -1))
    return [" ".join(p for p, _ in line) for line in lines]


def wrap_rule(rule: str, width: int, max_lines: int | None = None, indent: int = 0
              ) -> list[str]:
    """Lines of at most ``width`` characters, breaking a rule after ``AND`` where possible
    (see :func:`pack_tokens` for ``max_lines`` and ``indent``).

    >>> wrap_rule("IF a = 1 AND b = 2 AND c = 3 THEN yes", 24)
    ['IF a = 1 AND b = 2 AND', 'c = 3 THEN yes']
    """
    parts = rule.split(" AND ")
    tokens = [p + (" AND" if i < len(parts) - 1 else "") for i, p in enumerate(parts)]
    return pack_tokens(tokens, width, max_lines, indent)


def terminal_width(limit: int = 100) -> int:
    """The terminal's width, at most ``limit`` and at least 60 columns."""
    return max(60, min(limit, shutil.get_terminal_size((limit, 24)).columns))


def describe_features(model: Model) -> str:
    """``21 features (13 categorical, 7 ordinal, 1 binary)``."""
    kinds = Counter(f.kind for f in model.features)
    detail = ", ".join(f"{kinds[k]} {k}" for k in ("categorical", "ordinal", "binary") if kinds[k])
    return f"{len(model.features)} features ({detail})"


def outcome(model: Model, label: object) -> str:
    return f"{model.target} = {label}" if model.target else str(label)


# ---------------------------------------------------------------------- xdt fit
def split_names(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str]:
    if not value:
        return []
    names = [n.strip() for n in value.split(",")]
    if any(not n for n in names):
        raise click.BadParameter(f"empty column name in {value!r}; write COL1,COL2")
    return names


class SecondsType(click.ParamType):
    """A time limit: a positive, finite number of seconds (``nan`` and ``inf`` refused).

    With ``no_limit``, the words of :data:`NO_LIMIT_WORDS` (``none``) are taken too, as
    0.0: no limit (:func:`resolve_time_limit`); 0 itself stays refused (zero seconds is
    not "no limit")."""

    name = "seconds"

    def __init__(self, no_limit: bool = False):
        self.no_limit = no_limit

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        import math

        if self.no_limit and str(value).strip().lower() in NO_LIMIT_WORDS:
            return 0.0
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds > 0):
            self.fail(f"{value!r} is not a time limit; give a positive number of seconds "
                      + ("(none for no limit)" if self.no_limit else
                         "(leave the option out for no limit)"), param, ctx)
        return seconds


def resolve_time_limit(value: float | None) -> float | None:
    """The seconds a row may spend listing explanations, from a ``--time-limit`` read by
    ``SecondsType(no_limit=True)``: left out (None), :data:`DEFAULT_ROW_TIME_LIMIT`; 0.0
    (``none``), None (no limit); else ``value``."""
    if value is None:
        return DEFAULT_ROW_TIME_LIMIT
    return None if value == 0 else value


# ---------------------------------------------------------------------- xdt explain
def parse_rows(spec: str, n: int) -> range:
    """Row positions selected by a python-like slice ``A:B`` (either side optional, negative
    counts from the end) or a single position ``A``, among ``n`` rows.

    Raises
    ------
    click.BadParameter
        A malformed slice, or a single position out of range.
    """
    text = spec.strip()
    if text.count(":") > 1:
        raise _not_a_slice(spec)
    try:
        if ":" in text:
            a, _, b = text.partition(":")
            start = int(a) if a.strip() else None
            stop = int(b) if b.strip() else None
            selected = range(n)[slice(start, stop)]
            if len(selected) == 0:
                raise click.BadParameter(f"{spec!r} selects no rows; the data has {n} rows",
                                         param_hint="'--rows'")
            return selected
        i = int(text)
    except ValueError:  # int() of text that is not a number
        raise _not_a_slice(spec) from None
    if not -n <= i < n:
        raise click.BadParameter(f"row {i} is out of range; the data has {n} rows",
                                 param_hint="'--rows'")
    return range(n)[i:i + 1] if i >= 0 else range(n)[i:(i + 1) or None]


def _not_a_slice(spec: str) -> click.BadParameter:
    return click.BadParameter(f"{spec!r} is not a row slice; write A:B, A:, :B or A (0-based "
                              "row positions, B excluded)", param_hint="'--rows'")


def parse_instance(text: str, option: str = "--instance",
                   example: str = '{"age": 31, "purpose": "car"}',
                   what: str = "feature name to value") -> dict:
    """The instance of ``--instance`` (or the object of another ``option``): a JSON object,
    or ``@path`` to a file holding one."""
    source = option
    hint = f"'{option}'"
    if text.startswith("@"):
        path = Path(text[1:])
        if not path.is_file():
            raise click.BadParameter(f"no file at {str(path)!r}", param_hint=hint)
        source = str(path)
        text = path.read_text(encoding="utf-8")
    from xdt.ir._json_io import RepeatedKey, unique_keys

    try:
        value = json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        raise click.BadParameter(
            f"{source} is not valid JSON ({e}); write an object such as '{example}'",
            param_hint=hint) from None
    except RepeatedKey as e:
        raise click.BadParameter(
            f"{source} names {e.key!r} twice; give each feature one value",
            param_hint=hint) from None
    if not isinstance(value, dict):
        raise click.BadParameter(
            f"{source} must be a JSON object mapping {what}, got "
            f"{type(value).__name__}", param_hint=hint)
    return value


def csv_dtypes(model: Model) -> dict:
    """Read categorical features whose domain is all strings as strings (so ``"01"`` stays
    ``"01"``): :func:`xdt.interop._csvfile.csv_dtypes`."""
    from xdt.interop import _csvfile as csvfile

    return csvfile.csv_dtypes(model.features)


def read_model_csv(path: str | Path, model: Model) -> pd.DataFrame:
    """The rows of a CSV file for ``model``: read by :func:`read_csv` with
    :func:`csv_dtypes`, the text of its ordinal features' columns read as numbers
    (:func:`xdt.interop._csvfile.number_columns`)."""
    from xdt.interop import _csvfile as csvfile

    return csvfile.number_columns(model.features, read_csv(path, dtype=csv_dtypes(model)))


def read_labelled_csv(model: Model, data: str, target: str | None
                      ) -> tuple[pd.DataFrame, str | None]:
    """Read the rows of ``data`` for ``model``, and find their column of true labels.

    Parameters
    ----------
    model : Model
    data : str
        The CSV file.
    target : str or None
        The ``--target`` option: the column of labels. Without it, the model's own target
        column is the labels' when the file has it.

    Returns
    -------
    frame : pandas.DataFrame
        Every column, the features read as :func:`read_model_csv` reads them and the labels
        as text when the model's classes are text.
    label : str or None
        The labels' column, or None when there is none.

    Raises
    ------
    click.UsageError
        ``target`` is not a column of ``data``.

    Notes
    -----
    When no label of the column is a class of the model (another column named as the
    target, labels coded otherwise), a warning on stderr says so: every row would count as
    wrongly predicted.
    """
    label = target if target is not None else getattr(model, "target", None)
    dtype = csv_dtypes(model)
    if label is not None and all(isinstance(c, str) for c in model.classes) \
            and label not in model.features.names:  # a feature is read as the model reads it
        dtype[label] = str
    from xdt.interop import _csvfile as csvfile

    frame = csvfile.number_columns(model.features, read_csv(data, dtype=dtype))
    if target is not None and target not in frame.columns:
        raise click.UsageError(
            f"target column {target!r} is not in {data}; its columns are: "
            f"{', '.join(map(str, frame.columns))}")
    if label is None or label not in frame.columns:
        return frame, None
    labels = set(frame[label].dropna().tolist())
    if labels and not (set(model.classes) & labels
                       or {str(c) for c in model.classes} & {str(v) for v in labels}):
        click.echo(f"warning: no label of column {label!r} is a class of the model "
                   f"({', '.join(map(str, model.classes))}), so every row counts as "
                   "wrongly predicted; is it the target column?", err=True)
    return frame, label


def explain_one(explainer: Explainer, x: object, **options: Any) -> dict:
    """The explanations of one instance, as the fields of its record: the ``fields`` of
    :func:`xdt.run.explain_instance` (``options`` are its keywords), which raises
    :class:`~xdt.run.ExplainInterrupted` with the partial record on Ctrl-C."""
    from xdt.run._instance import explain_instance

    return explain_instance(explainer, x, **options).fields


def validate_rows(model: Model, frame: pd.DataFrame, positions: Sequence[int]) -> None:
    """Check every selected row once, before any output; name the first bad row."""
    try:
        model.encode(frame.iloc[list(positions)])
    except InstanceError:
        for pos in positions:
            try:  # the same vectorised reading as above, one row at a time
                model.encode(frame.iloc[[pos]])
            except XdtError as e:
                raise DataError(f"row {pos}: {e}") from None
        raise


def refuse_invalid_rows(model: Model, frame: pd.DataFrame, positions: Sequence[int],
                        skipping: str) -> None:
    """Before any work: raise when a selected row cannot be read by ``model``, naming the
    first with its reason, how many there are, and that ``--skip-invalid`` would
    ``skipping`` (what it does with them).

    Raises
    ------
    DataError
        Some selected row holds a missing value, an unknown category or text for a number.
    """
    from xdt.run._records import invalid_rows

    bad = invalid_rows(model, frame, positions)
    if not bad:
        return
    text = f"row {bad[0]['row']}: {bad[0]['reason']}"
    if len(bad) > 1:
        listed = ", ".join(str(r["row"]) for r in bad[:10]) + (", ..." if len(bad) > 10
                                                                else "")
        text += (f"; {len(bad)} of the {len(positions)} selected rows cannot be read (rows "
                 f"{listed})")
    raise DataError(f"{text}; fix them, or rerun with --skip-invalid to {skipping}")


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (where a live counter makes sense)."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)())

"""``xdt import FILE --from xgboost|lightgbm -o MODEL.json``: the libraries' own files become
``xdt-model/1`` files that load as tree ensembles predicting what the library predicts; the
usage errors and the missing-library error name the fix."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import DATASETS, require_shared

import xdt
from xdt.cli import main
from xdt.errors import UnsupportedModelError
from xdt.ir._ensemble import TreeEnsemble

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

NAMES = ["variance", "skewness", "curtosis", "entropy"]


@pytest.fixture(scope="module")
def banknote():
    frame = pd.read_csv(require_shared(DATASETS / "banknote.csv"))
    return frame.iloc[:, :-1].to_numpy(np.float64), frame.iloc[:, -1].to_numpy()


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_import_xgboost_file_round_trip(tmp_path, banknote):
    X, y = banknote
    model = xgb.XGBClassifier(n_estimators=12, max_depth=3).fit(X, y)
    model.save_model(tmp_path / "m.json")
    names = tmp_path / "names.txt"
    names.write_text("\n".join(NAMES) + "\n")
    out = tmp_path / "xdt.json"
    result = run("import", str(tmp_path / "m.json"), "--from", "xgboost", "--features",
                 str(names), "--classes", "genuine,forged", "-t", "class", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "xgboost binary:logistic, 12 trees" in result.output
    assert "predicts like xgboost on" in result.output
    back = xdt.load_model(out)
    assert isinstance(back, TreeEnsemble)
    assert list(back.features.names) == NAMES and back.target == "class"
    expected = np.array(["genuine", "forged"], dtype=object)[model.predict(X)]
    assert back.predict(X).tolist() == expected.tolist()


def test_import_lightgbm_text_file_round_trip(tmp_path, banknote):
    X, y = banknote
    model = lgb.LGBMClassifier(n_estimators=12, verbose=-1).fit(X, y)
    model.booster_.save_model(tmp_path / "m.txt")
    out = tmp_path / "xdt.json"
    result = run("import", str(tmp_path / "m.txt"), "--from", "lightgbm", "--feature-names",
                 ",".join(NAMES), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "lightgbm binary, 12 trees" in result.output
    back = xdt.load_model(out)
    assert list(back.features.names) == NAMES
    assert back.predict(X).tolist() == model.predict(X).tolist()


def test_import_usage_errors(tmp_path, banknote):
    X, y = banknote
    xgb.XGBClassifier(n_estimators=2, max_depth=2).fit(X, y).save_model(tmp_path / "m.json")
    names = tmp_path / "names.txt"
    names.write_text("a\nb\nc\nd\n")
    out = str(tmp_path / "o.json")
    result = run("import", str(tmp_path / "m.json"), "--from", "xgboost", "--features",
                 str(names), "--feature-names", "a,b,c,d", "-o", out)
    assert result.exit_code == 2 and "not both" in result.output
    result = run("import", str(tmp_path / "m.json"), "--from", "xgboost",
                 "--feature-names", "a,b", "-o", out)
    assert result.exit_code == 1
    assert "the model has 4 input columns; give as many distinct feature names" in result.output
    result = run("import", str(tmp_path / "m.json"), "--from", "lightgbm", "-o", out)
    assert result.exit_code == 1
    assert "not a LightGBM model dump" in result.output and "XGBoost model" in result.output
    result = run("import", str(tmp_path / "none.json"), "--from", "xgboost", "-o", out)
    assert result.exit_code == 1 and "no XGBoost model file" in result.output
    result = run("import", str(tmp_path / "m.json"), "--from", "catboost", "-o", out)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


@pytest.mark.parametrize("library,function", [("xgboost", "from_xgboost"),
                                              ("lightgbm", "from_lightgbm")])
def test_missing_library_names_the_extra(monkeypatch, tmp_path, library, function):
    monkeypatch.setitem(sys.modules, library, None)   # import xgboost -> ImportError
    with pytest.raises(UnsupportedModelError, match=rf"pip install 'xdt\[{library}\]'"):
        getattr(xdt, function)(tmp_path / "m.json")


def test_help_documents_the_files():
    result = run("import", "--help")
    assert result.exit_code == 0
    assert "--from [lightgbm|xgboost]" in result.output
    assert "never pickles" in result.output


def test_readme_import_block_runs(tmp_path, monkeypatch):
    """The README's section on importing XGBoost models runs as written."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S)
                if "from_xgboost" in b]
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    assert isinstance(xdt.load_model(tmp_path / "model.json"), TreeEnsemble)

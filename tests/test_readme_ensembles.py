"""The README's random-forest example runs and shows what it claims."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_forest_block_runs_and_its_answers_hold_under_the_forest():
    from xdt.explain.checks import _verify as verify

    (block,) = [b for b in re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
                if "RandomForestClassifier" in b]
    scope: dict = {}
    exec(block, scope)  # noqa: S102 - the README's own example
    ex, x, axp, cxp = scope["ex"], scope["x"], scope["axp"], scope["cxp"]
    rf, enc, forest, pd = scope["rf"], scope["enc"], scope["forest"], scope["pd"]
    assert ex.engine == "box" and forest.n_trees == 100 and forest.n_nodes == 7996
    assert len(axp.features) == 13 and len(forest.features) == 21
    assert cxp.features == ("housing", "num_dependents", "own_telephone")
    # independent of both engines: the forest itself on the CXp's counterexample, and on
    # points sampled around the AXp
    prediction = rf.predict(enc.transform(pd.DataFrame([x])))[0]
    assert rf.predict(enc.transform(pd.DataFrame([cxp.counterexample])))[0] != prediction
    assert verify.reference_counterexample(forest, dict(x), axp.features, 500) is None

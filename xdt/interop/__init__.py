"""Importers into the IR and the reading of tables.

Models of scikit-learn, XGBoost, LightGBM, the optimal trees of STreeD and DL8.5, and the rule
lists and rule sets of imodels and wittgenstein (RIPPER, IREP)."""

"""Importers into the IR and the reading of tables.

Models of scikit-learn, XGBoost, LightGBM, and the optimal trees of STreeD and DL8.5."""

"""Importers into the IR (scikit-learn, XGBoost, LightGBM, the optimal trees of STreeD and
DL8.5) and the reading of tables."""

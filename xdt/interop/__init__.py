"""Importers into the IR (scikit-learn, XGBoost, LightGBM) and the reading of tables."""

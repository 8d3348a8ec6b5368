"""Grouped ranking metrics for scikit-learn."""

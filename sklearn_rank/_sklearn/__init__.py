"""scikit-learn glue: routing-aware scorers, the group-column source, the ranker
adapter."""

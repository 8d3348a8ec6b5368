"""Metrics over the engine: the registry, input validation, ``evaluate``, the public
``*_score`` functions and per-segment values."""

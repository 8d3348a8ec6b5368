"""What a shard of whole groups must hold for its kernels to take the paths a
single pass over all groups takes (so that threads over shards give the same
bits; ``_metrics/shards.py``)."""

from __future__ import annotations

from .kernels.gain_discount import _SHORT_PREFIX

# The discount prefix of the ideal DCG is float64 up to this depth (the longest
# group of a call) and extended precision beyond it: a shard without a group
# deeper than this, in a call with one, would round its ideal DCG differently.
LONG_GROUP = _SHORT_PREFIX

__all__ = ["LONG_GROUP"]

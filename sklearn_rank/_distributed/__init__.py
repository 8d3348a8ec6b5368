"""The distributed front-ends' shared layer: the per-partition work and what
sklearn_rank.dask and sklearn_rank.spark do alike around it."""

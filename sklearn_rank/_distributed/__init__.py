"""The per-partition work and exact merges shared by ``dask.py`` and ``spark.py``."""

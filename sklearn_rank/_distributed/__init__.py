"""The distributed front-ends' shared layer: the per-partition work and exact
merges (``partitions``) and what ``dask.py`` and ``spark.py`` do alike around it
(``frontend``)."""

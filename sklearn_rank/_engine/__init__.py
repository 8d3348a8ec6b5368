"""The grouped engine: segment primitives, group codes, conventions, the ordered
view (``context``), the kernels at one cutoff or many, and the one reduction module."""

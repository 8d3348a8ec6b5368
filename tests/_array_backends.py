"""What the array API tests share: array-api-strict's ``device1`` (a device numpy
cannot read, standing for a GPU) and the test-side copy back to numpy."""

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="needs PyTorch: the test extra installs it (CPU wheel: README)"
)
xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")

DEVICE1 = xps.Device("device1")
CPU_DEVICE = xps.Device("CPU_DEVICE")


def back(x):
    """A copy of ``x`` as a numpy array, made by the test (never by the library):
    PyTorch through ``.cpu()``, array-api-strict's device1 through its CPU device."""
    if isinstance(x, np.ndarray):
        return x
    if type(x).__module__.startswith("torch"):
        return x.cpu().numpy()
    return np.asarray(x.to_device(CPU_DEVICE))

"""Array API inputs (PyTorch, CuPy, array-api-strict, ...): where a call computes
and in which namespace its per-group results come back.

The rule follows scikit-learn's array API support (``sklearn.set_config(
array_api_dispatch=True)`` or ``sklearn.config_context``), read through its
public configuration only:

- numpy arrays, lists, pandas objects: never touch this module's slow path (no
  import of scikit-learn or ``array_api_compat``), exactly as before;
- an input of another namespace is read by the engine through a zero-copy numpy
  view of its host memory (:func:`to_numpy`); one that lives on another device
  (a CUDA tensor, a CuPy array) is never copied off it behind the caller's back:
  it raises an error that says how to copy it;
- with dispatch enabled, per-group results (:func:`evaluate_per_group`) come back
  in the inputs' namespace and on their device (:class:`InputSpace`); with it
  off they are numpy arrays, as scikit-learn returns numpy when dispatch is off.
  Metric functions and ``evaluate`` return Python floats either way.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def is_foreign(x: Any) -> bool:
    """Whether ``x`` is an array of another array library (it exposes the array
    API namespace or DLPack) rather than numpy or a Python / pandas container."""
    return not isinstance(x, np.ndarray) and (
        hasattr(x, "__array_namespace__") or hasattr(x, "__dlpack__")
    )


def dispatch_enabled() -> bool:
    """scikit-learn's ``array_api_dispatch`` setting (global or in a
    ``config_context``)."""
    import sklearn  # only reached for foreign inputs: the numpy path never imports it

    return bool(sklearn.get_config().get("array_api_dispatch", False))


def _describe(x: Any) -> str:
    kind = f"{type(x).__module__.split('.')[0]}.{type(x).__name__}"
    device = getattr(x, "device", None)
    return kind if device is None else f"{kind} on device {device}"


def to_numpy(x: Any, name: str, func: str) -> np.ndarray:
    """A numpy view of a foreign array whose memory the host can read.

    PyTorch CPU tensors and array-api-strict arrays on its CPU device convert
    without a copy (autograd is not followed: ``detach`` is a view). An array on
    another device (CUDA, MPS, CuPy, array-api-strict's test devices) is refused
    with an error naming the argument, its device and how to copy it.
    """
    if hasattr(x, "detach") and callable(x.detach):  # torch: no autograd history
        x = x.detach()
    try:
        return np.asarray(x)
    except (TypeError, RuntimeError, ValueError) as exc:
        raise TypeError(
            f"{name} in {func} is a {_describe(x)}, which numpy cannot read "
            "without copying it off its device, and sklearn_rank never moves an "
            "input behind the caller's back. To compute on that device, enable "
            "scikit-learn's array API dispatch: sklearn.set_config("
            "array_api_dispatch=True) or `with sklearn.config_context("
            "array_api_dispatch=True):`, with the environment variable "
            "SCIPY_ARRAY_API=1 set before scipy is imported (scikit-learn asks "
            "for it). Or copy it to the host first (tensor.cpu(), "
            "cupy.asnumpy(array)). See docs/gpu.md."
        ) from exc


def on_host(*arrays: Any) -> Any:
    """A context in which foreign arrays are read on the host (dispatch off), for
    front ends that tabulate or draw in numpy (segments, plots)."""
    if not any(is_foreign(a) for a in arrays if a is not None):
        return contextlib.nullcontext()
    import sklearn

    return sklearn.config_context(array_api_dispatch=False)


def reads_on_host(func: Callable) -> Callable:
    """Decorate a front end that works in numpy: its array API inputs are read on
    the host (:func:`on_host` around every call)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with on_host(*args, *kwargs.values()):
            return func(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class InputSpace:
    """The namespace and device of one call's array inputs (``xp`` None: numpy,
    the results stay numpy arrays)."""

    xp: Any = None
    device: Any = None

    @property
    def float(self) -> Any:
        """The float dtype computations use: float64, or float32 on a device
        without float64 (Apple's MPS)."""
        if self.xp is None:
            return np.float64
        if getattr(self.device, "type", None) == "mps":
            return self.xp.float32
        return self.xp.float64

    def output(self, values: Any) -> Any:
        """Per-group ``values`` in the inputs' namespace, on their device."""
        if self.xp is None or not isinstance(values, np.ndarray):
            return values
        return self.xp.asarray(values, device=self.device)


NUMPY = InputSpace()


def input_space(*arrays: Any, func: str) -> InputSpace:
    """Where per-group results go: the namespace and device of the foreign
    inputs when dispatch is enabled, numpy otherwise. Foreign inputs of several
    namespaces or devices in one call are refused, as scikit-learn does."""
    foreign = [a for a in arrays if a is not None and is_foreign(a)]
    if not foreign or not dispatch_enabled():
        return NUMPY
    try:
        import array_api_compat
    except ImportError:  # pragma: no cover - installed with the test extra
        raise ImportError(
            f"{func} with array_api_dispatch=True needs array-api-compat: "
            'pip install "sklearn-rank[array-api]".'
        ) from None
    try:
        xp = array_api_compat.array_namespace(*foreign)
        device = array_api_compat.device(foreign[0])
        if any(array_api_compat.device(a) != device for a in foreign[1:]):
            raise ValueError("several devices")
    except (TypeError, ValueError):
        found = ", ".join(sorted({_describe(a) for a in foreign}))
        raise TypeError(
            f"The array inputs of {func} come from different array libraries or "
            f"devices ({found}); pass them all in one namespace, on one device."
        ) from None
    return InputSpace(xp, device)

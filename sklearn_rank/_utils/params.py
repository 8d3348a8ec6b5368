"""The parameter-constraint vocabulary and the one error format.

Every public parameter is checked against a tuple of constraints, declared once
per function with :func:`validate_params` (as scikit-learn's decorator of that
name) or, for the convention keywords, in ``_engine.conventions.OPTIONS``; a value
that meets none raises::

    The 'k' parameter of ndcg_score must be an int in the range [1, inf) or None.
    Got 0 instead.

This module imports nothing from the package, so every layer can use it.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or value. It subclasses both ``ValueError``
    and ``TypeError``, as scikit-learn's ``InvalidParameterError`` does, so either
    ``except`` clause catches it."""


def param_error(
    name: str, func: str, expected: str, got: Any, fix: str = ""
) -> InvalidParameterError:
    """Build the one error format for a bad parameter value."""
    msg = f"The {name!r} parameter of {func} must be {expected}. Got {got!r} instead."
    if fix:
        msg = f"{msg} {fix}"
    return InvalidParameterError(msg)


# -- parameter constraints (the scikit-learn ``validate_params`` vocabulary) ---------
class StrOptions:
    """A str among a fixed set of values."""

    def __init__(self, *options: str) -> None:
        self.options = tuple(options)

    def __call__(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self) -> str:
        return "a str among {" + ", ".join(repr(o) for o in self.options) + "}"


class Interval:
    """A number of type ``kind`` (``numbers.Integral`` or ``numbers.Real``) in a
    range; bools are never numbers here, and NaN is in no range."""

    def __init__(
        self,
        kind: type,
        left: float | None,
        right: float | None,
        closed: str = "both",
    ) -> None:
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def __call__(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        if value != value:  # NaN
            return False
        if self.left is not None:
            if value < self.left or (
                value == self.left and self.closed not in ("left", "both")
            ):
                return False
        elif value == -np.inf:
            return False
        if self.right is not None:
            if value > self.right or (
                value == self.right and self.closed not in ("right", "both")
            ):
                return False
        elif value == np.inf:
            return False
        return True

    def __str__(self) -> str:
        kind = "an int" if self.kind is numbers.Integral else "a float"
        lo = "-inf" if self.left is None else f"{self.left:g}"
        hi = "inf" if self.right is None else f"{self.right:g}"
        left = "[" if self.closed in ("left", "both") and self.left is not None else "("
        right = (
            "]" if self.closed in ("right", "both") and self.right is not None else ")"
        )
        return f"{kind} in the range {left}{lo}, {hi}{right}"


class IsNone:
    def __call__(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class IsBool:
    """``True`` or ``False`` (NumPy's bool included); ints are not bools."""

    def __call__(self, value: Any) -> bool:
        return isinstance(value, bool) or type(value).__name__ == "bool_"

    def __str__(self) -> str:
        return "a bool"


class FiniteMapping:
    """A mapping whose keys and values are all finite real numbers."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __call__(self, value: Any) -> bool:
        if not isinstance(value, Mapping) or not value:
            return False
        return all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v)
            for pair in value.items()
            for v in pair
        )

    def __str__(self) -> str:
        return self.what


class IsCallable:
    def __init__(self, what: str = "a callable") -> None:
        self.what = what

    def __call__(self, value: Any) -> bool:
        return callable(value) and not isinstance(value, type)

    def __str__(self) -> str:
        return self.what


def describe(constraints: Sequence[Callable[[Any], bool]]) -> str:
    """``"a str among {...} or None"``: the expected-value text of an error."""
    parts = [str(c) for c in constraints]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def check_param(
    value: Any,
    name: str,
    func: str,
    constraints: Sequence[Callable[[Any], bool]],
    fix: str = "",
) -> Any:
    """Return ``value`` if it meets one of ``constraints``; else raise the one
    error format, naming the parameter, the function and what was expected."""
    if any(c(value) for c in constraints):
        return value
    raise param_error(name, func, describe(constraints), value, fix)


def check_k(k: Any, func: str, name: str = "k") -> int | None:
    """Check a cutoff: a positive int or None (the whole list)."""
    check_param(k, name, func, CUTOFF)
    return None if k is None else int(k)


CUTOFF = (Interval(numbers.Integral, 1, None, closed="left"), IsNone())


F = TypeVar("F", bound=Callable[..., Any])


def validate_params(
    constraints: Mapping[str, Sequence[Callable[[Any], bool]]],
    *,
    owner: str | None = None,
) -> Callable[[F], F]:
    """Declare the constraints of a function's parameters; checked on every call.

    ``constraints`` maps a parameter name to the constraints one of which its value
    must meet (``StrOptions``, ``Interval``, ``IsNone``, ...). A value that meets
    none raises the one error format of :func:`param_error`, naming the parameter
    and ``owner`` (default: the function's qualified name, e.g.
    ``"MetricAtKDisplay.from_predictions"``). Parameters left at their default are
    not checked (defaults are right by construction). Checks that depend on data
    (lengths, labels) stay in the function body.
    """

    def decorate(func: F) -> F:
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:  # a typo in a declaration must not silently check nothing
            raise TypeError(f"{func.__qualname__} has no parameter {sorted(unknown)}")
        name = owner or func.__qualname__

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = signature.bind(*args, **kwargs).arguments
            for param, allowed in constraints.items():
                if param in given:
                    check_param(given[param], param, name, allowed)
            return func(*args, **kwargs)

        wrapper.__parameter_constraints__ = dict(constraints)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


# -- resampling parameters of the statistics and the online estimators ------------
CI_METHODS = ("matched", "BCa", "percentile", "bootstrap-t")


def check_random_state(seed: Any, func: str) -> np.random.Generator:
    """A Generator from None, an int, a RandomState or a Generator.

    None, int and RandomState follow sklearn.utils.check_random_state (None is
    numpy's global RandomState), which seeds the Generator used here.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.RandomState):
        rs = np.random.mtrand._rand if seed is None else seed
        return np.random.default_rng(rs.randint(0, 2**32, size=4, dtype=np.uint64))
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        return np.random.default_rng(int(seed))
    raise param_error(
        "random_state",
        func,
        "None, an int, a numpy.random.RandomState or a numpy.random.Generator",
        seed,
    )


def check_choice(name: str, func: str, value: Any, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise param_error(name, func, f"a str among {{{choices}}}", value)
    return value


def check_level(value: Any, func: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0 < value < 1
    ):
        raise param_error(
            "confidence_level", func, "a float in the range (0, 1), e.g. 0.95", value
        )
    return float(value)


def check_resamples(value: Any, func: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise param_error(
            "n_resamples", func, "an int in the range [1, inf), e.g. 9999", value
        )
    return int(value)

"""Strategies and assertion helpers shared by the property specs (specs/test_property_*.py).

The one place that decides how inputs are drawn, so every property draws alike:

- shapes come from ``hypothesis.extra.numpy`` (``array_shapes``, ``broadcastable_shapes``,
  ``mutually_broadcastable_shapes``), kept small: properties want many tiny cases, not
  a few big ones;
- arrays have the machine's native byte order (``torch.from_numpy`` rejects a
  byte-swapped array, which would test the conversion, not the property);
- :func:`layouts` builds tensors whose strides are *not* the contiguous ones (permuted,
  sliced with steps and offsets, both), because that is where stride bugs hide; each
  comes with the Python that rebuilds it;
- values stay inside a small range and, where an operation has a kink, a pole or a tie
  (``abs``, ``1/x``, ``max``), a margin away from it, so finite differences are valid;
- draws are labelled (``data.draw(strategy, label="shape")``) and a failure carries a
  copy-paste reproduction (:func:`reproduce`, which uses ``exc.add_note``).

Example counts follow the active profile (conftest.py: dev 10, ci 50, thorough 1000);
:func:`property_settings` scales a test's share of it, so an expensive property stays
cheap in the quick run and still grows under ``HYPOTHESIS_PROFILE=thorough``.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np
import torch
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.extra import numpy as hnp

from aliasing import shares_storage, storage_ptr  # noqa: F401  (re-exported for the property specs)

# The byte order of this machine, spelled out: "=" is native for NumPy.
NATIVE_FLOAT64 = np.dtype(np.float64).newbyteorder("=")


# --------------------------------------------------------------------------- settings


def examples(fraction: float) -> int:
    """``fraction`` of the active profile's max_examples, at least 1."""
    return max(1, round(settings.default.max_examples * fraction))


def property_settings(fraction: float = 1.0, **kwargs) -> settings:
    """Settings for a property: ``fraction`` of the profile's examples.

    The ``ref`` fixture is function-scoped but returns the session's one ``Impl``, so
    reusing it across examples is safe: its health check is suppressed.
    """
    suppressed = [*settings.default.suppress_health_check, HealthCheck.function_scoped_fixture]
    return settings(max_examples=examples(fraction), suppress_health_check=suppressed, **kwargs)


# --------------------------------------------------------------------------- values


def floats(low: float = -2.0, high: float = 2.0) -> st.SearchStrategy[float]:
    """Finite floats in [low, high], no subnormals (they only test the FPU)."""
    return st.floats(low, high, allow_nan=False, allow_infinity=False, allow_subnormal=False)


def floats_away_from(*points: float, margin: float = 0.1, low: float = -2.0,
                     high: float = 2.0) -> st.SearchStrategy[float]:
    """Floats in [low, high] at least ``margin`` away from every one of ``points``.

    For operations with a kink or a pole there (``abs`` and ``relu`` at 0, ``1/x`` at 0):
    a central difference across a kink measures neither side's slope.
    """
    edges = sorted(p for p in points if low < p < high)
    bounds, start = [], low
    for p in edges:
        bounds.append((start, p - margin))
        start = p + margin
    bounds.append((start, high))
    return st.one_of([floats(a, b) for a, b in bounds if a <= b])


def grid(low: float = -2.0, high: float = 2.0, step: float = 0.125,
         offset: float = 0.0) -> st.SearchStrategy[float]:
    """Multiples of ``step`` (plus ``offset``) in [low, high]: distinct draws differ by at least ``step``.

    Used with ``unique=True`` where ties would make the derivative undefined (max, sort).
    """
    n_low, n_high = math.ceil((low - offset) / step), math.floor((high - offset) / step)
    return st.integers(n_low, n_high).map(lambda k: k * step + offset)


def positive(low: float = 0.5, high: float = 2.0) -> st.SearchStrategy[float]:
    """Floats in [low, high] with low > 0: the domain of log, sqrt, x ** y."""
    return floats(low, high)


# --------------------------------------------------------------------------- shapes


def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 1, max_side: int = 3,
           max_numel: int = 12) -> st.SearchStrategy[tuple[int, ...]]:
    """Small array shapes with at most ``max_numel`` elements."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side).filter(lambda s: math.prod(s) <= max_numel)


def mutually_broadcastable(num_shapes: int = 2, min_dims: int = 0, max_dims: int = 3,
                           min_side: int = 1, max_side: int = 3, max_numel: int = 12,
                           signature: str | None = None):
    """``hnp.mutually_broadcastable_shapes`` whose operands and result stay small."""
    kwargs = dict(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)
    if signature is not None:
        kwargs["signature"] = signature
    else:
        kwargs["num_shapes"] = num_shapes
    return hnp.mutually_broadcastable_shapes(**kwargs).filter(
        lambda bs: all(math.prod(s) <= max_numel for s in (*bs.input_shapes, bs.result_shape)))


@st.composite
def same_numel_shapes(draw, numel: int, max_dims: int = 5) -> tuple[int, ...]:
    """A shape holding exactly ``numel`` elements: a random factorisation plus size-1 dims.

    For ``numel == 0`` any shape with a 0 in it.
    """
    if numel == 0:
        dims = draw(st.lists(st.integers(0, 3), min_size=1, max_size=max_dims - 1), label="new sizes")
        at = draw(st.integers(0, len(dims)), label="where the 0 goes")
        return tuple(dims[:at] + [0] + dims[at:])
    factors, rest = [], numel
    while rest > 1 and len(factors) < max_dims - 1:
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divisors), label="next size")
        factors.append(d)
        rest //= d
    if rest > 1:
        factors[-1] *= rest
    order = draw(st.permutations(factors), label="order of sizes")
    ones = draw(st.integers(0, max(0, max_dims - len(order))), label="extra size-1 dims")
    out = list(order)
    for _ in range(ones):
        out.insert(draw(st.integers(0, len(out)), label="where a 1 goes"), 1)
    return tuple(out)


# --------------------------------------------------------------------------- arrays and tensors


def arrays(shape, elements: st.SearchStrategy[float] | None = None, unique: bool = False):
    """float64 arrays of native byte order with the given shape (a tuple or a strategy)."""
    return hnp.arrays(NATIVE_FLOAT64, shape, elements=elements if elements is not None else floats(),
                      unique=unique)


def tensors(shape, elements: st.SearchStrategy[float] | None = None, unique: bool = False):
    """float64 tensors (contiguous, owning their memory) drawn through :func:`arrays`."""
    return arrays(shape, elements, unique).map(lambda a: torch.from_numpy(a.copy()))


class Layout:
    """A tensor with a chosen memory layout over a bigger ``base``, and the code that rebuilds it.

    ``tensor`` is a view of ``base`` (contiguous), made by slicing with steps and offsets
    and/or permuting; ``base`` elements outside it hold ``fill``.  ``code`` defines
    ``base`` and ``t`` and is pasted into failure notes.  (A plain class, not a
    dataclass, so hypothesis prints the short ``repr`` below instead of two tensors.)
    """
    __slots__ = ("tensor", "base", "kind", "code")

    def __init__(self, tensor: torch.Tensor, base: torch.Tensor, kind: str, code: str):
        self.tensor, self.base, self.kind, self.code = tensor, base, kind, code

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(self.tensor.stride())

    def leaf(self) -> torch.Tensor:
        """The same layout as a leaf that requires grad (for gradcheck on strided inputs)."""
        return self.tensor.detach().requires_grad_()

    def __repr__(self) -> str:
        return (f"Layout({self.kind}: shape={self.shape}, strides={self.strides}, "
                f"offset={self.tensor.storage_offset()})")


LAYOUT_KINDS = ("contiguous", "permuted", "sliced", "permuted+sliced")


def _slice_code(start: int, size: int, step: int) -> str:
    return f"{start}:{start + size * step}:{step}"


@st.composite
def layouts(draw, shape=None, elements: st.SearchStrategy[float] | None = None,
            kinds: tuple[str, ...] = LAYOUT_KINDS, fill: float = float("nan"),
            unique: bool = False, name: str = "t") -> Layout:
    """A float64 tensor of ``shape`` (a tuple or a strategy) with a drawn memory layout.

    Kinds: ``contiguous``; ``permuted`` (a permute of a contiguous tensor); ``sliced``
    (steps 1-3 and offsets 0-1 per dimension, sometimes a padded last dimension, so rows
    do not chain); ``permuted+sliced``.  Values come from ``elements``; the base's other
    elements hold ``fill`` (NaN by default, so reading outside the view shows).  ``name``
    names the tensor in the reproduction code (its base is ``base`` or ``<name>_base``).
    """
    if shape is None:
        shape = shapes(min_side=0)
    if not isinstance(shape, tuple):
        shape = draw(shape, label="shape")
    ndim = len(shape)
    kind = draw(st.sampled_from(kinds), label="layout")
    order = tuple(range(ndim))
    if "permuted" in kind and ndim >= 2:
        order = tuple(draw(st.permutations(range(ndim)), label="permutation"))
    steps, starts, pad = (1,) * ndim, (0,) * ndim, 0
    if "sliced" in kind and ndim >= 1:
        steps = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim), label="slice steps"))
        starts = tuple(draw(st.lists(st.integers(0, 1), min_size=ndim, max_size=ndim), label="slice starts"))
        pad = draw(st.integers(0, 1), label="padding of the last storage dim")
    # Sizes before the permutation: permute(order) puts pre[order[i]] at position i.
    pre = [0] * ndim
    for i, o in enumerate(order):
        pre[o] = shape[i]
    storage = [start + size * step for start, size, step in zip(starts, pre, steps)]
    if ndim:
        storage[-1] += pad
    storage = tuple(storage)
    index = tuple(slice(start, start + size * step, step) for start, size, step in zip(starts, pre, steps))

    base = torch.full(storage, fill, dtype=torch.float64)
    t = base[index] if ndim else base
    if order != tuple(range(ndim)):
        t = t.permute(order)
    values = draw(arrays(shape, elements, unique), label="values")
    with torch.no_grad():
        t.copy_(torch.from_numpy(values.copy()))

    base_name = "base" if name == "t" else f"{name}_base"
    fill_code = "float('nan')" if math.isnan(fill) else repr(fill)
    lines = [f"{base_name} = torch.full({storage}, {fill_code}, dtype=torch.float64)",
             f"{name} = {base_name}"
             + (f"[{', '.join(_slice_code(s, n, k) for s, n, k in zip(starts, pre, steps))}]"
                if ndim and "sliced" in kind else "")
             + (f".permute{order}" if order != tuple(range(ndim)) else ""),
             f"{name}.copy_(torch.tensor({values.tolist()!r}, dtype=torch.float64))"]
    assert tuple(t.shape) == tuple(shape), f"layouts built shape {tuple(t.shape)}, wanted {shape}"
    return Layout(tensor=t, base=base, kind=kind, code="\n".join(lines))


# --------------------------------------------------------------------------- failures


REPRODUCE = "Reproduce with:"   # the note's head; the workbook says it in the learner's language (strings "learn_reproduce")


@contextlib.contextmanager
def reproduce(code: str):
    """Attach ``code`` (Python that replays the failing case) to any exception raised inside."""
    try:
        yield
    except Exception as exc:
        exc.add_note(f"{REPRODUCE}\n    import torch, numpy as np\n"
                     + "\n".join("    " + line for line in code.strip().splitlines()))
        raise


def assert_equal_tuple(got, expected, what: str, call: str) -> None:
    """got == expected for shapes/strides, with a message naming the call."""
    __tracebackhide__ = True
    assert tuple(got) == tuple(expected), f"{what}={tuple(got)}, but should be {tuple(expected)} [{call}]"


def assert_close(actual: torch.Tensor, expected: torch.Tensor, call: str, **tolerances) -> None:
    """torch.testing.assert_close with the call appended to its message."""
    __tracebackhide__ = True
    torch.testing.assert_close(actual, expected, msg=lambda m: f"{m}\n[{call}]", **tolerances)


def assert_shares_storage(a: torch.Tensor, b: torch.Tensor, call: str) -> None:
    """a and b live in the same storage (zero-size storages compare trivially)."""
    __tracebackhide__ = True
    pa, pb = storage_ptr(a), storage_ptr(b)
    assert pa == pb, (f"storage data_ptr {pa:#x} != base's {pb:#x}, but should be the same "
                      f"(no copy) [{call}]")



"""Broadcasting, the NumPy/PyTorch rule, in pure Python.

Shapes are aligned at their *last* dimension; a missing leading dimension counts as
size 1.  Two sizes are compatible when they are equal or one of them is 1, and the
result takes the other one (so 1 against 0 gives 0).  Broadcasting copies nothing: a
broadcast dimension gets stride 0, so every step along it reads the same element,
which is what ``Tensor.expand`` returns.
"""
from __future__ import annotations

from collections.abc import Sequence


def _as_shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    if isinstance(shape, int):  # torch.broadcast_shapes(3, (2, 1)) treats 3 as (3,)
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"shape {shape} has a negative size")
    return shape


def broadcast_shapes(*shapes: int | Sequence[int]) -> tuple[int, ...]:
    """The shape that ``shapes`` broadcast to, like ``torch.broadcast_shapes``.

    When the shapes do not broadcast, raises ValueError whose message contains the word
    "broadcast" and names the two clashing sizes and the dimension (counted from the right
    and from the left of the result).
    """
    shapes = [_as_shape(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for back in range(1, len(shape) + 1):
            size, have = shape[-back], result[-back]
            if size == have or size == 1:
                continue
            if have == 1:
                result[-back] = size
                continue
            raise ValueError(
                f"shapes {tuple(shapes)} do not broadcast: size {size} of {shape} clashes "
                f"with size {have} at dimension {ndim - back} (the {back}. from the right); "
                f"sizes must be equal or one of them 1")
    return tuple(result)


def broadcast_strides(shape: Sequence[int], strides: Sequence[int],
                      target_shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of ``tensor.expand(target_shape)`` for a tensor with ``shape``/``strides``.

    New leading dimensions and size-1 dimensions stretched to another size get stride 0;
    every other dimension keeps its stride (a new leading dimension of size 1 gets
    ``size * stride`` of the dimension after it, as torch reports).  Raises ValueError when ``shape`` does not
    broadcast to ``target_shape`` (``target_shape`` itself must not change).
    """
    shape = _as_shape(shape)
    target = _as_shape(target_shape)
    strides = tuple(int(s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError(f"shape {shape} and strides {strides} differ in length")
    if len(target) < len(shape):
        raise ValueError(
            f"cannot broadcast shape {shape} to {target}: the target has fewer dimensions")
    if not shape:  # torch expands a 0-dim tensor with stride 0 everywhere
        return (0,) * len(target)
    lead = len(target) - len(shape)
    out = [0] * len(target)
    # Walk from the right, as ATen's inferExpandGeometry does: a new leading dimension
    # of size 1 gets the stride a contiguous layout would give it (never used to
    # address memory, but it is what torch reports).
    for i in reversed(range(len(target))):
        want = target[i]
        d = i - lead
        if d >= 0:
            size, stride = shape[d], strides[d]
        else:
            size, stride = 1, (target[i + 1] * out[i + 1] if i + 1 < len(target) else 1)
        if size != want:
            if size != 1:
                raise ValueError(
                    f"cannot broadcast shape {shape} to {target}: size {size} at dimension "
                    f"{d} is neither {want} nor 1")
            stride = 0
        out[i] = stride
    return tuple(out)

"""Planted faults for the property specs (specs/test_property_*.py): each must turn them red.

Each fault is the kind of slip a learner's helper or a broken autograd formula makes,
and each is caught by a hypothesis property rather than a hand-picked example: the
property has to *find* an input that exposes it within the dev profile's examples.
Check one with ``python -m torchclaims mutants NAME`` or
``pytest specs/ -p no:randomly --mutant NAME --claim <id>``.
"""
import functools
import math

import torch

from torchclaims.impl import Impl
from torchclaims.mutants import fault


def _misaligned(shape, target_ndim: int) -> tuple[int, ...]:
    """``shape`` aligned one dimension too far left: a trailing 1 stands in for its last size."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return shape + (1,) if len(shape) < target_ndim else shape


@fault("tensors.broadcast-rule", "tensors.broadcast-stride-zero")
def broadcast_helper_off_by_one():
    """The reference broadcast helpers align a shorter shape one dimension too far left."""
    mod = Impl().broadcasting
    shapes_ok, strides_ok = mod.broadcast_shapes, mod.broadcast_strides

    def broadcast_shapes(*shapes):
        ndim = max((1 if isinstance(s, int) else len(s) for s in shapes), default=0)
        return shapes_ok(*[_misaligned(s, ndim) for s in shapes])

    def broadcast_strides(shape, strides, target_shape):
        if len(tuple(shape)) < len(tuple(target_shape)):
            shape, strides = tuple(shape) + (1,), tuple(strides) + (1,)
        return strides_ok(shape, strides, target_shape)

    mod.broadcast_shapes = broadcast_shapes
    mod.broadcast_strides = broadcast_strides


@fault("autograd.backward-reverse-topological", "autograd.gradient-arg-is-vjp",
       "autograd.captum-integrated-gradients")
def gradcheck_grads_scaled_1_01():
    """torch.autograd.grad returns 1.01 times every gradient (what gradcheck, jacobian and captum call)."""
    original = torch.autograd.grad

    @functools.wraps(original)
    def grad(*args, **kwargs):
        return tuple(None if g is None else g * 1.01 for g in original(*args, **kwargs))

    torch.autograd.grad = grad


@fault("autograd.backward-reverse-topological", "autograd.gradient-arg-is-vjp")
def central_difference_wrong_step():
    """The reference central difference divides by eps instead of 2 * eps (a Jacobian twice too big)."""
    module = Impl().finite_diff

    original = module.central_difference_jacobian

    def central_difference_jacobian(fn, inputs, eps=1e-6):
        return 2 * original(fn, inputs, eps)  # (f(x+e) - f(x-e)) / e

    module.central_difference_jacobian = central_difference_jacobian


@fault("tensors.layout-decides-zero-copy", "tensors.reshape-copies-when-needed",
       "tensors.view-needs-contiguous")
def view_strides_wrong():
    """view_strides decides right but reports row-major strides, forgetting each chunk's base stride."""
    mod = Impl().strides
    original = mod.view_strides

    def view_strides(shape, strides, new_shape):
        found = original(shape, strides, new_shape)
        if found is None or math.prod(new_shape) == 0:
            return found
        return mod.contiguous_strides(new_shape)

    mod.view_strides = view_strides

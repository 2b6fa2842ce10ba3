"""Planted faults for the autograd topic: each breaks behaviour an autograd spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection; the
process ends after the run, so nothing is undone.  Faults that wrap
``torch.autograd.backward`` also reach ``Tensor.backward``, which calls it.
"""
import functools

import torch

from torchclaims.impl import Impl
from torchclaims.mutants import fault


@fault("autograd.detach-shares-storage", "autograd.detach-inplace-is-harmless",
       "autograd.inplace-saved-tensor-version-error")
def detach_copies():
    """Tensor.detach returns a clone: no shared storage, no shared version counter."""
    original = torch.Tensor.detach
    torch.Tensor.detach = lambda self: original(self).clone()


@fault("autograd.data-write-raises-at-backward", "autograd.data-keeps-grad-fn", "autograd.data-is-legacy")
def data_is_detach():
    """Tensor.data behaves like detach(): writes through it bump the shared version counter."""
    descriptor = torch._C.TensorBase.__dict__["data"]
    torch.Tensor.data = property(lambda self: self.detach(), lambda self, value: descriptor.__set__(self, value))


@fault("autograd.no-grad-stops-recording", "autograd.set-grad-enabled-default",
       "autograd.inplace-on-leaf-raises", "autograd.partial-no-grad-leaves-none",
       "autograd.detach-later-ops-differentiable", "autograd.no-grad-prevents-grad-pollution")
def no_grad_noop():
    """torch.no_grad is a context manager (and decorator) that does nothing."""
    class NoGrad:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __call__(self, fn):
            return fn

    torch.no_grad = NoGrad


def _wrap_backward(transform):
    """Replace torch.autograd.backward by one that rewrites its arguments first."""
    original = torch.autograd.backward

    @functools.wraps(original)
    def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *args, **kwargs):
        tensors = (tensors,) if isinstance(tensors, torch.Tensor) else tuple(tensors)
        tensors, grad_tensors, retain_graph = transform(tensors, grad_tensors, retain_graph)
        return original(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)

    torch.autograd.backward = backward


@fault("autograd.example-004-w-times-x", "autograd.example-002-gradients",
       "autograd.example-002-weighted-backward", "autograd.example-004-masked-backward",
       "autograd.gradient-arg-is-vjp", "autograd.grad-accumulates",
       "autograd.backward-reverse-topological")
def grads_scaled():
    """Every backward seeds 1.01 times the requested gradient."""
    def scale(tensors, grad_tensors, retain_graph):
        if grad_tensors is None:
            grads = [None] * len(tensors)
        elif isinstance(grad_tensors, torch.Tensor):
            grads = [grad_tensors]
        else:
            grads = list(grad_tensors)
        if len(grads) != len(tensors):  # leave malformed calls to torch's own error
            return tensors, grad_tensors, retain_graph
        seeded = []
        for t, g in zip(tensors, grads):
            if g is None and t.numel() == 1:
                g = torch.ones_like(t)
            if isinstance(g, torch.Tensor) and g.is_floating_point():
                g = g * 1.01
            seeded.append(g)
        return tensors, tuple(seeded), retain_graph

    _wrap_backward(scale)


@fault("autograd.grad-accumulates", "autograd.second-backward-raises",
       "modules.zero-grad-each-step")
def accumulate_overwrites():
    """Backward overwrites leaf gradients: every reachable leaf's .grad is reset to None first."""
    def reset_leaves(tensors, grad_tensors, retain_graph):
        seen, stack = set(), [t.grad_fn for t in tensors if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if hasattr(node, "variable"):
                node.variable.grad = None
            stack.extend(n for n, _ in node.next_functions)
        return tensors, grad_tensors, retain_graph

    _wrap_backward(reset_leaves)


@fault("autograd.second-backward-raises", "autograd.saved-buffers-freed")
def retain_graph_always():
    """Backward always keeps the graph (retain_graph=True): saved tensors are never freed."""
    _wrap_backward(lambda tensors, grads, retain: (tensors, grads, True))


@fault("autograd.backward-reverse-topological")
def engine_no_unbroadcast():
    """The reference engine hands broadcast gradients back unreduced (wrong shapes and sums)."""
    engine = Impl().autograd_engine
    engine._unbroadcast = lambda grad, shape: grad


@fault("autograd.gradient-arg-is-vjp", "autograd.backward-reverse-topological")
def finite_diff_one_sided():
    """central_difference_jacobian uses a one-sided difference: error O(eps) instead of O(eps**2)."""
    module = Impl().finite_diff

    def forward_difference(fn, inputs, eps=1e-6):
        inputs = tuple(inputs)
        base = [x.detach().to(torch.float64).clone().contiguous() for x in inputs]
        with torch.no_grad():
            f0 = module._flat_output(fn(*base)).to(torch.float64)
            columns = []
            for x in base:
                flat = x.view(-1)
                for j in range(flat.numel()):
                    saved = flat[j].item()
                    flat[j] = saved + eps
                    columns.append((module._flat_output(fn(*base)).to(torch.float64) - f0) / eps)
                    flat[j] = saved
        return torch.stack(columns, dim=1) if columns else torch.zeros(f0.numel(), 0, dtype=torch.float64)

    module.central_difference_jacobian = forward_difference


@fault("autograd.inplace-on-leaf-raises")
def inplace_on_leaf_allowed():
    """add_ and += on a leaf that requires grad write through .data instead of raising."""
    for name in ("add_", "__iadd__"):
        original = getattr(torch.Tensor, name)

        def lenient(self, *args, _original=original, **kwargs):
            if self.is_leaf and self.requires_grad and torch.is_grad_enabled():
                _original(self.data, *args, **kwargs)
                return self
            return _original(self, *args, **kwargs)
        setattr(torch.Tensor, name, lenient)


@fault("autograd.inplace-saved-tensor-version-error")
def inplace_skips_version_counter():
    """torch.relu_ writes through .data: the version counter never sees the change."""
    original = torch.relu_

    def relu_(t):
        original(t.data)
        return t
    torch.relu_ = relu_

"""Planted faults for the numerics topic: each breaks behaviour a numerics spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection; the
process ends after the run, so nothing is undone.  nn.CrossEntropyLoss and nn.NLLLoss call
``torch.nn.functional.cross_entropy`` / ``nll_loss`` through the module attribute, so
patching the functional reaches the modules too.
"""
import functools

import torch
import torch.nn.functional as F

from torchclaims.impl import Impl
from torchclaims.mutants import fault


# --- torch ------------------------------------------------------------------------------

@fault("numerics.cross-entropy-stable-vs-softmax-log", "numerics.cross-entropy-is-log-softmax-nll")
def cross_entropy_naive():
    """F.cross_entropy becomes nll_loss(softmax(x).log()): inf/nan at large logit gaps."""
    nll_loss = F.nll_loss

    @functools.wraps(F.cross_entropy)
    def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                      reduce=None, reduction="mean", label_smoothing=0.0):
        dim = 0 if input.dim() == 1 else 1
        return nll_loss(torch.softmax(input, dim).log(), target, weight=weight,
                        ignore_index=ignore_index, reduction=reduction)

    F.cross_entropy = cross_entropy


@fault("numerics.log-softmax-large-input-inf", "numerics.cross-entropy-stable-vs-softmax-log",
       "numerics.cross-entropy-is-log-softmax-nll")
def log_softmax_naive():
    """F.log_softmax and Tensor.log_softmax compute softmax(x).log(): -inf past the underflow gap."""
    def naive(input, dim=None, _stacklevel=3, dtype=None):
        if dtype is not None:
            input = input.to(dtype)
        return torch.softmax(input, dim).log()

    F.log_softmax = naive
    torch.Tensor.log_softmax = lambda self, dim, dtype=None: naive(self, dim, dtype=dtype)


@fault("numerics.cross-entropy-includes-softmax")
def cross_entropy_no_softmax():
    """F.cross_entropy forgets its log_softmax: it is nll_loss applied to the raw input."""
    nll_loss = F.nll_loss

    def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                      reduce=None, reduction="mean", label_smoothing=0.0):
        return nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)

    F.cross_entropy = cross_entropy


@fault("numerics.softmax-nll-is-manual-cross-entropy")
def nll_loss_takes_log():
    """F.nll_loss takes the log of its input itself, as if it were a cross-entropy on probabilities."""
    original = F.nll_loss

    def nll_loss(input, target, *args, **kwargs):
        return original(input.log(), target, *args, **kwargs)

    F.nll_loss = nll_loss


@fault("numerics.cross-entropy-default-mean")
def cross_entropy_default_sum():
    """nn.CrossEntropyLoss() defaults to reduction='sum' instead of 'mean'."""
    original = torch.nn.CrossEntropyLoss.__init__

    @functools.wraps(original)
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="sum", label_smoothing=0.0):
        original(self, weight, size_average, ignore_index, reduce, reduction, label_smoothing)

    torch.nn.CrossEntropyLoss.__init__ = __init__


@fault("numerics.clip-grad-norm-max-norm")
def clip_grad_norm_returns_clipped_norm():
    """clip_grad_norm_ returns the total norm after clipping instead of the one before."""
    original = torch.nn.utils.clip_grad_norm_

    @functools.wraps(original)
    def clip_grad_norm_(parameters, max_norm, *args, **kwargs):
        parameters = list(parameters) if not isinstance(parameters, torch.Tensor) else [parameters]
        original(parameters, max_norm, *args, **kwargs)
        return torch.nn.utils.get_total_norm([p.grad for p in parameters if p.grad is not None])

    torch.nn.utils.clip_grad_norm_ = clip_grad_norm_


@fault("numerics.clip-grad-norm-max-norm")
def clip_grad_norm_per_tensor():
    """clip_grad_norm_ clips each gradient by its own norm instead of by one total norm."""
    original = torch.nn.utils.clip_grad_norm_

    @functools.wraps(original)
    def clip_grad_norm_(parameters, max_norm, *args, **kwargs):
        parameters = list(parameters) if not isinstance(parameters, torch.Tensor) else [parameters]
        norms = [original([p], max_norm, *args, **kwargs) for p in parameters if p.grad is not None]
        return torch.linalg.vector_norm(torch.stack(norms))

    torch.nn.utils.clip_grad_norm_ = clip_grad_norm_


@fault("numerics.gradscaler-update-adjusts-scale", "modules.scaler-state-in-checkpoint")
def gradscaler_update_keeps_scale():
    """GradScaler.update never changes the scale (no backoff after inf, no growth)."""
    original = torch.amp.GradScaler.update

    @functools.wraps(original)
    def update(self, new_scale=None):
        before = None if self._scale is None else self._scale.clone()
        original(self, new_scale)
        if before is not None:
            self._scale.copy_(before)

    torch.amp.GradScaler.update = update


@fault("numerics.gradscaler-update-adjusts-scale", "modules.scaler-state-in-checkpoint")
def gradscaler_step_never_skips():
    """GradScaler.step always runs optimizer.step(), even when the gradients hold inf/nan."""
    original = torch.amp.GradScaler.step

    @functools.wraps(original)
    def step(self, optimizer, *args, **kwargs):
        result = original(self, optimizer, *args, **kwargs)
        if self.is_enabled() and sum(v.item() for v in self._per_optimizer_states[id(optimizer)]
                                     ["found_inf_per_device"].values()):
            with torch.no_grad():
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p -= group["lr"] * p.grad.nan_to_num(nan=1.0, posinf=1.0, neginf=-1.0)
        return result

    torch.amp.GradScaler.step = step


@fault("numerics.unscale-before-clip", "numerics.gradscaler-scale-prevents-underflow")
def gradscaler_unscale_noop():
    """GradScaler.unscale_ leaves the gradients multiplied by the scale."""
    original = torch.amp.GradScaler.unscale_

    @functools.wraps(original)
    def unscale_(self, optimizer):
        saved = [[None if p.grad is None else p.grad.clone() for p in g["params"]] for g in optimizer.param_groups]
        original(self, optimizer)
        for group, grads in zip(optimizer.param_groups, saved):
            for p, g in zip(group["params"], grads):
                if g is not None:
                    p.grad.copy_(g)

    torch.amp.GradScaler.unscale_ = unscale_


# --- reference_impl/stable.py -----------------------------------------------------------

@fault("numerics.cross-entropy-is-log-softmax-nll", "numerics.cross-entropy-stable-vs-softmax-log")
def ref_logsumexp_no_shift():
    """reference logsumexp forgets the max shift: log(sum(exp(x))) overflows past ~88.7 (float32)."""
    stable = Impl().stable

    def logsumexp(x, dim=-1):
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        return work.exp().sum(dim).log().to(x.dtype)

    stable.logsumexp = logsumexp


@fault("numerics.cross-entropy-is-log-softmax-nll", "numerics.cross-entropy-stable-vs-softmax-log")
def ref_log_softmax_no_shift():
    """reference log_softmax is x - log(sum(exp(x))) without the shift; cross_entropy follows it."""
    stable = Impl().stable

    def log_softmax(x, dim=-1):
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        return (work - work.exp().sum(dim, keepdim=True).log()).to(x.dtype)

    stable.log_softmax = log_softmax


@fault("numerics.cross-entropy-is-log-softmax-nll")
def ref_cross_entropy_counts_targets():
    """reference cross_entropy's mean divides by the number of kept targets, not their summed weights."""
    stable = Impl().stable
    original = stable.cross_entropy

    def cross_entropy(logits, target, weight=None, ignore_index=-100, reduction="mean"):
        if reduction != "mean":
            return original(logits, target, weight, ignore_index, reduction)
        total = original(logits, target, weight, ignore_index, "sum")
        return total / (target != ignore_index).sum()

    stable.cross_entropy = cross_entropy

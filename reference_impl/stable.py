"""Numerically stable log-sum-exp, log-softmax and cross-entropy, next to their naive forms.

The naive functions are the textbook formulas written directly (``log(sum(exp(x)))``,
``log(exp(x) / sum(exp(x)))``), computed in the input's own dtype, so they overflow and
underflow where that dtype does: ``exp`` overflows above ~11.09 in float16, ~88.72 in
float32/bfloat16 and ~709.78 in float64, and a probability underflows to 0 once a logit
sits ~17.3 (float16), ~92.7 (bfloat16), ~103.97 (float32) or ~745.1 (float64) below the
largest one.

The stable functions subtract the maximum first (the "max shift"), so ``exp`` never sees a
positive argument; like torch on CPU they compute float16/bfloat16 inputs in float32 and
round the result back to the input dtype.
"""
from __future__ import annotations

import torch

_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _upcast(x: torch.Tensor) -> torch.Tensor:
    return x.float() if x.dtype in _LOW_PRECISION else x


def naive_logsumexp(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``log(sum(exp(x)))`` along ``dim`` with no shift: inf once any ``exp(x)`` overflows."""
    return x.exp().sum(dim).log()


def logsumexp(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Stable ``log(sum(exp(x)))`` along ``dim``: ``m + log(sum(exp(x - m)))`` with ``m = max``.

    An infinite maximum is shifted by 0 instead (as torch.logsumexp does), so a row holding
    +inf gives +inf and a row of -inf gives -inf rather than ``inf - inf = nan``.
    An empty reduction gives -inf (the log of an empty sum).
    """
    work = _upcast(x)
    if work.shape[dim] == 0:
        return torch.full_like(work.sum(dim), float("-inf")).to(x.dtype)
    shift = work.amax(dim, keepdim=True).detach()
    shift = torch.where(shift.isinf(), torch.zeros_like(shift), shift)
    out = (work - shift).exp().sum(dim, keepdim=True).log() + shift
    return out.squeeze(dim).to(x.dtype)


def naive_log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``log(exp(x) / sum(exp(x)))`` along ``dim``, no shift.

    Overflow of ``exp`` gives ``inf / inf = nan``; underflow of a probability gives -inf.
    """
    e = x.exp()
    return (e / e.sum(dim, keepdim=True)).log()


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Stable log-softmax along ``dim``: ``(x - m) - log(sum(exp(x - m)))`` with ``m = max``.

    Finite for every finite input whose spread (max - min) fits in the dtype; it never
    exponentiates a positive number.
    """
    work = _upcast(x)
    # Shift by the raw maximum (no special case for inf, unlike logsumexp): a row holding
    # +inf, or only -inf, gives nan everywhere, as torch's log_softmax does.
    shifted = work - work.amax(dim, keepdim=True).detach() if work.shape[dim] else work
    return (shifted - shifted.exp().sum(dim, keepdim=True).log()).to(x.dtype)


def _class_dim(logits: torch.Tensor) -> int:
    return 0 if logits.dim() == 1 else 1


def _nll(logp: torch.Tensor, target: torch.Tensor, weight, ignore_index: int, reduction: str):
    dim = _class_dim(logp)
    if target.dtype != torch.int64:
        raise RuntimeError(f"class-index targets must be int64 (torch.long), got {target.dtype}")
    if dim == 0:
        logp, target = logp.unsqueeze(0), target.unsqueeze(0)
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    picked = -logp.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = weight.to(logp.dtype)[safe] if weight is not None else torch.ones_like(picked)
    w = torch.where(keep, w, torch.zeros_like(w))
    losses = picked * w
    # An ignored position contributes exactly 0 even when its log-prob is -inf.
    losses = torch.where(keep, losses, torch.zeros_like(losses))
    if reduction == "none":
        return losses.squeeze(0) if dim == 0 else losses
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        # torch's weighted mean: divide by the summed weights of the kept targets,
        # not by the number of targets (0 / 0 = nan when everything is ignored).
        return losses.sum() / w.sum()
    raise ValueError(f"reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def naive_cross_entropy(logits, target, weight=None, ignore_index=-100, reduction="mean"):
    """Cross-entropy through :func:`naive_log_softmax` (class dim 1, or 0 for 1-D logits).

    Goes to inf when the target's probability underflows and to nan when ``exp`` overflows.
    """
    logp = naive_log_softmax(logits, _class_dim(logits))
    return _nll(logp, target, weight, ignore_index, reduction)


def cross_entropy(logits, target, weight=None, ignore_index=-100, reduction="mean"):
    """Stable cross-entropy with class-index targets, matching ``F.cross_entropy``.

    ``logits``: (C,), (N, C) or (N, C, d1, ...); ``target``: int64 of shape (), (N,) or
    (N, d1, ...).  ``weight`` (C,) weighs each sample by its target's class weight and
    ``reduction="mean"`` divides by the sum of those weights over the non-ignored targets.
    """
    work = _upcast(logits)
    logp = log_softmax(work, _class_dim(work))
    out = _nll(logp, target, None if weight is None else _upcast(weight), ignore_index, reduction)
    return out.to(logits.dtype)

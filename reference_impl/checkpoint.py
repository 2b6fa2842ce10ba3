"""Saving and resuming training, as the material recommends and as it really works.

Sources: 002_015987172f286748.txt §2.3, §4.5, §5.5 (checkpoint dict, the ``module.``
prefix loader); 003_cc3cb04f54b5f923.txt §3.3 (``optimizer_to``), §4.4 (GradScaler state
in the checkpoint); 000_9a03721c87560f23.txt §4.4 (state_dict rather than the module).

A checkpoint is a plain dict of state dicts, loaded with ``weights_only=True``: no
pickled code runs when it is read.
"""
from __future__ import annotations

import collections
import os

import torch
from torch import nn

__all__ = ["save_checkpoint", "load_checkpoint", "optimizer_to", "unwrap_model",
           "strip_module_prefix", "load_state_dict_stripping_prefix"]


def unwrap_model(model: nn.Module) -> nn.Module:
    """The module under DataParallel / DistributedDataParallel (``.module``) or
    ``torch.compile`` (``._orig_mod``) wrappers, so saved keys carry no wrapper prefix."""
    while True:
        if isinstance(model, (nn.DataParallel, nn.parallel.DistributedDataParallel)):
            model = model.module
        elif isinstance(getattr(model, "_orig_mod", None), nn.Module):
            model = model._orig_mod
        else:
            return model


def save_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer: torch.optim.Optimizer,
                    epoch: int, scaler=None, scheduler=None) -> dict:
    """Write ``{"epoch", "model_state_dict", "optimizer_state_dict"[, "scaler_state_dict"]
    [, "scheduler_state_dict"]}`` to ``path`` with ``torch.save`` and return the dict.

    The model is unwrapped first (see :func:`unwrap_model`), so the keys have no
    ``module.`` prefix.  ``epoch`` is the last finished epoch.
    """
    state = {
        "epoch": int(epoch),
        "model_state_dict": unwrap_model(model).state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
    }
    if scaler is not None:
        state["scaler_state_dict"] = scaler.state_dict()
    if scheduler is not None:
        state["scheduler_state_dict"] = scheduler.state_dict()
    torch.save(state, path)
    return state


def load_checkpoint(path: str | os.PathLike, model: nn.Module, optimizer=None, scaler=None,
                    scheduler=None, map_location="cpu") -> int:
    """Restore what :func:`save_checkpoint` wrote; return the saved epoch.

    Reads with ``torch.load(..., weights_only=True)``.  The model's state dict is loaded
    strictly after stripping a ``module.`` prefix, so a mismatch raises RuntimeError.
    Optimizer, scaler and scheduler are restored when given (and present in the file;
    a missing entry raises KeyError rather than silently starting fresh).
    ``Optimizer.load_state_dict`` itself casts the state to each parameter's device and
    dtype, so move the model to its device *before* calling this.
    """
    state = torch.load(path, map_location=map_location, weights_only=True)
    load_state_dict_stripping_prefix(unwrap_model(model), state["model_state_dict"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer_state_dict"])
    if scaler is not None:
        scaler.load_state_dict(state["scaler_state_dict"])
    if scheduler is not None:
        scheduler.load_state_dict(state["scheduler_state_dict"])
    return int(state["epoch"])


def optimizer_to(optimizer: torch.optim.Optimizer, device) -> torch.optim.Optimizer:
    """Move every tensor of the optimizer's per-parameter state to ``device``, in place.

    Needed when the model is moved *after* the optimizer has state (after a step or a
    ``load_state_dict``).  The ``step`` counters stay where they are, as
    ``Optimizer.load_state_dict`` leaves them (on CPU unless capturable/fused).
    Returns the optimizer.
    """
    for param_state in optimizer.state.values():
        for key, value in param_state.items():
            if key == "step":
                continue
            if isinstance(value, torch.Tensor):
                param_state[key] = value.to(device)
    return optimizer


def strip_module_prefix(state_dict: dict, prefix: str = "module.") -> collections.OrderedDict:
    """A copy of ``state_dict`` with a leading ``prefix`` removed from every key.

    DataParallel and DistributedDataParallel save their wrapped model's keys as
    ``module.<key>``.  Keys without the prefix are kept unchanged; the ``_metadata``
    (per-module versions that ``load_state_dict`` reads, e.g. BatchNorm's) is carried
    over with the same renaming.
    """
    stripped = collections.OrderedDict(
        (key[len(prefix):] if key.startswith(prefix) else key, value)
        for key, value in state_dict.items())
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        bare = prefix.rstrip(".")
        renamed = collections.OrderedDict()
        for key, value in metadata.items():
            if key == bare:
                key = ""
            elif key.startswith(prefix):
                key = key[len(prefix):]
            renamed[key] = value
        stripped._metadata = renamed
    return stripped


def load_state_dict_stripping_prefix(model: nn.Module, state_dict: dict, strict: bool = True):
    """``model.load_state_dict(strip_module_prefix(state_dict), strict=strict)``.

    Strict by default: keys that still do not match after stripping raise RuntimeError,
    exactly as ``load_state_dict`` does (its message lists them: ``Missing key(s) in
    state_dict: ...`` / ``Unexpected key(s) in state_dict: "fc.weight", ...``).  Returns the
    ``_IncompatibleKeys(missing_keys, unexpected_keys)`` named tuple.
    """
    return model.load_state_dict(strip_module_prefix(state_dict), strict=strict)

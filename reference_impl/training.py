"""The training and validation loop of the material (002 §4.4-§4.5, 003 §4.4, 004 §3.3), written out.

Each step is one the material names: ``model.train()`` before training, gradients cleared
before each ``backward`` (else they add up across batches), ``loss.item()`` to accumulate a
plain float (holding the loss tensor would hold its graph), ``model.eval()`` and
``torch.no_grad()`` for validation.
"""
from __future__ import annotations

import torch


def _batch_counts(output: torch.Tensor, target: torch.Tensor) -> int:
    """Number of rows whose arg-max equals the target."""
    _, predicted = output.max(1)
    return int(predicted.eq(target).sum().item())


def train_one_epoch(model, loader, optimizer, loss_fn, device="cpu") -> dict:
    """One pass over ``loader`` in training mode; returns ``{"loss", "accuracy"}``.

    ``loss`` is the sample-weighted mean of the batch losses (so an incomplete last batch
    counts by its size), ``accuracy`` the fraction of samples (0..1) whose arg-max matches.
    The model is left in training mode.
    """
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = loss_fn(output, target)
        loss.backward()
        optimizer.step()
        batch = target.size(0)
        total_loss += loss.item() * batch
        correct += _batch_counts(output.detach(), target)
        seen += batch
    if seen == 0:
        raise ValueError("the loader produced no batch")
    return {"loss": total_loss / seen, "accuracy": correct / seen}


def evaluate(model, loader, loss_fn, device="cpu") -> dict:
    """Loss and accuracy over ``loader`` in eval mode under ``torch.no_grad()``.

    Calls ``model.eval()`` and does NOT switch back: the model is in eval mode after the
    call (the caller, e.g. :func:`fit`, calls ``model.train()`` again).  Grad mode is
    restored by the ``no_grad`` context.  Returns ``{"loss", "accuracy"}`` as
    :func:`train_one_epoch` does.
    """
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            batch = target.size(0)
            total_loss += loss_fn(output, target).item() * batch
            correct += _batch_counts(output, target)
            seen += batch
    if seen == 0:
        raise ValueError("the loader produced no batch")
    return {"loss": total_loss / seen, "accuracy": correct / seen}


def fit(model, train_loader, val_loader, optimizer, loss_fn, epochs: int, device="cpu") -> list:
    """``epochs`` rounds of :func:`train_one_epoch` then :func:`evaluate`.

    Returns the history: one dict per epoch with ``train_loss``, ``train_accuracy``,
    ``val_loss``, ``val_accuracy``.  The model ends in eval mode (the last evaluate).
    """
    history = []
    for _ in range(epochs):
        train = train_one_epoch(model, train_loader, optimizer, loss_fn, device)
        val = evaluate(model, val_loader, loss_fn, device)
        history.append({"train_loss": train["loss"], "train_accuracy": train["accuracy"],
                        "val_loss": val["loss"], "val_accuracy": val["accuracy"]})
    return history

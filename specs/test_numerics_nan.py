"""Numerics: a loss that turns nan or inf, and where it comes from.

Sources: 000 §4.1 (nan loss blamed on log(softmax), torch.isnan(loss).item()),
002 §5.2 (loss jumping to inf blamed on initialisation).
Anomaly-mode mechanics (which backward op is named) belong to the autograd topic.
"""
import math

import pytest
import torch
import torch.nn.functional as F

# Tiny ops: one intra-op thread avoids spin-wait overhead (conftest restores the count).
pytestmark = pytest.mark.usefixtures("one_thread")



def _regression(lr, steps=20):
    """Seeded linear regression with torch's default init; returns the loss history."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g) * 10
    y = x @ torch.randn(4, 1, generator=g)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)
    history = []
    for _ in range(steps):
        loss = F.mse_loss(model(x), y)
        history.append(loss.item())
        model.zero_grad()
        loss.backward()
        _sgd_step(model, lr)
    return history


def _sgd_step(model, lr):
    """Plain SGD by hand (torch.optim.SGD without momentum), to keep this file quick."""
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad


@pytest.mark.claim("numerics.isnan-loss-item-true")
def test_isnan_item_is_python_true_for_nan_and_false_for_inf():
    """Material: for a nan loss torch.isnan(loss).item() is True.  True; for inf it is False,
    so torch.isfinite is the check that catches both."""
    nan_loss = F.cross_entropy(torch.tensor([[float("nan"), 0.0]]), torch.tensor([0]))
    assert torch.isnan(nan_loss).item() is True, f"isnan({nan_loss}).item() should be True"
    inf_loss = F.nll_loss(torch.softmax(torch.tensor([[0.0, 200.0]]), 1).log(), torch.tensor([0]))
    assert inf_loss.item() == math.inf
    assert torch.isnan(inf_loss).item() is False, f"isnan({inf_loss}).item() should be False for inf"
    assert not torch.isfinite(nan_loss) and not torch.isfinite(inf_loss)


@pytest.mark.claim("numerics.nan-loss-mostly-log-softmax")
def test_cross_entropy_still_goes_nan_from_other_causes():
    """Material: nan loss comes from log(softmax), and CrossEntropyLoss avoids it.  True: CE
    removes that cause, but 0/0 in a hand-written normalisation or nan inputs still give nan."""
    x = torch.randn(8, 3)
    x[:, 1] = 5.0  # a constant feature column: its std is 0
    y = torch.randint(0, 3, (8,))
    normalised = (x - x.mean(0)) / x.std(0)  # 0 / 0 = nan in column 1
    loss = torch.nn.CrossEntropyLoss()(normalised, y)
    assert torch.isnan(loss), f"CrossEntropyLoss after a 0/0 normalisation is {loss}; expected nan"
    poisoned = torch.randn(8, 3)
    poisoned[3, 0] = float("nan")
    assert torch.isnan(torch.nn.CrossEntropyLoss()(poisoned, y)), "a nan logit should make the mean loss nan"


@pytest.mark.claim("numerics.nan-loss-mostly-log-softmax")
def test_cross_entropy_model_goes_nan_from_an_overflowing_learning_rate():
    """Material: CrossEntropyLoss avoids the nan.  True: a learning rate that overflows the
    weights to inf gives inf - inf inside log_softmax, and the loss is nan after one step."""
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 4, generator=g) * 10, torch.randint(0, 3, (64,), generator=g)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(model(x), y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        _sgd_step(model, lr=1e38)
    assert math.isfinite(losses[0]) and math.isnan(losses[-1]), (
        f"CrossEntropyLoss with lr=1e38: {losses}; expected finite first, then nan")


@pytest.mark.claim("numerics.nan-loss-mostly-log-softmax", as_written=True)
def test_as_written_cross_entropy_loss_never_nan():
    """Material: always using nn.CrossEntropyLoss avoids the nan loss.  True: not for 0/0 inputs."""
    x = torch.randn(8, 3)
    x[:, 1] = 5.0
    loss = torch.nn.CrossEntropyLoss()((x - x.mean(0)) / x.std(0), torch.randint(0, 3, (8,)))
    assert not torch.isnan(loss), f"CrossEntropyLoss gave {loss}; the material says it cannot go nan"


@pytest.mark.claim("numerics.loss-inf-from-bad-init")
def test_learning_rate_alone_sends_a_default_init_loss_to_inf_then_nan():
    """Material: a loss jumping to inf comes from bad initialisation.  True: with torch's default
    init a too-large learning rate alone gives inf then nan; a small one converges."""
    diverging = _regression(lr=1.0)
    converging = _regression(lr=1e-3)
    first_inf = next(i for i, v in enumerate(diverging) if v == math.inf)
    assert any(math.isnan(v) for v in diverging[first_inf:]), f"lr=1.0 losses {diverging}; expected inf, then nan"
    assert all(math.isfinite(v) for v in converging) and converging[-1] < converging[0] / 10, (
        f"lr=1e-3 losses {converging[0]:.3g} -> {converging[-1]:.3g}; expected finite and falling")


@pytest.mark.claim("numerics.loss-inf-from-bad-init", as_written=True)
def test_as_written_default_init_keeps_loss_finite():
    """Material: the jump to inf is an initialisation problem.  True: lr alone causes it."""
    history = _regression(lr=1.0)
    assert all(math.isfinite(v) for v in history), (
        f"default-init regression with lr=1.0 gave {history[-3:]}; the material blames init only")

"""Data: gradient accumulation as tutorials write it — loss / accumulation_steps, step and
zero_grad every N micro-batches, the BatchNorm caveat, the leftover micro-batch.

Sources: the tutorials of claims/survey/data.toml (issue #41).  Tiny models on random data.
"""
import pytest
import torch
from torch import nn


def _data(n=8, d=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g), torch.randn(n, 1, generator=g)


def _grads(model):
    return [p.grad.clone() for p in model.parameters()]


def _accumulated(model, x, y, steps, divide=True):
    model.zero_grad()
    for xb, yb in zip(x.chunk(steps), y.chunk(steps)):
        loss = nn.functional.mse_loss(model(xb), yb)
        (loss / steps if divide else loss).backward()
    return _grads(model)


def _full(model, x, y):
    model.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    return _grads(model)


@pytest.mark.claim("data.grad-accum-divide-loss")
@pytest.mark.parametrize("steps", [2, 4])
def test_dividing_each_micro_batch_loss_reproduces_the_full_batch_gradient(steps):
    """Tutorials: divide each micro-batch's loss by accumulation_steps so the summed gradient matches.
    True: with equal micro-batches and a mean loss, the accumulated .grad equals the full batch's."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = _data()
    for got, want in zip(_accumulated(model, x, y, steps), _full(model, x, y)):
        torch.testing.assert_close(got, want)


@pytest.mark.claim("data.grad-accum-divide-loss")
def test_without_the_division_the_gradient_is_steps_times_larger():
    """Tutorials: without the division the gradient grows with the number of accumulated batches.
    True: backward adds into .grad, so the sum is accumulation_steps times the full-batch gradient."""
    torch.manual_seed(0)
    model = nn.Linear(5, 1)
    x, y = _data()
    for got, want in zip(_accumulated(model, x, y, 4, divide=False), _full(model, x, y)):
        torch.testing.assert_close(got, 4 * want)


@pytest.mark.claim("data.grad-accum-divide-loss")
def test_accumulated_sgd_update_equals_one_large_batch_update():
    """Tutorials: accumulating N micro-batches then one step simulates an N-times larger batch.
    True: for SGD without BatchNorm the parameters after the step match the large-batch step."""
    x, y = _data(16)
    torch.manual_seed(1)
    small = nn.Linear(5, 1)
    large = nn.Linear(5, 1)
    large.load_state_dict(small.state_dict())
    opt_small = torch.optim.SGD(small.parameters(), lr=0.1)
    opt_large = torch.optim.SGD(large.parameters(), lr=0.1)
    _accumulated(small, x, y, 4)
    opt_small.step()
    _full(large, x, y)
    opt_large.step()
    for a, b in zip(small.parameters(), large.parameters()):
        torch.testing.assert_close(a, b)


@pytest.mark.claim("data.grad-accum-batchnorm-differs")
def test_batchnorm_in_training_makes_accumulation_differ_from_the_large_batch():
    """Tutorials: accumulation matches the large batch except for BatchNorm.
    True: BatchNorm normalises each micro-batch with its own statistics, so the gradients differ."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)).train()
    x, y = _data()
    acc, full = _accumulated(model, x, y, 2), _full(model, x, y)
    assert not all(torch.allclose(a, f, atol=1e-5) for a, f in zip(acc, full)), \
        "BatchNorm model: accumulated gradient equals the full-batch one, expected a difference"


@pytest.mark.claim("data.grad-accum-batchnorm-differs")
def test_batchnorm_in_eval_mode_accumulates_exactly():
    """Tutorials: only BatchNorm spoils the equivalence.
    True: with BatchNorm in eval mode (running statistics) the accumulated gradient matches again."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)).eval()
    x, y = _data()
    for got, want in zip(_accumulated(model, x, y, 2), _full(model, x, y)):
        torch.testing.assert_close(got, want)


def _epoch(model, opt, batches, steps):
    """The tutorials' loop: step and zero_grad when (i + 1) % steps == 0."""
    updates = 0
    for i, (xb, yb) in enumerate(batches):
        (nn.functional.mse_loss(model(xb), yb) / steps).backward()
        if (i + 1) % steps == 0:
            opt.step()
            opt.zero_grad()
            updates += 1
    return updates


@pytest.mark.claim("data.grad-accum-leftover-batch")
def test_the_leftover_micro_batch_is_not_applied_and_stays_in_grad():
    """Tutorials: with 15 batches and accumulation_steps=2 the last batch never updates the weights.
    True: 7 updates happen; the 15th batch's gradient stays in .grad after the epoch."""
    torch.manual_seed(0)
    model = nn.Linear(5, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _data(15)
    batches = list(zip(x.split(1), y.split(1)))
    opt.zero_grad()
    assert _epoch(model, opt, batches, 2) == 7
    model_copy = nn.Linear(5, 1)
    model_copy.load_state_dict(model.state_dict())
    (nn.functional.mse_loss(model_copy(batches[-1][0]), batches[-1][1]) / 2).backward()
    torch.testing.assert_close(model.weight.grad, model_copy.weight.grad)


@pytest.mark.claim("data.grad-accum-leftover-batch")
def test_the_leftover_gradient_leaks_into_the_next_epochs_first_update():
    """Tutorials: zero_grad once before the loop, then after each step.
    True: the leftover gradient is added to the next epoch's first group unless zero_grad runs at epoch start."""
    x, y = _data(3)
    batches = list(zip(x.split(1), y.split(1)))
    torch.manual_seed(0)
    leaky, clean = nn.Linear(5, 1), nn.Linear(5, 1)
    clean.load_state_dict(leaky.state_dict())
    opt_leaky = torch.optim.SGD(leaky.parameters(), lr=0.1)
    opt_clean = torch.optim.SGD(clean.parameters(), lr=0.1)
    opt_leaky.zero_grad()
    _epoch(leaky, opt_leaky, batches, 2)
    opt_clean.zero_grad()
    _epoch(clean, opt_clean, batches, 2)
    opt_clean.zero_grad()
    _epoch(leaky, opt_leaky, batches[:2], 2)
    _epoch(clean, opt_clean, batches[:2], 2)
    assert not torch.allclose(leaky.weight, clean.weight), \
        "the leftover gradient did not change the next epoch's first update"

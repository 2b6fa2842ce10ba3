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



def _regression(lr, steps=20, init=None):
    """Seeded linear regression with torch's default init (or ``init`` applied to the weight, the
    bias zeroed); returns the loss history."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g) * 10
    y = x @ torch.randn(4, 1, generator=g)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)
        if init is not None:
            init(model.weight)
            torch.nn.init.zeros_(model.bias)
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
    flag = torch.isnan(nan_loss)
    assert flag.dtype == torch.bool and flag.dim() == 0, f"isnan of a 0-dim loss is {flag!r}; expected a 0-dim bool tensor"
    assert torch.isnan(nan_loss).item() is True, f"isnan({nan_loss}).item() should be True"
    inf_loss = F.nll_loss(torch.softmax(torch.tensor([[0.0, 200.0]]), 1).log(), torch.tensor([0]))
    assert inf_loss.item() == math.inf
    assert torch.isnan(inf_loss).item() is False, f"isnan({inf_loss}).item() should be False for inf"
    assert not torch.isfinite(nan_loss) and not torch.isfinite(inf_loss)
    assert torch.isinf(inf_loss).item() is True and torch.isinf(nan_loss).item() is False, (
        f"isinf({inf_loss}) should be True and isinf({nan_loss}) False")


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
    features = torch.randn(8, 4)
    features[2, 1] = float("inf")
    with torch.random.fork_rng():
        torch.manual_seed(0)
        layer = torch.nn.Linear(4, 3)
    through = torch.nn.CrossEntropyLoss()(layer(features), y)
    assert torch.isnan(through), f"an inf input feature through Linear then CrossEntropyLoss gives {through}; expected nan"


@pytest.mark.claim("numerics.nan-loss-mostly-log-softmax")
def test_log_of_softmax_is_one_source_of_nan_and_cross_entropy_removes_it():
    """Material: a nan loss comes from log(softmax).  True: the hand-made one-hot loss on
    log(softmax) is nan at a large logit gap, while CrossEntropyLoss on the same logits is finite."""
    logits = torch.tensor([[0.0, 200.0, 1.0], [3.0, 0.0, -1.0]])
    y = torch.tensor([1, 0])
    hand_made = -(F.one_hot(y, 3) * torch.log(torch.softmax(logits, 1))).sum(1).mean()
    proper = torch.nn.CrossEntropyLoss()(logits, y)
    assert torch.isnan(hand_made) and torch.isfinite(proper), (
        f"one-hot loss on log(softmax) {hand_made}, CrossEntropyLoss {proper}; expected nan and finite")


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
        if len(losses) == 1:
            assert torch.isinf(model.weight).any(), f"after one step with lr=1e38 the weights are {model.weight}; expected inf"
            assert torch.isinf(model(x)).any(), "the logits after that step should hold inf"
    assert math.isfinite(losses[0]) and math.isnan(losses[-1]), (
        f"CrossEntropyLoss with lr=1e38: {losses}; expected finite first, then nan")
    assert torch.isnan(torch.tensor(losses[-1])).item(), "torch.isnan should flag the nan loss"


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
    diverging = _regression(lr=1.0, steps=30)
    converging = _regression(lr=1e-3)
    first_inf = next(i for i, v in enumerate(diverging) if v == math.inf)
    first_nan = next(i for i, v in enumerate(diverging) if math.isnan(v))
    assert (first_inf, first_nan) == (8, 17) and all(math.isfinite(v) for v in diverging[:8]), (
        f"lr=1.0 losses {diverging}; expected finite, inf from step 8, nan from step 17")
    assert all(math.isfinite(v) for v in converging) and converging[-1] < converging[0] / 10, (
        f"lr=1e-3 losses {converging[0]:.3g} -> {converging[-1]:.3g}; expected finite and falling")
    for name, init in (("kaiming_normal_", torch.nn.init.kaiming_normal_), ("xavier_normal_", torch.nn.init.xavier_normal_),
                       ("zeros_", torch.nn.init.zeros_)):
        reinitialised = _regression(lr=1.0, steps=30, init=init)
        assert any(math.isnan(v) for v in reinitialised), (
            f"lr=1.0 after re-initialising the weight with {name}: losses {reinitialised[-3:]}; expected nan again")


@pytest.mark.claim("numerics.loss-inf-from-bad-init")
def test_init_scale_sets_the_per_layer_factor_of_activations_and_gradients():
    """Material: bad init keeps the gradient from flowing back through a deep network.  True: in a
    256-wide ReLU stack each layer multiplies activations and input gradients by a factor set by the init."""
    def rms_after(std, depth):
        torch.manual_seed(0)
        x = torch.randn(32, 256, requires_grad=True)
        h = x
        for _ in range(depth):
            w = torch.empty(256, 256)
            torch.nn.init.normal_(w, 0.0, std) if std else torch.nn.init.kaiming_normal_(w, nonlinearity="relu")
            h = torch.relu(h @ w.t())
        h.sum().backward()
        return h.pow(2).mean().sqrt().item(), x.grad.pow(2).mean().sqrt().item()

    for std in (0.01, 1.0):
        per_layer = [rms_after(std, depth)[0] for depth in (1, 2, 3, 4)]
        factors = [b / a for a, b in zip(per_layer, per_layer[1:])]
        assert max(factors) / min(factors) < 1.2, (
            f"init std {std}: activation rms after 1..4 layers {per_layer}; expected one constant factor per layer")
    for std, check in ((0.01, lambda v: v < 1e-2), (1.0, lambda v: v > 1e2), (None, lambda v: 0.3 < v < 3.0)):
        act, grad = rms_after(std, 3)
        assert check(act) and check(grad), (
            f"init std {std or 'kaiming'}: activation rms {act:.3g}, input-gradient rms {grad:.3g} after 3 layers; "
            "expected vanishing for 0.01, exploding for 1.0, order one for kaiming")
        act10, grad10 = rms_after(std, 10)
        assert check(act10) and check(grad10), (
            f"init std {std or 'kaiming'}: activation rms {act10:.3g}, input-gradient rms {grad10:.3g} after 10 layers")


@pytest.mark.claim("numerics.loss-inf-from-bad-init", as_written=True)
def test_as_written_default_init_keeps_loss_finite():
    """Material: the jump to inf is an initialisation problem.  True: lr alone causes it."""
    history = _regression(lr=1.0)
    assert all(math.isfinite(v) for v in history), (
        f"default-init regression with lr=1.0 gave {history[-3:]}; the material blames init only")

"""Numerics: loss functions — CrossEntropyLoss on logits, the extra softmax, eps and clamp fixes,
label shapes and dtypes.

Sources: 000 §4.1, 002 §2.2 / §4.4 / §5.3, 003 §4.2, 004 §2.2 / §4.2 / §5.5.
"""
import functools
import io
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, default_collate

# Tiny ops: one intra-op thread avoids spin-wait overhead (conftest restores the count).
pytestmark = pytest.mark.usefixtures("one_thread")



def _three_class_task():
    """300 points around 3 seeded centres in 2-d; separable enough for a linear model."""
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(3, 2, generator=g) * 3
    y = torch.randint(0, 3, (300,), generator=g)
    x = centres[y] + torch.randn(300, 2, generator=g)
    return x, y


CHECKPOINTS = tuple(range(51))  # every step: a flat stretch or a dip to chance cannot hide between checkpoints


def _sgd_step(model, lr):
    """Plain SGD by hand (what torch.optim.SGD does without momentum), to keep this file quick."""
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad


@functools.lru_cache(maxsize=None)
def _history(extra_softmax, lr=0.5):
    """Full-batch SGD on a seeded linear model (default init), one run per variant, cached:
    {step: (loss, accuracy, model output)} at the CHECKPOINTS."""
    x, y = _three_class_task()
    with torch.random.fork_rng():  # torch's default init, seeded, without touching the test's RNG
        torch.manual_seed(0)
        model = torch.nn.Linear(2, 3)
    criterion = torch.nn.CrossEntropyLoss()
    history = {}
    _run_steps(model, criterion, x, y, extra_softmax, lr, history)
    return history


def _run_steps(model, criterion, x, y, extra_softmax, lr, history):
    for step in range(max(CHECKPOINTS) + 1):
        out = model(x)
        if extra_softmax:
            out = F.softmax(out, dim=1)
        loss = criterion(out, y)
        if step in CHECKPOINTS:
            history[step] = (loss.item(), (out.argmax(1) == y).float().mean().item(), out.detach())
        model.zero_grad()
        loss.backward()
        _sgd_step(model, lr)


def _train(extra_softmax, steps):
    """(loss, accuracy, output) after ``steps`` SGD steps, with or without the extra softmax."""
    return _history(extra_softmax)[steps]


def _start_gradient_norm(extra_softmax):
    """The total gradient norm of the seeded model's first step, with or without the extra softmax."""
    x, y = _three_class_task()
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = torch.nn.Linear(2, 3)
    out = model(x)
    torch.nn.CrossEntropyLoss()(F.softmax(out, dim=1) if extra_softmax else out, y).backward()
    return math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))


# --- CrossEntropyLoss takes logits ------------------------------------------------------

@pytest.mark.claim("numerics.cross-entropy-includes-softmax")
def test_cross_entropy_applies_its_own_softmax():
    """Material: CrossEntropyLoss already contains the softmax.  True: loss(logits) is
    -log softmax(logits)[target]; feeding probabilities computes another, bounded loss."""
    logits = torch.tensor([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0]])
    y = torch.tensor([0, 1])
    want = -torch.softmax(logits, 1)[[0, 1], y].log().mean()
    torch.testing.assert_close(torch.nn.CrossEntropyLoss()(logits, y), want)
    double = torch.nn.CrossEntropyLoss()(torch.softmax(logits, 1), y)
    assert not torch.isclose(double, want), (
        f"CrossEntropyLoss(softmax(logits)) = {double.item():.4f} equals the loss on logits; "
        "a second softmax should change it")
    g = torch.Generator().manual_seed(0)
    wild = torch.randn(200, 3, generator=g) * 50
    targets = torch.randint(0, 3, (200,), generator=g)
    plain = F.cross_entropy(wild, targets, reduction="none")
    bounded = F.cross_entropy(torch.softmax(wild, 1), targets, reduction="none")
    low, high = math.log(1 + 2 / math.e), math.log(math.e + 2)
    assert plain.max() > 10 * high, f"the loss on logits peaks at {plain.max():.1f}; expected it unbounded here"
    assert low - 1e-5 <= bounded.min() and bounded.max() <= high + 1e-5, (
        f"CrossEntropyLoss(softmax(x)) ranges over [{bounded.min():.4f}, {bounded.max():.4f}]; expected within "
        f"[log(1 + 2/e), log(e + 2)] = [{low:.4f}, {high:.4f}] for 3 classes")


@pytest.mark.claim("numerics.double-softmax-near-uniform")
@pytest.mark.parametrize("classes", [3, 10])
def test_double_softmax_distribution_is_bounded_near_uniform(classes):
    """Material: a second softmax pushes the distribution towards uniform.  True: the loss's
    softmax of probabilities stays within [1/(e+C-1), e/(e+C-1)], even for one-hot input."""
    one_hot = F.one_hot(torch.arange(classes), classes).float()
    seen = torch.softmax(one_hot, 1)
    hi, lo = math.e / (math.e + classes - 1), 1 / (math.e + classes - 1)
    if classes == 10:
        assert (round(lo, 3), round(hi, 3)) == (0.085, 0.232), f"bounds for C=10 are {lo:.4f}, {hi:.4f}"
    torch.testing.assert_close(seen.max(), torch.tensor(hi))
    torch.testing.assert_close(seen.min(), torch.tensor(lo))
    floor = F.cross_entropy(one_hot, torch.arange(classes))
    torch.testing.assert_close(floor, torch.tensor(math.log(1 + (classes - 1) / math.e)), msg=lambda m: (
        f"the best possible double-softmax loss for C={classes} should be log(1+(C-1)/e): {m}"))
    g = torch.Generator().manual_seed(0)
    for scale in (0.1, 1.0, 10.0, 1e3):
        probs = torch.softmax(torch.randn(500, classes, generator=g) * scale, 1)
        again = torch.softmax(probs, 1)
        ratio = again.max(1).values / again.min(1).values
        assert lo - 1e-6 <= again.min() and again.max() <= hi + 1e-6 and ratio.max() <= math.e + 1e-5, (
            f"softmax of probabilities (logit scale {scale:g}, C={classes}) spans [{again.min():.4f}, "
            f"{again.max():.4f}] with a row ratio up to {ratio.max():.4f}; expected within [{lo:.4f}, {hi:.4f}], ratio <= e")


@pytest.mark.claim("numerics.double-softmax-loss-falls-accuracy-flat")
def test_double_softmax_plateau_then_learns():
    """Material: with the extra softmax the loss falls while accuracy stays flat.  True: for a
    while (the model's softmax damps the gradients), then accuracy reaches 1.0; the loss has a floor."""
    loss_0, acc_0, _ = _train(True, 0)
    loss_10, acc_10, _ = _train(True, 10)
    loss_50, acc_50, _ = _train(True, 50)
    loss_plain_5, acc_plain_5, _ = _train(False, 5)
    assert loss_10 < loss_0 and acc_10 - acc_0 < 0.1, (
        f"double softmax, steps 0 -> 10: loss {loss_0:.3f} -> {loss_10:.3f}, accuracy {acc_0:.3f} -> "
        f"{acc_10:.3f}; expected the loss to fall while accuracy barely moves")
    assert acc_plain_5 >= 0.99, f"plain logits reach accuracy {acc_plain_5:.3f} after 5 steps; expected ~1.0"
    assert acc_50 >= 0.99, f"double softmax accuracy after 50 steps is {acc_50:.3f}; expected ~1.0"
    floor = math.log(1 + 2 / math.e)
    assert loss_50 > floor > loss_plain_5, (
        f"losses: double softmax {loss_50:.4f}, plain {loss_plain_5:.4f}, floor {floor:.4f}; "
        "only the double softmax should stay above log(1+(C-1)/e)")
    figures = [round(v, 2) for v in (loss_0, loss_10, acc_0, acc_10)]
    assert figures == [1.06, 0.9, 0.6, 0.66], (
        f"double softmax loss 0 -> 10 steps and accuracy 0 -> 10 steps are {figures}; the truth quotes "
        "[1.06, 0.90, 0.60, 0.66]")
    assert _train(True, 20)[1] >= 0.99, f"double softmax accuracy after 20 steps is {_train(True, 20)[1]:.3f}; expected 1.0"
    double_grad, plain_grad = _start_gradient_norm(True), _start_gradient_norm(False)
    assert (round(double_grad, 2), round(plain_grad, 2)) == (0.62, 2.68), (
        f"first-step gradient norm with the extra softmax {double_grad:.3f}, without {plain_grad:.3f}; "
        "the truth quotes 0.62 against 2.68")


@pytest.mark.claim("numerics.double-softmax-stuck-at-chance")
def test_double_softmax_accuracy_never_at_chance():
    """Material: a double softmax keeps accuracy at the random level.  True: it stays well above
    1/C throughout the seeded run and reaches 1.0."""
    accuracies = [_train(True, steps)[1] for steps in CHECKPOINTS]
    assert min(accuracies) > 1 / 3 + 0.2 and accuracies[20] >= 0.99, (
        f"double-softmax accuracy over steps 0..50: {accuracies}; expected > 0.53 at every step, 1.0 at step 20")
    assert round(accuracies[0], 2) == 0.6, f"accuracy at the start is {accuracies[0]:.3f}; the truth quotes 0.60"
    plateau = accuracies[2:16]
    saturated = (_train(True, 10)[2].max(1).values > 0.9).float().mean().item()
    assert max(plateau) - min(plateau) < 0.01 and saturated > 0.9, (
        f"accuracy over steps 2..15 {plateau}, share of rows with max > 0.9 at step 10: {saturated:.3f}; expected "
        "a flat stretch while most rows of the model's softmax are saturated")
    _, _, out = _train(True, 0)
    logits = torch.log(out)  # the model's logits up to a per-row constant
    assert torch.equal(torch.softmax(logits, 1).argmax(1), logits.argmax(1)), "softmax changed the argmax"


@pytest.mark.claim("numerics.double-softmax-stuck-at-chance")
def test_double_softmax_gradient_never_pushes_the_target_logit_down():
    """Material: a double softmax keeps accuracy at chance.  True: the gradient of the double-softmax
    loss on the target's logit is never positive, at any logit scale (zero only when saturated)."""
    g = torch.Generator().manual_seed(0)
    for classes in (2, 3, 10):
        for scale in (0.1, 1.0, 5.0, 30.0):
            z = (torch.randn(2000, classes, generator=g, dtype=torch.float64) * scale).requires_grad_()
            y = torch.randint(0, classes, (2000,), generator=g)
            F.cross_entropy(torch.softmax(z, 1), y, reduction="sum").backward()
            on_target = z.grad.gather(1, y[:, None])
            assert on_target.max() <= 0, (
                f"C={classes}, logit scale {scale}: the double-softmax gradient on the target logit reaches "
                f"{on_target.max().item():.3g}; expected <= 0 (descent raises the target)")
            if scale <= 1.0:
                assert on_target.max() < 0, f"C={classes}, scale {scale}: expected strictly negative target gradients"


def _predictions_after_training(hidden_bias=None, steps=50, lr=0.5):
    """Predicted classes of the 3-class task after full-batch SGD on its labels: a linear model, or
    with ``hidden_bias`` a Linear-ReLU-Linear whose hidden bias is set to that value."""
    x, y = _three_class_task()
    with torch.random.fork_rng():
        torch.manual_seed(0)
        if hidden_bias is None:
            model = torch.nn.Linear(2, 3)
        else:
            model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
            with torch.no_grad():
                model[0].bias.fill_(hidden_bias)
    for _ in range(steps):
        model.zero_grad()
        F.cross_entropy(model(x), y).backward()
        _sgd_step(model, lr)
    with torch.no_grad():
        return model(x).argmax(1)


@pytest.mark.claim("numerics.double-softmax-stuck-at-chance")
def test_chance_accuracy_comes_from_misaligned_labels_or_a_dead_network():
    """Material: accuracy at the random level means a double softmax.  True: labels misaligned
    with their inputs or a dead ReLU layer hold accuracy near 1/C without any extra softmax."""
    _, y = _three_class_task()
    trained = _predictions_after_training()
    aligned = (trained == y).float().mean().item()
    misaligned = (trained == y.roll(1)).float().mean().item()  # labels one sample off their inputs
    dead = (_predictions_after_training(hidden_bias=-100.0) == y).float().mean().item()
    healthy = (_predictions_after_training(hidden_bias=0.0) == y).float().mean().item()
    assert abs(misaligned - 1 / 3) < 0.1 and abs(dead - 1 / 3) < 0.1, (
        f"accuracy against labels shifted by one sample {misaligned:.3f}, with a dead ReLU layer {dead:.3f}; "
        "expected both near 1/3")
    assert aligned > 0.99 and healthy > 0.9, (
        f"the same models against aligned labels / alive reach {aligned:.3f} / {healthy:.3f}; expected > 0.9")


@pytest.mark.claim("numerics.double-softmax-loss-falls-accuracy-flat", as_written=True)
def test_as_written_double_softmax_loss_falls_accuracy_flat():
    """Material: loss falls while accuracy does not rise.  True: accuracy rises after the plateau."""
    loss_before, acc_before, _ = _train(True, 0)
    loss_after, acc_after, _ = _train(True, 50)
    assert loss_after < loss_before
    assert acc_after <= acc_before + 0.05, (
        f"double-softmax accuracy went {acc_before:.3f} -> {acc_after:.3f}; the material says it stays flat")


@pytest.mark.claim("numerics.double-softmax-stuck-at-chance", as_written=True)
def test_as_written_double_softmax_accuracy_stays_at_chance():
    """Material: accuracy stays at the random level.  True: it reaches ~1.0."""
    _, acc, _ = _train(True, 50)
    assert abs(acc - 1 / 3) < 0.05, f"double-softmax accuracy after 50 steps is {acc:.3f}; the material says ~1/3"


@pytest.mark.claim("numerics.double-softmax-max-min-diagnostic")
def test_double_softmax_output_is_a_distribution_not_uniform():
    """Material: output max and min near 1/C reveal a double softmax.  True: the reliable sign is
    rows in [0, 1] summing to 1; with default init max is near 1 and min near 0."""
    for steps in (0, 10):
        _, _, out = _train(True, steps)
        torch.testing.assert_close(out.sum(1), torch.ones(len(out)))
        assert out.min() >= 0 and out.max() <= 1
        assert out.max() > 0.9 and out.min() < 1e-3, (
            f"double-softmax output after {steps} steps: max {out.max():.4f}, min {out.min():.2e}; "
            "expected confident rows, far from 1/C")
    zero_logits = torch.softmax(torch.zeros(4, 3), 1)
    torch.testing.assert_close(zero_logits, torch.full((4, 3), 1 / 3))  # the only case the test catches
    seen = [(round(out.max().item(), 3), float(f"{out.min().item():.1e}")) for out in (_train(True, 0)[2], _train(True, 10)[2])]
    assert seen == [(0.998, 1.8e-4), (0.998, 1.7e-6)], (
        f"double-softmax output (max, min) before training and after 10 steps: {seen}; the truth quotes "
        "(0.998, 1.8e-4) and (0.998, 1.7e-6)")
    _, _, plain = _train(False, 0)
    assert plain.min() < 0 or not torch.allclose(plain.sum(1), torch.ones(len(plain))), (
        "raw logits should fail the 'rows in [0, 1] summing to 1' test")
    for spread, near in ((0.01, True), (0.1, True), (1.0, False), (5.0, False)):
        row = torch.softmax(torch.tensor([[0.0, spread / 2, spread]]), 1)
        both = abs(row.max() - 1 / 3) < 0.05 and abs(row.min() - 1 / 3) < 0.05
        assert both == near, (
            f"softmax of logits spread over {spread}: max {row.max():.3f}, min {row.min():.3f}; max and min near "
            f"1/3 should hold {'' if near else 'not '}for this spread")


@pytest.mark.claim("numerics.double-softmax-max-min-diagnostic", as_written=True)
def test_as_written_double_softmax_output_max_min_near_one_over_c():
    """Material: with a double softmax max ≈ min ≈ 1/C.  True: only for near-equal logits."""
    _, _, out = _train(True, 10)
    assert abs(out.max() - 1 / 3) < 0.05 and abs(out.min() - 1 / 3) < 0.05, (
        f"output max {out.max():.4f}, min {out.min():.4f}; the material expects both ≈ 1/3")


@pytest.mark.claim("data.max-dim1-values-indices")
def test_output_max_indices_are_argmax_for_logits_and_probabilities():
    """Material: output.max(1) gives (values, indices), indices = predicted class.  True, and
    softmax leaves the indices unchanged."""
    logits = torch.randn(32, 10)
    values, indices = logits.max(1)
    assert torch.equal(indices, logits.argmax(1)) and torch.equal(values, logits.amax(1))
    assert torch.equal(torch.softmax(logits, 1).max(1).indices, indices), (
        "softmax changed the argmax; it should be monotonic")


# --- 000 §4.1: eps and clamp prescriptions ----------------------------------------------

@pytest.mark.claim("numerics.softmax-nll-is-manual-cross-entropy")
def test_nll_loss_on_probabilities_is_not_cross_entropy():
    """Material: F.softmax + F.nll_loss (+ eps) is a manual cross-entropy.  True: nll_loss takes
    no log; on probabilities it returns -mean(p[target]), in [-1, 0]."""
    logits = torch.tensor([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0], [1.0, 1.0, 1.0]])
    y = torch.tensor([0, 2, 1])
    p = torch.softmax(logits, 1)
    got = F.nll_loss(p + 1e-8, y)
    torch.testing.assert_close(got, -(p[torch.arange(3), y] + 1e-8).mean())
    assert -1 <= got <= 0
    ce = F.cross_entropy(logits, y)
    assert abs(got - ce) > 1, f"nll_loss(softmax) = {got:.4f} vs cross_entropy = {ce:.4f}; they should differ"
    torch.testing.assert_close(F.nll_loss(torch.log(p), y), ce)
    torch.testing.assert_close(F.nll_loss(F.log_softmax(logits, 1), y), ce)
    grads = {}
    for name, loss_of in (("no eps", lambda z: F.nll_loss(torch.softmax(z, 1), y)),
                          ("eps", lambda z: F.nll_loss(torch.softmax(z, 1) + 1e-8, y)),
                          ("cross_entropy", lambda z: F.cross_entropy(z, y))):
        z = logits.clone().requires_grad_()
        loss_of(z).backward()
        grads[name] = z.grad
    torch.testing.assert_close(grads["eps"], grads["no eps"])  # a constant eps changes no gradient
    assert not torch.allclose(grads["no eps"], grads["cross_entropy"], atol=1e-2), (
        f"gradient of nll_loss(softmax(x)) {grads['no eps']} matches cross_entropy's {grads['cross_entropy']}; "
        "it should not")
    gap = torch.tensor([[0.0, 200.0]])
    naive = F.nll_loss(torch.log(torch.softmax(gap, 1)), torch.tensor([0]))
    assert naive.item() == math.inf and torch.isfinite(F.cross_entropy(gap, torch.tensor([0]))), (
        f"nll_loss(log(softmax(x))) at a logit gap of 200 is {naive}; expected inf (underflow), cross_entropy finite")


@pytest.mark.claim("numerics.softmax-nll-is-manual-cross-entropy", as_written=True)
def test_as_written_softmax_then_nll_loss_is_cross_entropy():
    """Material: softmax + nll_loss + eps makes a cross-entropy.  True: no log is taken."""
    logits = torch.tensor([[2.0, -1.0, 0.5], [0.0, 3.0, -2.0]])
    y = torch.tensor([0, 2])
    manual = F.nll_loss(F.softmax(logits, dim=1) + 1e-8, y)
    torch.testing.assert_close(manual, F.cross_entropy(logits, y), msg=lambda m: (
        f"nll_loss(softmax(x) + 1e-8) = {manual:.4f} is not cross_entropy: {m}"))


@pytest.mark.claim("numerics.eps-1e-8-fixes-log-softmax")
def test_eps_caps_the_loss_and_kills_the_gradient_in_float32():
    """Material: adding eps=1e-8 fixes log(softmax).  True: finite, but the loss is capped at
    -log(1e-8) = 18.42 and the gradient of a badly wrong sample is ~2e-14 instead of 1."""
    x = torch.tensor([[0.0, 50.0]], requires_grad=True)
    y = torch.tensor([0])
    for dtype in (torch.float32, torch.float64):
        for gap in (50.0, 1e3):
            x = torch.tensor([[0.0, gap]], dtype=dtype, requires_grad=True)
            loss = F.nll_loss(torch.log(torch.softmax(x, 1) + 1e-8), y)
            loss.backward()
            assert torch.isfinite(loss) and loss.item() == pytest.approx(-math.log(1e-8), rel=1e-6), (
                f"eps-loss at a logit gap of {gap:g} in {dtype} is {loss.item()}; expected the cap -log(1e-8) = 18.42")
            if gap == 50.0:
                assert x.grad.abs().max().item() == pytest.approx(2e-14, rel=0.05), (
                    f"eps-loss gradient at a logit gap of 50 in {dtype} is {x.grad}; expected about 2e-14 (vanished)")
    x2 = torch.tensor([[0.0, 50.0]], requires_grad=True)
    F.cross_entropy(x2, y).backward()
    torch.testing.assert_close(x2.grad, torch.tensor([[-1.0, 1.0]]))


@pytest.mark.claim("numerics.eps-1e-8-fixes-log-softmax")
@pytest.mark.measurable_on(">=2.2", reason="the CPU float16 softmax kernel (pytorch#103315) appeared in 2.2 (the CUDA one exists before)")
def test_eps_1e8_rounds_away_in_float16():
    """Material: eps=1e-8 keeps the log finite.  True: in float16 1e-8 rounds to 0, so the loss
    is still inf; in bfloat16 and float32 the eps survives."""
    x = torch.tensor([[0.0, 50.0]], dtype=torch.float16)
    y = torch.tensor([0])
    assert (torch.zeros(1, dtype=torch.float16) + 1e-8).item() == 0.0
    # the log-softmax in the low dtype, the loss in float32: 2.3 has no CPU Half nll_loss
    loss = F.nll_loss(torch.log(torch.softmax(x, 1) + 1e-8).float(), y)
    assert loss.item() == math.inf, f"float16 eps-loss is {loss}; expected inf (1e-8 underflows)"
    for dtype in (torch.bfloat16, torch.float32):
        fixed = F.nll_loss(torch.log(torch.softmax(x.to(dtype), 1) + 1e-8).float(), y)
        assert torch.isfinite(fixed), f"{dtype} eps-loss is {fixed}; expected finite"
    no_eps = F.log_softmax(x, 1)  # float16, no eps at all
    assert torch.equal(no_eps, torch.tensor([[-50.0, 0.0]], dtype=torch.float16)), (
        f"F.log_softmax([[0, 50]]) in float16 is {no_eps}; expected the exact, finite [[-50, 0]] without any eps")


@pytest.mark.claim("numerics.eps-1e-8-fixes-log-softmax", as_written=True)
@pytest.mark.measurable_on(">=2.2", reason="the CPU float16 softmax kernel (pytorch#103315) appeared in 2.2 (the CUDA one exists before)")
def test_as_written_eps_makes_log_softmax_safe():
    """Material: with eps=1e-8 the hand-made log(softmax) is fixed.  True: not in float16."""
    x = torch.tensor([[0.0, 50.0]], dtype=torch.float16)
    logp = torch.log(torch.softmax(x, 1) + 1e-8)   # float16 all the way: the material's computation
    loss = F.nll_loss(logp.float(), torch.tensor([0]))  # the loss in float32: 2.3 has no CPU Half nll_loss
    assert torch.isfinite(loss), f"log(softmax + 1e-8) loss is {loss} in float16; the material says finite"


@pytest.mark.claim("numerics.clamp-log-softmax-min-eps")
def test_clamping_log_softmax_from_below_destroys_the_loss():
    """Material: F.nll_loss(F.log_softmax(pred, 1).clamp(min=1e-8), target).  True: every
    log-prob becomes 1e-8, the loss is the constant -1e-8 and all gradients are 0."""
    pred = torch.tensor([[2.0, 1.0, 0.1], [-3.0, 5.0, 0.0], [0.0, 0.0, 40.0]], requires_grad=True)
    target = torch.tensor([0, 0, 1])
    clamped = F.log_softmax(pred, dim=1).clamp(min=1e-8)
    torch.testing.assert_close(clamped, torch.full((3, 3), 1e-8))
    loss = F.nll_loss(clamped, target)
    loss.backward()
    torch.testing.assert_close(loss.detach(), torch.tensor(-1e-8))
    assert torch.count_nonzero(pred.grad) == 0, f"gradient {pred.grad}; expected all zeros"
    proper = F.cross_entropy(pred.detach(), target)
    assert proper > 10, f"the real loss is {proper:.3f}; the clamped one hides it as -1e-8"
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.bfloat16, torch.float32, torch.float64):
        for scale in (1e-3, 1.0, 1e2, 1e4):
            x = (torch.randn(64, 7, generator=g, dtype=torch.float64) * scale).to(dtype).requires_grad_()
            logp = F.log_softmax(x, 1)
            assert logp.max() <= 0, f"F.log_softmax in {dtype} at scale {scale:g} reaches {logp.max()}; expected <= 0"
            loss = F.nll_loss(logp.clamp(min=1e-8).float(), torch.randint(0, 7, (64,), generator=g))
            loss.backward()
            assert loss.item() == pytest.approx(-1e-8, rel=1e-2) and torch.count_nonzero(x.grad) == 0, (
                f"clamped loss in {dtype} at scale {scale:g}: {loss.item()}, nonzero grads {torch.count_nonzero(x.grad)}; "
                "expected the constant -1e-8 and no gradient")
    z = pred.detach().clone().requires_grad_()
    on_probs = F.nll_loss(torch.softmax(z, 1).clamp(min=1e-8).log(), target, reduction="none")
    on_probs.sum().backward()
    assert torch.isfinite(on_probs).all() and on_probs.max() <= -math.log(1e-8) + 1e-4, (
        f"clamping the probabilities gives per-sample losses {on_probs}; expected finite, at most -log(1e-8)")
    assert torch.count_nonzero(z.grad[:2]) == 6, (
        f"gradient through the probability clamp {z.grad}; the rows whose target is not clamped should learn")


@pytest.mark.claim("numerics.clamp-log-softmax-min-eps", as_written=True)
def test_as_written_clamped_log_softmax_is_a_working_loss():
    """Material: the clamp(min=1e-8) version is a usable fallback.  True: it equals -1e-8."""
    pred = torch.tensor([[2.0, 1.0, 0.1], [-3.0, 5.0, 0.0]])
    target = torch.tensor([0, 0])
    got = F.nll_loss(F.log_softmax(pred, dim=1).clamp(min=1e-8), target)
    torch.testing.assert_close(got, F.cross_entropy(pred, target), msg=lambda m: (
        f"clamped loss {got.item():.3g} vs cross_entropy: {m}"))


@pytest.mark.claim("numerics.log-zero-times-label-nan")
def test_log_zero_times_one_hot_is_nan_but_nll_loss_gives_inf():
    """Material: log(0) = -inf, times the label gives nan.  True for a one-hot product; nll_loss
    picks instead: +inf in the forward, nan only in the gradient."""
    logits = torch.tensor([[0.0, 200.0]], requires_grad=True)
    logp = torch.softmax(logits, 1).log()
    assert logp[0, 0].item() == -math.inf
    one_hot = torch.tensor([[0.0, 1.0]])
    assert torch.isnan(-(one_hot * logp).sum()), "0 * -inf should be nan in the one-hot product"
    loss = F.nll_loss(logp, torch.tensor([0]))
    assert loss.item() == math.inf, f"nll_loss with underflowed target is {loss}; expected +inf, not nan"
    other_underflowed = F.nll_loss(logp, torch.tensor([1]))
    assert other_underflowed.item() == 0.0, (
        f"nll_loss picking the target whose log-prob is 0 (only class 0 underflowed) is {other_underflowed}; "
        "expected 0.0: it picks the target, it does not multiply 0 * -inf")
    assert torch.log(torch.tensor(0.0)).item() == -math.inf, "log(0) should be -inf"
    loss.backward()
    assert torch.isnan(logits.grad).all(), f"gradient {logits.grad}; expected nan"
    for target, at_p in ((0, -math.inf), (1, None)):  # the backward of log divides by the zero probability
        z = torch.tensor([[0.0, 200.0]], requires_grad=True)
        p = torch.softmax(z, 1)
        p.retain_grad()
        picked = F.nll_loss(p.log(), torch.tensor([target]))
        picked.backward()
        d_p = p.grad[0, 0].item()
        assert not torch.isnan(picked) and torch.isnan(z.grad).all(), (
            f"target {target}: loss {picked.item()}, gradient {z.grad}; expected a loss that is not nan and a nan gradient")
        assert (d_p == at_p) if at_p is not None else math.isnan(d_p), (
            f"target {target}: dL/dp at the zero probability is {d_p}; expected {at_p if at_p is not None else 'nan'} "
            "(-1 / 0 for the target, 0 / 0 for another class)")


@pytest.mark.claim("numerics.log-zero-times-label-nan", as_written=True)
def test_as_written_softmax_log_loss_is_nan():
    """Material: the log(softmax) loss becomes nan.  True: nll_loss gives inf, not nan."""
    logp = torch.softmax(torch.tensor([[0.0, 200.0]]), 1).log()
    loss = F.nll_loss(logp, torch.tensor([0]))
    assert torch.isnan(loss), f"nll_loss(softmax().log()) is {loss}; the material expects nan"


# --- reductions, functional form, label shapes and dtypes -------------------------------

@pytest.mark.claim("numerics.cross-entropy-default-mean")
def test_cross_entropy_default_reduction_is_batch_mean():
    """Material: summing loss.item() per batch and dividing by the batch count averages.
    True: reduction defaults to 'mean', so equal batches give the per-sample mean."""
    assert torch.nn.CrossEntropyLoss().reduction == "mean"
    x, y = torch.randn(12, 4), torch.randint(0, 4, (12,))
    per_sample = F.cross_entropy(x, y, reduction="none")
    batches = [torch.nn.CrossEntropyLoss()(x[i:i + 4], y[i:i + 4]).item() for i in range(0, 12, 4)]
    for i, value in zip(range(0, 12, 4), batches):
        assert value == pytest.approx(per_sample[i:i + 4].mean().item(), rel=1e-6), (
            f"CrossEntropyLoss() on batch {i // 4} gives {value}; expected the mean of its 4 per-sample losses")
    torch.testing.assert_close(torch.tensor(sum(batches) / 3), per_sample.mean())
    torch.testing.assert_close(F.cross_entropy(x, y, reduction="sum"), per_sample.sum())
    data = TensorDataset(torch.randn(10, 4), torch.randint(0, 4, (10,)))
    for drop_last in (False, True):
        loader = DataLoader(data, batch_size=4, drop_last=drop_last)
        batch_means = [torch.nn.CrossEntropyLoss()(xb, yb).item() for xb, yb in loader]
        seen = sum(len(yb) for _, yb in loader)
        reported = sum(batch_means) / len(loader)
        per_sample = F.cross_entropy(data.tensors[0][:seen], data.tensors[1][:seen]).item()
        assert reported == pytest.approx(sum(batch_means) / len(batch_means)), "sum / len(loader) is the mean of batch means"
        assert (reported == pytest.approx(per_sample, rel=1e-5)) is drop_last, (
            f"10 samples in batches of 4, drop_last={drop_last}: sum / len(loader) = {reported:.5f}, per-sample mean "
            f"{per_sample:.5f}; they should agree only when every batch has the same size")


@pytest.mark.claim("modules.functional-vs-module")
def test_functional_cross_entropy_equals_module_and_module_has_no_state():
    """Material: F.cross_entropy is the stateless counterpart of the loss module.  True: same
    values; no parameters, and a buffer only when a class weight is given."""
    x, y = torch.randn(8, 5), torch.randint(0, 5, (8,))
    module = torch.nn.CrossEntropyLoss()
    torch.testing.assert_close(module(x, y), F.cross_entropy(x, y))
    assert list(module.parameters()) == [] and list(module.buffers()) == []
    w = torch.rand(5)
    weighted = torch.nn.CrossEntropyLoss(weight=w)
    assert [n for n, _ in weighted.named_buffers()] == ["weight"] and list(weighted.parameters()) == []
    torch.testing.assert_close(weighted(x, y), F.cross_entropy(x, y, weight=w))


@pytest.mark.claim("tensors.broadcast-n-vs-n1")
def test_label_shape_mismatches_raise_or_warn():
    """Material: (N,) labels against an (N,C) output broadcast silently to (N,N).  True: (N,C)
    vs (N,) raises unless C == N; the (N,N) case is (N,1) vs (N,), and MSELoss warns."""
    n, c = 4, 3
    with pytest.raises(RuntimeError, match="must match the size"):
        torch.zeros(n, c) - torch.zeros(n)
    assert (torch.zeros(n, 1) - torch.zeros(n)).shape == (n, n)
    with pytest.warns(UserWarning, match="target size"):
        F.mse_loss(torch.zeros(n, 1), torch.zeros(n))
    with pytest.raises(RuntimeError):
        F.cross_entropy(torch.zeros(n, c), torch.zeros(n, 1, dtype=torch.long))
    with pytest.raises(RuntimeError):
        F.cross_entropy(torch.zeros(n, c), torch.zeros(n))
    soft = F.cross_entropy(torch.zeros(n, c), torch.full((n, c), 1 / c))  # (N,C) floats: probabilities
    torch.testing.assert_close(soft, torch.tensor(math.log(c)))


@pytest.mark.claim("tensors.broadcast-n-vs-n1", as_written=True, raises=RuntimeError, match=r"must match the size of tensor")
def test_as_written_n_labels_broadcast_with_n_by_c_output():
    """Material: (N,C) output minus (N,) labels broadcasts to (N,N).  True: it raises."""
    out, labels = torch.zeros(4, 3), torch.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diff = out - labels
    assert diff.shape == (4, 4), f"(4,3) - (4,) has shape {tuple(diff.shape)}; the material expects (4, 4)"


@pytest.mark.claim("numerics.target-int-cast-for-cross-entropy")
def test_int_cast_labels_collate_to_int64_that_cross_entropy_accepts():
    """Material: labels from np.loadtxt are cast with int() before cross_entropy.  True: the cast
    yields an int64 batch; the raw float64 labels would make cross_entropy raise."""
    raw = np.loadtxt(io.StringIO("3\n0\n1\n2\n"))
    assert raw.dtype == np.float64, f"np.loadtxt gave {raw.dtype}; expected float64"
    logits = torch.randn(4, 4)
    cast = default_collate([int(v) for v in raw])
    assert cast.dtype == torch.int64
    torch.testing.assert_close(F.cross_entropy(logits, cast), F.cross_entropy(logits, torch.tensor([3, 0, 1, 2])))
    uncast = default_collate(list(raw))
    assert uncast.dtype == torch.float64
    with pytest.raises(RuntimeError, match="(?i)dtype|Long|Float|Double"):
        F.cross_entropy(logits.double(), uncast)
    with pytest.raises(RuntimeError, match="(?i)dtype|Long|Float|Double"):
        F.cross_entropy(logits, uncast)
    torch.testing.assert_close(F.cross_entropy(logits, cast.to(torch.uint8)), F.cross_entropy(logits, cast))
    with pytest.raises(RuntimeError, match="(?i)dtype|Long|Int"):
        F.cross_entropy(logits, cast.to(torch.int32))
    soft = F.cross_entropy(logits, F.one_hot(cast, 4).double())  # a float target of shape (N, C): probabilities
    torch.testing.assert_close(soft.float(), F.cross_entropy(logits, cast))

"""Numerics: loss functions — CrossEntropyLoss on logits, the extra softmax, eps and clamp fixes,
label shapes and dtypes.

Sources: 000 §4.1, 002 §2.2 / §4.4 / §5.3, 003 §4.2, 004 §2.2 / §4.2 / §5.5.
"""
import functools
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.utils.data import default_collate

# Tiny ops: one intra-op thread avoids spin-wait overhead (conftest restores the count).
pytestmark = pytest.mark.usefixtures("one_thread")



def _three_class_task():
    """300 points around 3 seeded centres in 2-d; separable enough for a linear model."""
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(3, 2, generator=g) * 3
    y = torch.randint(0, 3, (300,), generator=g)
    x = centres[y] + torch.randn(300, 2, generator=g)
    return x, y


CHECKPOINTS = (0, 5, 10, 20, 50)


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


@pytest.mark.claim("numerics.double-softmax-near-uniform")
@pytest.mark.parametrize("classes", [3, 10])
def test_double_softmax_distribution_is_bounded_near_uniform(classes):
    """Material: a second softmax pushes the distribution towards uniform.  True: the loss's
    softmax of probabilities stays within [1/(e+C-1), e/(e+C-1)], even for one-hot input."""
    one_hot = F.one_hot(torch.arange(classes), classes).float()
    seen = torch.softmax(one_hot, 1)
    hi, lo = math.e / (math.e + classes - 1), 1 / (math.e + classes - 1)
    torch.testing.assert_close(seen.max(), torch.tensor(hi))
    torch.testing.assert_close(seen.min(), torch.tensor(lo))
    floor = F.cross_entropy(one_hot, torch.arange(classes))
    torch.testing.assert_close(floor, torch.tensor(math.log(1 + (classes - 1) / math.e)), msg=lambda m: (
        f"the best possible double-softmax loss for C={classes} should be log(1+(C-1)/e): {m}"))


@pytest.mark.claim("numerics.double-softmax-loss-falls-accuracy-flat")
def test_double_softmax_plateau_then_learns():
    """Material: with the extra softmax the loss falls while accuracy stays flat.  True: for a
    while (saturated softmax, tiny gradients), then accuracy reaches 1.0; the loss has a floor."""
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


@pytest.mark.claim("numerics.double-softmax-stuck-at-chance")
def test_double_softmax_accuracy_never_at_chance():
    """Material: a double softmax keeps accuracy at the random level.  True: it stays well above
    1/C throughout the seeded run and reaches 1.0."""
    accuracies = [_train(True, steps)[1] for steps in (0, 5, 20)]
    assert min(accuracies) > 1 / 3 + 0.2 and accuracies[-1] >= 0.99, (
        f"double-softmax accuracy after 0/5/20 steps: {accuracies}; expected > 0.53 throughout, 1.0 at the end")


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
    loss = F.nll_loss(torch.log(torch.softmax(x, 1) + 1e-8), y)
    loss.backward()
    torch.testing.assert_close(loss.detach(), torch.tensor(-math.log(1e-8)), rtol=1e-5, atol=1e-4)
    assert x.grad.abs().max() < 1e-10, f"eps-loss gradient {x.grad}; expected ~2e-14 (vanished)"
    x2 = x.detach().clone().requires_grad_()
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
    loss.backward()
    assert torch.isnan(logits.grad).all(), f"gradient {logits.grad}; expected nan (0/0 in LogBackward)"


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
    torch.testing.assert_close(torch.tensor(sum(batches) / 3), per_sample.mean())
    torch.testing.assert_close(F.cross_entropy(x, y, reduction="sum"), per_sample.sum())


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
    raw = np.array([3.0, 0.0, 1.0, 2.0])  # what np.loadtxt returns: float64
    logits = torch.randn(4, 4)
    cast = default_collate([int(v) for v in raw])
    assert cast.dtype == torch.int64
    torch.testing.assert_close(F.cross_entropy(logits, cast), F.cross_entropy(logits, torch.tensor([3, 0, 1, 2])))
    uncast = default_collate(list(raw))
    assert uncast.dtype == torch.float64
    with pytest.raises(RuntimeError, match="(?i)dtype|Long|Float|Double"):
        F.cross_entropy(logits.double(), uncast)

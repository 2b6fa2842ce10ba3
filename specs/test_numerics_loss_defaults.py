"""Numerics, the loss functions' defaults and inputs: ignore_index, label_smoothing, probability
targets, class weights, NLLLoss's targets, reduction modes, KLDivLoss, the old size_average (issue #41, tutorials).

Every loss is compared with the formula written out by hand on small seeded tensors.
"""
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def _logits(n=6, c=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, c, generator=g), torch.randint(0, c, (n,), generator=g)


@pytest.mark.claim("numerics.cross-entropy-ignore-index")
def test_targets_equal_to_minus_100_add_no_loss_no_gradient_and_leave_the_mean():
    """Tutorials: ignore_index defaults to -100; those targets are skipped and the mean is over the rest.
    True: the loss equals the loss of the other rows alone, and the ignored rows get zero gradient."""
    assert nn.CrossEntropyLoss().ignore_index == -100 and nn.NLLLoss().ignore_index == -100
    x, y = _logits()
    y[[1, 4]] = -100
    x.requires_grad_(True)
    loss = F.cross_entropy(x, y)
    keep = y != -100
    assert torch.isclose(loss, F.cross_entropy(x[keep], y[keep])), f"{loss} vs mean over the 4 kept rows"
    loss.backward()
    assert x.grad[[1, 4]].abs().sum() == 0 and x.grad[keep].abs().sum() > 0, "ignored rows should get no gradient"
    assert F.cross_entropy(x, y, reduction="none")[[1, 4]].tolist() == [0.0, 0.0], "per-row loss of ignored rows"


@pytest.mark.claim("numerics.label-smoothing-uniform-mix")
def test_label_smoothing_mixes_the_one_hot_target_with_a_uniform_one():
    """Tutorials: with label_smoothing=eps the target becomes one_hot * (1 - eps) + eps / C.
    True: the loss equals -sum(that target * log_softmax), so the true class keeps 1 - eps + eps/C; default 0.0."""
    assert nn.CrossEntropyLoss().label_smoothing == 0.0
    x, y = _logits()
    for eps in (0.1, 0.5):
        soft = F.one_hot(y, 4).float() * (1 - eps) + eps / 4
        by_hand = -(soft * F.log_softmax(x, dim=1)).sum(1).mean()
        assert torch.isclose(F.cross_entropy(x, y, label_smoothing=eps), by_hand), eps
    assert torch.equal(F.cross_entropy(x, y, label_smoothing=0.0), F.cross_entropy(x, y))


@pytest.mark.claim("numerics.cross-entropy-probability-targets")
def test_cross_entropy_accepts_class_probabilities_as_a_float_target():
    """Tutorials: the target may be class indices or per-class probabilities.
    True: a float (N, C) target gives -sum(p * log_softmax(x)) averaged over N; a one-hot p matches the indices."""
    x, y = _logits()
    p = torch.softmax(torch.randn(6, 4, generator=torch.Generator().manual_seed(1)), dim=1)
    assert torch.isclose(F.cross_entropy(x, p), -(p * F.log_softmax(x, dim=1)).sum(1).mean())
    assert torch.isclose(F.cross_entropy(x, F.one_hot(y, 4).float()), F.cross_entropy(x, y))


@pytest.mark.claim("numerics.nll-loss-class-indices-only")
def test_nll_loss_takes_class_indices_and_rejects_probability_targets():
    """Tutorials: NLLLoss only supports targets given as class indices.
    True: an int64 (N,) target works and picks -logp[target]; a float (N, C) target raises RuntimeError."""
    x, y = _logits()
    logp = F.log_softmax(x, dim=1)
    assert torch.isclose(F.nll_loss(logp, y), -logp[torch.arange(6), y].mean())
    p = torch.softmax(x, dim=1)
    with pytest.raises(RuntimeError):
        F.nll_loss(logp, p)


@pytest.mark.claim("numerics.cross-entropy-weight-weighted-mean")
def test_class_weights_with_mean_divide_by_the_sum_of_the_targets_weights():
    """Tutorials: weight gives each class a rescaling factor against imbalance.
    True: it does, and reduction='mean' then divides by sum(weight[y]), not by N."""
    x, y = _logits()
    w = torch.tensor([1.0, 2.0, 3.0, 4.0])
    per_row = F.cross_entropy(x, y, reduction="none")
    assert torch.allclose(F.cross_entropy(x, y, weight=w, reduction="none"), w[y] * per_row)
    weighted = F.cross_entropy(x, y, weight=w)
    assert torch.isclose(weighted, (w[y] * per_row).sum() / w[y].sum()), weighted
    assert not torch.isclose(weighted, (w[y] * per_row).mean()), "mean is not divided by N"


@pytest.mark.claim("numerics.loss-reduction-modes")
def test_mse_reduction_none_keeps_the_shape_sum_adds_mean_divides_by_every_element():
    """Tutorials: reduction is 'none' | 'sum' | 'mean' (default mean).
    True: 'none' keeps the input's shape, 'sum' adds all, 'mean' divides by all N * D elements (not by N)."""
    g = torch.Generator().manual_seed(0)
    x, t = torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g)
    sq = (x - t) ** 2
    assert nn.MSELoss().reduction == "mean" and nn.L1Loss().reduction == "mean"
    assert F.mse_loss(x, t, reduction="none").shape == (4, 5)
    assert torch.isclose(F.mse_loss(x, t, reduction="sum"), sq.sum())
    assert torch.isclose(F.mse_loss(x, t), sq.sum() / 20), "mean over 20 elements"
    assert not torch.isclose(F.mse_loss(x, t), sq.sum() / 4), "not a per-sample mean"


@pytest.mark.claim("numerics.kldiv-log-prob-input-batchmean")
def test_kl_div_wants_log_probabilities_and_batchmean_divides_by_the_batch():
    """Tutorials: KLDivLoss's input must be log-probabilities (log_softmax first); reduction may be batchmean.
    True: kl_div(log q, p) = sum p (log p - log q); 'batchmean' divides by N, the default 'mean' by every element and warns."""
    g = torch.Generator().manual_seed(0)
    logq = F.log_softmax(torch.randn(4, 5, generator=g), dim=1)
    p = torch.softmax(torch.randn(4, 5, generator=g), dim=1)
    true_kl = (p * (p.log() - logq)).sum()
    assert torch.isclose(F.kl_div(logq, p, reduction="sum"), true_kl)
    assert torch.isclose(F.kl_div(logq, p, reduction="batchmean"), true_kl / 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mean = F.kl_div(logq, p)
    assert torch.isclose(mean, true_kl / 20) and any("batchmean" in str(w.message) for w in caught), mean
    wrong = F.kl_div(logq.exp(), p, reduction="sum")
    assert not torch.isclose(wrong, true_kl), "probabilities as input give another number"


@pytest.mark.claim("numerics.size-average-reduce-deprecated")
def test_size_average_and_reduce_still_work_but_warn_and_map_to_reduction():
    """Tutorials: size_average and reduce are deprecated in favour of reduction.
    True: passing them warns and sets reduction: size_average=False -> 'sum', reduce=False -> 'none'."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summed = nn.CrossEntropyLoss(size_average=False)
        unreduced = nn.MSELoss(reduce=False)
    assert (summed.reduction, unreduced.reduction) == ("sum", "none"), (summed.reduction, unreduced.reduction)
    assert sum("deprecated" in str(w.message) for w in caught) == 2, [str(w.message) for w in caught]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.CrossEntropyLoss(reduction="sum")


@pytest.mark.claim("numerics.poisson-nll-defaults")
def test_poisson_nll_loss_defaults_and_what_eps_guards():
    """Tutorials: PoissonNLLLoss has log_input, full (default False) and an eps that keeps log(0) away.
    True: log_input=True by default (loss exp(x) - t * x); with log_input=False it is x - t * log(x + eps),
    eps=1e-8, and without eps an input of 0 gives inf; full=True adds the Stirling term."""
    loss = nn.PoissonNLLLoss()
    assert (loss.log_input, loss.full, loss.eps, loss.reduction) == (True, False, 1e-8, "mean")
    x, t = torch.tensor([0.0, 1.0, 2.0]), torch.tensor([1.0, 2.0, 0.0])
    assert torch.allclose(F.poisson_nll_loss(x, t, reduction="none"), torch.exp(x) - t * x)
    rates = F.poisson_nll_loss(x, t, log_input=False, reduction="none")
    assert torch.allclose(rates, x - t * torch.log(x + 1e-8)) and torch.isfinite(rates).all(), rates
    bare = F.poisson_nll_loss(x, t, log_input=False, eps=0.0, reduction="none")
    assert torch.isinf(bare[0]), f"log(0) without eps gave {bare[0]}, expected inf"
    big = torch.tensor([3.0])
    stirling = big * torch.log(big) - big + 0.5 * torch.log(2 * torch.pi * big)
    full = F.poisson_nll_loss(x[1:2], big, full=True, reduction="none")
    assert torch.allclose(full, F.poisson_nll_loss(x[1:2], big, reduction="none") + stirling), full


@pytest.mark.claim("numerics.cross-entropy-target-range")
def test_class_index_targets_must_lie_in_zero_to_c_minus_one_except_ignore_index():
    """Tutorials: CrossEntropyLoss takes (N, C) input and an (N,) target with 0 <= target[i] <= C - 1.
    True: a target of C or -1 raises IndexError (out of bounds); -100, the ignore_index, is allowed."""
    x, _ = _logits(3, 5)
    for bad in (5, -1):
        with pytest.raises(IndexError, match="out of bounds"):
            F.cross_entropy(x, torch.tensor([bad, 0, 1]))
    kept = F.cross_entropy(x, torch.tensor([-100, 0, 1]))
    assert torch.isclose(kept, F.cross_entropy(x[1:], torch.tensor([0, 1]))), kept

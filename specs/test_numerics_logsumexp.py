"""Numerics, log-sum-exp and softmax with large inputs (issue #41, tutorials).

The naive forms (exp, sum, log; exp over sum) are computed next to torch's for contrast.
"""
import pytest
import torch
import torch.nn.functional as F


@pytest.mark.claim("numerics.logsumexp-stable-large-inputs")
def test_logsumexp_stays_finite_where_the_naive_form_overflows_or_underflows():
    """Tutorials: torch.logsumexp subtracts the maximum first, so large inputs do not overflow.
    True: logsumexp([1000]*3) = 1000 + log 3 while log(sum(exp)) is inf; for -1000 it is -1000 + log 3, not -inf."""
    big = torch.tensor([1000.0, 1000.0, 1000.0])
    value = torch.logsumexp(big, dim=0)
    assert torch.isclose(value, torch.tensor(1000.0 + torch.log(torch.tensor(3.0)).item())), value
    assert torch.log(torch.exp(big).sum()).item() == float("inf"), "the naive form should overflow"
    small = torch.logsumexp(-big, dim=0)
    assert torch.isclose(small, torch.tensor(-1000.0 + 1.0986123)), small
    assert torch.log(torch.exp(-big).sum()).item() == float("-inf"), "the naive form should underflow"


@pytest.mark.claim("numerics.logsumexp-needs-dim")
def test_logsumexp_requires_dim_and_reduces_all_only_with_every_dim_named():
    """Tutorials: leaving dim out (or dim=None) sums over the whole tensor.
    True: dim is required; without it or with None torch raises TypeError (RuntimeError "look up
    dimensions by name" on older releases); naming every dim reduces all."""
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises((TypeError, RuntimeError), match="dim"):
        torch.logsumexp(x)
    with pytest.raises((TypeError, RuntimeError), match="dim"):
        torch.logsumexp(x, dim=None)
    whole = torch.logsumexp(x, dim=(0, 1))
    assert torch.isclose(whole, torch.log(torch.exp(x).sum())), whole
    assert torch.logsumexp(x, dim=1).shape == (2,), "dim=1 gives one value per row"


@pytest.mark.claim("numerics.logsumexp-needs-dim", as_written=True, raises=(TypeError, RuntimeError), match=r"dim")
def test_as_written_logsumexp_without_dim_reduces_everything():
    """As the tutorial writes it: torch.logsumexp(logits, dim=None) returns one value for the whole tensor."""
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    result = torch.logsumexp(x, dim=None)
    assert result.dim() == 0 and torch.isclose(result, torch.log(torch.exp(x).sum())), result


@pytest.mark.claim("numerics.log-softmax-is-x-minus-logsumexp")
def test_logits_minus_their_logsumexp_are_log_softmax():
    """Tutorials: logits - logits.logsumexp(dim=1, keepdim=True) is the log-softmax; its exp is the softmax.
    True: they match F.log_softmax and F.softmax, also for logits around 1e4."""
    g = torch.Generator().manual_seed(0)
    for scale in (1.0, 1e4):
        x = torch.randn(4, 5, generator=g) * scale
        normalized = x - x.logsumexp(dim=1, keepdim=True)
        assert torch.allclose(normalized, F.log_softmax(x, dim=1), atol=1e-3 * max(1.0, scale / 1e3)), scale
        assert torch.allclose(normalized.exp(), F.softmax(x, dim=1), atol=1e-6), scale
        assert torch.allclose(normalized.exp().sum(1), torch.ones(4)), "rows should sum to 1"


@pytest.mark.claim("numerics.softmax-large-inputs-stable")
def test_softmax_of_huge_logits_is_finite_while_exp_over_sum_is_nan():
    """Tutorials: softmax on large logits does not overflow because the maximum is subtracted.
    True: F.softmax([1000, 1000]) = [0.5, 0.5] and softmax([1000, 0]) = [1, 0]; exp(x)/exp(x).sum() gives nan."""
    x = torch.tensor([1000.0, 1000.0])
    assert torch.equal(F.softmax(x, dim=0), torch.tensor([0.5, 0.5])), F.softmax(x, dim=0)
    assert torch.equal(F.softmax(torch.tensor([1000.0, 0.0]), dim=0), torch.tensor([1.0, 0.0]))
    naive = torch.exp(x) / torch.exp(x).sum()
    assert torch.isnan(naive).all(), f"exp/sum gave {naive}, expected nan (inf/inf)"


@pytest.mark.measurable_on(">=2.2", reason="the CPU float16 softmax kernel (pytorch#103315) appeared in 2.2 (the CUDA one exists before)")
@pytest.mark.claim("numerics.softmax-large-inputs-stable")
def test_float16_softmax_of_logits_near_its_maximum_is_finite():
    """Tutorials: the max shift keeps softmax finite.  True: also in float16, whose exp overflows
    past 11: softmax([60000, 0]) is exactly [1, 0]."""
    half = F.softmax(torch.tensor([60000.0, 0.0], dtype=torch.float16), dim=0)
    assert torch.equal(half, torch.tensor([1.0, 0.0], dtype=torch.float16)), f"float16 softmax {half}"

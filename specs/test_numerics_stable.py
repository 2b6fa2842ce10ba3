"""Numerics: log-softmax stability, softmax().log() against log_softmax, and the stable reference.

Sources: 000 §4.1 (CrossEntropyLoss = log_softmax + nll_loss; avoid softmax().log()),
003 §3.2 (log_softmax on huge inputs).  Reference: reference_impl/stable.py.
"""
import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, strategies as st

from hypothesis_helpers import property_settings, reproduce

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]

# CPU float16 kernels for softmax/log_softmax (pytorch#103315) and exp came in torch 2.2; on
# 2.0 and 1.13 they raise '"softmax_lastdim_kernel_impl" not implemented for 'Half'' (or
# "exp_vml_cpu"), so a float16 case there tests nothing the material says.
CPU_HALF = pytest.mark.measurable_on(
    ">=2.2", reason="CPU float16 softmax, log_softmax and exp kernels appeared in 2.2 (the CUDA ones exist on every release)")


def _param(*values, **kwargs):
    """pytest.param(*values), marked CPU_HALF when one of the values is torch.float16."""
    return pytest.param(*values, marks=CPU_HALF if torch.float16 in values else (), **kwargs)


DTYPE_PARAMS = [_param(d) for d in DTYPES]
MAGNITUDES = [1.0, 1e2, 1e4, 1e30]

# Gap between a logit and its row's maximum beyond which softmax(x).log() is exactly -inf,
# found by bisection on the installed torch (the probability underflows to 0).
UNDERFLOW_GAP = {
    torch.float16: 17.34,
    torch.bfloat16: 92.75,
    torch.float32: 103.97,
    torch.float64: 745.13,
}


# Tiny ops: one intra-op thread avoids spin-wait overhead (conftest restores the count).
pytestmark = pytest.mark.usefixtures("one_thread")



def _representable(magnitude, dtype):
    """float16 cannot hold 1e30 (its max is 65504); every other pair fits."""
    return magnitude * 4 < torch.finfo(dtype).max


def _logits(magnitude, dtype, shape=(6, 5)):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * magnitude).to(dtype)


# --- the reference against torch -------------------------------------------------------

CASES = [_param(m, d, id=f"{m:g}-{str(d)[6:]}") for m in MAGNITUDES for d in DTYPES
         if _representable(m, d)]


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
@pytest.mark.parametrize("magnitude, dtype", CASES + [  # an infinite maximum: +inf rows, and row 0 all -inf
    _param(math.inf, torch.float32, id="inf-float32"), _param(math.inf, torch.float16, id="inf-float16")])
@pytest.mark.parametrize("dim", [0, -1])
def test_reference_logsumexp_matches_torch(ref, magnitude, dtype, dim):
    """Material: log_softmax (built on log-sum-exp) is the stable way.  True: the max-shifted
    reference equals torch.logsumexp at every magnitude and dtype."""
    x = _logits(magnitude, dtype)
    if math.isinf(magnitude):
        x[0] = -math.inf
    got = ref.stable.logsumexp(x, dim=dim)
    torch.testing.assert_close(got, torch.logsumexp(x, dim=dim), msg=lambda m: (
        f"ref.stable.logsumexp(x * {magnitude:g}, dim={dim}) in {dtype} differs from "
        f"torch.logsumexp: {m}"))


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
@pytest.mark.parametrize("magnitude, dtype", CASES)
@pytest.mark.parametrize("dim", [0, -1])
def test_reference_log_softmax_matches_torch(ref, magnitude, dtype, dim):
    """Material: use log_softmax instead of softmax().log().  True: the stable reference
    equals F.log_softmax for magnitudes 1 to 1e30 in every floating dtype."""
    x = _logits(magnitude, dtype)
    got = ref.stable.log_softmax(x, dim=dim)
    torch.testing.assert_close(got, F.log_softmax(x, dim=dim), msg=lambda m: (
        f"ref.stable.log_softmax(x * {magnitude:g}, dim={dim}) in {dtype}: {m}"))
    assert torch.isfinite(got).all(), (
        f"ref.stable.log_softmax gave non-finite values at magnitude {magnitude:g} in {dtype}: {got}")


AWKWARD = {
    "size-1 row": lambda: torch.randn(4, 1),
    "zero rows": lambda: torch.randn(0, 3),
    "transposed (non-contiguous)": lambda: torch.randn(5, 4).t(),
    "strided slice": lambda: torch.randn(6, 8)[::2, 1::2],
    "3-d": lambda: torch.randn(2, 3, 4) * 1e3,
    "with -inf": lambda: torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf")] * 3]),
    "with +inf": lambda: torch.tensor([[0.0, float("inf"), 1.0]]),
}


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
@pytest.mark.parametrize("name", list(AWKWARD))
def test_reference_log_softmax_awkward_layouts(ref, name):
    """Material: log_softmax is the stable form.  True: the reference agrees with torch also on
    size-1, empty, non-contiguous and infinite inputs (nan where torch gives nan)."""
    x = AWKWARD[name]()
    for dim in range(x.dim()):
        torch.testing.assert_close(ref.stable.log_softmax(x, dim=dim), F.log_softmax(x, dim=dim),
                                   equal_nan=True, msg=lambda m: f"log_softmax, {name}, dim={dim}: {m}")
        torch.testing.assert_close(ref.stable.logsumexp(x, dim=dim), torch.logsumexp(x, dim=dim),
                                   equal_nan=True, msg=lambda m: f"logsumexp, {name}, dim={dim}: {m}")


CE_CASES = [
    pytest.param(dict(), id="plain"),
    pytest.param(dict(weight=torch.tensor([0.2, 1.0, 3.0, 0.5, 2.0])), id="weight"),
    pytest.param(dict(ignore_index=2), id="ignore_index"),
    pytest.param(dict(weight=torch.tensor([0.2, 1.0, 3.0, 0.5, 2.0]), ignore_index=1), id="weight+ignore"),
]


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
@pytest.mark.parametrize("kwargs", CE_CASES)
@pytest.mark.parametrize("magnitude, dtype", [c for c in CASES if c.values[1] != torch.float16])
def test_reference_cross_entropy_matches_torch(ref, kwargs, magnitude, dtype):
    """Material: CrossEntropyLoss = log_softmax + nll_loss.  True: the reference (weighted mean
    over non-ignored targets) equals F.cross_entropy for every reduction."""
    x = _logits(magnitude, dtype, shape=(8, 5))
    y = torch.tensor([0, 1, 2, 3, 4, 2, 1, 2])
    kw = dict(kwargs)
    if "weight" in kw:
        kw["weight"] = kw["weight"].to(dtype)
    for reduction in ("mean", "sum", "none"):
        want = F.cross_entropy(x, y, reduction=reduction, **kw)
        got = ref.stable.cross_entropy(x, y, reduction=reduction, **kw)
        torch.testing.assert_close(got, want, msg=lambda m: (
            f"ref.stable.cross_entropy({kwargs}, reduction={reduction!r}) at {magnitude:g} in {dtype}: {m}"))


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
def test_reference_cross_entropy_spatial_unbatched_and_all_ignored(ref):
    """Material: CrossEntropyLoss = log_softmax + nll_loss.  True: the reference also handles
    (N, C, d) inputs, an unbatched (C,) input, and gives nan when every target is ignored."""
    x = torch.randn(2, 4, 3)
    y = torch.tensor([[0, 3, -100], [2, 2, 1]])
    w = torch.tensor([1.0, 2.0, 0.5, 4.0])
    torch.testing.assert_close(ref.stable.cross_entropy(x, y, weight=w), F.cross_entropy(x, y, weight=w))
    torch.testing.assert_close(ref.stable.cross_entropy(x[0, :, 0], y[0, 0]), F.cross_entropy(x[0, :, 0], y[0, 0]))
    all_ignored = torch.full((3,), -100)
    got = ref.stable.cross_entropy(torch.randn(3, 4), all_ignored)
    want = F.cross_entropy(torch.randn(3, 4), all_ignored)
    assert torch.isnan(want) and torch.isnan(got), (
        f"all targets ignored: torch gives {want}, reference gives {got}; both should be nan (0/0)")


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cross_entropy_is_nll_of_log_softmax(dtype):
    """Material: CrossEntropyLoss is log_softmax followed by nll_loss.  True: identical values,
    and its gradient is softmax - one_hot (checked in float64 with gradcheck)."""
    x = _logits(10.0, dtype, shape=(7, 4))
    y = torch.tensor([0, 1, 2, 3, 0, 1, 2])
    w = torch.tensor([1.0, 0.5, 2.0, 3.0], dtype=dtype)
    for kw in (dict(), dict(weight=w), dict(ignore_index=1), dict(weight=w, ignore_index=1)):
        for reduction in ("mean", "sum", "none"):
            torch.testing.assert_close(
                torch.nn.CrossEntropyLoss(**kw, reduction=reduction)(x, y),
                F.nll_loss(F.log_softmax(x, dim=1), y, **kw, reduction=reduction),
                msg=lambda m: f"CrossEntropyLoss({kw}, reduction={reduction!r}) vs nll_loss(log_softmax): {m}")
    xd = x.double().requires_grad_()
    assert torch.autograd.gradcheck(lambda t: F.cross_entropy(t, y), (xd,)), "gradcheck of cross_entropy failed"
    F.cross_entropy(xd, y, reduction="sum").backward()
    torch.testing.assert_close(xd.grad, torch.softmax(xd.detach(), 1) - F.one_hot(y, 4).double())


@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
def test_cross_entropy_finite_at_1e30_because_log_softmax_shifts_by_the_max():
    """Material: log_softmax + nll_loss sidesteps the instability.  True: log_softmax is
    x - max - log(sum(exp(x - max))), so float32 logits of magnitude 1e30 give a finite loss."""
    x = torch.tensor([[1e30, 0.0, -1e30], [0.0, 1e30, -1e30]])
    y = torch.tensor([2, 0])
    assert torch.isinf(x.exp().sum(1)).all(), "exp(1e30) should overflow float32: the unshifted sum is inf"
    shifted = x - x.amax(1, keepdim=True)
    want = shifted - shifted.exp().sum(1, keepdim=True).log()
    got = F.log_softmax(x, dim=1)
    assert torch.equal(got, want), f"F.log_softmax(x) at 1e30 is {got}, but the max-shifted formula gives {want}"
    loss = torch.nn.CrossEntropyLoss()(x, y)
    assert torch.isfinite(loss) and loss.item() == pytest.approx(1.5e30), (
        f"CrossEntropyLoss at magnitude 1e30 in float32 is {loss}, but should be the finite (2e30 + 1e30) / 2")


# --- where the naive forms break --------------------------------------------------------

@pytest.mark.claim("numerics.cross-entropy-stable-vs-softmax-log")
@pytest.mark.parametrize("dtype", DTYPE_PARAMS)
def test_softmax_log_turns_minus_inf_past_the_underflow_gap(dtype):
    """Material: avoid softmax().log().  True: it is exactly -inf for a logit more than ~17.34
    (f16) / 92.75 (bf16) / 103.97 (f32) / 745.13 (f64) below the max; log_softmax stays finite."""
    gap = UNDERFLOW_GAP[dtype]
    below = torch.tensor([0.0, -(gap * 0.98)], dtype=dtype)
    beyond = torch.tensor([0.0, -(gap * 1.02)], dtype=dtype)
    assert torch.isfinite(torch.softmax(below, 0).log()).all(), (
        f"softmax([0, -{gap * 0.98:.2f}]).log() in {dtype} is {torch.softmax(below, 0).log()}, "
        "but should still be finite below the underflow gap")
    assert torch.softmax(beyond, 0)[1].item() == 0.0, (
        f"softmax([0, -{gap * 1.02:.2f}]) in {dtype} is {torch.softmax(beyond, 0)}; the small probability should underflow to 0")
    naive = torch.softmax(beyond, 0).log()
    assert naive[1].item() == -math.inf and naive[0].item() == 0.0, (
        f"softmax([0, -{gap * 1.02:.2f}]).log() in {dtype} is {naive}, but should be [0, -inf]")
    stable = F.log_softmax(beyond, 0)
    assert torch.isfinite(stable).all(), f"F.log_softmax({beyond}) is {stable}, but should be finite"
    # a wider row: every class past the gap is -inf (more classes only shrink the probabilities)
    row = torch.tensor([0.0, -1.0, -(gap * 1.02), -(gap * 0.98), -(gap * 1.5), -(gap * 3)], dtype=dtype)
    got = torch.softmax(row, 0).log()
    past = torch.tensor([False, False, True, False, True, True])
    assert torch.equal(torch.isneginf(got), past), (
        f"softmax({row}).log() in {dtype} is {got}; expected -inf exactly at the classes more than {gap} below the max")


@pytest.mark.claim("numerics.cross-entropy-stable-vs-softmax-log")
@pytest.mark.parametrize("magnitude", [1.0, 1e2, 1e4, 1e30])
def test_cross_entropy_finite_where_softmax_log_is_not(magnitude):
    """Material: CrossEntropyLoss is stabilised internally, softmax().log() is not.  True: at
    magnitude >= 1e2 the naive loss is inf and its gradient nan; cross_entropy stays finite."""
    x = _logits(magnitude, torch.float32, shape=(16, 5))
    y = x.argmin(1)  # the target is the least likely class: the worst case for underflow
    stable = F.cross_entropy(x, y)
    naive = F.nll_loss(torch.softmax(x, 1).log(), y)
    assert torch.isfinite(stable), f"F.cross_entropy at magnitude {magnitude:g} is {stable}, should be finite"
    want = ((x.max(1).values - x.gather(1, y[:, None])[:, 0]).double()
            + torch.log1p(torch.exp(x.double() - x.double().max(1, keepdim=True).values).sum(1) - 1)).mean()
    torch.testing.assert_close(stable.double(), want, rtol=1e-5, atol=1e-5)
    logp = F.log_softmax(x, 1)
    xd = x.double()
    want_logp = xd - xd.max(1, keepdim=True).values - torch.log1p(
        torch.exp(xd - xd.max(1, keepdim=True).values).sum(1, keepdim=True) - 1)
    assert torch.isfinite(logp).all(), f"F.log_softmax at magnitude {magnitude:g} is {logp}, should be finite"
    torch.testing.assert_close(logp.double(), want_logp, rtol=1e-5, atol=1e-5, msg=lambda m: (
        f"F.log_softmax at magnitude {magnitude:g} differs from the float64 max-shifted reference: {m}"))
    if magnitude >= 1e2:
        assert naive.item() == math.inf, (
            f"nll_loss(softmax(x).log()) at magnitude {magnitude:g} is {naive}, but should be inf")


@pytest.mark.claim("numerics.cross-entropy-stable-vs-softmax-log")
def test_softmax_log_gradient_nan_even_with_finite_loss():
    """Material: softmax().log() is unstable.  True: when only a non-target class underflows the
    loss is a finite 0, yet the gradient is nan; cross_entropy's gradient stays finite."""
    x = torch.tensor([[0.0, 200.0]], requires_grad=True)
    y = torch.tensor([1])
    loss = F.nll_loss(torch.softmax(x, 1).log(), y)
    loss.backward()
    assert loss.item() == 0.0 and torch.isnan(x.grad).all(), (
        f"naive loss {loss.item()} with grad {x.grad}; expected loss 0 and nan gradient")
    x2 = x.detach().clone().requires_grad_()
    F.cross_entropy(x2, y).backward()
    assert torch.isfinite(x2.grad).all(), f"cross_entropy grad is {x2.grad}, should be finite"
    # any underflowed class spoils its row, even one that is neither the target nor the max
    rows = torch.tensor([[0.0, 1.0, -200.0], [0.0, 1.0, 2.0]], requires_grad=True)
    loss = F.nll_loss(torch.softmax(rows, 1).log(), torch.tensor([0, 0]))
    loss.backward()
    assert torch.isfinite(loss) and torch.isnan(rows.grad[0]).all() and torch.isfinite(rows.grad[1]).all(), (
        f"loss {loss.item()}, grad {rows.grad}; expected a finite loss, a nan first row (class 2 underflows) "
        "and a finite second row")


@pytest.mark.claim("numerics.cross-entropy-stable-vs-softmax-log")
@pytest.mark.parametrize("dtype, overflow_at", [
    _param(torch.float16, 11.09), (torch.bfloat16, 88.75), (torch.float32, 88.72), (torch.float64, 709.78)])
def test_reference_naive_breaks_exactly_where_exp_overflows(ref, dtype, overflow_at):
    """Material: the unshifted formula is unstable.  True: naive_logsumexp is inf and
    naive_log_softmax nan exactly where exp overflows in that dtype; the shifted ones stay finite."""
    x = torch.tensor([overflow_at * 1.01, 0.0], dtype=dtype)
    ok = torch.tensor([overflow_at * 0.97, 0.0], dtype=dtype)
    assert torch.isfinite(ref.stable.naive_logsumexp(ok, dim=0)), (
        f"naive_logsumexp({ok}) should be finite just below the exp overflow of {dtype}")
    assert ref.stable.naive_logsumexp(x, dim=0).item() == math.inf, (
        f"naive_logsumexp({x}) is {ref.stable.naive_logsumexp(x, dim=0)}, should overflow to inf")
    naive = ref.stable.naive_log_softmax(x, dim=0)
    assert torch.isnan(naive[0]) and naive[1].item() == -math.inf, (
        f"naive_log_softmax({x}) is {naive}, expected [nan (inf/inf), -inf (0/inf)]")
    assert torch.isfinite(ref.stable.log_softmax(x, dim=0)).all()
    assert torch.isfinite(ref.stable.logsumexp(x, dim=0))


@pytest.mark.claim("numerics.cross-entropy-stable-vs-softmax-log")
@pytest.mark.parametrize("magnitude", MAGNITUDES)
def test_reference_naive_cross_entropy_which_outputs_break(ref, magnitude):
    """Material: the hand-made unshifted loss is unstable.  True: at magnitude 1 it matches
    torch; at 1e2 and above the per-sample losses are inf or nan while cross_entropy is finite."""
    x = _logits(magnitude, torch.float32, shape=(16, 5))
    y = x.argmin(1)
    naive = ref.stable.naive_cross_entropy(x, y, reduction="none")
    stable = ref.stable.cross_entropy(x, y, reduction="none")
    assert torch.isfinite(stable).all(), f"stable cross_entropy at {magnitude:g}: {stable}"
    if magnitude == 1.0:
        torch.testing.assert_close(naive, F.cross_entropy(x, y, reduction="none"))
    else:
        assert not torch.isfinite(naive).any(), (
            f"naive_cross_entropy at magnitude {magnitude:g} gave finite losses {naive}; "
            "every row should be inf (target underflow) or nan (exp overflow)")


# --- 003 §3.2: log_softmax and huge inputs ----------------------------------------------

@pytest.mark.claim("numerics.log-softmax-large-input-inf")
@pytest.mark.parametrize("dtype", DTYPE_PARAMS)
def test_log_softmax_finite_for_huge_finite_logits(dtype):
    """Material: log_softmax of a huge input gives -inf (softmax 0, then log 0).  True: it is
    finite, x - max - log(sum(exp(x - max))); only softmax().log() turns -inf."""
    big = torch.finfo(dtype).max / 4
    x = torch.tensor([big, 0.0, -big], dtype=dtype)
    out = F.log_softmax(x, 0)
    assert torch.isfinite(out).all(), f"F.log_softmax({x}) is {out}, but should be finite"
    torch.testing.assert_close(out, torch.stack([x[0] - x[0], -x[0], -2 * x[0]]))
    assert torch.isinf(torch.softmax(x, 0).log()).sum() == 2, "softmax().log() should give two -inf"


@pytest.mark.claim("numerics.log-softmax-large-input-inf")
@pytest.mark.parametrize("dtype, spread", [_param(torch.float16, 6e4), (torch.float32, 3e38)])
def test_log_softmax_minus_inf_only_when_spread_overflows(dtype, spread):
    """Material: huge inputs make log_softmax -inf.  True: -inf appears only when max - min
    itself overflows the dtype (or the input holds inf)."""
    x = torch.tensor([spread, -spread], dtype=dtype)
    out = F.log_softmax(x, 0)
    assert out[1].item() == -math.inf and out[0].item() == 0.0, (
        f"F.log_softmax({x}) is {out}; the spread {2 * spread:g} overflows {dtype}, expected [0, -inf]")


@pytest.mark.claim("numerics.log-softmax-large-input-inf")
def test_log_softmax_of_1e4_and_1e30_is_large_but_finite():
    """Material: log_softmax of a huge input gives -inf.  True: in float32 [v, 0, -v] gives
    [0, -v, -2v] for v = 1e4 and v = 1e30."""
    for v in (1e4, 1e30):
        out = F.log_softmax(torch.tensor([v, 0.0, -v]), 0)
        assert torch.equal(out, torch.tensor([0.0, -v, -2 * v])), (
            f"F.log_softmax([{v:g}, 0, -{v:g}]) is {out}, but should be [0, -{v:g}, -{2 * v:g}]")


@pytest.mark.claim("numerics.log-softmax-large-input-inf")
@pytest.mark.parametrize("dtype", DTYPE_PARAMS)
def test_log_softmax_gives_minus_inf_only_from_an_overflowing_spread_or_a_minus_inf_input(dtype):
    """Material: huge inputs make log_softmax -inf.  True: rows whose spread fits the dtype stay
    finite at every scale; -inf comes only from a -inf input (there), and +inf makes the row nan."""
    g = torch.Generator().manual_seed(0)
    top = torch.finfo(dtype).max
    for scale in (1.0, 1e2, top / 64, top / 8):
        rows = (torch.rand(32, 5, generator=g, dtype=torch.float64) * 2 - 1) * scale * 0.999
        out = F.log_softmax(rows.to(dtype), 1)
        assert torch.isfinite(out).all(), (
            f"F.log_softmax of {dtype} rows in [-{scale:g}, {scale:g}] (spread below the max {top:g}) "
            f"gave non-finite values {out[~torch.isfinite(out)]}")
    minus = F.log_softmax(torch.tensor([0.0, float("-inf"), 1.0], dtype=dtype), 0)
    assert torch.equal(torch.isneginf(minus), torch.tensor([False, True, False])) and not minus.isnan().any(), (
        f"F.log_softmax([0, -inf, 1]) in {dtype} is {minus}; expected -inf at the -inf input only")
    plus = F.log_softmax(torch.tensor([0.0, float("inf"), 1.0], dtype=dtype), 0)
    assert torch.isnan(plus).all(), f"F.log_softmax([0, inf, 1]) in {dtype} is {plus}; expected nan (inf - inf)"


@pytest.mark.claim("numerics.log-softmax-large-input-inf", as_written=True)
def test_as_written_log_softmax_of_huge_input_is_minus_inf():
    """Material: F.log_softmax of an input with a huge value gives -inf.  True: finite."""
    x = torch.tensor([[1e4, 0.0, -1e4]])
    out = F.log_softmax(x, 1)
    assert torch.isinf(out).any(), f"F.log_softmax({x}) is {out}; the material expects a -inf"


@pytest.mark.property
@pytest.mark.claim("numerics.cross-entropy-is-log-softmax-nll")
@property_settings()
@given(data=st.data())
def test_property_reference_log_softmax_and_cross_entropy_match_torch(ref, data):
    """Material: log_softmax + nll_loss is the stable cross-entropy.  True for any shape, any
    magnitude up to 1e30 and float32/float64: the reference equals torch, and stays finite."""
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]), label="dtype")
    n = data.draw(st.integers(1, 6), label="batch")
    c = data.draw(st.integers(1, 6), label="classes")
    exponent = data.draw(st.integers(0, 30), label="log10 magnitude")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, c, generator=g, dtype=torch.float64) * 10.0 ** exponent).to(dtype)
    y = torch.randint(0, c, (n,), generator=g)
    code = (f"g = torch.Generator().manual_seed({seed})\n"
            f"x = (torch.randn({n}, {c}, generator=g, dtype=torch.float64) * 1e{exponent}).to({dtype})\n"
            f"y = torch.randint(0, {c}, ({n},), generator=g)\n"
            "ref.stable.cross_entropy(x, y), torch.nn.functional.cross_entropy(x, y)")
    with reproduce(code):
        torch.testing.assert_close(ref.stable.log_softmax(x, dim=1), F.log_softmax(x, dim=1))
        got = ref.stable.cross_entropy(x, y)
        torch.testing.assert_close(got, F.cross_entropy(x, y))
        assert torch.isfinite(got), f"ref.stable.cross_entropy gave {got} at magnitude 1e{exponent} in {dtype}"

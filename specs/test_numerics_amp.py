"""Numerics: mixed precision (autocast, GradScaler) and gradient clipping.

Sources: 002 §6.2 (torch.cuda.amp, autocast, GradScaler, underflow, speed/memory figures),
003 §4.4 (unscale_ before clip_grad_norm_, saving scaler.state_dict()).
CPU autocast and torch.amp.GradScaler("cpu") carry the checks here; CUDA-only claims are
gpu-marked and skip without CUDA.
"""
import warnings

import pytest
import torch
import torch.nn.functional as F


def total_norm(model: torch.nn.Module) -> torch.Tensor:
    """The L2 norm of all gradients together (torch.nn.utils.get_total_norm exists only from 2.6)."""
    return torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(p.grad) for p in model.parameters()]))


# Tiny ops: one intra-op thread avoids spin-wait overhead (conftest restores the count).
pytestmark = pytest.mark.usefixtures("one_thread")

# torch.amp.GradScaler (the device-generic one, usable on the CPU) appeared in torch 2.3; before,
# only torch.cuda.amp.GradScaler existed, and without CUDA it disables itself.
CPU_GRAD_SCALER = pytest.mark.measurable_on(
    ">=2.3", reason="torch.cuda.amp.GradScaler exists, but disables itself without CUDA; "
                   "torch.amp.GradScaler, usable on the CPU, appeared in 2.3")



def _model_and_opt():
    g = torch.Generator().manual_seed(0)
    model = torch.nn.Linear(4, 3)
    with torch.no_grad():
        model.weight.copy_(torch.randn(3, 4, generator=g))
        model.bias.copy_(torch.randn(3, generator=g))
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def _batch():
    g = torch.Generator().manual_seed(1)
    return torch.randn(16, 4, generator=g), torch.randint(0, 3, (16,), generator=g)


def _tiny_gradient_weight(enabled):
    """A 1x1 Linear whose true weight gradient is 1e-8, computed under float16 autocast."""
    lin = torch.nn.Linear(1, 1, bias=False)
    with torch.no_grad():
        lin.weight.fill_(1.0)
    opt = torch.optim.SGD(lin.parameters(), lr=1.0)
    scaler = torch.amp.GradScaler("cpu", enabled=enabled)
    with torch.autocast("cpu", dtype=torch.float16):
        out = lin(torch.full((1, 1), 1e-4))
        loss = (out.float() * 1e-4).sum()
    scaler.scale(loss).backward()
    return lin, opt, scaler


# --- entry points ------------------------------------------------------------------------

def _future_warnings(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make()
    return [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]


@pytest.mark.claim("numerics.cuda-amp-entry-points")
def test_torch_cuda_amp_entry_points_deprecated_since_2_4():
    """Material: write AMP with torch.cuda.amp.autocast / GradScaler.  True: they still work but
    warn (FutureWarning) since 2.4; torch.amp.* with a device string is the replacement."""
    scaler_warnings = _future_warnings(lambda: torch.cuda.amp.GradScaler())
    autocast_warnings = _future_warnings(lambda: torch.cuda.amp.autocast())
    assert any("torch.amp.GradScaler('cuda'" in m for m in scaler_warnings), scaler_warnings
    assert any("torch.amp.autocast('cuda'" in m for m in autocast_warnings), autocast_warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecation, and "CUDA is not available" on a CPU machine
        scaler = torch.cuda.amp.GradScaler()
        with torch.cuda.amp.autocast():
            loss = torch.nn.Linear(2, 1)(torch.ones(1, 2)).sum()
    assert isinstance(scaler, torch.amp.GradScaler) and torch.isfinite(scaler.scale(loss)), (
        "the deprecated entry points should still construct, enter and scale a loss")


@pytest.mark.claim("numerics.cuda-amp-entry-points")
@pytest.mark.needs_torch(">=2.3", reason="torch.amp.GradScaler, the device-generic replacement, appeared in 2.3")
def test_the_device_generic_amp_entry_points_do_not_warn():
    """Material: write AMP with torch.cuda.amp.  True: the replacement, torch.amp.GradScaler and
    torch.autocast with a device string, works without a deprecation warning."""
    assert not _future_warnings(lambda: torch.amp.GradScaler("cpu"))
    assert not _future_warnings(lambda: torch.autocast("cpu", dtype=torch.bfloat16))


@pytest.mark.claim("numerics.cuda-amp-entry-points", as_written=True)
def test_as_written_torch_cuda_amp_is_the_plain_entry_point():
    """Material: torch.cuda.amp.autocast() and GradScaler() are the way to write AMP.
    True: since 2.4 both raise a FutureWarning pointing to torch.amp."""
    found = _future_warnings(lambda: torch.cuda.amp.GradScaler()) + _future_warnings(torch.cuda.amp.autocast)
    assert not found, f"torch.cuda.amp entry points warn: {found}"


# --- autocast: per-op precision ----------------------------------------------------------

@pytest.mark.claim("numerics.autocast-chooses-fp16-or-fp32")
@pytest.mark.parametrize("low", [torch.bfloat16, pytest.param(torch.float16, marks=pytest.mark.measurable_on(
    ">=2.2", reason="CPU autocast to float16 (pytorch#112484) appeared in 2.2; before, only bfloat16 (CUDA autocast has float16)"))])
def test_cpu_autocast_runs_linear_low_and_losses_in_float32(low):
    """Material: autocast picks FP16 or FP32 automatically.  True: per op — linear/matmul in the
    low dtype, cross_entropy and nll_loss in float32 (CPU autocast, bfloat16 or float16)."""
    model, _ = _model_and_opt()
    x, y = _batch()
    conv = torch.nn.Conv2d(3, 4, 3)
    with torch.autocast("cpu", dtype=low):
        out = model(x)
        mm = x @ x.T
        conved = conv(torch.randn(2, 3, 8, 8))
        ce = F.cross_entropy(out, y)
        logp = F.log_softmax(out, 1)
        nll = F.nll_loss(logp, y)
        softmax_of = (F.softmax(out, 1).dtype, F.softmax(x, 1).dtype, F.log_softmax(x, 1).dtype)
    assert out.dtype == low and mm.dtype == low, f"linear -> {out.dtype}, matmul -> {mm.dtype}; expected {low}"
    assert conved.dtype == low, f"conv2d under CPU autocast -> {conved.dtype}; expected {low}"
    assert softmax_of == (low, torch.float32, torch.float32), (
        f"CPU autocast softmax of a {low} input, softmax and log_softmax of a float32 input -> {softmax_of}; "
        f"expected each to follow its input ({low}, float32, float32)")
    assert ce.dtype == torch.float32 and nll.dtype == torch.float32, (
        f"cross_entropy -> {ce.dtype}, nll_loss -> {nll.dtype} under {low} autocast; expected float32")
    assert logp.dtype == low, f"CPU autocast log_softmax -> {logp.dtype}; on CPU it follows its input ({low})"
    assert model.weight.dtype == torch.float32, "autocast must not change the parameters' dtype"


@pytest.mark.claim("numerics.autocast-chooses-fp16-or-fp32")
def test_cpu_autocast_defaults_to_bfloat16():
    """Material: autocast chooses the precision.  True: CPU autocast's default low dtype is bfloat16."""
    assert torch.autocast("cpu").fast_dtype == torch.bfloat16


@pytest.mark.claim("numerics.autocast-chooses-fp16-or-fp32")
@pytest.mark.measurable_on(">=2.2", reason="before 2.2 CPU autocast raises for a dtype other than bfloat16 "
                         "(pytorch#112484 widened it and made the rest a warning)")
@pytest.mark.parametrize("other", [torch.float32, torch.float64])
def test_cpu_autocast_disables_itself_for_float64(other):
    """Material: autocast chooses the precision.  True: CPU autocast disables itself (with a
    warning) for a dtype it does not support."""
    model, _ = _model_and_opt()
    with pytest.warns(UserWarning, match="CPU Autocast only supports"):
        with torch.autocast("cpu", dtype=other):
            enabled = torch.is_autocast_enabled("cpu")
            out = model(_batch()[0])
    assert out.dtype == torch.float32 and not enabled, (
        f"with {other} autocast, linear gave {out.dtype} and autocast enabled={enabled}; expected float32, disabled")


@pytest.mark.gpu
@pytest.mark.claim("numerics.autocast-chooses-fp16-or-fp32")
def test_cuda_autocast_float16_lists():
    """Material: autocast picks FP16/FP32.  True on CUDA: linear in float16; softmax,
    log_softmax and cross_entropy in float32."""
    model = torch.nn.Linear(8, 4).cuda()
    x = torch.randn(16, 8, device="cuda")
    y = torch.randint(0, 4, (16,), device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(x)
        dtypes = (F.softmax(out, 1).dtype, F.log_softmax(out, 1).dtype, F.cross_entropy(out, y).dtype)
    assert out.dtype == torch.float16, f"CUDA autocast linear -> {out.dtype}; expected float16"
    assert dtypes == (torch.float32,) * 3, f"softmax/log_softmax/cross_entropy -> {dtypes}; expected float32"


@pytest.mark.claim("numerics.autocast-loss-inside-block")
def test_loss_inside_autocast_is_float32_and_backward_outside_works():
    """Material: compute F.cross_entropy inside the autocast block.  True: the loss comes out
    float32; backward runs outside the block and the float32 parameters get float32 grads."""
    model, opt = _model_and_opt()
    x, y = _batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        output = model(x)
        loss = F.cross_entropy(output, y)
    assert output.dtype == torch.bfloat16 and loss.dtype == torch.float32
    loss.backward()
    assert model.weight.grad.dtype == torch.float32 and torch.isfinite(model.weight.grad).all()
    reference = F.cross_entropy(model(x), y)
    torch.testing.assert_close(loss, reference, rtol=2e-2, atol=2e-2)


# --- GradScaler -------------------------------------------------------------------------

@pytest.mark.claim("numerics.fp16-gradient-underflow")
def test_float16_flushes_a_1e8_gradient_to_zero_and_bfloat16_keeps_it():
    """Material: FP16 needs protection against gradient underflow.  True: a 1e-8 gradient is 0
    in float16 (smallest subnormal ~5.96e-8); bfloat16 keeps it."""
    assert torch.finfo(torch.float16).smallest_normal == pytest.approx(6.103515625e-05)
    zero = torch.zeros((), dtype=torch.float16)
    subnormal = torch.nextafter(zero, torch.ones((), dtype=torch.float16)).item()
    assert subnormal == pytest.approx(5.96e-8, rel=1e-3), f"float16's smallest subnormal is {subnormal}; expected ~5.96e-8"
    half, bf, single = (torch.finfo(d) for d in (torch.float16, torch.bfloat16, torch.float32))
    assert bf.tiny == single.tiny and bf.max == pytest.approx(single.max, rel=1e-2) and half.max < 1e5, (
        f"smallest normal / max: bfloat16 {bf.tiny:g} / {bf.max:g}, float32 {single.tiny:g} / {single.max:g}; "
        "bfloat16 should share float32's exponent range")
    grads = {}
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        p = torch.ones(1, dtype=dtype, requires_grad=True)
        w = torch.tensor(1e-4, dtype=dtype)
        (p * w * w).sum().backward()
        grads[dtype] = p.grad.item()
    assert grads[torch.float16] == 0.0, f"float16 gradient of 1e-8 is {grads[torch.float16]}; expected 0"
    p = torch.ones(1, dtype=torch.float16, requires_grad=True)
    w = torch.tensor(1e-4, dtype=torch.float16)
    (p * w * w).sum().backward()
    assert p.grad.item() == 0.0, f"the float16 gradient is {p.grad}; expected 0"
    before = p.detach().clone()
    torch.optim.SGD([p], lr=1e4).step()  # lr * 1e-8 = 1e-4 would be a visible step
    assert torch.equal(p.detach(), before), f"SGD on the flushed float16 gradient moved {before} to {p.detach()}"
    assert grads[torch.bfloat16] == pytest.approx(1e-8, rel=2e-2)
    assert grads[torch.float32] == pytest.approx(1e-8, rel=1e-5)


@pytest.mark.claim("numerics.gradscaler-scale-prevents-underflow")
@pytest.mark.claim("numerics.fp16-gradient-underflow")
@CPU_GRAD_SCALER
def test_scaler_keeps_a_gradient_that_float16_would_lose():
    """Material: scaler.scale(loss).backward() scales gradients against underflow.  True: the
    1e-8 gradient is 0 unscaled, ~6.6e-4 scaled by 65536, and unscale_ restores ~1e-8."""
    lin, _, _ = _tiny_gradient_weight(enabled=False)
    assert lin.weight.grad.item() == 0.0, f"unscaled float16 gradient is {lin.weight.grad}; expected 0"
    lin, opt, scaler = _tiny_gradient_weight(enabled=True)
    assert scaler.get_scale() == 65536.0
    assert lin.weight.grad.item() == pytest.approx(1e-8 * 65536, rel=1e-2), (
        f"scaled gradient is {lin.weight.grad.item()}; expected 1e-8 * 65536")
    scaler.unscale_(opt)
    assert lin.weight.grad.item() == pytest.approx(1e-8, rel=1e-2)
    assert lin.weight.grad.dtype == torch.float32, f"the unscaled gradient is {lin.weight.grad.dtype}; expected float32"


@pytest.mark.claim("numerics.gradscaler-scale-prevents-underflow")
@CPU_GRAD_SCALER
def test_scale_multiplies_the_loss_by_the_current_scale():
    """Material: scale(loss) scales.  True: it returns loss * scale (65536 at start)."""
    scaler = torch.amp.GradScaler("cpu")
    loss = torch.tensor(0.5)
    assert scaler.get_scale() == 65536.0, f"the initial scale is {scaler.get_scale()}; expected 65536"
    torch.testing.assert_close(scaler.scale(loss), torch.tensor(0.5 * 65536))


@pytest.mark.claim("numerics.gradscaler-update-adjusts-scale")
@CPU_GRAD_SCALER
def test_update_halves_after_overflow_and_doubles_after_growth_interval():
    """Material: scaler.update() updates the scale factor.  True: x0.5 after a step with inf
    gradients (that step is skipped), x2 after growth_interval clean steps."""
    defaults = torch.amp.GradScaler("cpu")
    got = (defaults.get_backoff_factor(), defaults.get_growth_interval(), defaults.get_growth_factor())
    assert got == (0.5, 2000, 2.0), f"GradScaler defaults (backoff, growth_interval, growth) are {got}; expected (0.5, 2000, 2.0)"
    model, opt = _model_and_opt()
    x, y = _batch()
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    before = model.weight.detach().clone()
    scaler.scale(F.cross_entropy(model(x), y) * float("inf")).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 512.0, f"scale after an overflow is {scaler.get_scale()}; expected 512"
    assert torch.equal(model.weight, before), "scaler.step should skip optimizer.step() on inf gradients"
    for _ in range(2):
        opt.zero_grad()
        scaler.scale(F.cross_entropy(model(x), y)).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 1024.0, f"scale after 2 clean steps is {scaler.get_scale()}; expected 1024"
    assert not torch.equal(model.weight, before), "clean steps should update the parameters"


@pytest.mark.claim("numerics.unscale-before-clip")
@CPU_GRAD_SCALER
def test_unscale_before_clipping_gives_true_gradient_norm():
    """Material: call scaler.unscale_(optimizer), then clip.  True: before unscale_ the grads are
    65536x too large; after it they are the true ones; a second unscale_ raises."""
    model, opt = _model_and_opt()
    x, y = _batch()
    F.cross_entropy(model(x), y).backward()
    true_norm = total_norm(model)
    opt.zero_grad()
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(F.cross_entropy(model(x), y)).backward()
    scaled_norm = total_norm(model)
    torch.testing.assert_close(scaled_norm, true_norm * 65536)
    saved = [p.grad.clone() for p in model.parameters()]
    seen_too_early = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    torch.testing.assert_close(seen_too_early, true_norm * 65536, msg=lambda m: (
        f"clip_grad_norm_ before unscale_ saw {seen_too_early}, expected the scaled norm: {m}"))
    for p, g in zip(model.parameters(), saved):
        p.grad.copy_(g)
    scaler.unscale_(opt)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    torch.testing.assert_close(norm, true_norm, msg=lambda m: f"clip after unscale_ saw {norm}, true {true_norm}: {m}")
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    # after update() the next step may unscale_ again; a second optimizer has its own once
    other = torch.nn.Linear(4, 3)
    other_opt = torch.optim.SGD(other.parameters(), lr=0.1)
    opt.zero_grad()
    scaler.scale(F.cross_entropy(model(x), y) + F.cross_entropy(other(x), y)).backward()
    scaler.unscale_(opt)
    scaler.unscale_(other_opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(other_opt)
    scaler.step(opt)
    scaler.step(other_opt)
    scaler.update()


@pytest.mark.claim("numerics.clip-grad-norm-max-norm")
def test_clip_grad_norm_returns_preclip_norm_and_scales_uniformly():
    """Material: clip_grad_norm_(params, max_norm=1.0) clips the gradients.  True: it returns the
    total norm before clipping and multiplies every gradient by one factor max_norm/(norm+1e-6)."""
    model, _ = _model_and_opt()
    x, y = _batch()
    (F.cross_entropy(model(x), y) * 100).backward()
    before = [p.grad.clone() for p in model.parameters()]
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in before]))
    returned = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    torch.testing.assert_close(returned, total, msg=lambda m: f"clip_grad_norm_ returned {returned}, pre-clip {total}: {m}")
    factor = 1.0 / (total + 1e-6)
    for g0, p in zip(before, model.parameters()):
        torch.testing.assert_close(p.grad, g0 * factor)
    after = total_norm(model)
    assert after <= 1.0 + 1e-5, f"total norm after clipping is {after}; expected <= 1.0"
    unchanged = [p.grad.clone() for p in model.parameters()]
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
    for g0, p in zip(unchanged, model.parameters()):
        torch.testing.assert_close(p.grad, g0)  # below max_norm nothing changes (factor clamped to 1)


@pytest.mark.claim("numerics.clip-grad-norm-max-norm")
def test_clip_grad_value_clamps_elementwise_and_changes_direction():
    """Material: clipping guards against exploding gradients.  True: clip_grad_value_ is the
    elementwise alternative; unlike clip_grad_norm_ it changes the gradient's direction."""
    p = torch.nn.Parameter(torch.zeros(3))
    p.grad = torch.tensor([10.0, 0.5, -3.0])
    torch.nn.utils.clip_grad_value_([p], clip_value=1.0)
    torch.testing.assert_close(p.grad, torch.tensor([1.0, 0.5, -1.0]))
    cosine = F.cosine_similarity(p.grad, torch.tensor([10.0, 0.5, -3.0]), dim=0)
    assert cosine < 0.95, f"cosine between the clipped and the original gradient is {cosine:.3f}; the direction should change"


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@CPU_GRAD_SCALER
def test_scaler_state_dict_round_trips_and_fresh_scaler_restarts(tmp_path):
    """Material: save scaler.state_dict(), else the scale restarts.  True: state_dict holds the
    scale and its settings, load_state_dict restores them, a fresh scaler starts at 65536."""
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
    model, opt = _model_and_opt()
    x, y = _batch()
    scaler.scale(F.cross_entropy(model(x), y) * float("inf")).backward()
    scaler.step(opt)
    scaler.update()
    state = scaler.state_dict()
    assert state["scale"] == 512.0 and {"growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"} <= set(state)
    torch.save({"scaler": state}, tmp_path / "ckpt.pth")
    loaded = torch.load(tmp_path / "ckpt.pth", weights_only=True)["scaler"]
    resumed = torch.amp.GradScaler("cpu")
    assert resumed.get_scale() == 65536.0
    resumed.load_state_dict(loaded)
    assert resumed.get_scale() == 512.0 and resumed.state_dict() == state


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@CPU_GRAD_SCALER
def test_overflow_under_a_too_large_scale_skips_the_step_not_precision():
    """Material: without the saved state the first batches overflow and precision is lost.
    True: an overflowing step is skipped (parameters untouched) and the scale halves."""
    model, opt = _model_and_opt()
    x, y = _batch()
    scaler = torch.amp.GradScaler("cpu", init_scale=1e38)  # large enough that the scaled grads overflow
    before = [p.detach().clone() for p in model.parameters()]
    scaler.scale(F.cross_entropy(model(x), y) * 1e10).backward()
    assert not all(torch.isfinite(p.grad).all() for p in model.parameters())
    scaler.step(opt)
    scaler.update()
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before)), "the overflowing step must be skipped"
    assert all(torch.isfinite(p).all() for p in model.parameters())
    assert scaler.get_scale() == pytest.approx(5e37)


@pytest.mark.claim("modules.scaler-state-in-checkpoint", as_written=True)
@CPU_GRAD_SCALER
def test_as_written_overflow_after_resume_corrupts_parameters():
    """Material: overflow after a reset scale breaks precision.  True: the step is skipped."""
    model, opt = _model_and_opt()
    x, y = _batch()
    scaler = torch.amp.GradScaler("cpu", init_scale=1e38)
    before = [p.detach().clone() for p in model.parameters()]
    scaler.scale(F.cross_entropy(model(x), y) * 1e10).backward()
    scaler.step(opt)
    scaler.update()
    changed = any(not torch.equal(p, b) for p, b in zip(model.parameters(), before))
    assert changed, "the material expects the overflowing step to damage the parameters; they are untouched"


# --- CUDA-only figures: mechanism here, numbers in benchmarks/bench_numerics.py ------------

@pytest.mark.gpu
@pytest.mark.claim("numerics.autocast-chooses-fp16-or-fp32")
def test_cuda_autocast_runs_matmul_layers_in_float16():
    """Material: AMP makes training ~40% (37%) faster.  True here: the mechanism — under CUDA
    autocast the matmul-heavy layers run in float16; the speed is measured by the benchmark."""
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(torch.randn(64, 256, device="cuda"))
    assert out.dtype == torch.float16, f"CUDA autocast output is {out.dtype}; expected float16"


@pytest.mark.gpu
@pytest.mark.claim("numerics.autocast-chooses-fp16-or-fp32")
def test_cuda_autocast_lowers_peak_forward_memory():
    """Material: AMP cut memory by 52%.  True here: a forward pass that keeps its activations
    peaks lower under autocast (float16 activations); the figure is measured by the benchmark."""
    model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(8)]).cuda()
    x = torch.randn(4096, 1024, device="cuda")

    def peak(use_amp):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start = torch.cuda.memory_allocated()
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
            out = model(x).float().sum()
        result = torch.cuda.max_memory_allocated() - start
        del out
        return result

    fp32, amp = peak(False), peak(True)
    assert amp < fp32, f"peak forward memory with autocast {amp} B, without {fp32} B; expected lower"


@pytest.mark.gpu
@pytest.mark.claim("numerics.fp16-compute-on-a100-v100")
def test_cuda_float16_matmul_matches_float32():
    """Material: A100/V100-class GPUs compute in FP16.  True on a CUDA machine: a float16 matmul
    runs and agrees with float32 within float16 tolerance."""
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(256, 256, device="cuda", generator=g)
    b = torch.randn(256, 256, device="cuda", generator=g)
    half = (a.half() @ b.half()).float()
    torch.testing.assert_close(half, a @ b, rtol=2e-2, atol=5e-1)


# --- 003 §4.4: the cpu fallback of the AMP script -----------------------------------------

def _cuda_amp_step_on_cpu():
    model, opt = _model_and_opt()
    x, y = _batch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation and "CUDA not available" warnings
        scaler = torch.cuda.amp.GradScaler()
        with torch.cuda.amp.autocast():
            output = model(x)
            loss = F.cross_entropy(output, y)
    return output, loss, scaler


@pytest.mark.claim("numerics.cuda-amp-on-cpu-fallback")
def test_torch_cuda_amp_does_nothing_for_cpu_layers():
    """Material: the script trains with torch.cuda.amp on cuda or its cpu fallback.  True: on CPU
    the layers stay float32; without CUDA the scaler is disabled and scale(loss) is the loss."""
    output, loss, scaler = _cuda_amp_step_on_cpu()
    assert output.dtype == torch.float32, f"CPU Linear under torch.cuda.amp.autocast gave {output.dtype}"
    if not torch.cuda.is_available():
        assert not scaler.is_enabled() and scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    assert torch.autocast("cpu").fast_dtype == torch.bfloat16, "CPU autocast's default should be bfloat16"
    for low in (torch.bfloat16, torch.float16):  # what CPU mixed precision needs instead
        with torch.autocast("cpu", dtype=low):
            assert _model_and_opt()[0](_batch()[0]).dtype == low, f"torch.autocast('cpu', dtype={low}) left Linear alone"


@pytest.mark.claim("numerics.cuda-amp-on-cpu-fallback")
@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA: the script falls back to the cpu there")
def test_the_cpu_fallback_loop_runs_and_both_torch_cuda_amp_objects_warn_and_disable():
    """Material: the AMP script also trains on the cpu fallback.  True: one full step runs, but
    GradScaler and autocast each warn that CUDA is missing and disable themselves."""
    model, opt = _model_and_opt()
    x, y = _batch()
    before = model.weight.detach().clone()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = torch.cuda.amp.GradScaler()
        with torch.cuda.amp.autocast():
            enabled = torch.is_autocast_enabled("cuda") or torch.is_autocast_enabled("cpu")
            loss = F.cross_entropy(model(x), y)
    said = [str(w.message) for w in caught if w.category is UserWarning]
    assert any("GradScaler" in m and "not available" in m for m in said), f"GradScaler warnings: {said}"
    assert any("autocast" in m.lower() and "not available" in m for m in said), f"autocast warnings: {said}"
    assert not enabled and not scaler.is_enabled(), f"autocast enabled={enabled}, scaler enabled={scaler.is_enabled()}"
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    assert not torch.equal(model.weight, before) and scaler.get_scale() == 1.0, (
        "the fallback step should update the float32 weights, with the disabled scaler's scale 1.0")


@pytest.mark.claim("numerics.cuda-amp-on-cpu-fallback", as_written=True)
def test_as_written_cuda_amp_mixes_precision_on_the_cpu_fallback():
    """Material: the cpu fallback also trains in mixed precision.  True: everything stays float32."""
    output, _, _ = _cuda_amp_step_on_cpu()
    assert output.dtype in (torch.float16, torch.bfloat16), (
        f"CPU Linear under torch.cuda.amp.autocast gave {output.dtype}; the material expects mixed precision")

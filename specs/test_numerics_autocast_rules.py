"""Numerics, autocast's rules on CPU: what it leaves in float32 and which calls it does not touch (issue #41, tutorials).

CPU autocast (bfloat16 by default) follows the same eligibility rules as CUDA autocast; the
gpu-marked spec repeats the gradient check with float16 on CUDA where there is one.
"""
import pytest
import torch
import torch.nn as nn


def _linear_step(device, dtype):
    torch.manual_seed(0)
    model = nn.Linear(8, 4).to(device)
    x = torch.randn(16, 8, device=device)
    with torch.autocast(device, dtype=dtype):
        out = model(x)
        loss = out.float().pow(2).mean()
    loss.backward()
    return model, out


@pytest.mark.claim("numerics.autocast-weights-grads-float32")
def test_under_cpu_autocast_weights_and_their_gradients_stay_float32():
    """Tutorials: autocast keeps float32 master weights; some expect the gradients in float16.
    True: the layer's output is bfloat16, but weight, bias and their .grad stay float32."""
    model, out = _linear_step("cpu", torch.bfloat16)
    assert out.dtype == torch.bfloat16, f"linear under CPU autocast gave {out.dtype}, expected bfloat16"
    for name, p in model.named_parameters():
        assert p.dtype == torch.float32, f"{name} became {p.dtype} under autocast"
        assert p.grad is not None and p.grad.dtype == torch.float32, f"{name}.grad is {getattr(p.grad, 'dtype', None)}"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA: float16 autocast on a GPU")
@pytest.mark.claim("numerics.autocast-weights-grads-float32")
def test_under_cuda_autocast_gradients_of_float32_weights_are_float32():
    """Tutorials: as above, with torch.autocast('cuda') and float16.  True: output float16, .grad float32."""
    model, out = _linear_step("cuda", torch.float16)
    assert out.dtype == torch.float16, out.dtype
    assert all(p.grad.dtype == torch.float32 for p in model.parameters())


@pytest.mark.claim("numerics.autocast-skips-inplace-out-float64")
def test_autocast_leaves_inplace_out_and_float64_calls_alone():
    """Tutorials: in-place ops, calls with out= or dtype=, and float64 ops are not autocast.
    True: on CPU a.addmm(b, c) and torch.mm become bfloat16, while a.addmm_(b, c), mm(out=) and a
    float64 mm keep their dtype."""
    g = torch.Generator().manual_seed(0)
    a, b, c = (torch.randn(3, 3, generator=g) for _ in range(3))
    d = torch.randn(3, 3, generator=g, dtype=torch.float64)
    out = torch.empty(3, 3)
    with torch.autocast("cpu"):
        plain = a.addmm(b, c)
        mm = torch.mm(b, c)
        inplace = a.clone().addmm_(b, c)
        torch.mm(b, c, out=out)
        double = torch.mm(d, d)
    assert (plain.dtype, mm.dtype) == (torch.bfloat16, torch.bfloat16), f"out-of-place: {plain.dtype}, {mm.dtype}"
    assert inplace.dtype == torch.float32, f"addmm_ gave {inplace.dtype}"
    assert out.dtype == torch.float32 and torch.allclose(out, b @ c), "mm(out=) should be an ordinary float32 mm"
    assert double.dtype == torch.float64 and torch.equal(double, d @ d), f"float64 mm gave {double.dtype}"


@pytest.mark.measurable_on(">=2.0", reason="the CPU bfloat16 prod kernel appeared in 2.0 (1.13 has none)")
@pytest.mark.claim("numerics.autocast-skips-inplace-out-float64")
def test_autocast_runs_prod_in_float32_unless_its_dtype_is_given():
    """Tutorials: a call that names its dtype is not autocast.  True: on CPU prod of a bfloat16
    tensor comes out float32 under autocast, prod(dtype=bfloat16) stays bfloat16."""
    low = torch.randn(4, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    with torch.autocast("cpu"):
        promoted = torch.prod(low)
        pinned = torch.prod(low, dtype=torch.bfloat16)
    assert promoted.dtype == torch.float32, f"prod under autocast gave {promoted.dtype}, expected float32"
    assert pinned.dtype == torch.bfloat16, f"prod(dtype=bfloat16) under autocast gave {pinned.dtype}"


@pytest.mark.claim("numerics.cpu-amp-autocast-deprecated")
def test_torch_cpu_amp_autocast_and_torch_amp_autocast_give_the_same_bfloat16_output():
    """Tutorials: torch.cpu.amp.autocast still works; the unified form is torch.amp.autocast(device_type='cpu').
    True: inside either a Linear layer's output is bfloat16."""
    import warnings
    layer = nn.Linear(10, 2).eval()
    x = torch.randn(4, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)   # the old name's deprecation, checked below
        with torch.cpu.amp.autocast():
            old = layer(x)
    with torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16):
        new = layer(x)
    assert old.dtype == new.dtype == torch.bfloat16, (old.dtype, new.dtype)


@pytest.mark.needs_torch(">=2.4", reason="the old per-device autocast names warn as deprecated from 2.4 on")
@pytest.mark.claim("numerics.cpu-amp-autocast-deprecated")
def test_torch_cpu_amp_autocast_warns_and_torch_amp_autocast_does_not():
    """Tutorials: the unified form is torch.amp.autocast(device_type='cpu').  True: the old name emits
    a FutureWarning pointing to torch.amp.autocast('cpu'); the unified form warns nothing."""
    import warnings
    layer = nn.Linear(10, 2).eval()
    x = torch.randn(4, 10)
    with pytest.warns(FutureWarning, match=r"torch\.amp\.autocast\('cpu'"):
        with torch.cpu.amp.autocast():
            layer(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16):
            layer(x)

"""Numerics, float32 and float64: eps and range from torch.finfo, checked on real arithmetic (issue #41, tutorials)."""
import pytest
import torch


@pytest.mark.claim("numerics.float32-float64-finfo")
@pytest.mark.parametrize("dtype, eps, biggest", [
    pytest.param(torch.float32, 2.0 ** -23, 3.4028234663852886e38, id="float32"),
    pytest.param(torch.float64, 2.0 ** -52, 1.7976931348623157e308, id="float64"),
])
def test_finfo_eps_and_max_of_float32_and_float64(dtype, eps, biggest):
    """Tutorials: float32 has eps about 1.19e-7 and max about 3.4e38; float64 eps about 2.2e-16, max about 1.8e308.
    True: finfo gives 2**-23 and 2**-52; 1 + eps differs from 1 and 1 + eps/2 rounds back; twice the max is inf."""
    info = torch.finfo(dtype)
    assert (info.eps, info.max) == (eps, biggest), f"finfo({dtype}) = {info}"
    one = torch.ones((), dtype=torch.float64).to(dtype)
    assert (one + info.eps).item() != 1.0, f"1 + eps rounded to 1 in {dtype}"
    assert (one + info.eps / 2).item() == 1.0, f"1 + eps/2 did not round to 1 in {dtype}"
    top = torch.full((), info.max, dtype=torch.float64).to(dtype)
    assert torch.isfinite(top) and torch.isinf(top * 2), f"max {top.item()} and twice it in {dtype}"

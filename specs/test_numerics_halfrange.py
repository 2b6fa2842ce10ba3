"""Numerics, 16-bit formats: float16's range and resolution, bfloat16's range and precision (issue #41, tutorials).

Each spec reads torch.finfo and then checks the same number on real tensors (a cast, a sum),
so a wrong table alone cannot pass it.
"""
import pytest
import torch


@pytest.mark.claim("numerics.fp16-range-65504")
def test_float16_tops_out_at_65504_with_normals_from_6e5_and_subnormals_to_6e8():
    """Tutorials: float16 reaches 65504, its eps is about 0.000977 and its smallest normal about 6.1e-5.
    True: finfo says so; 65519 still rounds to 65504, 65520 and above become inf, and subnormals reach 2**-24."""
    info = torch.finfo(torch.float16)
    assert (info.max, info.eps, info.tiny) == (65504.0, 2.0 ** -10, 2.0 ** -14), f"finfo(float16) = {info}"
    assert info.smallest_normal == info.tiny, f"tiny {info.tiny} is not the smallest normal {info.smallest_normal}"
    cast = torch.tensor([65504.0, 65519.0, 65520.0, 70000.0]).to(torch.float16).tolist()
    assert cast[:2] == [65504.0, 65504.0] and all(v == float("inf") for v in cast[2:]), f"float16 casts: {cast}"
    doubled = (torch.tensor([40000.0]).to(torch.float16) * 2).item()
    assert doubled == float("inf"), f"40000 * 2 in float16 gave {doubled}, expected inf"
    one_plus = (torch.tensor(1.0, dtype=torch.float16) + torch.tensor(info.eps / 2, dtype=torch.float16)).item()
    assert one_plus == 1.0, f"1 + eps/2 in float16 gave {one_plus}, expected 1.0 (rounded away)"
    tiny = torch.tensor([2.0 ** -24, 2.0 ** -25, 2.0 ** -26]).to(torch.float16).tolist()
    assert tiny[0] == 2.0 ** -24 and tiny[2] == 0.0, f"float16 subnormal casts: {tiny}, expected 5.96e-8 kept, 1.5e-8 lost"


@pytest.mark.claim("numerics.bf16-range-like-fp32")
def test_bfloat16_shares_float32_exponent_range():
    """Tutorials: bfloat16 has 8 exponent bits like float32, so its range is about 1e-38 to 3.4e38.
    True: max 3.3895e38 (float32: 3.4028e38), the same smallest normal 1.1755e-38; 1e38 stays finite and 1e-38 nonzero."""
    bf, f32 = torch.finfo(torch.bfloat16), torch.finfo(torch.float32)
    assert bf.bits == 16 and bf.smallest_normal == f32.smallest_normal, f"finfo(bfloat16) = {bf}"
    assert 3.38e38 < bf.max < f32.max, f"bfloat16 max {bf.max}, float32 max {f32.max}"
    vals = torch.tensor([1e38, 1e-38, 70000.0]).to(torch.bfloat16).float()
    assert torch.isfinite(vals).all() and (vals > 0).all(), f"bfloat16 casts of 1e38, 1e-38, 70000: {vals.tolist()}"
    halves = torch.tensor([1e38, 1e-38, 70000.0]).to(torch.float16).float().tolist()
    assert halves == [float("inf"), 0.0, float("inf")], f"the same values in float16: {halves}"


@pytest.mark.claim("numerics.bf16-coarser-than-fp16")
def test_bfloat16_keeps_fewer_digits_than_float16():
    """Tutorials: bfloat16 buys its range with precision; of the two 16-bit formats float16 is the finer one.
    True: bfloat16 eps is 2**-7 = 0.0078125 against 2**-10 for float16; 1/3 becomes 0.333984375 and 0.333251953125."""
    assert torch.finfo(torch.bfloat16).eps == 2.0 ** -7, torch.finfo(torch.bfloat16)
    assert torch.finfo(torch.float16).eps == 2.0 ** -10, torch.finfo(torch.float16)
    third = torch.tensor(1 / 3, dtype=torch.float64)
    assert third.to(torch.bfloat16).item() == 0.333984375, third.to(torch.bfloat16).item()
    assert third.to(torch.float16).item() == 0.333251953125, third.to(torch.float16).item()
    step = (torch.tensor(256.0).to(torch.bfloat16) + 1).item()
    assert step == 256.0, f"256 + 1 in bfloat16 gave {step}; 8 significant bits cannot hold 257"
    assert (torch.tensor(256.0).to(torch.float16) + 1).item() == 257.0, "float16 should hold 257 exactly"

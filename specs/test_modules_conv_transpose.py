"""Modules: the material's remark on ``_output_padding``, the size a stride-2 convolution loses
and what ConvTranspose2d needs to give it back.

Source: 003 §2.2 (getting Conv2d's output size wrong teaches you what
torch.nn.modules.conv._ConvNd._output_padding means: no zero padding, but a compensation kept
for stride > 1 so that ConvTranspose2d can invert the size exactly).
"""
import pytest
import torch
from torch import nn
from torch.nn.modules import conv


def _down():
    torch.manual_seed(0)
    return nn.Conv2d(3, 4, 3, stride=2, padding=1)


@pytest.mark.claim("modules.conv-output-padding-remark")
def test_stride_2_maps_two_sizes_to_one_and_output_padding_picks_which_comes_back():
    """Material: with stride > 1 a compensation value lets ConvTranspose2d restore the size.
    True: a stride-2 conv maps 7x7 and 8x8 to 4x4; the transposed conv gives 7x7 back by default,
    8x8 with output_padding=1 or output_size=(8, 8); output_padding must stay below the stride."""
    down = _down()
    small, large = down(torch.randn(1, 3, 7, 7)), down(torch.randn(1, 3, 8, 8))
    assert small.shape[-2:] == large.shape[-2:] == (4, 4), f"{small.shape} {large.shape}"
    up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)
    assert up(large).shape[-2:] == (7, 7), f"ConvTranspose2d gave {tuple(up(large).shape)} by default"
    assert up(large, output_size=(8, 8)).shape[-2:] == (8, 8)
    padded = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
    padded.load_state_dict(up.state_dict())
    assert padded(large).shape[-2:] == (8, 8), f"output_padding=1 gave {tuple(padded(large).shape)}"
    torch.testing.assert_close(padded(large), up(large, output_size=(8, 8)),
                               msg="output_padding=1 and output_size=(8, 8) should compute the same")
    uncropped = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=0)  # the full 9x9 the kernel reaches
    uncropped.load_state_dict(up.state_dict())
    with torch.no_grad():
        grown, base, full = padded(large), up(large), uncropped(large)
    torch.testing.assert_close(grown[..., :7, :7], base, msg=lambda m: (
        f"the first 7x7 of the output_padding=1 result should be the default output: {m}"))
    torch.testing.assert_close(grown, full[..., 1:9, 1:9], msg=lambda m: (
        "output_padding=1 should keep one more computed row and column of the full transposed "
        f"convolution (not zeros): {m}"))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        nn.ConvTranspose2d(4, 3, 3, stride=1, output_padding=1)(large)
    dilated = nn.ConvTranspose2d(4, 3, 3, stride=2, dilation=3, output_padding=2)
    assert dilated(large).shape[-2:] == (15, 15), "output_padding below the dilation (above stride - 1) should pass"


@pytest.mark.claim("modules.conv-output-padding-remark")
def test_output_padding_belongs_to_transposed_convolutions_not_to_conv2d():
    """Material: _ConvNd._output_padding is a hidden parameter behind Conv2d's output size.
    True: _output_padding is a private method of _ConvTransposeNd that turns a requested
    output_size into the output_padding above; Conv2d takes no output_padding argument, its
    attribute stays (0, 0), and its output size is floor((n + 2p - k) / s) + 1 without it."""
    assert hasattr(conv._ConvTransposeNd, "_output_padding") and not hasattr(conv._ConvNd, "_output_padding")
    up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)
    needed = up._output_padding(torch.zeros(1, 4, 4, 4), [8, 8], list(up.stride), list(up.padding),
                                list(up.kernel_size), 2, list(up.dilation))
    assert list(needed) == [1, 1], f"_output_padding for 4x4 -> 8x8 gave {needed}, expected [1, 1]"
    with pytest.raises(TypeError, match="output_padding"):
        nn.Conv2d(3, 64, 3, output_padding=1)
    layer = nn.Conv2d(3, 64, 3)
    assert layer.output_padding == (0, 0)
    assert layer(torch.randn(2, 3, 32, 32)).shape == (2, 64, 30, 30)
    for n, k, s, p in ((32, 3, 1, 0), (7, 3, 2, 1), (8, 3, 2, 1), (9, 5, 3, 2), (28, 4, 2, 0)):
        side = nn.Conv2d(1, 1, k, stride=s, padding=p)(torch.randn(1, 1, n, n)).shape[-1]
        assert side == (n + 2 * p - k) // s + 1, (
            f"Conv2d(k={k}, stride={s}, padding={p}) on {n}x{n} gave side {side}, "
            f"expected floor((n + 2p - k) / s) + 1 = {(n + 2 * p - k) // s + 1}")


@pytest.mark.claim("modules.conv-output-padding-remark", as_written=True)
def test_as_written_convnd_has_a_hidden_output_padding_parameter():
    """Material: torch.nn.modules.conv._ConvNd._output_padding is the hidden parameter to learn."""
    assert hasattr(conv._ConvNd, "_output_padding"), (
        "torch.nn.modules.conv._ConvNd has no _output_padding (only _ConvTransposeNd has, as a method)")

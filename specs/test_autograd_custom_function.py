"""Autograd: custom ``torch.autograd.Function`` versus plain differentiable code.

Source: 000 §1 (forward and backward registered in pairs; a custom activation "must"
subclass Function).  Gradients are checked with gradcheck in float64.
"""
import pytest
import torch


class SwishFunction(torch.autograd.Function):
    """x * sigmoid(x) with a hand-written backward, the way the material describes."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_out):
        x, s = ctx.saved_tensors
        return grad_out * (s + x * s * (1 - s))


def swish_plain(x):
    return x * torch.sigmoid(x)


@pytest.mark.claim("autograd.custom-activation-needs-function")
def test_custom_function_with_saved_tensors_passes_gradcheck():
    """Material: a Function pairs forward and backward.
    True: with ctx.save_for_backward it passes gradcheck in float64."""
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(SwishFunction.apply, (x,)), "gradcheck failed for SwishFunction"
    y = SwishFunction.apply(x)
    assert type(y.grad_fn).__name__ == "SwishFunctionBackward", f"grad_fn={y.grad_fn}"


@pytest.mark.claim("autograd.custom-activation-needs-function")
def test_plain_activation_needs_no_function():
    """Material: a custom activation must subclass torch.autograd.Function.
    True: one written with torch ops gets exact gradients without it."""
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(swish_plain, (x,)), "gradcheck failed for x * sigmoid(x)"
    g_plain, = torch.autograd.grad(swish_plain(x).sum(), x)
    g_func, = torch.autograd.grad(SwishFunction.apply(x).sum(), x)
    torch.testing.assert_close(g_plain, g_func, msg="plain swish vs Function swish gradients")


@pytest.mark.claim("autograd.custom-activation-needs-function", as_written=True)
def test_as_written_plain_activation_is_not_differentiable():
    """Material: without subclassing Function a custom activation cannot be differentiated.
    True: it can."""
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    assert swish_plain(x).grad_fn is None, "x * sigmoid(x) has a grad_fn without any Function"

"""Autograd: what ``backward`` accepts, the ``gradient=`` argument and ``retain_graph``.

Sources: 002 §3.2 (scalar outputs, gradient weights, GAN ones), 004 §3.1, §3.2 and §5.2
(vector-Jacobian product, freed buffers).  ``y.backward(v)`` accumulates ``v^T J``.
"""
import pytest
import torch

SCALAR_ERROR = "grad can be implicitly created only for scalar outputs"
SECOND_BACKWARD = "Trying to backward through the graph a second time"


@pytest.mark.claim("autograd.implicit-grad-scalar-only")
def test_implicit_gradient_only_for_one_element_outputs():
    """Material: backward() without gradient needs a scalar and otherwise raises.
    True: raises for more than one element; 0-dim and one-element [1] outputs are fine."""
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=SCALAR_ERROR):
        (v * 2).backward()
    six = torch.arange(6.0, requires_grad=True)
    for shape in ((2, 3), (1, 6), (6, 1)):
        with pytest.raises(RuntimeError, match=SCALAR_ERROR):
            (six.view(shape) * 2).backward()
    (v * 2).sum().backward()
    (v[:1] * 2).backward()  # shape [1]
    torch.testing.assert_close(v.grad, torch.tensor([4.0, 2.0]), msg="v.grad after sum and [1]-shaped backward")


@pytest.mark.claim("autograd.gradient-arg-is-vjp")
def test_backward_with_gradient_is_vector_jacobian_product(ref):
    """Material: y.backward(v) is the gradient of sum(y * v), a vector-Jacobian product.
    True: equals v @ J from torch.autograd.functional.jacobian and from finite differences."""
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    v = torch.randn(4, dtype=torch.float64)

    def f(t):
        return t.sin() * t.sum()

    f(x).backward(v)
    jac = torch.autograd.functional.jacobian(f, x.detach())
    torch.testing.assert_close(x.grad, v @ jac, msg="x.grad after y.backward(v) vs v @ J")
    fd = ref.finite_diff.central_difference_jacobian(f, (x.detach(),))
    torch.testing.assert_close(x.grad, ref.finite_diff.vjp(fd, v), rtol=1e-7, atol=1e-7,
                               msg="x.grad after y.backward(v) vs v^T J by finite differences")
    x2 = x.detach().clone().requires_grad_()
    (f(x2) * v).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad, msg="y.backward(v) vs (y * v).sum().backward()")


@pytest.mark.claim("autograd.example-002-weighted-backward")
def test_example_002_weighted_backward():
    """Material: w = v * 2, w.backward(gradient=[0.1, 0.2]) -> v.grad [0.2, 0.4].
    True: recomputed, as printed."""
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    w = v * 2
    w.backward(gradient=torch.tensor([0.1, 0.2]))
    torch.testing.assert_close(v.grad, torch.tensor([0.2, 0.4]), msg="v.grad for w = 2v, gradient [0.1, 0.2]")


@pytest.mark.claim("autograd.example-004-masked-backward")
def test_example_004_masked_backward():
    """Material: y = x ** 2 at [1, 2], y.backward([1., 0.]) -> x.grad [2., 0.].
    True: recomputed, as printed."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 2
    with pytest.raises(RuntimeError, match=SCALAR_ERROR):
        y.backward()
    y.backward(torch.tensor([1.0, 0.0]))
    torch.testing.assert_close(x.grad, torch.tensor([2.0, 0.0]), msg="x.grad for y = x**2, gradient [1, 0]")


@pytest.mark.claim("autograd.gradient-arg-shape-and-type")
@pytest.mark.parametrize("bad", [torch.tensor([1.0]), torch.tensor(1.0), torch.ones(2, 1)],
                         ids=["shape-1", "0-dim", "shape-2x1"])
def test_gradient_must_match_shape(bad):
    """Material: gradient must have exactly the output's shape.
    True: RuntimeError 'Mismatch in shape'; no broadcasting, not even from a 0-dim tensor."""
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (v * 2).backward(gradient=bad)


@pytest.mark.claim("autograd.gradient-arg-shape-and-type")
def test_gradient_as_list_is_type_error_but_int_tensor_is_fine():
    """Material: passing [1, 1] instead of torch.tensor([1, 1]) is a type error.
    True: TypeError for the list; the integer tensor of the right shape is accepted."""
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        (v * 2).backward(gradient=[1, 1])
    (v * 2).backward(gradient=torch.tensor([1, 1]))
    torch.testing.assert_close(v.grad, torch.tensor([2.0, 2.0]), msg="v.grad with an int64 gradient")


@pytest.mark.claim("autograd.ones-gradient-equals-sum")
def test_ones_gradient_equals_sum():
    """Material: gradient=torch.ones(batch) weighs every sample of a batch-sized output equally.
    True: identical to out.sum().backward()."""
    torch.manual_seed(0)
    disc = torch.nn.Linear(5, 1)
    x = torch.randn(8, 5)
    out = disc(x).squeeze(1)
    out.backward(torch.ones(8))
    with_ones = [p.grad.clone() for p in disc.parameters()]
    disc.zero_grad()
    disc(x).squeeze(1).sum().backward()
    for a, b in zip(with_ones, (p.grad for p in disc.parameters())):
        torch.testing.assert_close(a, b, msg="backward(ones) vs sum().backward()")


@pytest.mark.claim("autograd.second-backward-raises")
def test_second_backward_raises_only_if_tensors_were_saved():
    """Material: a second backward on the same loss raises (buffers freed); retain_graph avoids it.
    True: raises when the graph saved tensors; a graph that saved none runs twice silently."""
    x = torch.ones(3, requires_grad=True)
    loss = (x * x).sum()
    mul = loss.grad_fn.next_functions[0][0]           # MulBackward0, which saved x twice
    loss.backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = mul._saved_self
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        loss.backward()

    x.grad = None
    kept = (x * x).sum()
    kept.backward(retain_graph=True)
    kept.backward()
    torch.testing.assert_close(x.grad, torch.full((3,), 4.0), msg="x.grad after two backward with retain_graph")

    x.grad = None
    nothing_saved = (x + 1).sum()
    nothing_saved.backward()
    nothing_saved.backward()
    torch.testing.assert_close(x.grad, torch.full((3,), 2.0),
                               msg="x.grad after backward twice through (x + 1).sum()")


@pytest.mark.claim("autograd.saved-buffers-freed")
def test_saved_tensors_freed_after_backward():
    """Material: intermediate buffers are freed after backward unless retain_graph=True.
    True: reading a saved tensor afterwards raises; with retain_graph it is still there."""
    x = torch.tensor([2.0], requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = y.grad_fn._saved_self
    x2 = torch.tensor([2.0], requires_grad=True)
    y2 = x2 * x2
    y2.backward(retain_graph=True)
    torch.testing.assert_close(y2.grad_fn._saved_self, x2.detach(), msg="saved self after retain_graph=True")

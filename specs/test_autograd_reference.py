"""Autograd: the reference engine and the finite-difference helper, checked against torch.

``ref.autograd_engine`` is a small numpy reverse-mode engine (reference_impl/autograd_engine.py);
every operation is compared with torch.autograd on the same expression in float64.
``ref.finite_diff.central_difference_jacobian`` is compared with
torch.autograd.functional.jacobian and with gradcheck.  The tables hold the awkward cases:
broadcasting, size-1 and zero-size dimensions, non-contiguous inputs.
"""
import numpy as np
import pytest
import torch

# (id, engine expression, torch expression, input shapes, positive inputs?)
CASES = [
    ("add-broadcast", lambda a, b: (a + b).sum(), lambda a, b: (a + b).sum(), [(3, 1), (4,)], False),
    ("sub-broadcast-size1", lambda a, b: (a - b).sum(), lambda a, b: (a - b).sum(), [(1, 4), (3, 1)], False),
    ("mul-broadcast", lambda a, b: (a * b * a).sum(), lambda a, b: (a * b * a).sum(), [(2, 3), (3,)], False),
    ("div", lambda a, b: (a / b).sum(), lambda a, b: (a / b).sum(), [(2, 3), (2, 3)], True),
    ("neg-pow", lambda a: (-(a ** 3)).sum(), lambda a: (-(a ** 3)).sum(), [(4,)], False),
    ("pow-fractional", lambda a: (a ** 0.5).sum(), lambda a: (a ** 0.5).sum(), [(2, 2)], True),
    ("exp-log", lambda a: (a.exp() + a.log()).sum(), lambda a: (a.exp() + a.log()).sum(), [(3,)], True),
    ("tanh-relu", lambda a: (a.tanh() * a.relu()).sum(), lambda a: (a.tanh() * a.relu()).sum(), [(5,)], False),
    ("sum-axis", lambda a: (a.sum(axis=0) ** 2).sum(), lambda a: (a.sum(dim=0) ** 2).sum(), [(3, 4)], False),
    ("sum-axis-keepdims", lambda a: (a * a.sum(axis=1, keepdims=True)).sum(),
     lambda a: (a * a.sum(dim=1, keepdim=True)).sum(), [(2, 3)], False),
    ("mean", lambda a: (a.mean(axis=1) * a.mean()).sum(), lambda a: (a.mean(dim=1) * a.mean()).sum(),
     [(3, 4)], False),
    ("matmul-2d", lambda a, b: (a @ b).tanh().sum(), lambda a, b: (a @ b).tanh().sum(), [(2, 3), (3, 4)], False),
    ("matmul-vec-mat", lambda a, b: (a @ b).sum(), lambda a, b: (a @ b).sum(), [(3,), (3, 4)], False),
    ("matmul-mat-vec", lambda a, b: ((a @ b) ** 2).sum(), lambda a, b: ((a @ b) ** 2).sum(), [(2, 3), (3,)], False),
    # c: a size-1 dim stretched to 0, whose gradient is summed back to zeros of size 1
    ("zero-size", lambda a, b, c: (a * b * c).sum(), lambda a, b, c: (a * b * c).sum(), [(0, 3), (3,), (1, 3)], False),
    ("size-1-everywhere", lambda a, b: (a * b + a).sum(), lambda a, b: (a * b + a).sum(), [(1, 1), (1,)], False),
    ("reused-input", lambda a: (a * a + a.exp() * a).sum(), lambda a: (a * a + a.exp() * a).sum(), [(4,)], False),
]


def _inputs(shapes, positive):
    out = []
    for shape in shapes:
        t = torch.randn(*shape, dtype=torch.float64)
        out.append(t.abs() + 0.5 if positive else t)
    return out


@pytest.mark.claim("autograd.backward-reverse-topological")
@pytest.mark.parametrize("name, engine_fn, torch_fn, shapes, positive", CASES, ids=[c[0] for c in CASES])
def test_reference_engine_matches_torch(ref, name, engine_fn, torch_fn, shapes, positive):
    """Material: backward applies the chain rule node by node in reverse topological order.
    True: a small engine doing exactly that agrees with torch.autograd."""
    eng = ref.autograd_engine
    values = _inputs(shapes, positive)
    t_in = [v.clone().requires_grad_() for v in values]
    torch_fn(*t_in).backward()
    e_in = [eng.tensor(v.numpy(), requires_grad=True) for v in values]
    out = engine_fn(*e_in)
    torch.testing.assert_close(torch.as_tensor(np.asarray(out.data)), torch_fn(*values),
                               msg=f"[{name}] engine forward value vs torch")
    out.backward()
    for k, (e, t) in enumerate(zip(e_in, t_in)):
        assert e.grad is not None, f"[{name}] input {k}: engine left grad None"
        torch.testing.assert_close(torch.as_tensor(e.grad), t.grad,
                                   msg=f"[{name}] input {k}: engine grad vs torch.autograd")


@pytest.mark.claim("autograd.backward-reverse-topological")
def test_reference_engine_non_contiguous_input(ref):
    """True: a transposed (non-contiguous) torch input gives the same gradient through the engine."""
    eng = ref.autograd_engine
    base = torch.randn(4, 3, dtype=torch.float64)
    t = base.t().requires_grad_()
    assert not t.is_contiguous()
    (t.tanh() * t).sum().backward()
    e = eng.tensor(t.detach().numpy(), requires_grad=True)
    (e.tanh() * e).sum().backward()
    torch.testing.assert_close(torch.as_tensor(e.grad), t.grad, msg="engine grad for a transposed input")


@pytest.mark.claim("autograd.next-functions-accumulate-grad")
def test_reference_engine_graph_structure(ref):
    """Material: z = x + y has next_functions of two AccumulateGrad nodes for the leaves.
    True: the engine builds the same structure; inputs without grad show (None, 0)."""
    eng = ref.autograd_engine
    x, y = eng.tensor([1.0], requires_grad=True), eng.tensor([2.0], requires_grad=True)
    z = x + y
    pairs = z.grad_fn.next_functions
    assert [type(n).__name__ for n, _ in pairs] == ["AccumulateGrad", "AccumulateGrad"], f"{pairs}"
    assert pairs[0][0].variable is x and pairs[1][0].variable is y
    assert (x + eng.tensor([1.0])).grad_fn.next_functions[1] == (None, 0)
    assert x.is_leaf and not z.is_leaf
    assert (eng.tensor([1.0]) * 3).grad_fn is None, "an op without requiring-grad inputs recorded a node"
    w = z * x   # a non-leaf input is reached through its grad_fn, a leaf through its one AccumulateGrad
    assert w.requires_grad and w.grad_fn.next_functions[0][0] is z.grad_fn, f"{w.grad_fn.next_functions}"
    assert w.grad_fn.next_functions[1][0] is pairs[0][0], "x's AccumulateGrad should be made once and reused"


@pytest.mark.claim("autograd.grad-accumulates")
def test_reference_engine_accumulates(ref):
    """Material: leaf gradients accumulate across backward calls.
    True: the engine adds into .grad like torch."""
    eng = ref.autograd_engine
    x = eng.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad, [3 + 2, 3 + 4], err_msg="engine x.grad after two backward calls")


@pytest.mark.claim("autograd.implicit-grad-scalar-only")
@pytest.mark.claim("autograd.gradient-arg-is-vjp")
def test_reference_engine_backward_arguments(ref):
    """Material: implicit gradient only for scalars; gradient=v gives v^T J.
    True: the engine enforces and computes the same."""
    eng = ref.autograd_engine
    x = eng.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 2
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        y.backward()
    y.backward(np.array([1.0, 0.0]))
    np.testing.assert_allclose(x.grad, [2.0, 0.0], err_msg="engine masked backward (004 §3.2)")
    # a diamond (y feeds one node twice; _make, not an op of a later lesson): each node runs once, after
    # both contributions, and .grad adds to what the backward above left there
    y._make(y.data * 2, (y, y), "TwiceBackward", lambda g: (g, g)).sum().backward()
    np.testing.assert_allclose(x.grad, [2.0 + 4.0, 0.0 + 8.0], err_msg="engine x.grad after a diamond, added")
    w = eng.tensor([3.0], requires_grad=True)
    (w ** 2).backward()   # one element but not 0-dim: the implicit seed 1 still applies
    np.testing.assert_allclose(w.grad, [6.0], err_msg="engine backward() of a one-element output")
    with pytest.raises(RuntimeError, match="does not require grad"):
        eng.tensor([1.0]).backward()


# ---------------------------------------------------------------- finite differences

FD_CASES = [
    ("elementwise", lambda a: a.sin() * a, [(4,)]),
    ("reduction-to-scalar", lambda a: (a.exp() * a).sum(), [(2, 3)]),
    ("two-inputs-broadcast", lambda a, b: (a * b).tanh(), [(3, 1), (2,)]),
    ("matmul", lambda a, b: a @ b, [(2, 3), (3, 2)]),
    ("size-1", lambda a: a * a.exp(), [(1,)]),
    ("zero-size-input", lambda a, b: a.sum() + b.sum() * 2, [(0, 2), (3,)]),
]


@pytest.mark.claim("autograd.gradient-arg-is-vjp")
@pytest.mark.parametrize("name, fn, shapes", FD_CASES, ids=[c[0] for c in FD_CASES])
def test_finite_difference_jacobian_matches_autograd(ref, name, fn, shapes):
    """True: central differences give the Jacobian torch.autograd.functional.jacobian computes."""
    fd = ref.finite_diff
    inputs = tuple(torch.randn(*s, dtype=torch.float64) for s in shapes)
    got = fd.central_difference_jacobian(fn, inputs)
    out_numel = fn(*inputs).numel()
    assert got.shape == (out_numel, sum(x.numel() for x in inputs)), f"[{name}] Jacobian shape {tuple(got.shape)}"
    jac = torch.autograd.functional.jacobian(fn, inputs)
    blocks = fd.per_input(got, inputs)
    for k, (block, want) in enumerate(zip(blocks, jac)):
        torch.testing.assert_close(block, want.reshape(out_numel, -1), rtol=1e-7, atol=1e-7,
                                   msg=f"[{name}] input {k}: finite differences vs autograd jacobian")


@pytest.mark.claim("autograd.gradient-arg-is-vjp")
def test_finite_difference_non_contiguous_and_untouched_inputs(ref):
    """True: a transposed input uses logical (row-major) element order and is left unmodified."""
    fd = ref.finite_diff
    x = torch.randn(3, 2, dtype=torch.float64).t()
    assert not x.is_contiguous()
    before = x.clone()
    got = fd.central_difference_jacobian(lambda a: a.cos() * 2, (x,))
    want = torch.autograd.functional.jacobian(lambda a: a.cos() * 2, x).reshape(6, 6)
    torch.testing.assert_close(got, want, rtol=1e-7, atol=1e-7, msg="finite differences for a transposed input")
    torch.testing.assert_close(x, before, msg="central_difference_jacobian modified its input")


@pytest.mark.claim("autograd.custom-activation-needs-function")
def test_finite_difference_agrees_with_gradcheck(ref):
    """True: where gradcheck passes, the helper reproduces the analytic gradient."""
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)

    def f(a):
        return a * torch.sigmoid(a)

    assert torch.autograd.gradcheck(f, (x,))
    got = ref.finite_diff.central_difference_jacobian(f, (x.detach(),))
    g, = torch.autograd.grad(f(x).sum(), x)
    torch.testing.assert_close(got.sum(0), g, rtol=1e-7, atol=1e-7, msg="column sums of J vs grad of sum")

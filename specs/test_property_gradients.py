"""Autograd, gradients as a property: a table of operations against finite differences.

The material says backward applies, node by node, the local derivative each operation
saved, and that ``y.backward(v)`` is a vector-Jacobian product (004 §3.1, §3.2; 002 §3.2).
Both are checked here on more than 40 differentiable operations (elementwise unary and
binary with broadcasting, reductions over drawn axes, batched matmul, softmax and
cross-entropy, conv2d, indexing and gather, norms ...), on tiny float64 inputs with drawn
memory layouts:

- ``torch.autograd.gradcheck`` (and ``gradgradcheck`` on a subset) accepts every one;
- the independent witness, ``reference_impl/finite_diff.py``'s central-difference
  Jacobian, agrees with ``torch.autograd.functional.jacobian``, and ``out.backward(v)``
  leaves ``v^T J`` in the inputs' ``.grad``;
- that witness is itself checked against exact Jacobians, where a central difference
  has no truncation error.

Inputs keep a margin from kinks, poles and ties (hypothesis_helpers), where a
derivative is undefined and finite differences measure nothing.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import event, given, strategies as st

from hypothesis_helpers import (
    arrays,
    assert_close,
    floats,
    floats_away_from,
    grid,
    layouts,
    mutually_broadcastable,
    positive,
    property_settings,
    reproduce,
    shapes,
)

# Thousands of ops on tensors of a few elements: one intra-op thread (conftest restores it).
pytestmark = [pytest.mark.property, pytest.mark.usefixtures("one_thread")]

TINY = shapes(max_dims=3, max_side=3, max_numel=6)
TINY_NONSCALAR = shapes(min_dims=1, max_dims=3, max_side=3, max_numel=6)
AWAY_FROM_0 = floats_away_from(0.0, margin=0.25)
DISTINCT = grid(-2.0, 2.0, step=0.125)   # with unique=True: no ties for max, sort ...




@pytest.fixture
def finite_diff(ref):
    """reference_impl/finite_diff.py (a short name for the
    module every property here calls)."""
    return ref.finite_diff


# --------------------------------------------------------------------------- the cases


class Case:
    """One drawn call: ``fn(*inputs)`` built from the code it is shown as.

    ``expr`` is a Python expression over the input names (x0, x1, ...) and the constants
    of ``setup``; the function that runs is compiled from exactly that text, so the
    reproduction in a failure note is the code that failed.
    """

    def __init__(self, expr: str, names: list[str], inputs: list[torch.Tensor], input_code: list[str],
                 setup: list[str]):
        self.expr, self.names, self.inputs = expr, names, tuple(inputs)
        self.setup = setup
        self.input_code = input_code
        namespace = {"torch": torch, "F": F, "math": math}
        for line in setup:
            exec(line, namespace)
        self.fn = eval(f"lambda {', '.join(names)}: {expr}", namespace)

    def code(self, check: str) -> str:
        return "\n".join([*self.input_code, *self.setup,
                          f"fn = lambda {', '.join(self.names)}: {self.expr}", check])

    def __repr__(self) -> str:
        return f"Case({self.expr!r})"


class CaseBuilder:
    """Draws the inputs of one operation: tensors with drawn layouts, constants, dims."""

    def __init__(self, data):
        self.data = data
        self.names: list[str] = []
        self.inputs: list[torch.Tensor] = []
        self.input_code: list[str] = []
        self.setup: list[str] = []

    def input(self, shape, elements=None, unique: bool = False) -> str:
        """A differentiable input (a leaf requiring grad) of ``shape``; returns its name."""
        name = f"x{len(self.names)}"
        layout = self.data.draw(layouts(shape, elements=elements, unique=unique, name=name), label=name)
        self.names.append(name)
        self.inputs.append(layout.leaf())
        self.input_code += [layout.code, f"{name} = {name}.detach().requires_grad_()"]
        return name

    def const(self, name: str, code: str) -> str:
        """A non-differentiable constant, defined by ``code`` (e.g. an index tensor)."""
        self.setup.append(f"{name} = {code}")
        return name

    def draw(self, strategy, label: str):
        return self.data.draw(strategy, label=label)

    def shape(self, strategy=TINY, label: str = "shape"):
        return self.data.draw(strategy, label=label)

    def dim(self, ndim: int) -> int:
        return self.data.draw(st.integers(-ndim, ndim - 1), label="dim")

    def build(self, expr: str) -> Case:
        return Case(expr, self.names, self.inputs, self.input_code, self.setup)


OPS: dict[str, object] = {}
SECOND_ORDER: set[str] = set()


def op(name: str, second_order: bool = False):
    """Register a case builder under ``name`` (and for gradgradcheck when ``second_order``)."""
    def register(builder):
        OPS[name] = builder
        if second_order:
            SECOND_ORDER.add(name)
        return builder
    return register


def unary(name: str, expr: str, elements=None, second_order: bool = False):
    def builder(b: CaseBuilder) -> Case:
        x = b.input(b.shape(), elements)
        return b.build(expr.format(x=x))
    op(name, second_order)(builder)


# Elementwise unary, each on its smooth domain.
unary("exp", "torch.exp({x})", second_order=True)
unary("log", "torch.log({x})", positive(), second_order=True)
unary("sin", "torch.sin({x})")
unary("tanh", "torch.tanh({x})", second_order=True)
unary("sigmoid", "torch.sigmoid({x})")
unary("sqrt", "torch.sqrt({x})", positive())
unary("abs", "torch.abs({x})", AWAY_FROM_0)
unary("relu", "torch.relu({x})", AWAY_FROM_0)
unary("reciprocal", "torch.reciprocal({x})", AWAY_FROM_0, second_order=True)
unary("pow_scalar", "{x} ** 3")
unary("softplus", "F.softplus({x})")
unary("gelu", "F.gelu({x})")
unary("atan", "torch.atan({x})")
unary("erf", "torch.erf({x})")
unary("clamp", "torch.clamp({x}, -1.0, 1.0)", floats_away_from(-1.0, 1.0, margin=0.1))


def binary(name: str, expr: str, left=None, right=None, second_order: bool = False):
    def builder(b: CaseBuilder) -> Case:
        bs = b.shape(mutually_broadcastable(2, max_numel=6), label="broadcast shapes")
        x = b.input(bs.input_shapes[0], left)
        y = b.input(bs.input_shapes[1], right)
        return b.build(expr.format(x=x, y=y))
    op(name, second_order)(builder)


# Elementwise binary, with broadcasting: the gradient of a broadcast operand is summed.
binary("add", "{x} + {y}")
binary("sub", "{x} - {y}")
binary("mul", "{x} * {y}", second_order=True)
binary("div", "{x} / {y}", right=AWAY_FROM_0, second_order=True)
binary("pow", "torch.pow({x}, {y})", left=positive())
binary("maximum", "torch.maximum({x}, {y})", left=grid(step=0.125), right=grid(step=0.125, offset=1 / 16))
binary("atan2", "torch.atan2({x}, {y})", left=AWAY_FROM_0)  # off the branch cut y = 0, x < 0
binary("hypot", "torch.hypot({x}, {y})", left=AWAY_FROM_0)


@op("where")
def _where(b: CaseBuilder) -> Case:
    bs = b.shape(mutually_broadcastable(3, max_numel=6), label="broadcast shapes")
    mask = b.draw(arrays(bs.input_shapes[0], st.booleans().map(float)), label="condition")
    cond = b.const("cond", f"torch.tensor({mask.astype(bool).tolist()!r})")
    x, y = b.input(bs.input_shapes[1]), b.input(bs.input_shapes[2])
    return b.build(f"torch.where({cond}, {x}, {y})")


# Reductions over drawn axes.
@op("sum", second_order=True)
def _sum(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    dims = b.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True),
                  label="dims")
    keepdim = b.draw(st.booleans(), label="keepdim")
    return b.build(f"torch.sum({b.input(shape)}, dim={tuple(dims)}, keepdim={keepdim})")


def reduction(name: str, expr: str, elements=None, unique: bool = False, min_side: int = 1,
              second_order: bool = False):
    def builder(b: CaseBuilder) -> Case:
        shape = b.shape(shapes(min_dims=1, max_dims=3, min_side=min_side, max_side=3, max_numel=8))
        x = b.input(shape, elements, unique)
        return b.build(expr.format(x=x, dim=b.dim(len(shape)), keepdim=b.draw(st.booleans(), "keepdim")))
    op(name, second_order)(builder)


reduction("mean", "torch.mean({x}, dim={dim}, keepdim={keepdim})")
reduction("prod", "torch.prod({x}, dim={dim}, keepdim={keepdim})", AWAY_FROM_0)
reduction("amax", "torch.amax({x}, dim={dim}, keepdim={keepdim})", DISTINCT, unique=True)
reduction("logsumexp", "torch.logsumexp({x}, dim={dim}, keepdim={keepdim})", second_order=True)
reduction("var", "torch.var({x}, dim={dim}, keepdim={keepdim})", min_side=2)
reduction("std", "torch.std({x}, dim={dim}, keepdim={keepdim})", DISTINCT, unique=True, min_side=2)
reduction("cumsum", "torch.cumsum({x}, dim={dim})")
reduction("vector_norm", "torch.linalg.vector_norm({x}, ord=2, dim={dim}, keepdim={keepdim})", AWAY_FROM_0,
          second_order=True)
reduction("vector_norm_1", "torch.linalg.vector_norm({x}, ord=1, dim={dim}, keepdim={keepdim})", AWAY_FROM_0)
reduction("normalize", "F.normalize({x}, dim={dim})", AWAY_FROM_0)
reduction("sort_values", "torch.sort({x}, dim={dim}).values", DISTINCT, unique=True)
reduction("softmax", "torch.softmax({x}, dim={dim})", second_order=True)
reduction("log_softmax", "torch.log_softmax({x}, dim={dim})", second_order=True)


@op("matrix_norm")
def _matrix_norm(b: CaseBuilder) -> Case:
    x = b.input(b.shape(shapes(min_dims=2, max_dims=3, max_numel=8)), AWAY_FROM_0)
    return b.build(f"torch.linalg.matrix_norm({x})")


@op("layer_norm")
def _layer_norm(b: CaseBuilder) -> Case:
    shape = b.shape(shapes(min_dims=1, max_dims=3, min_side=2, max_numel=8))
    k = b.draw(st.integers(1, len(shape)), label="normalized dims")
    x = b.input(shape, DISTINCT, unique=True)
    w, bias = b.input(shape[-k:]), b.input(shape[-k:])
    return b.build(f"F.layer_norm({x}, {tuple(shape[-k:])}, {w}, {bias})")


# Matrix products with batch broadcasting (NumPy's gufunc signature for matmul).
@op("matmul", second_order=True)
def _matmul(b: CaseBuilder) -> Case:
    bs = b.shape(mutually_broadcastable(signature=np.matmul.signature, max_dims=2, max_numel=8),
                 label="matmul shapes")
    return b.build(f"torch.matmul({b.input(bs.input_shapes[0])}, {b.input(bs.input_shapes[1])})")


@op("linear")
def _linear(b: CaseBuilder) -> Case:
    batch = b.shape(shapes(max_dims=2, max_numel=4), label="batch shape")
    n_in, n_out = b.draw(st.integers(1, 3), "in features"), b.draw(st.integers(1, 3), "out features")
    x, w, bias = b.input(batch + (n_in,)), b.input((n_out, n_in)), b.input((n_out,))
    return b.build(f"F.linear({x}, {w}, {bias})")


@op("einsum_bilinear")
def _einsum(b: CaseBuilder) -> Case:
    n, m = b.draw(st.integers(1, 3), "n"), b.draw(st.integers(1, 3), "m")
    x, a, y = b.input((n,)), b.input((n, m)), b.input((m,))
    return b.build(f"torch.einsum('i,ij,j->', {x}, {a}, {y})")


# Losses.
@op("cross_entropy", second_order=True)
def _cross_entropy(b: CaseBuilder) -> Case:
    n, c = b.draw(st.integers(1, 3), "batch"), b.draw(st.integers(2, 4), "classes")
    labels = b.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n), "targets")
    target = b.const("target", f"torch.tensor({labels!r})")
    reduction = b.draw(st.sampled_from(["mean", "sum", "none"]), "reduction")
    smoothing = b.draw(st.sampled_from([0.0, 0.1]), "label_smoothing")
    x = b.input((n, c))
    return b.build(f"F.cross_entropy({x}, {target}, reduction={reduction!r}, label_smoothing={smoothing})")


@op("mse_loss")
def _mse(b: CaseBuilder) -> Case:
    shape = b.shape()
    return b.build(f"F.mse_loss({b.input(shape)}, {b.input(shape)})")


@op("bce_with_logits")
def _bce(b: CaseBuilder) -> Case:
    shape = b.shape()
    x, y = b.input(shape), b.input(shape, floats(0.0, 1.0))
    return b.build(f"F.binary_cross_entropy_with_logits({x}, {y})")


# Convolution and pooling, on 4-D inputs whose layout may be permuted (channels-last-like).
@op("conv2d", second_order=True)
def _conv2d(b: CaseBuilder) -> Case:
    c_in, c_out = b.draw(st.integers(1, 2), "in channels"), b.draw(st.integers(1, 2), "out channels")
    k = b.draw(st.integers(1, 2), "kernel size")
    h, w = b.draw(st.integers(k, 3), "height"), b.draw(st.integers(k, 3), "width")
    stride, padding = b.draw(st.integers(1, 2), "stride"), b.draw(st.integers(0, 1), "padding")
    x, weight, bias = b.input((1, c_in, h, w)), b.input((c_out, c_in, k, k)), b.input((c_out,))
    return b.build(f"F.conv2d({x}, {weight}, {bias}, stride={stride}, padding={padding})")


@op("avg_pool2d")
def _avg_pool2d(b: CaseBuilder) -> Case:
    h, w = b.draw(st.integers(2, 3), "height"), b.draw(st.integers(2, 3), "width")
    x = b.input((1, b.draw(st.integers(1, 2), "channels"), h, w))
    return b.build(f"F.avg_pool2d({x}, kernel_size=2, stride=1)")


@op("max_pool2d")
def _max_pool2d(b: CaseBuilder) -> Case:
    x = b.input((1, 1, 3, 3), DISTINCT, unique=True)
    return b.build(f"F.max_pool2d({x}, kernel_size=2, stride=1)")


# Indexing: repeated indices must accumulate their gradients.
@op("advanced_index")
def _advanced_index(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    picks = b.draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=4), "indices")
    idx = b.const("idx", f"torch.tensor({picks!r})")
    return b.build(f"{b.input(shape)}[{idx}]")


@op("gather")
def _gather(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    dim = b.dim(len(shape))
    size = list(shape)
    size[dim] = b.draw(st.integers(1, 3), "gathered size")
    index = b.draw(arrays(tuple(size), st.integers(0, shape[dim] - 1).map(float)), "index").astype(int)
    idx = b.const("idx", f"torch.tensor({index.tolist()!r})")
    return b.build(f"torch.gather({b.input(shape)}, {dim}, {idx})")


@op("index_select")
def _index_select(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    dim = b.dim(len(shape))
    picks = b.draw(st.lists(st.integers(0, shape[dim] - 1), min_size=1, max_size=3), "indices")
    idx = b.const("idx", f"torch.tensor({picks!r})")
    return b.build(f"torch.index_select({b.input(shape)}, {dim}, {idx})")


@op("masked_select")
def _masked_select(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    mask = b.draw(arrays(shape, st.booleans().map(float)), "mask").astype(bool)
    # at least one element selected: functional.jacobian cannot stack an empty output
    mask.reshape(-1)[b.draw(st.integers(0, mask.size - 1), "a selected element")] = True
    m = b.const("mask", f"torch.tensor({mask.tolist()!r})")
    return b.build(f"{b.input(shape)}[{m}]")


@op("strided_slice")
def _strided_slice(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    step = b.draw(st.integers(1, 2), "step")
    return b.build(f"{b.input(shape)}[..., ::{step}] * 2.0")


@op("scatter_add")
def _scatter_add(b: CaseBuilder) -> Case:
    n = b.draw(st.integers(1, 4), "source size")
    targets = b.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n), "target slots")
    idx = b.const("idx", f"torch.tensor({targets!r})")
    x, src = b.input((3,)), b.input((n,))
    return b.build(f"{x}.scatter_add(0, {idx}, {src})")


@op("cat")
def _cat(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    dim = b.dim(len(shape))
    other = list(shape)
    other[dim] = b.draw(st.integers(1, 2), "size of the second along dim")
    return b.build(f"torch.cat([{b.input(shape)}, {b.input(tuple(other))}], dim={dim})")


@op("flip_transpose_reshape")
def _flip(b: CaseBuilder) -> Case:
    shape = b.shape(TINY_NONSCALAR)
    dims = b.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True), "flipped dims")
    return b.build(f"torch.flip({b.input(shape)}, {tuple(dims)}).transpose(0, -1).reshape(-1)")


@op("expand_mul")
def _expand(b: CaseBuilder) -> Case:
    n = b.draw(st.integers(1, 3), "rows")
    x, y = b.input((n, 1)), b.input((n, 3))
    return b.build(f"{x}.expand({n}, 3) * {y}")


ALL_OPS = sorted(OPS)
assert len(ALL_OPS) >= 30, f"only {len(ALL_OPS)} operations in the gradient table"


# --------------------------------------------------------------------------- the properties


def _jacobian_from_autograd(case: Case, out_numel: int) -> torch.Tensor:
    jac = torch.autograd.functional.jacobian(case.fn, case.inputs)
    return torch.cat([j.reshape(out_numel, x.numel()) for j, x in zip(jac, case.inputs)], dim=1)


@pytest.mark.claim("autograd.backward-reverse-topological")
@pytest.mark.parametrize("name", ALL_OPS)
@property_settings(0.2)
@given(data=st.data())
def test_backward_passes_gradcheck(name, data):
    """Material: each node multiplies its saved local derivative into the upstream gradient.
    True: every operation of the table passes torch.autograd.gradcheck in float64."""
    case = OPS[name](CaseBuilder(data))
    event(f"input layouts: {sorted({'contiguous' if x.is_contiguous() else 'strided' for x in case.inputs})}")
    with reproduce(case.code(f"torch.autograd.gradcheck(fn, ({', '.join(case.names)},))")):
        assert torch.autograd.gradcheck(case.fn, case.inputs), f"gradcheck rejected {case.expr}"


@pytest.mark.claim("autograd.backward-reverse-topological")
@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
@property_settings(0.12)
@given(data=st.data())
def test_double_backward_passes_gradgradcheck(name, data):
    """Material: backward chains saved local derivatives.
    True: the backward graph is itself differentiable: gradgradcheck accepts these operations."""
    case = OPS[name](CaseBuilder(data))
    with reproduce(case.code(f"torch.autograd.gradgradcheck(fn, ({', '.join(case.names)},))")):
        assert torch.autograd.gradgradcheck(case.fn, case.inputs), f"gradgradcheck rejected {case.expr}"


@pytest.mark.claim("autograd.backward-reverse-topological")
@pytest.mark.claim("autograd.gradient-arg-is-vjp")
@pytest.mark.parametrize("name", ALL_OPS)
@property_settings(0.2)
@given(data=st.data())
def test_autograd_jacobian_and_backward_v_match_central_differences(finite_diff, name, data):
    """Material: backward applies the chain rule; y.backward(v) gives v^T J.
    True: the reference central-difference J equals autograd's, and .grad after backward(v) is v^T J."""
    case = OPS[name](CaseBuilder(data))
    with torch.no_grad():
        out = case.fn(*case.inputs)
    v = torch.from_numpy(data.draw(arrays(tuple(out.shape)), label="v (gradient argument)"))
    check = ("from torchclaims.impl import Impl; ref = Impl()\n"
             f"J = ref.finite_diff.central_difference_jacobian(fn, ({', '.join(case.names)},))\n"
             f"J_autograd = torch.autograd.functional.jacobian(fn, ({', '.join(case.names)},))")
    with reproduce(case.code(check)):
        J = finite_diff.central_difference_jacobian(case.fn, case.inputs)
        expected_cols = sum(x.numel() for x in case.inputs)
        assert tuple(J.shape) == (out.numel(), expected_cols), (
            f"central_difference_jacobian shape {tuple(J.shape)}, but should be {(out.numel(), expected_cols)}")
        assert_close(J, _jacobian_from_autograd(case, out.numel()),
                     "central_difference_jacobian against torch.autograd.functional.jacobian",
                     rtol=1e-5, atol=1e-6)

        case.fn(*case.inputs).backward(v)
        expected = finite_diff.per_input(finite_diff.vjp(J, v)[None, :], case.inputs)
        for name_, x, want in zip(case.names, case.inputs, expected):
            assert_close(x.grad.reshape(-1), want.reshape(-1),
                         f"{name_}.grad after out.backward(v) against v^T J", rtol=1e-5, atol=1e-6)


@pytest.mark.claim("autograd.backward-reverse-topological")
@property_settings(0.4)
@given(data=st.data())
def test_central_difference_is_exact_where_the_third_derivative_vanishes(finite_diff, data):
    """Material: gradients can be checked against finite differences.
    True: on f(x, y) = A x + |x|^2 y + y^2 (quadratic along each coordinate) the helper's J is exact."""
    n, m = data.draw(st.integers(1, 4), label="n"), data.draw(st.integers(1, 4), label="m")
    A = torch.from_numpy(data.draw(arrays((m, n)), label="A"))
    x = torch.from_numpy(data.draw(arrays((n,)), label="x"))
    y = torch.from_numpy(data.draw(arrays((m,)), label="y"))

    def f(x, y):
        return A @ x + (x * x).sum() * y + y * y

    exact = torch.cat([A + torch.outer(y, 2 * x), torch.diag((x * x).sum() + 2 * y)], dim=1)
    with reproduce(f"A = torch.tensor({A.tolist()}, dtype=torch.float64)\n"
                   f"x = torch.tensor({x.tolist()}, dtype=torch.float64)\n"
                   f"y = torch.tensor({y.tolist()}, dtype=torch.float64)\n"
                   "from torchclaims.impl import Impl; ref = Impl()\n"
                   "ref.finite_diff.central_difference_jacobian(lambda x, y: A @ x + (x * x).sum() * y + y * y, (x, y))"):
        J = finite_diff.central_difference_jacobian(f, (x, y))
        assert_close(J, exact, "central_difference_jacobian(f, (x, y)) against the exact Jacobian",
                     rtol=1e-7, atol=1e-8)
        blocks = finite_diff.per_input(J, (x, y))
        assert [tuple(blk.shape) for blk in blocks] == [(m, n), (m, m)], (
            f"per_input blocks {[tuple(blk.shape) for blk in blocks]}, but should be {[(m, n), (m, m)]}")

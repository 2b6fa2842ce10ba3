"""Autograd, the engine as a property: the reference engine against torch.autograd on random graphs.

The material describes the engine: every operation records a node, backward walks the
nodes in reverse topological order multiplying local derivatives, ``y.backward(v)`` is a
vector-Jacobian product and ``.grad`` accumulates (004 §2.3, §3.1-§3.3; 002 §3.2, §4.4).
``reference_impl/autograd_engine.py`` implements exactly that over NumPy; here it runs
random straight-line programs (shared sub-expressions, so graphs are DAGs with diamonds;
broadcasting; reductions over drawn axes; 1-D/2-D matmul; leaves that need no grad) side
by side with torch in float64, and forward values, which outputs require grad, the
gradients of ``backward(v)`` and their accumulation over a second backward must agree.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import event, given, strategies as st

from hypothesis_helpers import arrays, assert_close, floats_away_from, property_settings, reproduce, shapes

# Thousands of ops on tensors of a few elements: one intra-op thread (conftest restores it).
pytestmark = [pytest.mark.property, pytest.mark.usefixtures("one_thread")]

VALUES = floats_away_from(0.0, margin=0.1, low=-2.0, high=2.0)
LIMIT = 1e4          # an op whose result leaves [-LIMIT, LIMIT] is replaced by tanh
KINK_MARGIN = 1e-6   # relu is only applied where no input lies this close to 0




@pytest.fixture
def engine(ref):
    """reference_impl/autograd_engine.py (a short name for the
    module every property here calls)."""
    return ref.autograd_engine


class Program:
    """A straight-line program, one statement per node, in the reference's and torch's spelling.

    Leaves are ``x0, x1, ...`` made by ``T(values, requires_grad=...)``; nodes are
    ``h0, h1, ...``; the last node is the output.
    """

    def __init__(self):
        self.leaves: list[tuple[str, np.ndarray, bool]] = []
        self.steps: list[tuple[str, str, str]] = []   # (name, reference code, torch code)

    def code(self, backend: str) -> str:
        lines = [f"{name} = T({values.tolist()!r}, requires_grad={rg})" for name, values, rg in self.leaves]
        lines += [f"{name} = {ref_code if backend == 'ref' else torch_code}"
                  for name, ref_code, torch_code in self.steps]
        return "\n".join(lines)

    def run(self, backend: str, make):
        """Execute with ``make`` as T; returns (namespace, output name)."""
        namespace = {"T": make}
        exec(self.code(backend), namespace)
        return namespace, self.steps[-1][0]

    def __repr__(self) -> str:
        return "Program(\n" + self.code("torch") + "\n)"


def _family_shape(draw, common: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``common``: trailing dims of it, some set to 1."""
    k = draw(st.integers(0, len(common)), label="leaf ndim")
    tail = common[len(common) - k:]
    return tuple(draw(st.sampled_from([size, 1]), label="leaf size") if size != 1 else 1 for size in tail)


@st.composite
def programs(draw, engine):
    """A random program over the reference engine's operations, every value kept finite and off kinks.

    Every node of the "family" broadcasts to one common shape, so any two of them can be
    combined; matmul weights are extra leaves outside it.  Each statement is evaluated
    with the reference engine as it is drawn, to pick only operations valid at those
    values (log of positives, division away from 0, relu away from its kink).
    """
    common = draw(shapes(max_dims=3, max_side=3, max_numel=12), label="common shape")
    prog = Program()
    ns: dict[str, object] = {}
    family: list[str] = []

    def new_leaf(shape=None, in_family=True) -> str:
        shape = _family_shape(draw, common) if shape is None else shape
        name = f"x{len(prog.leaves)}"
        values = draw(arrays(shape, VALUES), label=name)
        rg = draw(st.sampled_from([True, True, True, False]), label=f"{name} requires grad")
        prog.leaves.append((name, values, rg))
        ns[name] = engine.tensor(values, requires_grad=rg)
        if in_family:
            family.append(name)
        return name

    def operand() -> str:
        if family and draw(st.integers(0, 2), label="reuse a node (0: new leaf)"):
            return draw(st.sampled_from(family), label="operand")
        return new_leaf()

    def value(name: str) -> np.ndarray:
        return ns[name].data

    def emit(ref_code: str, torch_code: str, in_family: bool = True) -> str:
        name = f"h{len(prog.steps)}"
        ns[name] = eval(ref_code, ns)
        data = ns[name].data
        if not np.all(np.abs(data) <= LIMIT):
            raise _Rejected
        prog.steps.append((name, ref_code, torch_code))
        if in_family:
            family.append(name)
        return name

    def step() -> str:
        op = draw(st.sampled_from(OPS), label="operation")
        a = operand()
        va = value(a)
        if op in ("add", "sub", "mul", "div"):
            b = operand()
            if op == "div" and not np.all(np.abs(value(b)) > 0.1):
                op = "mul"
            sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[op]
            return emit(f"{a} {sym} {b}", f"{a} {sym} {b}")
        if op == "scalar":
            c = draw(st.sampled_from([-1.5, 0.5, 2.0]), label="constant")
            form = draw(st.sampled_from(["{a} + {c}", "{c} + {a}", "{c} - {a}", "{a} * {c}", "{c} * {a}",
                                         "{a} / {c}", "{c} / {a}"]), label="constant form")
            if form == "{c} / {a}" and not np.all(np.abs(va) > 0.1):
                form = "{a} / {c}"
            code = form.format(a=a, c=c)
            return emit(code, code)
        if op in ("sum", "mean"):
            if va.ndim == 0 or draw(st.booleans(), label="over all axes"):
                return emit(f"{a}.{op}()", f"{a}.{op}()")
            axis = draw(st.integers(-va.ndim, va.ndim - 1), label="axis")
            keep = draw(st.booleans(), label="keepdims")
            if not keep and axis % va.ndim != 0:
                keep = True  # dropping a middle axis would leave the broadcast family
            return emit(f"{a}.{op}(axis={axis}, keepdims={keep})", f"{a}.{op}(dim={axis}, keepdim={keep})")
        if op == "matmul":
            if va.ndim == 1 and draw(st.booleans(), label="vector dot"):
                b = new_leaf(va.shape, in_family=False)
                return emit(f"{a} @ {b}", f"{a} @ {b}")
            if va.ndim in (1, 2):
                left = draw(st.booleans(), label="weight on the left")
                k = va.shape[0] if left else va.shape[-1]
                w = new_leaf((k, k), in_family=False)
                code = f"{w} @ {a}" if left else f"{a} @ {w}"
                return emit(code, code)
            op = "tanh"
        if op == "log" and not np.all(va > 0.05):
            op = "tanh"
        if op == "relu" and not np.all(np.abs(va) > KINK_MARGIN):
            op = "tanh"
        if op == "sqrt" and not np.all(va > 0.05):
            op = "tanh"
        if op == "exp" and not np.all(va < 5.0):
            op = "tanh"
        code = {"neg": f"-{a}", "exp": f"{a}.exp()", "log": f"{a}.log()", "tanh": f"{a}.tanh()",
                "relu": f"{a}.relu()", "square": f"{a} ** 2", "cube": f"{a} ** 3",
                "sqrt": f"{a} ** 0.5"}[op]
        return emit(code, code)

    n = draw(st.integers(1, 8), label="number of operations")
    for _ in range(n):
        try:
            step()
        except _Rejected:
            continue
    if not prog.steps:  # every step overflowed: fall back to one safe op
        emit(f"{family[0]}.tanh()", f"{family[0]}.tanh()")
    return prog


class _Rejected(Exception):
    """An operation whose result left [-LIMIT, LIMIT]; the step is skipped."""


OPS = ["add", "sub", "mul", "div", "scalar", "sum", "mean", "matmul", "neg", "exp", "log", "tanh", "relu",
       "square", "cube", "sqrt"]


def _torch_tensor(data, requires_grad=False):
    return torch.tensor(data, dtype=torch.float64, requires_grad=requires_grad)


def _grads_agree(prog: Program, ref_ns, torch_ns, when: str) -> None:
    __tracebackhide__ = True
    for name, _, _ in prog.leaves:
        got, want = ref_ns[name].grad, torch_ns[name].grad
        assert (got is None) == (want is None), (
            f"{name}.grad is {'None' if got is None else 'set'} in the reference engine but "
            f"{'None' if want is None else 'set'} in torch {when}")
        if want is not None:
            assert_close(torch.from_numpy(np.asarray(got, dtype=np.float64)), want,
                         f"{name}.grad of the reference engine against torch {when}")


@pytest.mark.claim("autograd.backward-reverse-topological")
@pytest.mark.claim("autograd.gradient-arg-is-vjp")
@pytest.mark.claim("autograd.grad-accumulates")
@pytest.mark.claim("autograd.requires-grad-propagates")
@property_settings()
@given(data=st.data())
def test_reference_engine_matches_torch_autograd_on_random_graphs(engine, data):
    """Material: backward runs nodes in reverse topological order; backward(v) is v^T J; .grad adds up.
    True: on random DAGs the reference engine's values and gradients equal torch.autograd's."""
    prog = data.draw(programs(engine), label="program")
    event(f"program of {len(prog.steps)} statements, {len(prog.leaves)} leaves")
    ref_ns, out = prog.run("ref", engine.tensor)
    torch_ns, _ = prog.run("torch", _torch_tensor)
    r, t = ref_ns[out], torch_ns[out]
    shape = tuple(t.shape)
    v = torch.from_numpy(data.draw(arrays(shape, VALUES), label="v (gradient argument)"))
    implicit = t.numel() == 1 and t.dim() == 0 and data.draw(st.booleans(), label="backward() without v")
    call = "out.backward()" if implicit else "out.backward(v)"
    code = (f"# torch (for the reference engine: T = ref.autograd_engine.tensor, .sum(axis=, keepdims=))\n"
            f"T = lambda data, requires_grad=False: torch.tensor(data, dtype=torch.float64, "
            f"requires_grad=requires_grad)\n{prog.code('torch')}\nout = {out}\n"
            f"v = torch.tensor({v.tolist()!r}, dtype=torch.float64)\n{call}")
    with reproduce(code):
        assert_close(torch.from_numpy(np.asarray(r.data, dtype=np.float64)), t.detach(),
                     f"forward value of the reference engine against torch [{out}]")
        assert r.requires_grad == t.requires_grad, (
            f"out.requires_grad={r.requires_grad} in the reference engine, but torch says {t.requires_grad}")
        if not t.requires_grad:
            return
        for calls in ("one call", "two calls"):  # the second call must add the same gradients again
            if implicit:
                r.backward()
                t.backward(retain_graph=True)
            else:
                r.backward(v.numpy())
                t.backward(v, retain_graph=True)
            _grads_agree(prog, ref_ns, torch_ns, f"after {calls} of {call}")

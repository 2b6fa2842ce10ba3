"""Autograd: the dynamic graph built during the forward pass.

Sources: 000 §1 and §2.2 (grad_fn, next_functions, AccumulateGrad, the engine), 002 §2.1 and
§3.2 (operator overloading), 003 §2.1 (where errors surface), 004 §1, §2.3, §3.1 and §3.3
(graph as an execution record, leaves, reverse topological order).
"""
import weakref

import pytest
import torch
import torch.utils.checkpoint
from torch import nn


def _name(node):
    return None if node is None else type(node).__name__


def _leaf(*values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


@pytest.mark.claim("autograd.graph-built-during-forward")
def test_graph_follows_the_branch_taken():
    """Material: the graph is recorded as the forward runs; a different branch gives a different graph.
    True: grad_fn type and gradient follow the branch actually executed, no recompilation."""
    def f(x):
        if x.sum() > 0:
            return x.exp().sum()
        return (x * x).sum()

    pos, neg = _leaf(1.0, 2.0), _leaf(-1.0, -2.0)
    out_pos, out_neg = f(pos), f(neg)
    assert _name(out_pos.grad_fn.next_functions[0][0]) == "ExpBackward0", (
        f"branch x.sum() > 0 recorded {out_pos.grad_fn.next_functions[0][0]}, expected ExpBackward0")
    assert _name(out_neg.grad_fn.next_functions[0][0]) == "MulBackward0", (
        f"branch x.sum() <= 0 recorded {out_neg.grad_fn.next_functions[0][0]}, expected MulBackward0")
    out_pos.backward()
    out_neg.backward()
    torch.testing.assert_close(pos.grad, pos.detach().exp(), msg="gradient of the exp branch")
    torch.testing.assert_close(neg.grad, 2 * neg.detach(), msg="gradient of the square branch")


@pytest.mark.claim("autograd.graph-built-during-forward")
def test_each_forward_builds_fresh_nodes():
    """Material: every iteration rebuilds the graph.
    True: two runs of the same code never share a grad_fn object."""
    x = _leaf(1.0, 2.0)
    first, second = (x * 2).sum(), (x * 2).sum()
    assert first.grad_fn is not second.grad_fn, "two forward passes returned the same grad_fn"
    assert first.grad_fn.next_functions[0][0] is not second.grad_fn.next_functions[0][0], (
        "two forward passes share their MulBackward0 node")


@pytest.mark.claim("autograd.next-functions-accumulate-grad")
def test_add_of_two_leaves_links_two_accumulators():
    """Material: z = x + y -> AddBackward0 whose next_functions are two (AccumulateGrad, 0) pairs.
    True: exactly; each accumulator's .variable is the leaf, and a no-grad input is (None, 0)."""
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    z = x + y
    assert _name(z.grad_fn) == "AddBackward0", f"z.grad_fn={z.grad_fn}, expected AddBackward0"
    pairs = z.grad_fn.next_functions
    assert [(_name(n), i) for n, i in pairs] == [("AccumulateGrad", 0), ("AccumulateGrad", 0)], (
        f"z.grad_fn.next_functions={pairs}")
    assert pairs[0][0].variable is x and pairs[1][0].variable is y, (
        "the AccumulateGrad nodes do not point at x and y")
    w = x + torch.tensor([2.0])
    assert w.grad_fn.next_functions[1] == (None, 0), (
        f"a no-grad input shows as {w.grad_fn.next_functions[1]}, expected (None, 0)")


@pytest.mark.claim("autograd.grad-fn-is-function-instance")
def test_grad_fn_is_a_graph_node_not_a_function():
    """Material: each differentiable op instantiates a Function subclass as grad_fn.
    True: a C++ graph Node, and only when grad mode is on and an input requires grad."""
    x = _leaf(1.0)
    z = torch.add(x, 1)
    assert z.grad_fn is not None and type(z.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad", (
        f"torch.add(x, 1).grad_fn is {z.grad_fn!r}, but should be a node whose edge leads to x's AccumulateGrad")
    assert not isinstance(z.grad_fn, torch.autograd.Function), f"{z.grad_fn!r} is a torch.autograd.Function"
    assert type(z.grad_fn).__module__ == "builtins", (
        f"the class of torch.add(x, 1).grad_fn lives in {type(z.grad_fn).__module__!r}, but should be 'builtins' "
        "(a class defined in C++)")
    assert torch.add(torch.ones(1), 1).grad_fn is None, "an op on tensors without grad recorded a node"
    with torch.no_grad():
        assert torch.add(x, 1).grad_fn is None, "an op under no_grad recorded a node"


@pytest.mark.claim("autograd.grad-fn-is-function-instance")
@pytest.mark.needs_torch(">=2.0", reason="torch.autograd.graph.Node, the base class of graph nodes, appeared in 2.0")
def test_grad_fn_is_an_autograd_graph_node():
    """Material: grad_fn is a Function instance.
    True: it is a torch.autograd.graph.Node; Function is the base of autograd functions written in Python."""
    z = torch.add(_leaf(1.0), 1)
    assert isinstance(z.grad_fn, torch.autograd.graph.Node), f"{z.grad_fn!r} is not a graph Node"

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    node = Double.apply(_leaf(1.0)).grad_fn
    assert isinstance(node, torch.autograd.graph.Node) and not isinstance(node, torch.autograd.Function), (
        f"the grad_fn of a custom Function's output is {type(node).__mro__}, but should be a graph Node "
        "that is no torch.autograd.Function instance")
    assert issubclass(torch.utils.checkpoint.CheckpointFunction, torch.autograd.Function), (
        "torch's own CheckpointFunction should be a torch.autograd.Function written in Python")


@pytest.mark.claim("autograd.grad-fn-is-function-instance", as_written=True)
def test_as_written_grad_fn_is_function_instance():
    """Material: grad_fn is an instance of a Function subclass.
    True: it is not."""
    z = torch.add(_leaf(1.0), 1)
    assert isinstance(z.grad_fn, torch.autograd.Function), f"{z.grad_fn!r} is not a Function"


def _diamond():
    """x -> h -> (sin h, cos h) -> sum: h is used twice."""
    x = _leaf(0.3, -0.7)
    h = x * 2
    order = []
    h.register_hook(lambda g: order.append(("h", g.clone())))
    a, b = h.sin(), h.cos()
    a.register_hook(lambda g: order.append(("a", None)))
    b.register_hook(lambda g: order.append(("b", None)))
    return x, h, (a + b).sum(), order


@pytest.mark.claim("autograd.engine-dfs-in-python")
@pytest.mark.claim("autograd.backward-reverse-topological")
def test_shared_node_runs_once_after_all_consumers():
    """Material (000): depth-first walk from z.grad_fn; (004): reverse topological order.
    True: the shared h is processed once, after both consumers, with the summed gradient."""
    x, h, out, order = _diamond()
    out.backward()
    names = [n for n, _ in order]
    assert names.count("h") == 1, f"the hook on the shared tensor h fired {names.count('h')} times, expected 1"
    assert names.index("h") > max(names.index("a"), names.index("b")), (
        f"hook order {names}: h ran before one of its consumers")
    expected = (h.cos() - h.sin()).detach()
    torch.testing.assert_close(order[names.index("h")][1], expected,
                               msg="gradient reaching h is not cos(h) - sin(h)")


@pytest.mark.claim("autograd.engine-dfs-in-python", as_written=True)
def test_as_written_depth_first_walk_visits_shared_node_twice():
    """Material: a depth-first walk, which reaches the shared node once per path.
    True: it is visited once."""
    _, _, out, order = _diamond()
    out.backward()
    assert [n for n, _ in order].count("h") == 2, f"hook order {order}: h was not visited per path"


@pytest.mark.claim("autograd.engine-dfs-in-python")
@pytest.mark.needs_torch(">=2.0", reason="Node.register_prehook appeared in 2.0")
def test_nodes_are_cpp_objects_that_python_reads_and_hooks():
    """Material: the whole backward process is driven by Python object references.
    True: built-in nodes are C++ objects; Python reads their edges and saved tensors and hooks them."""
    w, x = _leaf(2.0), torch.tensor([3.0], dtype=torch.float64)
    node = (w * x).grad_fn
    assert type(node).__module__ == "builtins", f"{type(node).__name__} is defined in {type(node).__module__}, not C++"
    assert node.next_functions[0][0].variable is w, "Python cannot follow MulBackward0's edge to w"
    torch.testing.assert_close(node._saved_other, x, msg="Python reading MulBackward0._saved_other")
    seen = []
    node.register_prehook(lambda grad_outputs: seen.append("pre"))
    node.register_hook(lambda grad_inputs, grad_outputs: seen.append("post"))
    out = w * x
    out.grad_fn.register_prehook(lambda grad_outputs: seen.append("pre"))
    out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append("post"))
    out.sum().backward()
    assert seen == ["pre", "post"], f"hooks Python put on the node fired as {seen}, expected ['pre', 'post']"


@pytest.mark.claim("autograd.backward-reverse-topological")
def test_diamond_gradient_matches_finite_differences(ref):
    """Material: each node multiplies its local gradient by the upstream one.
    True: the chain-rule result equals central finite differences."""
    x, _, out, _ = _diamond()
    out.backward()
    fd = ref.finite_diff.central_difference_jacobian(
        lambda t: ((t * 2).sin() + (t * 2).cos()).sum(), (x.detach(),))
    torch.testing.assert_close(x.grad, fd.reshape(-1), rtol=1e-7, atol=1e-7,
                               msg="autograd gradient of the diamond vs finite differences")


@pytest.mark.claim("autograd.node-saves-and-links")
def test_mul_saves_the_other_factor_and_links_accumulator():
    """Material: mul saves the other factor; next_functions point at the inputs' grad_fn.
    True: it saves x for w * x; but a leaf's link is its AccumulateGrad, a no-grad input is (None, 0)."""
    w = torch.tensor([2.0], requires_grad=True)
    x = torch.tensor([3.0])
    node = (w * x).grad_fn
    assert w.grad_fn is None, f"the leaf w has grad_fn {w.grad_fn}, expected None"
    torch.testing.assert_close(node._saved_other, x, msg="MulBackward0._saved_other is not x")
    assert node._saved_self is None, "MulBackward0 saved w although x needs no gradient"
    assert _name(node.next_functions[0][0]) == "AccumulateGrad" and node.next_functions[0][0].variable is w, (
        f"next_functions[0]={node.next_functions[0]}, expected w's AccumulateGrad")
    assert node.next_functions[1] == (None, 0), f"next_functions[1]={node.next_functions[1]}, expected (None, 0)"


@pytest.mark.claim("autograd.node-saves-and-links", as_written=True)
def test_as_written_next_functions_are_inputs_grad_fn():
    """Material: next_functions point at each input tensor's grad_fn.
    True: a leaf's grad_fn is None; the link is its AccumulateGrad."""
    w = torch.tensor([2.0], requires_grad=True)
    node = (w * torch.tensor([3.0])).grad_fn
    assert node.next_functions[0][0] is w.grad_fn, f"next_functions[0][0]={node.next_functions[0][0]}, w.grad_fn=None"


@pytest.mark.claim("autograd.example-004-w-times-x")
def test_example_w_times_x_plus_one():
    """Material: y = w * x + 1, grad_fn Add over Mul, w.grad == tensor([3.]).
    True: recomputed, all as printed."""
    w = torch.tensor([2.0], requires_grad=True)
    x = torch.tensor([3.0])
    y = w * x + 1
    assert _name(y.grad_fn) == "AddBackward0", f"y.grad_fn={y.grad_fn}"
    assert _name(y.grad_fn.next_functions[0][0]) == "MulBackward0", f"{y.grad_fn.next_functions}"
    y.backward()
    torch.testing.assert_close(w.grad, torch.tensor([3.0]), msg="w.grad after y = w*x + 1; y.backward()")


@pytest.mark.claim("autograd.leaf-definition")
def test_leaf_is_anything_without_grad_fn():
    """Material: leaves are tensors the user creates, not op results; only leaves get .grad.
    True: every no-grad tensor is a leaf (op results too); non-leaves get .grad via retain_grad()."""
    assert (torch.ones(2) * 3).is_leaf, "torch.ones(2) * 3 is not a leaf"
    x = _leaf(1.0, 2.0)
    with torch.no_grad():
        under_no_grad = x * 2
    with torch.inference_mode():
        inferred = torch.ones(2) * 2
    no_grad_tensors = {"torch.arange(3)": torch.arange(3), "x.detach() * 2": x.detach() * 2,
                       "x * 2 under no_grad": under_no_grad, "x.detach()": x.detach(),
                       "an inference-mode result": inferred, "(x * 2).detach()[0]": (x * 2).detach()[0]}
    not_leaves = sorted(name for name, t in no_grad_tensors.items() if t.requires_grad or not t.is_leaf)
    assert not not_leaves, f"tensors without requires_grad that are no leaves: {not_leaves}; all should be"
    assert not (torch.randn(3, requires_grad=True) * 2).is_leaf, "a requiring-grad op result is a leaf"
    h = x * 2
    kept = x * 3
    kept.retain_grad()
    c = torch.tensor([1.0, 1.0], dtype=torch.float64)
    (h * h + kept * c).sum().backward()
    torch.testing.assert_close(kept.grad, c, msg="kept.grad after retain_grad()")
    assert x.grad is not None, "the requiring-grad leaf x got no .grad"
    with pytest.warns(UserWarning, match="not a leaf"):
        assert h.grad is None, f"the non-leaf h got .grad={h.grad} without retain_grad()"
    assert c.grad is None, f"the leaf c, which does not require grad, got .grad={c.grad}"


@pytest.mark.claim("autograd.leaf-definition", as_written=True)
def test_as_written_op_results_are_not_leaves():
    """Material: a leaf is not the result of an operation.
    True: torch.ones(2) * 3 is a leaf."""
    assert not (torch.ones(2) * 3).is_leaf, "torch.ones(2) * 3 reports is_leaf=True"


@pytest.mark.claim("autograd.requires-grad-propagates")
def test_requires_grad_propagates_through_mixed_ops():
    """Material: every op a requiring-grad leaf takes part in yields a tensor with grad_fn.
    True: also when mixed with no-grad tensors; not under no_grad."""
    w = _leaf(1.0, 2.0)
    c = torch.tensor([3.0, 4.0], dtype=torch.float64)
    for out in (w * c, c - w, torch.cat([c, w]), (w @ c)[None], w.exp().sum()[None]):
        assert out.requires_grad and out.grad_fn is not None, f"{out} lost requires_grad/grad_fn"
    with torch.no_grad():
        off = w * c
    assert not off.requires_grad and off.grad_fn is None, (
        f"w * c under no_grad has requires_grad={off.requires_grad}, grad_fn={off.grad_fn}; expected False, None")


@pytest.mark.claim("autograd.operator-overloading-builds-node")
def test_add_operator_goes_through_tensor_add(monkeypatch):
    """Material: a + b calls Tensor.__add__, which also creates an AddBackward0 with a and b below it.
    True: yes; its next_functions reach a and b through their accumulators."""
    a, b = _leaf(1.0), _leaf(2.0)
    calls = []
    original = torch.Tensor.__add__

    def counted(self, other):
        calls.append((self, other))
        return original(self, other)

    monkeypatch.setattr(torch.Tensor, "__add__", counted)
    via_operator = a + b
    monkeypatch.undo()
    assert len(calls) == 1 and calls[0][0] is a and calls[0][1] is b, (
        f"a + b made {len(calls)} call(s) of Tensor.__add__, expected one with (a, b)")
    via_method = torch.Tensor.__add__(a, b)
    assert _name(via_method.grad_fn) == _name(via_operator.grad_fn) == "AddBackward0"
    reached = [n.variable for n, _ in via_operator.grad_fn.next_functions]
    assert reached[0] is a and reached[1] is b, "AddBackward0 does not reach a and b"


@pytest.mark.claim("autograd.operator-overloading-builds-node")
@pytest.mark.needs_torch(">=2.0", reason="torch.autograd.graph.Node, whose _sequence_nr is read here, appeared in 2.0")
def test_graph_edges_only_point_at_earlier_nodes():
    """Material: the nodes form a DAG.
    True: every edge leads to a node created earlier (lower sequence number), in-place ops included: no cycle."""
    x = _leaf(0.5, -1.0, 2.0)
    h = x * 2
    e = h.exp()
    e += 1                                    # rebases e onto an AddBackward0 created after ExpBackward0
    h[0] = 0.0                                # rebases h onto a CopySlices node (no op saved h)
    out = (e * x).sum() + (h ** 2).sum()
    edges, stack, seen = [], [out.grad_fn], set()
    while stack:
        node = stack.pop()
        key = (_name(node), node._sequence_nr())   # not id(): a node's Python object may be a fresh one each time
        if key in seen:
            continue
        seen.add(key)
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            if _name(nxt) == "AccumulateGrad":
                assert nxt.next_functions == (), "an AccumulateGrad node has outgoing edges"
            else:
                edges.append((_name(node), node._sequence_nr(), _name(nxt), nxt._sequence_nr()))
                stack.append(nxt)
    assert len(edges) >= 6, f"walked only {edges}"
    backwards = [e for e in edges if e[3] >= e[1]]
    assert not backwards, f"edges to a node created at the same time or later: {backwards}"


@pytest.mark.claim("autograd.graph-lifetime-refcount")
def test_graph_freed_when_output_dropped():
    """Material: the graph's lifetime follows Python reference counting.
    True: a saved intermediate lives while the output does and is freed on del."""
    x = torch.randn(3, requires_grad=True)
    h = x * 2
    out = h.sin()          # SinBackward0 saves h
    alive = weakref.ref(h)
    del h
    assert alive() is not None, "the saved intermediate died while the graph was still referenced"
    del out
    assert alive() is None, "the saved intermediate survived the deletion of the graph's output"


@pytest.mark.claim("autograd.shape-errors-at-backward")
def test_shape_error_raised_in_forward():
    """Material: PyTorch only throws a shape mismatch at loss.backward().
    True: the forward op raises it immediately."""
    lin = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(1x4 and 3x2\)"):
        lin(torch.ones(1, 4))


@pytest.mark.claim("autograd.shape-errors-at-backward", as_written=True, raises=RuntimeError, match=r"shapes cannot be multiplied")
def test_as_written_forward_with_bad_shape_runs():
    """Material: the mismatch surfaces only at backward, so the forward call returns.
    True: the forward call raises."""
    nn.Linear(3, 2)(torch.ones(1, 4))


@pytest.mark.gpu
@pytest.mark.claim("devices.mixed-device-error-at-backward")
def test_device_mismatch_raised_at_cat():
    """Material: a CPU tensor mixed in by torch.cat surfaces as a device error at backward.
    True: torch.cat itself raises, in the forward."""
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    a = torch.ones(2, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.cat([a, torch.ones(2)])

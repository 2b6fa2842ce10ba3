"""Compile topic, torch.compile's front end (Dynamo): what torch.compile returns, how code
is captured (bytecode, not AST), guards and recompilation, graph breaks, loops over
ModuleList, compiling a submodule, and what compile does not check.

Sources: 000_9a03721c87560f23.txt §5, §5.1, §5.2, §5.3; 003_cc3cb04f54b5f923.txt §5.3.
All specs here use the ``eager``/``aot_eager`` backends or a counting backend: the claims
are about Dynamo, not code generation.  Marked ``compile`` (run with ``-m compile``).
"""
import ast
import builtins
import importlib
import inspect
import sys
import types
import warnings

import pytest
import torch

from torchclaims.versions import require_measurable, require_torch

require_torch(">=2.0", "torch.compile appeared in 2.0")
if sys.version_info >= (3, 11):
    require_measurable(">=2.1", "torch.compile exists on 2.0 but refuses Python 3.11; it runs there from 2.1")

# torch._dynamo is imported by the fixture, when a spec runs: at collection it costs the quick run
# a second, and the quick run skips every spec of this module (compile specs).
from torch import nn


def CompileCounter():  # CamelCase: it stands in for the class it returns an instance of
    """torch._dynamo.testing's CompileCounter, imported when a spec first counts: the module pulls
    in functorch.compile and networkx (about 0.5 s), which the quick run, where these specs skip,
    would otherwise pay at collection."""
    from torch._dynamo.testing import CompileCounter as counter
    return counter()


pytestmark = [pytest.mark.compile, pytest.mark.usefixtures("fresh_dynamo")]   # fresh_dynamo: conftest.py


class _GraphRecorder:
    """A Dynamo backend that keeps every FX graph it is given and runs it unchanged."""

    def __init__(self):
        self.graphs = []
        self.inputs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        self.inputs.append(list(example_inputs))
        return gm.forward

    def targets(self, index):
        return {node.target for node in self.graphs[index].graph.nodes if node.op == "call_function"}


class _Stack(nn.Module):
    """Three Linear+ReLU layers applied by a Python loop over an nn.ModuleList."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def _value_branch(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def _shape_branch(x):
    if x.shape[0] > 32:
        return x * 2
    return x - 1


# ------------------------------------------------------------------ what torch.compile returns

@pytest.mark.claim("compile.returns-same-module-forward-rewritten")
def test_compile_returns_a_wrapper_module_sharing_the_parameters():
    """Material: the compiled model is still the nn.Module, only forward is rewritten.
    True: a new OptimizedModule wraps it as _orig_mod; parameters shared; keys prefixed."""
    model = _Stack()
    compiled = torch.compile(model, backend="eager")
    assert isinstance(compiled, nn.Module) and not isinstance(compiled, _Stack), (
        f"type(torch.compile(model))={type(compiled).__name__}, but should be an nn.Module "
        "wrapper that is not a _Stack")
    assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is model, (
        "torch.compile(model) should return an OptimizedModule whose _orig_mod is model")
    assert "forward" not in vars(model), "torch.compile(model) replaced model.forward on the original"
    shared = [a is b for a, b in zip(compiled.parameters(), model.parameters())]
    assert shared and all(shared), "compiled.parameters() should be the very objects of model.parameters()"
    keys = list(compiled.state_dict())
    assert keys == ["_orig_mod." + k for k in model.state_dict()], (
        f"compiled.state_dict() keys are {keys[:2]}..., but should be model's keys prefixed by '_orig_mod.'")
    x = torch.randn(2, 4)
    torch.testing.assert_close(compiled(x), model(x))


@pytest.mark.claim("compile.returns-same-module-forward-rewritten", as_written=True)
def test_as_written_compile_returns_the_same_module_with_new_forward():
    """Material: torch.compile hands back the same kind of module, forward rewritten.
    True: it is a different object of another class (this spec fails)."""
    model = _Stack()
    compiled = torch.compile(model, backend="eager")
    assert isinstance(compiled, _Stack)
    assert list(compiled.state_dict()) == list(model.state_dict())


# ------------------------------------------------------------------ how code is captured

def _sin_twice(x):
    return torch.sin(x) * 2


@pytest.mark.claim("compile.dynamo-captures-ast")
def test_dynamo_captures_a_function_that_has_no_source_code(monkeypatch):
    """Material: Dynamo grabs the Python AST of forward before it runs.
    True: it works on bytecode; a function made by exec() (no source) is captured too, and so is
    an ordinary function while reading source or parsing an AST raises."""
    namespace = {}
    exec("def no_source(x):\n    return torch.sin(x) * 2\n", {"torch": torch}, namespace)
    fn = namespace["no_source"]
    with pytest.raises(OSError):
        inspect.getsource(fn)
    counter = CompileCounter()
    x = torch.randn(5)
    torch.testing.assert_close(torch.compile(fn, backend=counter)(x), torch.sin(x) * 2)
    assert counter.frame_count == 1 and counter.op_count == 2, (
        f"frame_count={counter.frame_count}, op_count={counter.op_count}, but Dynamo should capture "
        "one graph of 2 ops from a function without source [torch.compile(exec-made fn)]")

    def no_source(*args, **kwargs):
        raise AssertionError("Dynamo asked for source code or an AST")
    for module, name in ((ast, "parse"), (inspect, "getsource"), (inspect, "getsourcelines")):
        monkeypatch.setattr(module, name, no_source)
    counter = CompileCounter()
    torch.testing.assert_close(torch.compile(_sin_twice, backend=counter)(x), torch.sin(x) * 2)
    assert counter.frame_count == 1 and counter.op_count == 2, (
        f"frame_count={counter.frame_count}, op_count={counter.op_count} with ast.parse and inspect.getsource "
        "raising, but Dynamo should capture one graph of 2 ops from bytecode [torch.compile(_sin_twice)]")


@pytest.mark.claim("compile.dynamo-captures-ast", as_written=True)
def test_as_written_dynamo_needs_source_to_capture():
    """Material: capture goes through the AST, so code without source cannot be captured.
    True: it is captured from bytecode (this spec fails)."""
    namespace = {}
    exec("def no_source(x):\n    return torch.sin(x) * 2\n", {"torch": torch}, namespace)
    counter = CompileCounter()
    torch.compile(namespace["no_source"], backend=counter)(torch.randn(5))
    assert counter.frame_count == 0


# Taken at import, before any spec calls torch.compile.
EXEC_AT_IMPORT = builtins.exec


def _exec_seen_by_backend():
    seen = {}

    def backend(gm, example_inputs):
        seen["exec during compile"] = builtins.exec
        return gm.forward
    return seen, backend


@pytest.mark.claim("compile.dynamo-patches-builtins-exec")
def test_builtins_exec_is_untouched_by_torch_compile():
    """Material: torch.compile monkey-patches builtins.exec to intercept forward.
    True: builtins.exec is the same object before, during compilation and after."""
    original = EXEC_AT_IMPORT
    assert isinstance(original, types.BuiltinFunctionType), f"builtins.exec is {original!r} before any compile"
    seen, backend = _exec_seen_by_backend()
    compiled = torch.compile(_Stack(), backend=backend)
    after_compile = builtins.exec
    compiled(torch.randn(2, 4))
    assert "exec during compile" in seen, "the backend was never called [torch.compile(_Stack())(x)]"
    assert seen["exec during compile"] is original and after_compile is original and builtins.exec is original, (
        "builtins.exec was replaced around torch.compile, but Dynamo hooks frame evaluation instead")


@pytest.mark.claim("compile.dynamo-patches-builtins-exec", as_written=True)
def test_as_written_builtins_exec_is_patched_while_compiling():
    """Material: Dynamo replaces builtins.exec.  True: it does not (this spec fails)."""
    seen, backend = _exec_seen_by_backend()
    torch.compile(_Stack(), backend=backend)(torch.randn(2, 4))
    assert seen["exec during compile"] is not EXEC_AT_IMPORT


@pytest.mark.claim("compile.dynamo-emits-fx-graph")
def test_backend_receives_an_fx_graph_of_the_torch_calls():
    """Material: Dynamo extracts the optimisable torch.* calls as FX graphs.
    True: the backend gets a torch.fx.GraphModule whose nodes are those calls."""
    recorder = _GraphRecorder()
    torch.compile(lambda x: torch.relu(x) + torch.sigmoid(x), backend=recorder)(torch.randn(4))
    assert len(recorder.graphs) == 1 and isinstance(recorder.graphs[0], torch.fx.GraphModule), (
        f"backend got {[type(g).__name__ for g in recorder.graphs]}, but should get one GraphModule")
    assert {torch.relu, torch.sigmoid} <= recorder.targets(0), (
        f"graph calls {recorder.targets(0)}, but should contain torch.relu and torch.sigmoid")
    shapes = [tuple(t.shape) for t in recorder.inputs[0] if isinstance(t, torch.Tensor)]
    assert shapes == [(4,)], (
        f"the backend's example inputs have shapes {shapes}, but should be the one (4,) input of the call")


# ------------------------------------------------------------------ control flow: breaks and guards

@pytest.mark.claim("compile.not-a-static-graph")
def test_compiled_value_branch_still_follows_python():
    """Material: torch.compile keeps the dynamic graph's flexibility, it is not a static graph.
    True: a branch on a tensor value stays correct on both paths (Dynamo breaks the graph there)."""
    counter = CompileCounter()
    compiled = torch.compile(_value_branch, backend=counter)
    for x in (torch.ones(3), -torch.ones(3) * 4):
        torch.testing.assert_close(compiled(x), _value_branch(x),
                                   msg=f"compiled branch result differs from eager for x={x}")
    assert counter.frame_count >= 1, "Dynamo compiled nothing [torch.compile(_value_branch)]"
    explanation = torch._dynamo.explain(_value_branch)(torch.ones(3))
    assert explanation.graph_break_count >= 1, (
        f"graph_break_count={explanation.graph_break_count}, but a branch on x.sum() > 0 should break the graph")


@pytest.mark.claim("compile.dynamo-ignores-tensor-values")
def test_dynamo_breaks_on_values_but_specialises_on_shapes():
    """Material: Dynamo does not analyse tensor values, only control-flow structure.
    True: value branches break the graph and values are not baked in, but shapes, dtypes, devices
    and Python constants are guarded on and recompiled for."""
    explanation = torch._dynamo.explain(_value_branch)(torch.ones(3))
    assert explanation.graph_count == 2 and explanation.graph_break_count == 1, (
        f"graphs={explanation.graph_count}, breaks={explanation.graph_break_count}, but should be 2 and 1 "
        "[torch._dynamo.explain(_value_branch)]")
    counter = CompileCounter()
    compiled = torch.compile(lambda x, k: x * k + x.sum(), backend=counter)
    for x in (torch.randn(3), torch.randn(3)):
        torch.testing.assert_close(compiled(x, 2), x * 2 + x.sum(),
                                   msg="a same-shape call with other values gave another result than eager")
    assert counter.frame_count == 1, (
        f"frame_count={counter.frame_count} after two same-shape calls with other values, should be 1")
    changes = [("a new shape", (torch.randn(5), 2)), ("a new Python constant", (torch.randn(5), 3)),
               ("a new dtype", (torch.randn(5, dtype=torch.float64), 3)),
               ("a new device", (torch.randn(5, dtype=torch.float64, device="meta"), 3))]
    for count, (change, args) in enumerate(changes, start=2):
        compiled(*args)
        assert counter.frame_count == count, (
            f"frame_count={counter.frame_count} after {change}, but its guard should fail and recompile "
            f"(expected {count})")
    compiled(torch.randn(6, dtype=torch.float64, device="meta"), 4)
    assert counter.frame_count == 5, (
        f"frame_count={counter.frame_count} after another size and integer, but a size and an integer that "
        "changed once should be dynamic by now and reuse the graph (expected 5)")


@pytest.mark.claim("compile.dynamo-ignores-tensor-values", as_written=True)
def test_as_written_value_branch_is_captured_in_one_graph():
    """Material: only the control-flow structure is analysed, so one graph covers the branch.
    True: the value branch breaks the graph (this spec fails)."""
    explanation = torch._dynamo.explain(_value_branch)(torch.ones(3))
    assert explanation.graph_break_count == 0


@pytest.mark.claim("compile.shape-branch-both-graphs")
def test_shape_branch_compiles_only_the_path_taken_then_recompiles():
    """Material: for if x.shape[0] > 32 Dynamo builds graphs for True and False up front.
    True: only the taken path is traced; the other compiles when the guard fails."""
    recorder = _GraphRecorder()
    compiled = torch.compile(_shape_branch, backend=recorder)
    big, small = torch.randn(64), torch.randn(16)
    torch.testing.assert_close(compiled(big), big * 2)
    assert len(recorder.graphs) == 1, f"{len(recorder.graphs)} graphs after the first call, should be 1"
    first = recorder.targets(0)
    assert any("mul" in str(t) for t in first) and not any("sub" in str(t) for t in first), (
        f"first graph calls {first}, but should hold only the x * 2 path")
    compiled(torch.randn(64))
    assert len(recorder.graphs) == 1, "a same-shape call recompiled, but should reuse the graph"
    torch.testing.assert_close(compiled(small), small - 1)
    assert len(recorder.graphs) == 2, (
        f"{len(recorder.graphs)} graphs after a 16-row input, but the failed guard should compile the x - 1 path")


@pytest.mark.claim("compile.shape-branch-both-graphs", as_written=True)
def test_as_written_other_shape_branch_needs_no_new_compile():
    """Material: both branches exist after the first compile, so taking the other costs nothing.
    True: it triggers a recompilation (this spec fails)."""
    counter = CompileCounter()
    compiled = torch.compile(_shape_branch, backend=counter)
    compiled(torch.randn(64))
    compiled(torch.randn(16))
    assert counter.frame_count == 1


# ------------------------------------------------------------------ the "AOT stage" and modes

@pytest.mark.claim("compile.aot-is-ahead-of-first-run")
def test_torch_compile_is_lazy_and_has_no_aot_mode():
    """Material: an optional AOT mode compiles before the first run into a .so.
    True: nothing compiles until the first call, and no mode is called 'aot'."""
    counter = CompileCounter()
    compiled = torch.compile(_Stack(), backend=counter)
    assert counter.frame_count == 0, f"frame_count={counter.frame_count} before any call, should be 0"
    compiled(torch.randn(2, 4))
    assert counter.frame_count == 1, f"frame_count={counter.frame_count} after the first call, should be 1"
    modes = set(torch._inductor.list_mode_options())
    assert not any("aot" in mode for mode in modes), f"compile modes {modes} should contain no AOT mode"
    known = {"default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs", "lite"}
    assert {"default", "reduce-overhead", "max-autotune"} <= modes <= known, (
        f"torch._inductor.list_mode_options() = {sorted(modes)}, but should be among {sorted(known)}")
    with pytest.raises(RuntimeError, match="mode"):
        torch.compile(_Stack(), mode="aot")


@pytest.mark.claim("compile.aot-is-ahead-of-first-run", as_written=True)
def test_as_written_compilation_happens_before_the_first_run():
    """Material: compilation is done ahead of the first run.  True: it is lazy (this spec fails)."""
    counter = CompileCounter()
    torch.compile(_Stack(), backend=counter)
    assert counter.frame_count >= 1


@pytest.mark.claim("compile.mode-names")
def test_default_and_max_autotune_are_compile_modes(monkeypatch):
    """Material: torch.compile has mode='default' and mode='max-autotune'.
    True: both are listed (with reduce-overhead and others), and Inductor compiles with each mode's options."""
    modes = set(torch._inductor.list_mode_options())
    assert {"default", "max-autotune", "reduce-overhead"} <= modes, (
        f"torch._inductor.list_mode_options() = {sorted(modes)}, should include default and max-autotune")
    entry = importlib.import_module("torch._inductor.compile_fx")   # where torch.compile calls Inductor
    handed = []

    def inductor(gm, example_inputs, config_patches=None, **kwargs):
        handed.append(dict(config_patches or {}))
        return gm.forward   # run the captured graph as it is: the claim is about the mode, not the code made

    monkeypatch.setattr(entry, "compile_fx", inductor)
    x = torch.randn(3, 2)
    for mode in ("default", "max-autotune"):
        torch._dynamo.reset()
        handed.clear()
        model = nn.Linear(2, 2)
        torch.testing.assert_close(torch.compile(model, mode=mode)(x), model(x),
                                   msg=f"torch.compile(nn.Linear(2, 2), mode={mode!r})(x) differs from eager")
        wanted = torch._inductor.list_mode_options(mode)
        assert len(handed) == 1 and {key: handed[0].get(key) for key in wanted} == wanted, (
            f"Inductor was handed {handed} for mode={mode!r}, but should get the mode's options {wanted}")
        assert handed[0].get("max_autotune", False) == (mode == "max-autotune"), (
            f"max_autotune={handed[0].get('max_autotune', False)} under mode={mode!r}")


# ------------------------------------------------------------------ loops, Sequential, submodules

@pytest.mark.claim("compile.modulelist-loop-not-compilable")
def test_loop_over_modulelist_compiles_into_one_graph():
    """Material: for layer in self.layers cannot be compiled unless written as a fixed chain.
    True: Dynamo unrolls it into one graph without a break; output matches eager."""
    model = _Stack()
    x = torch.randn(2, 4)
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_count == 1 and explanation.graph_break_count == 0, (
        f"graphs={explanation.graph_count}, breaks={explanation.graph_break_count}, but a ModuleList loop "
        "should give 1 graph and 0 breaks [torch._dynamo.explain(_Stack())]")
    torch.testing.assert_close(torch.compile(model, backend="aot_eager")(x), model(x))


@pytest.mark.claim("compile.modulelist-loop-not-compilable", as_written=True)
def test_as_written_modulelist_loop_breaks_the_graph():
    """Material: the loop cannot be compiled.  True: one graph, no break (this spec fails)."""
    explanation = torch._dynamo.explain(_Stack())(torch.randn(2, 4))
    assert explanation.graph_break_count > 0 or explanation.graph_count > 1


def _op_count(model, x):
    counter = CompileCounter()
    torch.compile(model, backend=counter)(x)
    return counter.frame_count, counter.op_count


def _as_sequential(stack):
    layers = []
    for layer in stack.layers:
        layers += [layer, nn.ReLU()]
    return nn.Sequential(*layers)


@pytest.mark.claim("compile.sequential-best-pattern")
def test_sequential_and_modulelist_loop_compile_to_the_same_graph():
    """Material: Sequential turns control flow into data, the pattern compile optimises best.
    True: children live in a dict, but a ModuleList loop gives the same single graph."""
    stack = _Stack()
    sequential = _as_sequential(stack)
    assert isinstance(sequential._modules, dict), f"Sequential._modules is {type(sequential._modules)}"
    x = torch.randn(2, 4)
    loop = _op_count(stack, x)
    torch._dynamo.reset()
    seq = _op_count(sequential, x)
    assert loop == seq == (1, 6), (
        f"(graphs, ops) loop={loop}, Sequential={seq}, but both should be (1, 6)")
    torch.testing.assert_close(sequential(x), stack(x))


@pytest.mark.claim("compile.sequential-best-pattern", as_written=True)
def test_as_written_sequential_compiles_better_than_a_loop():
    """Material: Sequential is what compile optimises best, better than a Python loop.
    True: same graph either way (this spec fails)."""
    stack = _Stack()
    x = torch.randn(2, 4)
    loop = _op_count(stack, x)
    torch._dynamo.reset()
    seq = _op_count(_as_sequential(stack), x)
    assert seq[0] < loop[0] or seq[1] < loop[1]


class _BackboneHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.backbone(x))


@pytest.mark.claim("compile.compile-submodule-only")
def test_compiling_only_submodules_matches_eager_and_prefixes_keys():
    """Material: compile the backbone alone, and the head with backend='aot_eager'.
    True: it works and matches eager, but the parent's state_dict keys gain '_orig_mod.'."""
    assert "aot_eager" in torch._dynamo.list_backends(exclude_tags=()), "aot_eager is not a registered backend"
    assert "aot_eager" not in torch._dynamo.list_backends(), (
        "aot_eager is among list_backends()'s default choices, but should be hidden there as a debugging backend")
    eager = _BackboneHead()
    model = _BackboneHead()
    model.load_state_dict(eager.state_dict())
    saved = model.state_dict()
    model.backbone = torch.compile(model.backbone, backend="eager")
    model.head = torch.compile(model.head, backend="aot_eager")
    x = torch.randn(5, 6)
    out, expected = model(x), eager(x)
    torch.testing.assert_close(out, expected, msg="partly compiled model differs from eager")
    out.sum().backward()
    expected.sum().backward()
    torch.testing.assert_close(model.head._orig_mod.weight.grad, eager.head.weight.grad,
                               msg="gradient through the aot_eager head differs from eager")
    keys = list(model.state_dict())
    assert "backbone._orig_mod.0.weight" in keys and "head._orig_mod.weight" in keys, (
        f"state_dict keys are {keys}, but should carry '_orig_mod.' after compiling submodules")
    with pytest.raises(RuntimeError, match="Missing key"):
        model.load_state_dict(saved)


# ------------------------------------------------------------------ compile is not a linter

SCALE = 2.0


def _reads_global(x):
    return x * SCALE


@pytest.mark.claim("compile.compile-proves-model-clean")
def test_compile_accepts_global_state_and_silently_recompiles():
    """Material: passing through torch.compile proves there is no global-variable pollution.
    True: code reading a global compiles without complaint; changing it just recompiles; a device
    move is traced into the graph like any other call."""
    global SCALE
    counter = CompileCounter()
    compiled = torch.compile(_reads_global, backend=counter)
    x = torch.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.testing.assert_close(compiled(x), x * 2.0)
            SCALE = 3.0
            torch.testing.assert_close(compiled(x), x * 3.0,
                                       msg="compiled code did not see the new global value")
        finally:
            SCALE = 2.0
    assert not caught, f"compiling code that reads a global warned {[str(w.message) for w in caught]}"
    assert counter.frame_count == 2, (
        f"frame_count={counter.frame_count}, but a changed global should fail its guard and recompile once")
    recorder = _GraphRecorder()
    torch.testing.assert_close(torch.compile(lambda t: t.to("cpu") * 2, backend=recorder, fullgraph=True)(x), x * 2)
    calls = [node.target for node in recorder.graphs[0].graph.nodes if node.op in ("call_function", "call_method")]
    assert "to" in calls, f"the graph of t.to('cpu') * 2 calls {calls}, but should hold the device move 'to'"


@pytest.mark.claim("compile.compile-proves-model-clean", as_written=True)
def test_as_written_compile_rejects_global_state():
    """Material: torch.compile flags models that depend on globals.
    True: even with fullgraph=True, where Dynamo refuses what it cannot capture, it compiles them (this spec fails)."""
    from torch._dynamo.exc import Unsupported
    with pytest.raises(Unsupported):
        torch.compile(_reads_global, backend="eager", fullgraph=True)(torch.ones(3))


@pytest.mark.claim("compile.jit-ir-loses-python-dynamism")
def test_compile_runs_python_that_torchscript_rejects():
    """Material: TorchScript rebuilds an IR outside Python and loses its dynamism.
    True: try/except is rejected by torch.jit.script but runs under torch.compile."""
    def guarded(x):
        try:
            return x + 1
        except ValueError:
            return x

    counter = CompileCounter()
    x = torch.randn(3)
    torch.testing.assert_close(torch.compile(guarded, backend=counter)(x), x + 1)
    assert counter.frame_count == 1, f"frame_count={counter.frame_count}, Dynamo should capture the try block"


# ------------------------------------------------------------------ after compilation

@pytest.mark.claim("compile.max-autotune-every-later-call-fast")
def test_later_calls_reuse_the_compiled_code_only_while_guards_hold():
    """Material: once compiled, every later forward() runs at full speed.
    True: same-shape calls reuse the code; the first new shape and requires_grad recompile; after
    the shape recompile the size is dynamic.  Guards are Dynamo's, identical for every mode; the
    Inductor spec checks max-autotune."""
    counter = CompileCounter()
    compiled = torch.compile(_Stack(), backend=counter)
    for _ in range(3):
        compiled(torch.randn(2, 4))
    assert counter.frame_count == 1, f"frame_count={counter.frame_count} after 3 same-shape calls, should be 1"
    compiled(torch.randn(7, 4))
    assert counter.frame_count == 2, f"frame_count={counter.frame_count} after a new batch size, should be 2"
    compiled(torch.randn(9, 4))
    assert counter.frame_count == 2, (
        f"frame_count={counter.frame_count} after a third batch size, but the recompiled graph should treat "
        "the batch size as dynamic and serve it (expected 2)")
    compiled(torch.randn(9, 4, requires_grad=True))
    assert counter.frame_count == 3, (
        f"frame_count={counter.frame_count} after an input with requires_grad, but the grad guard should "
        "fail and recompile (expected 3)")


@pytest.mark.claim("compile.max-autotune-every-later-call-fast", as_written=True)
def test_as_written_no_later_call_recompiles():
    """Material: after compiling, all later calls just run.  True: new shapes recompile (this spec fails)."""
    counter = CompileCounter()
    compiled = torch.compile(_Stack(), backend=counter)
    compiled(torch.randn(2, 4))
    compiled(torch.randn(7, 4))
    assert counter.frame_count == 1

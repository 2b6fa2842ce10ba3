"""Compile topic, TorchScript: torch.jit.trace records one path, torch.jit.script keeps
control flow, what script accepts, saving and loading, and TorchScript's deprecation.

Sources: 000_9a03721c87560f23.txt §5; 002_015987172f286748.txt §6.1, §6.3;
003_cc3cb04f54b5f923.txt §5.3.
Quick specs (TorchScript compiles small modules in well under a second).
"""
import warnings
from typing import Dict, List

import pytest
import torch
from packaging.version import Version
from torch import nn

# TorchScript warns that it is deprecated on every call from torch 2.10 on; the specs that
# are about that warning check it, the others silence it.
DEPRECATION = (FutureWarning, DeprecationWarning)


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DEPRECATION)
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        return fn(*args)


class _Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class _WithUnused(nn.Module):
    def forward(self, x):
        unused = torch.sin(x)  # noqa: F841  (the dead computation the material says trace shows)
        return x + 1


class _Loop(nn.Module):
    def forward(self, x):
        for _ in range(x.size(0)):
            x = x * 2
        return x


POSITIVE = torch.ones(3)
NEGATIVE = torch.full((3,), -2.0)


def _calls(graph) -> list[str]:
    return [node.kind() for node in graph.nodes() if not node.kind().startswith("prim::Constant")]


@pytest.mark.claim("compile.jit-trace-needs-no-control-flow")
def test_trace_accepts_control_flow_but_freezes_the_branch_taken():
    """Material: jit.trace needs a forward without if/for; else script + @script_method.
    True: trace runs, warns (TracerWarning), freezes one branch and unrolls loops; script keeps
    if and for without any decorator."""
    model = _Branchy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(model, POSITIVE)
    assert any(issubclass(w.category, torch.jit.TracerWarning) for w in caught), (
        f"warnings {[w.category.__name__ for w in caught]} should include a TracerWarning "
        "[torch.jit.trace(_Branchy(), ones)]")
    torch.testing.assert_close(traced(NEGATIVE), NEGATIVE * 2,
                               msg="the traced module should always take the x * 2 branch it recorded")
    assert not torch.equal(traced(NEGATIVE), model(NEGATIVE)), "trace should differ from eager on the other branch"
    scripted = _quiet(torch.jit.script, model)
    for x in (POSITIVE, NEGATIVE):
        torch.testing.assert_close(scripted(x), model(x), msg=f"torch.jit.script(model) differs from eager for {x}")
    assert "prim::If" in str(scripted.graph), "torch.jit.script should keep the if as a prim::If node"
    looped = _quiet(torch.jit.trace, _Loop(), POSITIVE)
    calls = _calls(looped.graph)
    assert calls.count("aten::mul") == 3 and "prim::Loop" not in calls, (
        f"traced graph calls {calls}, but the 3-step loop should be unrolled into 3 aten::mul [torch.jit.trace(_Loop())]")
    scripted_loop = _quiet(torch.jit.script, _Loop())
    assert "prim::Loop" in str(scripted_loop.graph), "torch.jit.script should keep the for loop as a prim::Loop node"
    torch.testing.assert_close(scripted_loop(torch.ones(4)), torch.full((4,), 16.0),
                               msg="scripted loop should run 4 times for a 4-row input")


@pytest.mark.claim("compile.jit-trace-needs-no-control-flow", as_written=True)
def test_as_written_trace_refuses_a_forward_with_control_flow():
    """Material: trace cannot handle if/for in forward.  True: it traces silently-wrong (this spec fails).
    A refusal would be the tracer's RuntimeError at the tensor-to-boolean conversion it now only warns about."""
    with pytest.raises(RuntimeError, match=r"(?i)boolean|control flow"):
        _quiet(torch.jit.trace, _Branchy(), POSITIVE)


@pytest.mark.claim("compile.jit-trace-graph-reveals-branches")
def test_traced_graph_has_no_branch_and_no_dead_code():
    """Material: printing traced_model.graph shows unused variables and how ifs were compiled.
    True: the graph holds neither an if node nor the unused computation; the other branch's input
    silently gets the recorded path's result."""
    branchy = _quiet(torch.jit.trace, _Branchy(), POSITIVE)
    calls = _calls(branchy.graph)
    assert "prim::If" not in calls and "aten::mul" in calls and "aten::sub" not in calls, (
        f"traced graph calls {calls}, but should hold only the recorded x * 2 path")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrong = branchy(NEGATIVE)
    assert not caught and torch.equal(wrong, NEGATIVE * 2) and not torch.equal(wrong, _Branchy()(NEGATIVE)), (
        f"the traced module gave {wrong} with warnings {[str(w.message) for w in caught]} for a negative input, "
        "but should silently return the recorded x * 2 path instead of eager's x - 1")
    unused = _quiet(torch.jit.trace, _WithUnused(), POSITIVE)
    assert "aten::sin" not in _calls(unused.graph), (
        f"traced graph calls {_calls(unused.graph)}: the unused sin should have been eliminated")


@pytest.mark.claim("compile.jit-trace-graph-reveals-branches", as_written=True)
def test_as_written_traced_graph_shows_the_branch():
    """Material: the traced graph reveals the if branches.  True: no if node (this spec fails)."""
    traced = _quiet(torch.jit.trace, _Branchy(), POSITIVE)
    assert "prim::If" in str(traced.graph)


class _AppendsAndKeys(nn.Module):
    def forward(self, x):
        parts: List[torch.Tensor] = []
        for i in range(3):
            parts.append(x * i)
        sizes: Dict[str, int] = {"a": 1, "b": 2}
        return torch.stack(parts).sum(0) + len(sizes.keys())


@pytest.mark.claim("compile.jit-script-rejects-list-append")
def test_script_accepts_list_append_and_dict_keys():
    """Material: jit.script fails on list.append and dict.keys(); rewrite as tensor ops.
    True: both script and run on typed containers."""
    model = _AppendsAndKeys()
    scripted = _quiet(torch.jit.script, model)
    x = torch.randn(4)
    torch.testing.assert_close(scripted(x), model(x), msg="scripted list.append/dict.keys module differs from eager")


class _Guarded(nn.Module):
    """A forward with a try/except block, which torch.jit.script refuses."""
    def forward(self, x):
        try:
            return x + 1
        except ValueError:
            return x


@pytest.mark.claim("compile.jit-script-rejects-list-append")
def test_script_rejects_try_lambda_and_variadic_arguments():
    """Material: the constructs jit.script refuses are list.append and dict.keys().
    True: what it refuses are others: a try block, a lambda, a forward taking **kwargs."""
    class WithLambda(nn.Module):
        def forward(self, x):
            add_one = lambda t: t + 1
            return add_one(x)

    class Variadic(nn.Module):
        def forward(self, x, **options):
            return x

    for module, fragment in ((_Guarded(), "try"), (WithLambda(), "Lambda"), (Variadic(), "variable number")):
        with pytest.raises(torch.jit.frontend.NotSupportedError, match=fragment):
            _quiet(torch.jit.script, module)
            pytest.fail(f"torch.jit.script({type(module).__name__}()) scripted, but should refuse it")


@pytest.mark.claim("compile.jit-script-rejects-list-append", as_written=True)
def test_as_written_script_rejects_list_append():
    """Material: list.append makes torch.jit.script fail.  True: it scripts (this spec fails).
    A refusal would be script's own error: NotSupportedError (as for try/except) or torch.jit.Error."""
    with pytest.raises((torch.jit.frontend.NotSupportedError, torch.jit.Error)):
        _quiet(torch.jit.script, _AppendsAndKeys())


@pytest.mark.claim("compile.jit-ir-loses-python-dynamism")
def test_script_rejects_python_it_cannot_express():
    """Material: TorchScript rebuilds an IR outside Python and loses dynamism.
    True: script turns code into its own typed graph, and a try/except block cannot be scripted
    (torch.compile runs it: see the dynamo specs)."""
    def scale(x: torch.Tensor, n: int):
        return x * n

    scripted = _quiet(torch.jit.script, scale)
    types = [str(value.type()) for value in scripted.graph.inputs()]
    assert isinstance(scripted.graph, torch._C.Graph) and types == ["Tensor", "int"], (
        f"torch.jit.script(scale).graph is a {type(scripted.graph).__name__} with input types {types}, "
        "but should be TorchScript's own graph typed (Tensor, int)")

    with pytest.raises(torch.jit.frontend.UnsupportedNodeError, match="try"):
        _quiet(torch.jit.script, _Guarded())


@pytest.mark.claim("compile.jit-trace-save-load")
def test_traced_module_saves_and_loads_with_same_outputs(tmp_path):
    """Material: trace + save gives a model usable without Python (torch::jit::load in C++).
    True: save and torch.jit.load round-trip with equal outputs (C++ not run here)."""
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2)).eval()
    example = torch.randn(1, 3, 8, 8)
    traced = _quiet(torch.jit.trace, model, example)
    path = tmp_path / "traced.pt"
    traced.save(str(path))
    loaded = _quiet(torch.jit.load, str(path))
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), model(x), msg="torch.jit.load(saved trace) differs from the model")


@pytest.mark.claim("compile.jit-trace-save-load")
def test_saved_trace_keeps_buffers_beyond_the_parameters(tmp_path):
    """Material: a traced and saved model runs later without the Python code.
    True: the file holds the state beyond the parameters as well: BatchNorm's trained running
    statistics and batch counter come back unchanged, so the loaded eval-mode model matches."""
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(8, 3, 8, 8) * 3 + 1)  # train-mode forwards move the running statistics
    model.eval()
    traced = _quiet(torch.jit.trace, model, torch.randn(1, 3, 8, 8))
    path = tmp_path / "traced_bn.pt"
    traced.save(str(path))
    loaded = _quiet(torch.jit.load, str(path))
    saved, restored = model.state_dict(), loaded.state_dict()
    assert list(restored) == list(saved), f"loaded state_dict keys {list(restored)}, expected {list(saved)}"
    for key, value in saved.items():
        torch.testing.assert_close(restored[key], value, rtol=0, atol=0, msg=lambda m, key=key: (
            f"{key} after torch.jit.save/load differs from the saved model's: {m}"))
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        torch.testing.assert_close(loaded(x), model(x), msg="the loaded trace (eval mode, trained BatchNorm) "
                                   "differs from the model it was traced from")


class _Offset(nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = 1

    def forward(self, x):
        return x + self.offset


@pytest.mark.claim("compile.jit-trace-save-load")
def test_saved_script_keeps_plain_attributes(tmp_path):
    """A scripted module's plain attribute, changed after construction, survives save and load."""
    model = _Offset()
    model.offset = 5
    path = tmp_path / "scripted.pt"
    _quiet(torch.jit.script, model).save(str(path))
    loaded = _quiet(torch.jit.load, str(path))
    assert loaded.offset == 5, f"loaded.offset = {loaded.offset}, expected the saved 5"
    torch.testing.assert_close(loaded(torch.zeros(2)), torch.full((2,), 5.0))


def _deprecation_warnings(fn, *args, categories=DEPRECATION):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args)
    return [str(w.message) for w in caught
            if issubclass(w.category, categories) and "deprecated" in str(w.message)]


@pytest.mark.claim("compile.torchscript-is-the-export-path")
def test_torchscript_warns_it_is_deprecated_on_recent_torch():
    """Material: TorchScript is how a model goes to production outside Python.
    True: up to 2.9 yes; from 2.10 jit.trace/jit.script warn they are deprecated."""
    calls = (("torch.jit.script", torch.jit.script, (_Branchy(),)),
             ("torch.jit.trace", torch.jit.trace, (nn.Linear(2, 2), torch.randn(1, 2))))
    found = {name: _deprecation_warnings(fn, *args) for name, fn, args in calls}
    assert all(found.values()), f"deprecation warnings {found}: both should warn on torch {torch.__version__}"
    if Version(torch.__version__).release >= (2, 14):   # the installed torch's warning is a FutureWarning
        future = {name: _deprecation_warnings(fn, *args, categories=FutureWarning) for name, fn, args in calls}
        assert all(future.values()), f"on torch {torch.__version__} the warnings should be FutureWarnings: {future}"
    assert all("torch.export" in msgs[0] and "torch.compile" in msgs[0] for msgs in found.values()), (
        f"{found} should point to torch.compile and torch.export")


@pytest.mark.claim("compile.torchscript-is-the-export-path", as_written=True)
def test_as_written_torchscript_is_a_supported_export_path():
    """Material: TorchScript is the production export path (no deprecation).
    True from 2.10: it is deprecated in favour of torch.export (this spec fails there)."""
    assert not _deprecation_warnings(torch.jit.script, _Branchy())

"""Autograd: anomaly detection and hooks (tensor and module, forward and backward).

Sources: 000 §3.2 (forward hooks for feature capture), 003 §3.2 (set_detect_anomaly, full
backward hooks, the claim that no_grad silences all hooks).  Anomaly mode raises only for
NaN returned by a backward function, and names the forward line only when it was on during
the forward.
"""
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchclaims.optional import need

NAN_ERROR = "returned nan values"


def _nan_in_backward(anomaly_in_forward):
    """sqrt(0) * 0: forward is fine, SqrtBackward0 computes 0 * inf = nan."""
    x = torch.tensor([0.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=NAN_ERROR) as info:
            if anomaly_in_forward:
                with torch.autograd.set_detect_anomaly(True):
                    loss = (torch.sqrt(x) * 0).sum()  # the line anomaly mode should name
                    loss.backward()
            else:
                loss = (torch.sqrt(x) * 0).sum()
                with torch.autograd.set_detect_anomaly(True):
                    loss.backward()
    return str(info.value), "\n".join(str(w.message) for w in caught)


@pytest.mark.claim("autograd.anomaly-locates-nan")
def test_anomaly_names_forward_line_when_on_during_forward():
    """Material: anomaly mode locates the line that produced the illegal value.
    True: yes (node name in the error, forward traceback in a warning) if it was on during the forward."""
    error, warned = _nan_in_backward(anomaly_in_forward=True)
    assert "SqrtBackward0" in error, f"error does not name the node: {error}"
    assert "Traceback of forward call" in warned and "torch.sqrt(x)" in warned, (
        f"the warning does not show the forward line: {warned[:500]}")


@pytest.mark.claim("autograd.anomaly-locates-nan")
def test_anomaly_enabled_only_for_backward_has_no_forward_trace():
    """Material: enable it before loss.backward().
    True: then the NaN is still caught, but no forward information is available."""
    error, warned = _nan_in_backward(anomaly_in_forward=False)
    assert "SqrtBackward0" in error, f"error does not name the node: {error}"
    assert "No forward pass information available" in warned, f"unexpected warning text: {warned[:500]}"
    assert "torch.sqrt(x)" not in warned, "the forward line was reported although anomaly mode was off then"


@pytest.mark.claim("autograd.anomaly-locates-nan")
def test_anomaly_ignores_infinity_and_forward_nan():
    """Material: NaN or infinity in backward is reported.
    True: an infinite gradient passes silently, and so does NaN produced only in the forward."""
    x = torch.tensor([0.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        torch.sqrt(x).sum().backward()
        assert torch.isinf(x.grad).all(), f"x.grad={x.grad}, expected inf"
        y = torch.tensor([-1.0], requires_grad=True)
        out = torch.log(y)
        assert torch.isnan(out).all()
        out.sum().backward()   # d log(y) = 1/y = -1: finite, so no error despite the NaN forward
    torch.testing.assert_close(y.grad, torch.tensor([-1.0]), msg="grad of log at -1")


@pytest.mark.claim("autograd.anomaly-locates-nan", as_written=True)
def test_as_written_anomaly_before_backward_names_forward_line():
    """Material: enabling anomaly mode just before loss.backward() pinpoints the forward line.
    True: it says no forward pass information is available."""
    _, warned = _nan_in_backward(anomaly_in_forward=False)
    assert "Traceback of forward call" in warned, f"warning: {warned[:300]}"


@pytest.mark.claim("numerics.log-softmax-large-input-inf")
def test_log_softmax_is_finite_for_huge_logits():
    """Material: huge inputs make log_softmax hit log(0) = -inf.
    True: log_softmax stays finite; only softmax().log() gives -inf."""
    x = torch.tensor([1000.0, 0.0])
    torch.testing.assert_close(F.log_softmax(x, dim=0), torch.tensor([0.0, -1000.0]),
                               msg="F.log_softmax([1000, 0])")
    assert torch.isinf(F.softmax(x, dim=0).log()).any(), "softmax(x).log() did not underflow to -inf"


@pytest.mark.claim("numerics.log-softmax-large-input-inf", as_written=True)
def test_as_written_log_softmax_gives_minus_inf():
    """Material: F.log_softmax on huge inputs produces -inf.
    True: it is finite."""
    assert torch.isinf(F.log_softmax(torch.tensor([1000.0, 0.0]), dim=0)).any(), "log_softmax stayed finite"


@pytest.mark.claim("autograd.full-backward-hook")
def test_full_backward_hook_sees_input_and_output_gradients():
    """Material: register_full_backward_hook(hook(module, grad_input, grad_output)).
    True: called once per backward; grad_output[0] = dL/d(out), grad_input[0] = dL/d(in)."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 2).double()
    seen = []
    handle = lin.register_full_backward_hook(lambda m, gi, go: seen.append((m, gi, go)))
    x = torch.randn(1, 3, dtype=torch.float64, requires_grad=True)
    lin(x).sum().backward()
    handle.remove()
    assert len(seen) == 1, f"backward hook called {len(seen)} times, expected 1"
    module, grad_input, grad_output = seen[0]
    assert module is lin and isinstance(grad_input, tuple) and isinstance(grad_output, tuple)
    assert grad_output[0].shape == (1, 2), f"grad_output[0].shape={tuple(grad_output[0].shape)}"
    torch.testing.assert_close(grad_output[0], torch.ones(1, 2, dtype=torch.float64), msg="dL/d(out)")
    torch.testing.assert_close(grad_input[0], torch.ones(1, 2, dtype=torch.float64) @ lin.weight.detach(),
                               msg="dL/d(in) = grad_out @ W")


@pytest.mark.claim("autograd.full-backward-hook")
def test_full_backward_hook_fires_for_a_first_layer_with_grad_input_none():
    """Material: a full backward hook captures a module's input and output gradients.
    True: on a first layer (its input needs no grad) it still fires, with grad_input (None,)."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 2).double()
    seen = []
    handle = lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    images = torch.randn(4, 3, dtype=torch.float64)     # raw data: requires_grad=False
    try:
        with warnings.catch_warnings():                  # recent torch says it fires from the output side
            warnings.filterwarnings("ignore", message="Full backward hook is firing", category=UserWarning)
            lin(images).sum().backward()
    finally:
        handle.remove()
    assert len(seen) == 1, f"backward hook of a first layer called {len(seen)} times, expected 1"
    grad_input, grad_output = seen[0]
    assert grad_input == (None,), f"grad_input={grad_input}, expected (None,) for an input without grad"
    torch.testing.assert_close(grad_output[0], torch.ones(4, 2, dtype=torch.float64), msg="dL/d(out) of the first layer")
    assert lin.weight.grad is not None, "the first layer's weight got no gradient"


@pytest.mark.claim("autograd.full-backward-hook")
def test_full_backward_hook_fires_once_per_call_of_a_reused_module():
    """Material: the hook receives the module's input and output gradients on backward.
    True: a module called twice in one forward gets one hook call per use, last use first."""
    torch.manual_seed(0)
    lin = nn.Linear(2, 2).double()
    seen = []
    handle = lin.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].clone()))
    x = torch.randn(1, 2, dtype=torch.float64, requires_grad=True)
    try:
        (lin(lin(x)) * 3).sum().backward()
    finally:
        handle.remove()
    assert len(seen) == 2, f"hook called {len(seen)} times for a module used twice in one forward, expected 2"
    outer = torch.full((1, 2), 3.0, dtype=torch.float64)
    torch.testing.assert_close(seen[0], outer, msg="grad_output of the second (outer) use")
    torch.testing.assert_close(seen[1], outer @ lin.weight.detach(), msg="grad_output of the first (inner) use")


@pytest.mark.claim("autograd.full-backward-hook")
def test_full_backward_hook_returning_a_tuple_replaces_grad_input():
    """Material: the hook captures grad_input and grad_output.
    True: returning None only observes; returning a tuple replaces the input's gradient, not the weight's."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 2).double()
    x = torch.randn(1, 3, dtype=torch.float64, requires_grad=True)
    lin(x).sum().backward()
    plain_x, plain_w = x.grad.clone(), lin.weight.grad.clone()
    x.grad, lin.weight.grad = None, None
    handle = lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    try:
        lin(x).sum().backward()
    finally:
        handle.remove()
    torch.testing.assert_close(x.grad, plain_x * 10, msg="x.grad with a hook returning (grad_input[0] * 10,)")
    torch.testing.assert_close(lin.weight.grad, plain_w, msg="weight.grad is not the hook's to change")


def _hooked_linear_registered_under_no_grad():
    lin = nn.Linear(2, 2)
    calls = []
    x = torch.ones(1, 2, requires_grad=True)
    with torch.no_grad():
        lin.register_forward_pre_hook(lambda m, i: calls.append("forward-pre"))
        lin.register_forward_hook(lambda m, i, o: calls.append("forward"))
        lin.register_full_backward_hook(lambda m, gi, go: calls.append("backward"))
        x.register_hook(lambda g: calls.append("tensor"))
    return lin, x, calls


@pytest.mark.claim("autograd.no-grad-silences-hooks")
def test_hooks_fire_under_and_after_no_grad():
    """Material: no_grad disables every hook; hooks registered inside no_grad never fire.
    True: forward hooks fire under no_grad; hooks registered there fire later; only backward is absent."""
    lin, x, calls = _hooked_linear_registered_under_no_grad()
    with torch.no_grad():
        lin(x)
    assert calls == ["forward-pre", "forward"], f"hooks under no_grad: {calls}"
    calls.clear()
    lin(x).sum().backward()
    assert calls == ["forward-pre", "forward", "backward", "tensor"], f"hooks with grad enabled: {calls}"


@pytest.mark.claim("autograd.no-grad-silences-hooks")
def test_tensor_hook_registered_under_no_grad_rewrites_the_later_gradient():
    """Material: a hook registered inside a no_grad block never fires.
    True: it fires at the next backward, and the gradient it returns is the one that reaches .grad."""
    w = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        handle = w.register_hook(lambda g: g * 10)
    try:
        (w * 3).sum().backward()
    finally:
        handle.remove()
    torch.testing.assert_close(w.grad, torch.full((2,), 30.0), msg="w.grad with a hook returning grad * 10")


@pytest.mark.claim("autograd.no-grad-silences-hooks")
def test_forward_pre_hook_under_no_grad_replaces_the_input():
    """Material: no_grad disables every hook.
    True: under no_grad a forward-pre hook fires and the input it returns is what forward() receives."""
    lin = nn.Linear(2, 2)
    handle = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    try:
        with torch.no_grad():
            out = lin(torch.ones(1, 2))
    finally:
        handle.remove()
    torch.testing.assert_close(out, lin.bias.detach().unsqueeze(0),
                               msg="lin(x) with a pre-hook returning (x * 0,): only the bias should be left")


@pytest.mark.claim("autograd.no-grad-silences-hooks")
def test_backward_hooks_fire_when_backward_itself_runs_under_no_grad():
    """Material: no_grad disables every hook.
    True: what no_grad stops is recording; a graph recorded before, backpropagated inside no_grad, fires its hooks."""
    lin = nn.Linear(2, 2)
    calls = []
    x = torch.ones(1, 2, requires_grad=True)
    lin.register_full_backward_hook(lambda m, gi, go: calls.append("module backward"))
    x.register_hook(lambda g: calls.append("tensor"))
    loss = lin(x).sum()                        # recorded with grad mode on
    with torch.no_grad():
        loss.backward()
    assert calls == ["module backward", "tensor"], f"hooks fired during a backward run inside no_grad: {calls}"
    assert x.grad is not None, "backward inside no_grad left x.grad None"
    calls.clear()
    with torch.no_grad():
        out = lin(x)                           # recorded with grad mode off: no graph, no backward to hook
    assert out.grad_fn is None and calls == [], f"under no_grad: grad_fn={out.grad_fn}, hooks fired: {calls}"


@pytest.mark.claim("autograd.no-grad-silences-hooks", as_written=True)
def test_as_written_hooks_registered_under_no_grad_never_fire():
    """Material: hooks registered inside a no_grad block never fire.
    True: they all fire in a later forward/backward."""
    lin, x, calls = _hooked_linear_registered_under_no_grad()
    lin(x).sum().backward()
    assert calls == [], f"hooks fired: {calls}"


@pytest.mark.claim("modules.forward-hook-captures-feature-map")
def test_forward_hook_fires_under_no_grad_with_input_tuple():
    """Material: a forward hook receives (module, input, output) inside forward, also under no_grad.
    True: it fires once per call, input is a tuple holding the real input, output is the layer's output."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 8, 3, stride=2, padding=1))
    feature_maps, inputs = {}, []

    def hook_fn(module, input, output):
        inputs.append(input)
        feature_maps[module.__class__.__name__] = output.detach().cpu()

    handle = model[2].register_forward_hook(hook_fn)
    x = torch.randn(1, 3, 16, 16)
    with torch.no_grad():
        out = model(x)
    handle.remove()
    assert list(feature_maps) == ["Conv2d"] and len(inputs) == 1, f"hook stored {list(feature_maps)}"
    torch.testing.assert_close(feature_maps["Conv2d"], out, msg="hooked output vs model output")
    assert isinstance(inputs[0], tuple) and inputs[0][0].shape == (1, 4, 16, 16), (
        f"hook input {type(inputs[0]).__name__} with shape {tuple(inputs[0][0].shape)}, expected a tuple of (1, 4, 16, 16)")


@pytest.mark.slow
@pytest.mark.claim("modules.forward-hook-captures-feature-map")
def test_forward_hook_captures_resnet_layer4_feature_map():
    """Material: a forward hook on layer4[-1].conv2 under no_grad stores a (1, 512, 7, 7) map keyed 'Conv2d'.
    True: with resnet18 and a 224x224 input, as printed; input is a tuple of the real input."""
    torchvision = need("torchvision")
    model = torchvision.models.resnet18(weights=None).eval()
    feature_maps, inputs = {}, []

    def hook_fn(module, input, output):
        inputs.append(input)
        feature_maps[module.__class__.__name__] = output.detach().cpu()

    handle = model.layer4[-1].conv2.register_forward_hook(hook_fn)
    with torch.no_grad():
        model(torch.randn(1, 3, 224, 224))
    handle.remove()
    assert list(feature_maps) == ["Conv2d"], f"hook stored keys {list(feature_maps)}"
    assert feature_maps["Conv2d"].shape == (1, 512, 7, 7), f"shape {tuple(feature_maps['Conv2d'].shape)}"
    assert isinstance(inputs[0], tuple) and inputs[0][0].shape == (1, 512, 7, 7), "hook input is not the real input"

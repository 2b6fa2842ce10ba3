"""Autograd: the in-place rules.

Sources: 000 §2.3 and §2.4 (underscore names, leaf error, no_grad), 003 §2.1
(``inplace=True`` ReLU), 002 §4.3 (``nn.ReLU(inplace=True)`` in a CNN).  What is true:
an in-place op on a leaf that requires grad is refused at the call; on an intermediate it
is allowed and rebased into the graph; backward fails only if the overwritten tensor was
saved for backward, detected through its version counter.
"""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchclaims.optional import need

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"
VERSION_ERROR = "modified by an inplace operation"


def _leaf(*values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


@pytest.mark.claim("autograd.inplace-on-leaf-raises")
@pytest.mark.parametrize("op", [
    pytest.param(lambda x: x.add_(1), id="add_"),
    pytest.param(lambda x: x.__iadd__(1), id="+="),
    pytest.param(lambda x: F.relu(x, inplace=True), id="relu-inplace"),
])
def test_inplace_on_leaf_raises_at_the_call(op):
    """Material: x.add_(1) on a leaf with requires_grad raises the leaf error.
    True: yes, at the in-place call itself, whatever spelling the in-place op has."""
    x = _leaf(1.0, -1.0)
    with pytest.raises(RuntimeError, match=LEAF_ERROR):
        op(x)


@pytest.mark.claim("autograd.inplace-on-leaf-raises")
def test_inplace_on_leaf_allowed_under_no_grad():
    """Material: inside torch.no_grad() the same add_ is allowed.
    True: the value changes and x stays a leaf that requires grad."""
    x = _leaf(1.0)
    with torch.no_grad():
        x.add_(1)
    torch.testing.assert_close(x.detach(), torch.tensor([2.0], dtype=torch.float64),
                               msg="x.add_(1) under no_grad did not change x")
    assert x.is_leaf and x.requires_grad and x.grad_fn is None, (
        f"after no_grad add_: is_leaf={x.is_leaf}, requires_grad={x.requires_grad}, grad_fn={x.grad_fn}")


@pytest.mark.claim("autograd.inplace-on-leaf-raises")
def test_inplace_on_leaf_follows_the_current_grad_mode_not_the_enclosing_block():
    """Material: x.add_(1) on a leaf that requires grad raises, but is allowed inside torch.no_grad().
    True: the current mode decides: an @torch.no_grad() step may do it on every call; enable_grad inside no_grad raises."""
    x = _leaf(1.0)

    @torch.no_grad()
    def step(t):
        t.add_(1)

    step(x)
    step(x)
    torch.testing.assert_close(x.detach(), torch.tensor([3.0], dtype=torch.float64),
                               msg="x after two calls of an @torch.no_grad() step doing x.add_(1)")
    with torch.no_grad():
        with torch.enable_grad():
            with pytest.raises(RuntimeError, match=LEAF_ERROR):
                x.add_(1)
    assert x.is_leaf and x.grad_fn is None, f"x is_leaf={x.is_leaf}, grad_fn={x.grad_fn} after the refused add_"


@pytest.mark.claim("autograd.inplace-any-requires-grad-raises")
@pytest.mark.claim("autograd.inplace-backward-guarantee")
def test_inplace_on_intermediate_is_allowed_and_correct():
    """Material: any in-place op on a requires_grad input raises; passing backward proves none happened.
    True: on an intermediate it is allowed, and backward gives the right gradient."""
    x = _leaf(1.0, -2.0)
    h = x * 3
    h.add_(1)          # MulBackward0 with a Python scalar does not need h
    h.relu_()
    h.sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([3.0, 0.0], dtype=torch.float64),
                               msg="x.grad after h = x*3; h.add_(1); h.relu_(); h.sum().backward()")
    s = x.sigmoid()        # SigmoidBackward0 saves s: the same add_ is allowed, but backward then fails
    s.add_(1)
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        s.sum().backward()


def _unbind_first(h):
    return h.unbind()[0]


def _view_made_under_no_grad(h):
    with torch.no_grad():
        return h[:1]


@pytest.mark.claim("autograd.inplace-any-requires-grad-raises")
@pytest.mark.parametrize("make, fragment", [
    pytest.param(lambda x, h: x, LEAF_ERROR, id="leaf"),
    pytest.param(lambda x, h: x[:1], "a view of a leaf Variable that requires grad", id="view-of-leaf"),
    pytest.param(lambda x, h: _unbind_first(h), "output of a function that returns multiple views", id="unbind-output"),
    pytest.param(lambda x, h: h.split(1)[0], "output of a function that returns multiple views", id="split-output"),
    pytest.param(lambda x, h: _view_made_under_no_grad(h), "created in no_grad mode", id="view-made-under-no-grad"),
])
def test_inplace_refused_at_the_call_for_leaves_and_some_views_only(make, fragment):
    """Material: with grad mode on, an in-place op on any requires_grad tensor raises.
    True: refused at the call for a leaf, a view of one and a few special views; an ordinary intermediate passes."""
    x = _leaf(1.0, -2.0)
    h = x * 3
    target = make(x, h)
    assert target.requires_grad, "the tensor under test should require grad"
    with pytest.raises(RuntimeError, match=fragment):
        target.add_(1)
    ordinary = x * 3
    ordinary.add_(1)                               # an intermediate that is no such view: allowed
    assert type(ordinary.grad_fn).__name__ == "AddBackward0", f"ordinary.grad_fn={ordinary.grad_fn} after add_"


@pytest.mark.claim("autograd.inplace-backward-guarantee")
def test_relu_inplace_after_linear_passes_backward_with_grad_enabled():
    """Material: if backward succeeds, in-place ops only ran under no_grad or on tensors without grad.
    True: Linear -> relu_ under grad mode passes backward and matches the out-of-place gradients."""
    torch.manual_seed(0)
    lin = nn.Linear(4, 3).double()
    x = torch.randn(5, 4, dtype=torch.float64)
    h = lin(x)
    assert torch.is_grad_enabled() and h.requires_grad
    h.relu_()
    h.sum().backward()
    inplace = lin.weight.grad.clone()
    lin.zero_grad()
    F.relu(lin(x)).sum().backward()
    torch.testing.assert_close(inplace, lin.weight.grad, msg="relu_ after Linear changed weight.grad")


@pytest.mark.claim("autograd.inplace-any-requires-grad-raises", as_written=True)
def test_as_written_inplace_on_intermediate_raises():
    """Material: with grad enabled, in-place on any requires_grad tensor raises.
    True: only leaves are refused."""
    x = _leaf(1.0)
    h = x * 3
    with pytest.raises(RuntimeError):
        h.add_(1)


@pytest.mark.claim("autograd.inplace-backward-guarantee", as_written=True)
def test_as_written_backward_fails_after_inplace_on_requiring_grad():
    """Material: passing backward implies no in-place op touched a requiring-grad tensor.
    True: relu_ after a multiplication passes backward."""
    x = _leaf(1.0, -2.0)
    h = x * 3
    h.relu_()
    with pytest.raises(RuntimeError):
        h.sum().backward()


@pytest.mark.claim("autograd.inplace-saved-tensor-version-error")
def test_inplace_on_saved_output_raises_at_backward_not_at_call():
    """Material: in-place ops break the backward chain.
    True: only when they overwrite a saved tensor; the version counter catches it at backward."""
    x = _leaf(0.5, -0.5)
    y = x.sigmoid()        # SigmoidBackward0 saves its output y
    assert y._version == 0
    torch.relu_(y)         # allowed here: y is not a leaf
    assert y._version == 1, f"y._version={y._version} after relu_, expected 1"
    with pytest.raises(RuntimeError, match=VERSION_ERROR) as info:
        y.sum().backward()
    assert "is at version 1; expected version 0" in str(info.value), (
        f"version details missing from the error: {info.value}")
    h = x * 2              # MulBackward0 with a Python scalar saves nothing of its output
    torch.relu_(h)
    assert type(h.grad_fn).__name__ == "ReluBackward0" and type(h.grad_fn.next_functions[0][0]).__name__ == "MulBackward0", (
        f"after relu_ h.grad_fn={h.grad_fn} over {h.grad_fn.next_functions}; expected ReluBackward0 over MulBackward0")
    h.sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0, 0.0], dtype=torch.float64),
                               msg="x.grad after h = x * 2; relu_(h); h.sum().backward()")


@pytest.mark.claim("autograd.inplace-saved-tensor-version-error", as_written=True)
def test_as_written_inplace_breaks_backward_chain():
    """Material: an in-place op directly breaks backward.
    True: relu_ after a multiplication by a constant does not."""
    x = _leaf(0.5, -0.5)
    h = x * 2
    h.relu_()
    with pytest.raises(RuntimeError):
        h.sum().backward()


@pytest.mark.claim("autograd.inplace-underscore-enforced")
@pytest.mark.parametrize("write", [
    pytest.param(lambda t: t.__iadd__(1), id="+="),
    pytest.param(lambda t: t.__setitem__(0, 5.0), id="setitem"),
    pytest.param(lambda t: torch.add(t, 1, out=t), id="out="),
    pytest.param(lambda t: F.relu(t, inplace=True), id="relu-inplace-kwarg"),
])
def test_inplace_writes_without_underscore(write):
    """Material: every in-place op carries a trailing underscore, enforced at compile time.
    True: these spellings write into the same storage and bump the version counter."""
    t = torch.tensor([1.0, -2.0, 3.0])
    ptr, version = t.data_ptr(), t._version
    write(t)
    assert t.data_ptr() == ptr, "the write allocated new storage"
    assert t._version > version, f"t._version={t._version}, expected > {version} after an in-place write"


@pytest.mark.claim("autograd.inplace-underscore-enforced", as_written=True)
def test_as_written_only_underscore_methods_write_in_place():
    """Material: only underscore-suffixed operations modify a tensor in place.
    True: ``t += 1`` also writes into t."""
    t = torch.tensor([1.0, 2.0])
    version = t._version
    t += 1
    assert t._version == version, f"t += 1 bumped t._version to {t._version}: it wrote in place"


@pytest.mark.claim("autograd.relu-inplace-leaf-error-at-backward")
def test_relu_inplace_error_depends_on_what_produced_x():
    """Material: F.relu(x, inplace=True) then x.sum().backward() gives the leaf error (grad_fn overwritten).
    True: leaf -> error at the relu call; after mul -> works; after sigmoid -> version error at backward."""
    leaf = _leaf(1.0, -1.0)
    with pytest.raises(RuntimeError, match=LEAF_ERROR):
        F.relu(leaf, inplace=True)

    x = _leaf(1.0, -1.0)
    h = x * 3
    out = F.relu(h, inplace=True)
    assert out is h and type(h.grad_fn).__name__ == "ReluBackward0", (
        f"F.relu(h, inplace=True) returned {'h' if out is h else 'a new tensor'}, h.grad_fn={h.grad_fn}")
    h.sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([3.0, 0.0], dtype=torch.float64),
                               msg="x.grad after h = x*3; F.relu(h, inplace=True); h.sum().backward()")

    for saves_output in (torch.sigmoid, torch.exp):
        s = saves_output(_leaf(1.0, -1.0))
        F.relu(s, inplace=True)
        with pytest.raises(RuntimeError, match=VERSION_ERROR):
            s.sum().backward()


@pytest.mark.claim("autograd.relu-inplace-leaf-error-at-backward", as_written=True)
def test_as_written_relu_inplace_then_backward_leaf_error():
    """Material: after F.relu(x, inplace=True), x.sum().backward() raises the leaf error.
    True: for an intermediate x backward succeeds."""
    x = _leaf(1.0, -1.0)
    h = x * 3
    F.relu(h, inplace=True)
    with pytest.raises(RuntimeError, match=LEAF_ERROR):
        h.sum().backward()


def _cnn(inplace):
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(inplace=inplace),
        nn.Conv2d(4, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(inplace=inplace),
        nn.Flatten(), nn.Linear(4 * 6 * 6, 8), nn.ReLU(inplace=inplace), nn.Linear(8, 2),
    ).double()


@pytest.mark.claim("autograd.relu-inplace-in-models")
def test_relu_inplace_inside_model_gives_same_gradients():
    """Material: in-place must be disabled inside a model's feature transforms.
    True: ReLU(inplace=True) after Conv/BN/Linear gives exactly the out-of-place gradients."""
    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    grads = []
    for inplace in (False, True):
        model = _cnn(inplace)
        model(x).square().sum().backward()
        grads.append([p.grad for p in model.parameters()])
    for a, b in zip(*grads):
        torch.testing.assert_close(b, a, msg="ReLU(inplace=True) changed a parameter gradient")
    after_sigmoid = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.ReLU(inplace=True)).double()
    with pytest.raises(RuntimeError, match=VERSION_ERROR):   # Sigmoid's backward saved the output ReLU overwrote
        after_sigmoid(torch.randn(2, 4, dtype=torch.float64)).sum().backward()


@pytest.mark.claim("autograd.relu-inplace-in-models")
def test_torchvision_resnet_uses_inplace_relu():
    """Material: never use in-place inside a model.
    True: torchvision's own ResNet builds nn.ReLU(inplace=True)."""
    resnet = need("torchvision.models.resnet")
    block = resnet.BasicBlock(8, 8)
    assert block.relu.inplace is True, "torchvision's ResNet BasicBlock.relu.inplace is not True"
    x = torch.randn(1, 8, 4, 4, requires_grad=True)
    block(x).sum().backward()   # conv -> bn -> relu_ -> conv -> bn -> add -> relu_ trains fine
    assert x.grad is not None and torch.isfinite(x.grad).all(), "no finite gradient through BasicBlock"


@pytest.mark.claim("autograd.relu-inplace-in-models", as_written=True)
def test_as_written_relu_inplace_inside_model_breaks_backward():
    """Material: in-place inside a model's feature transforms must be avoided (it breaks gradients).
    True: backward runs and gradients are identical."""
    x = torch.randn(2, 3, 6, 6, dtype=torch.float64)
    with pytest.raises(RuntimeError):
        _cnn(True)(x).sum().backward()


@pytest.mark.claim("autograd.relu-inplace-reuses-storage")
def test_relu_inplace_reuses_input_storage():
    """Material: inplace=True saves memory over F.relu(x).
    True: the in-place form returns x itself; the other allocates a new tensor."""
    x = torch.randn(16)
    ptr = x.data_ptr()
    out = F.relu(x)
    assert out.data_ptr() != ptr, "F.relu(x) reused x's storage"
    assert out.untyped_storage().nbytes() == x.untyped_storage().nbytes() == 16 * 4, (
        f"F.relu(x) allocated {out.untyped_storage().nbytes()} bytes for a 64-byte x, expected a tensor of x's size")
    out_inplace = F.relu(x, inplace=True)
    assert out_inplace is x and x.data_ptr() == ptr, "F.relu(x, inplace=True) did not write into x"

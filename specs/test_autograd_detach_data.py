"""Autograd: ``.detach()`` versus ``.data`` versus ``.clone().detach()``.

Sources: 000 §2.3 (detach cuts the graph, .data bypasses it), 003 §2.1 (detach vs
clone().detach() vs no_grad), 004 §3.3.  What really separates ``detach()`` from ``.data``
is the version counter: both share storage, but only a write through ``detach()`` is seen
by autograd's in-place check; a write through ``.data`` is invisible and can silently
corrupt a gradient.
"""
import math
import warnings

import pytest
import torch


def _leaf(*values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


# ---------------------------------------------------------------- detach

@pytest.mark.claim("autograd.detach-shares-storage")
def test_detach_shares_storage_and_version_counter():
    """Material: detach() gives requires_grad=False, grad_fn=None, same storage.
    True: all that, and the version counter is shared too, so writes through it are tracked."""
    x = _leaf(1.0, 2.0)
    y = x * 2
    d = y.detach()
    assert d.data_ptr() == y.data_ptr(), "y.detach() got its own storage, but should share y's"
    assert d.requires_grad is False and d.grad_fn is None, (
        f"y.detach() has requires_grad={d.requires_grad}, grad_fn={d.grad_fn}, expected False/None")
    before = y._version
    d.add_(1)
    torch.testing.assert_close(y.detach(), torch.tensor([3.0, 5.0], dtype=torch.float64),
                               msg="a write through y.detach() did not show up in y")
    assert y._version == before + 1, (
        f"y._version={y._version} after d.add_(1) on d = y.detach(), expected {before + 1} (shared counter)")


@pytest.mark.claim("autograd.detach-shares-storage")
@pytest.mark.claim("autograd.inplace-saved-tensor-version-error")
def test_write_through_detach_is_caught_at_backward():
    """Material: detach() returns a tensor cut from the graph.
    True: since it shares the version counter, modifying it under a saved tensor makes backward raise."""
    x = _leaf(1.0)
    y = x.exp()  # ExpBackward0 saves its output y
    y.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.claim("autograd.detach-inplace-is-harmless")
def test_detach_inplace_example_also_changes_y():
    """Material: z = y.detach(); z += 1 is fine since z takes no part in differentiation.
    True: it runs, but y changes with it; backward survives only because x**2 saved x, not y."""
    x = _leaf(1.0)
    y = x ** 2
    assert y.grad_fn._saved_self is x, f"PowBackward0 saved {y.grad_fn._saved_self!r}, expected the leaf x, not y"
    z = y.detach()
    z += 1
    torch.testing.assert_close(y.detach(), torch.tensor([2.0], dtype=torch.float64),
                               msg="y did not change after z += 1 on z = y.detach()")
    assert y._version == 1, f"y._version={y._version}, expected 1 after z += 1 through y.detach()"
    y.backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0], dtype=torch.float64),
                               msg="x.grad after y = x**2 and y.backward() should be 2x = 2")
    # The same write under an op that saves its output is caught.
    x2 = _leaf(1.0)
    y2 = x2.exp()
    z2 = y2.detach()
    z2 += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y2.backward()


@pytest.mark.claim("autograd.detach-inplace-is-harmless", as_written=True)
def test_as_written_detach_inplace_example_leaves_y_alone():
    """Material: z += 1 on z = y.detach() is harmless, z being outside the graph.
    True: z shares y's storage, so y becomes 2."""
    x = _leaf(1.0)
    y = x ** 2
    z = y.detach()
    z += 1
    torch.testing.assert_close(y.detach(), torch.tensor([1.0], dtype=torch.float64),
                               msg="y changed after z += 1 on z = y.detach()")


@pytest.mark.claim("autograd.inplace-on-nonleaf-blamed-as-leaf")
def test_inplace_add_on_nonleaf_succeeds():
    """Material: y += 1 on y = x ** 2 raises the leaf-in-place error.
    True: y is not a leaf; the add is recorded (AddBackward0) and backward still gives 2x."""
    x = _leaf(1.0)
    y = x ** 2
    assert not y.is_leaf, "y = x ** 2 should not be a leaf"
    y += 1
    assert type(y.grad_fn).__name__ == "AddBackward0", (
        f"y.grad_fn={y.grad_fn} after y += 1, expected AddBackward0")
    y.backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0], dtype=torch.float64),
                               msg="x.grad after y = x**2; y += 1; y.backward() should be 2")
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x += 1


@pytest.mark.claim("autograd.inplace-on-nonleaf-blamed-as-leaf", as_written=True)
def test_as_written_inplace_add_on_nonleaf_raises_leaf_error():
    """Material: y += 1 on y = x ** 2 raises 'a leaf Variable that requires grad ...'.
    True: it succeeds."""
    x = _leaf(1.0)
    y = x ** 2
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        y += 1


# ---------------------------------------------------------------- .data

@pytest.mark.claim("autograd.data-keeps-grad-fn")
def test_data_is_a_detached_alias_with_its_own_version_counter():
    """Material: .data is a bare reference keeping requires_grad and grad_fn.
    True: a new tensor over the same storage, requires_grad False, grad_fn None, own version counter."""
    x = _leaf(1.0, 2.0)
    y = x * 3
    d = y.data
    assert d is not y, "y.data returned y itself"
    assert d.data_ptr() == y.data_ptr(), "y.data does not share y's storage"
    assert (d.requires_grad, d.grad_fn, d.is_leaf) == (False, None, True), (
        f"y.data: requires_grad={d.requires_grad}, grad_fn={d.grad_fn}, is_leaf={d.is_leaf}; "
        "expected False, None, True")
    before = y._version
    d.add_(1)
    assert y._version == before, (
        f"y._version went {before} -> {y._version} after y.data.add_(1); .data writes should be invisible")


@pytest.mark.claim("autograd.data-keeps-grad-fn", as_written=True)
def test_as_written_data_keeps_requires_grad_and_grad_fn():
    """Material: .data keeps requires_grad and grad_fn.
    True: both are dropped."""
    x = _leaf(1.0, 2.0)
    y = x * 3
    assert y.data.requires_grad is True, "y.data.requires_grad is False"
    assert y.data.grad_fn is y.grad_fn, "y.data.grad_fn is not y.grad_fn"


@pytest.mark.claim("autograd.data-write-raises-at-backward")
def test_data_write_is_silent_and_can_corrupt_gradients():
    """Material: y.data += 1 then y.backward() raises 'modified by an inplace operation'.
    True: no error ever; with an op that saves its output the gradient comes out silently wrong."""
    # The material's own code: runs without error; the grad is 2x because x**2 saved x.
    x = _leaf(1.0)
    y = x ** 2
    assert y.grad_fn._saved_self is x, f"PowBackward0 saved {y.grad_fn._saved_self!r}, expected the leaf x itself"
    y.data += 1
    assert y._version == 0, f"y._version={y._version} after y.data += 1, expected 0 (.data writes are not counted)"
    y.backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0], dtype=torch.float64),
                               msg="x.grad after y = x**2; y.data += 1; y.backward()")
    # exp saves its output; the write through .data changes what backward multiplies by.
    x = _leaf(1.0)
    y = x.exp()
    y.data.mul_(2)
    y.backward()
    torch.testing.assert_close(x.grad, torch.tensor([2 * math.e], dtype=torch.float64),
                               msg="x.grad after y = x.exp(); y.data.mul_(2); y.backward() should be 2e (silently wrong)")
    assert not torch.allclose(x.grad, torch.tensor([math.e], dtype=torch.float64)), (
        "x.grad equals the true derivative e; the .data write should have corrupted it")


@pytest.mark.claim("autograd.data-write-raises-at-backward")
def test_the_version_error_needs_detach_and_an_op_that_saved_the_written_tensor():
    """Material: y.data += 1 on y = x ** 2, then y.backward(), raises 'modified by an inplace operation'.
    True: through detach() the write is counted, yet x ** 2 still passes (it saved x); exp, which saves y, raises."""
    x = _leaf(1.0)
    y = x ** 2
    y.detach().add_(1)
    assert y._version == 1, f"y._version={y._version} after y.detach().add_(1), expected 1 (the write is counted)"
    y.backward()
    torch.testing.assert_close(x.grad, torch.tensor([2.0], dtype=torch.float64),
                               msg="x.grad after y = x**2; y.detach().add_(1); y.backward()")
    x = _leaf(1.0)
    y = x.exp()
    y.detach().add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.claim("autograd.data-write-raises-at-backward", as_written=True)
def test_as_written_data_write_raises_at_backward():
    """Material: after y.data += 1, y.backward() raises 'modified by an inplace operation'.
    True: it runs without error."""
    x = _leaf(1.0)
    y = x ** 2
    y.data += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.claim("autograd.data-is-legacy")
def test_data_access_emits_no_deprecation():
    """Material: .data is officially marked legacy, for extreme performance cases only.
    True: no deprecation or warning at all; it differs from detach() only by skipping the version check."""
    x = _leaf(1.0, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = x.data
        d.add_(0)
    assert x._version == 0, f"x._version={x._version}; .data writes are not tracked"
    assert x.detach()._version == x._version, "detach() should share x's version counter"
    assert d.data_ptr() == x.detach().data_ptr() == x.data_ptr(), (
        "x.data or x.detach() copied the data; both should be aliases of x's storage")


@pytest.mark.claim("autograd.data-is-legacy", as_written=True)
def test_as_written_data_access_warns_as_legacy():
    """Material: .data is officially marked legacy.
    True: using it raises no DeprecationWarning or FutureWarning."""
    x = _leaf(1.0, 2.0)
    with pytest.warns((DeprecationWarning, FutureWarning)):
        _ = x.data


# ---------------------------------------------------------------- detach vs clone().detach() vs no_grad

@pytest.mark.claim("autograd.detach-later-ops-differentiable")
def test_ops_on_detached_tensor_are_not_recorded():
    """Material: detach() only unhooks this tensor; later ops are still differentiable.
    True: ops on it alone are untracked; mixed with a requiring-grad tensor, only that one gets grads."""
    x = _leaf(1.0, 2.0)
    w = _leaf(3.0, 4.0)
    d = (x * 2).detach()
    assert (d * 2).requires_grad is False, "(d * 2).requires_grad is True for d = (x*2).detach()"
    (d * w).sum().backward()
    torch.testing.assert_close(w.grad, d, msg="w.grad after (d * w).sum().backward() should be d")
    assert x.grad is None, f"x.grad={x.grad}; no gradient should flow back through the detached d"


@pytest.mark.claim("autograd.detach-later-ops-differentiable")
def test_clone_detach_is_independent():
    """Material: clone().detach() makes a fully independent tensor.
    True: own storage and own version counter."""
    x = _leaf(1.0, 2.0)
    c = x.clone().detach()
    assert c.data_ptr() != x.data_ptr(), "x.clone().detach() shares x's storage"
    c.add_(1)
    assert x._version == 0, f"x._version={x._version} after writing to x.clone().detach()"
    torch.testing.assert_close(x.detach(), torch.tensor([1.0, 2.0], dtype=torch.float64),
                               msg="x changed after writing to x.clone().detach()")


@pytest.mark.claim("autograd.detach-later-ops-differentiable")
def test_no_grad_covers_a_block_and_works_as_decorator():
    """Material: torch.no_grad() is a context manager acting on a whole block.
    True: yes, and it also decorates functions."""
    x = _leaf(1.0, 2.0)
    with torch.no_grad():
        a = x * 2
        b = a + 1

    @torch.no_grad()
    def double(t):
        return t * 2

    assert not a.requires_grad and not b.requires_grad, "ops inside torch.no_grad() were recorded"
    assert double(x).requires_grad is False, "@torch.no_grad() function output requires grad"


@pytest.mark.claim("autograd.detach-later-ops-differentiable", as_written=True)
def test_as_written_ops_on_detached_tensor_differentiable():
    """Material: after detach(), later operations can still be differentiated.
    True: an op on the detached tensor alone records nothing."""
    x = _leaf(1.0, 2.0)
    assert (x.detach() * 2).requires_grad, "(x.detach() * 2) does not require grad"

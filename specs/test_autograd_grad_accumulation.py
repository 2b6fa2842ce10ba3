"""Autograd: where gradients land, how they accumulate and how they are cleared.

Sources: 002 §1, §3.1 and §4.4 (the worked example, .grad, zero_grad), 003 §5.1,
004 §2.3, §3.3 and §5.1.  The worked example of 002 §3.1 prints z = 31 and y.grad = 31;
arithmetic gives 37 and 29.
"""
import warnings

import pytest
import torch
from torch import nn


def _scalar_leaf(value):
    return torch.tensor(value, requires_grad=True)


def _example_002():
    x, y = _scalar_leaf(2.0), _scalar_leaf(3.0)
    z = x ** 2 + x * y + y ** 3
    return x, y, z


@pytest.mark.claim("autograd.example-002-forward-value")
def test_example_002_forward_value_is_37():
    """Material: z = x**2 + x*y + y**3 at (2, 3) prints tensor(31.).
    True: 4 + 6 + 27 = 37."""
    _, _, z = _example_002()
    torch.testing.assert_close(z.detach(), torch.tensor(37.0), msg="z.data for x=2, y=3")


@pytest.mark.claim("autograd.example-002-forward-value", as_written=True)
def test_as_written_example_002_forward_value():
    """Material: z.data prints tensor(31.).
    True: it prints tensor(37.)."""
    _, _, z = _example_002()
    torch.testing.assert_close(z.detach(), torch.tensor(31.0), msg="z.data for x=2, y=3")


@pytest.mark.claim("autograd.example-002-gradients")
def test_example_002_gradients_are_7_and_29():
    """Material: x.grad 7, y.grad 31 (blamed on earlier pollution of y).
    True: x.grad = 2x + y = 7 and y.grad = x + 3y**2 = 29; a fresh leaf cannot be polluted."""
    x, y, z = _example_002()
    assert y.grad is None, f"a freshly created leaf has y.grad={y.grad}, expected None"
    z.backward()
    torch.testing.assert_close(x.grad, torch.tensor(7.0), msg="x.grad = 2x + y at (2, 3)")
    torch.testing.assert_close(y.grad, torch.tensor(29.0), msg="y.grad = x + 3y**2 at (2, 3)")


@pytest.mark.claim("autograd.example-002-gradients", as_written=True)
def test_as_written_example_002_y_grad():
    """Material: y.grad prints tensor(31.).
    True: tensor(29.)."""
    _, y, z = _example_002()
    z.backward()
    torch.testing.assert_close(y.grad, torch.tensor(31.0), msg="y.grad at (2, 3)")


@pytest.mark.claim("autograd.nonleaf-grad-is-none")
def test_output_grad_is_none_with_warning():
    """Material: z.grad is None (the gradient lives on the inputs); z.grad_fn is AddBackward0.
    True: None with a UserWarning, even after backward, unless retain_grad() was called."""
    _, _, z = _example_002()
    assert type(z.grad_fn).__name__ == "AddBackward0", f"z.grad_fn={z.grad_fn}"
    with pytest.warns(UserWarning, match="not a leaf"):
        assert z.grad is None
    z.backward()
    with pytest.warns(UserWarning, match="not a leaf"):
        assert z.grad is None, "z.grad populated although retain_grad() was not called"
    _, _, z2 = _example_002()
    z2.retain_grad()
    z2.backward()
    torch.testing.assert_close(z2.grad, torch.tensor(1.0), msg="z.grad after retain_grad()")


@pytest.mark.claim("autograd.zero-fresh-grad-before-backward")
def test_zeroing_a_fresh_grad_raises_attribute_error():
    """Material: always call y.grad.zero_() before backward().
    True: before the first backward y.grad is None, so this raises AttributeError."""
    y = _scalar_leaf(3.0)
    with pytest.raises(AttributeError, match="zero_"):
        y.grad.zero_()
    (y * 2).backward()
    y.grad.zero_()                            # once a gradient exists, zeroing it in place works
    (y * 5).backward()
    torch.testing.assert_close(y.grad, torch.tensor(5.0), msg="y.grad after y.grad.zero_() and a second backward")
    y.grad = None                             # the way that works before the first backward too
    (y * 7).backward()
    torch.testing.assert_close(y.grad, torch.tensor(7.0), msg="y.grad after y.grad = None and a backward")
    model = nn.Linear(2, 1)
    model.zero_grad()                         # fresh module and optimizer: nothing to clear, no error
    torch.optim.SGD(model.parameters(), lr=0.1).zero_grad()
    assert all(p.grad is None for p in model.parameters()), "zero_grad() on a fresh model created gradients"


@pytest.mark.claim("autograd.zero-fresh-grad-before-backward", as_written=True, raises=AttributeError, match=r"has no attribute 'zero_'")
def test_as_written_zeroing_a_fresh_grad_works():
    """Material: y.grad.zero_() before backward() clears the gradient.
    True: on a fresh leaf it raises AttributeError."""
    y = _scalar_leaf(3.0)
    y.grad.zero_()


@pytest.mark.claim("autograd.grad-allocated-lazily")
def test_grad_is_none_until_first_backward():
    """Material: with requires_grad=True the system allocates room for .grad.
    True: .grad stays None until backward reaches the leaf."""
    x = torch.ones(3, requires_grad=True)
    assert x.grad is None, f"x.grad={x.grad} right after creation, expected None"
    torch.autograd.grad((x * 2).sum(), x)
    other = torch.ones(3, requires_grad=True)
    (x.detach() * other).sum().backward()     # a backward that never reaches x
    torch.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False)
    assert x.grad is None, (
        f"x.grad={x.grad} after torch.autograd.grad, a backward not reaching x and zero_grad(set_to_none=False); "
        "expected None")
    (x * 2).sum().backward()
    torch.testing.assert_close(x.grad, torch.full((3,), 2.0), msg="x.grad after the first backward")
    y = torch.ones(3, requires_grad=True)
    y.grad = torch.zeros(3)
    assert isinstance(y.grad, torch.Tensor), "y.grad is not the tensor the code assigned"


@pytest.mark.claim("autograd.grad-allocated-lazily", as_written=True)
def test_as_written_grad_allocated_on_creation():
    """Material: requires_grad=True allocates the .grad container.
    True: it is None."""
    x = torch.ones(3, requires_grad=True)
    assert isinstance(x.grad, torch.Tensor), f"x.grad={x.grad}"


@pytest.mark.claim("autograd.grad-accumulates")
def test_grad_accumulates_across_backward_calls():
    """Material: .grad accumulates rather than being overwritten.
    True: two backward calls leave the exact sum; zeroing leaves only the new one."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([3.0, 3.0]) + 2 * x.detach(),
                               msg="x.grad after (3x).sum() and (x*x).sum() backward")
    x.grad = None
    (x * 3).sum().backward()
    torch.testing.assert_close(x.grad, torch.tensor([3.0, 3.0]), msg="x.grad after clearing and one backward")


@pytest.mark.claim("autograd.grad-accumulates")
def test_zero_grad_to_zeros_clears_in_place_and_leaves_a_missing_grad_missing():
    """Material: after zero_grad() the next backward's gradient no longer adds to the old one.
    True: zero_grad(set_to_none=False) zeroes each .grad in place and gives none to a parameter without one."""
    used, unused = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))   # unused: a head this loss skips
    optimizer = torch.optim.SGD([used, unused], lr=0.1)
    optimizer.zero_grad(set_to_none=False)                                    # before any backward: nothing to clear
    (used * 3).sum().backward()
    grad = used.grad
    for call in (1, 2):
        optimizer.zero_grad(set_to_none=False)
        assert used.grad is grad and torch.count_nonzero(grad) == 0, (
            f"call {call}: used.grad after zero_grad(set_to_none=False) is {used.grad} (same tensor: "
            f"{used.grad is grad}), expected the same tensor, zeroed")
        assert unused.grad is None, f"call {call}: unused.grad = {unused.grad}, expected None (it never had one)"
    (used * 5).sum().backward()
    torch.testing.assert_close(used.grad, torch.full((2,), 5.0), msg="used.grad after zero_grad(False) and one backward")


def _model_and_batch():
    torch.manual_seed(0)
    return nn.Linear(3, 1), torch.randn(4, 3), torch.randn(4, 1)


@pytest.mark.claim("modules.zero-grad-each-step")
@pytest.mark.claim("autograd.grad-accumulates")
def test_gradients_without_zeroing_grow_linearly():
    """Material: without zero_grad before backward the gradients accumulate and explode.
    True: they add up exactly: n identical steps give n times one gradient."""
    model, x, y = _model_and_batch()
    nn.functional.mse_loss(model(x), y).backward()
    single = model.weight.grad.clone()
    for _ in range(4):
        nn.functional.mse_loss(model(x), y).backward()
    torch.testing.assert_close(model.weight.grad, 5 * single, msg="weight.grad after 5 un-zeroed backward calls")


@pytest.mark.claim("modules.zero-grad-each-step", as_written=True)
def test_as_written_gradients_without_zeroing_explode():
    """Material: un-zeroed gradients explode.
    True: they grow linearly, exactly n times."""
    model, x, y = _model_and_batch()
    nn.functional.mse_loss(model(x), y).backward()
    single = model.weight.grad.norm().item()
    for _ in range(4):
        nn.functional.mse_loss(model(x), y).backward()
    assert model.weight.grad.norm().item() > 5 * single * 1.5, "gradient grew only linearly"


@pytest.mark.claim("autograd.zero-grad-order-004")
def test_zero_grad_between_backward_and_step_discards_update():
    """Material: zero_grad after backward and before step.
    True: step then sees no gradients and the parameters do not move."""
    model, x, y = _model_and_batch()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad()
    opt.step()
    for p, b in zip(model.parameters(), before):
        torch.testing.assert_close(p.detach(), b, msg="a parameter moved although zero_grad ran before step")
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad(set_to_none=False)
    opt.step()
    for p, b in zip(model.parameters(), before):
        torch.testing.assert_close(p.detach(), b, msg="a parameter moved although zero_grad(set_to_none=False) "
                                   "ran between backward and step [plain SGD]")
    # zero_grad before backward (the usual order) trains with exactly this batch's gradient
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    expected = (model.weight - 0.1 * model.weight.grad).detach()
    opt.step()
    torch.testing.assert_close(model.weight.detach(), expected, msg="zero_grad, backward, step: w - lr * grad")


@pytest.mark.claim("autograd.zero-grad-order-004")
def test_gradients_accumulate_when_zero_grad_is_left_out_not_in_the_printed_order():
    """Material: getting the order wrong lets gradients accumulate across batches.
    True: leaving zero_grad out does; the printed order (backward, zero_grad, step) leaves nothing to accumulate."""
    model, x, y = _model_and_batch()
    opt = torch.optim.SGD(model.parameters(), lr=0.0)   # lr 0: the batches see the same weights
    nn.functional.mse_loss(model(x), y).backward()
    single = model.weight.grad.clone()
    opt.zero_grad()
    for _ in range(3):                                    # the printed order
        nn.functional.mse_loss(model(x), y).backward()
        opt.zero_grad()
        opt.step()
    assert model.weight.grad is None, f"weight.grad={model.weight.grad} after backward, zero_grad, step; expected None"
    for _ in range(3):                                    # zero_grad left out
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    torch.testing.assert_close(model.weight.grad, 3 * single, msg="weight.grad after 3 batches without zero_grad")


@pytest.mark.claim("autograd.zero-grad-order-004", as_written=True)
def test_as_written_zero_grad_between_backward_and_step_trains():
    """Material: backward, zero_grad, step is the usual working order.
    True: the step does nothing."""
    model, x, y = _model_and_batch()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.weight.detach().clone()
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad()
    opt.step()
    assert not torch.equal(model.weight.detach(), before), "weight did not change"


@pytest.mark.claim("autograd.zero-grad-sets-none")
def test_zero_grad_default_sets_none():
    """Material: optimizer.zero_grad() clears gradients to zero.
    True: since torch 2.0 the default set_to_none=True leaves None; set_to_none=False gives zeros."""
    model, x, y = _model_and_batch()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters()), "zero_grad() did not set grads to None"
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad(set_to_none=False)
    for p in model.parameters():
        torch.testing.assert_close(p.grad, torch.zeros_like(p), msg="zero_grad(set_to_none=False)")
    for set_to_none in (True, False):                    # either way the next backward starts afresh
        nn.functional.mse_loss(model(x), y).backward()
        single = model.weight.grad.clone()
        opt.zero_grad(set_to_none=set_to_none)
        nn.functional.mse_loss(model(x), y).backward()
        torch.testing.assert_close(model.weight.grad, single,
                                   msg=f"weight.grad after zero_grad(set_to_none={set_to_none}) and one backward")
        opt.zero_grad()


@pytest.mark.claim("autograd.zero-grad-sets-none")
def test_module_zero_grad_default_sets_none_too():
    """Material: zero_grad() clears gradients to zero.
    True since 2.0: nn.Module.zero_grad() also defaults to set_to_none=True, first layer and nested."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 1)))
    model(torch.randn(5, 3)).sum().backward()
    model.zero_grad()
    left = {name: p.grad for name, p in model.named_parameters() if p.grad is not None}
    assert not left, f"model.zero_grad() left gradients on {sorted(left)}, expected None everywhere"


@pytest.mark.claim("autograd.zero-grad-sets-none", as_written=True)
def test_as_written_zero_grad_leaves_zero_tensors():
    """Material: zero_grad() leaves zero-filled gradients.
    True (>= 2.0): the default leaves None."""
    model, x, y = _model_and_batch()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    nn.functional.mse_loss(model(x), y).backward()
    opt.zero_grad()
    for p in model.parameters():
        assert p.grad is not None and torch.count_nonzero(p.grad) == 0, f"p.grad={p.grad}"


@pytest.mark.claim("modules.optimizer-step-rule")
def test_parameters_are_leaves_updated_in_place():
    """Material: a registered nn.Parameter is a leaf; the optimizer reads .grad to update it.
    True: leaf, requires_grad, gets .grad, and step() updates the same tensor in place."""
    model, x, y = _model_and_batch()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for p in model.parameters():
        assert p.is_leaf and p.requires_grad, f"parameter {tuple(p.shape)} is not a requiring-grad leaf"
    w, ptr = model.weight, model.weight.data_ptr()
    nn.functional.mse_loss(model(x), y).backward()
    assert model.weight.grad is not None, "weight.grad is None after backward"
    expected = (w - 0.1 * w.grad).detach()
    opt.step()
    assert model.weight is w and w.data_ptr() == ptr, "step() replaced the parameter instead of updating it"
    torch.testing.assert_close(w.detach(), expected, msg="SGD step: w - lr * grad")


@pytest.mark.claim("autograd.grad-none-diagnosis")
def test_nonleaf_with_grad_fn_still_has_none_grad():
    """Material: grad is None because requires_grad=False or detach() cut the graph.
    True: a non-leaf passes both checks and still has grad None."""
    x = torch.ones(2, requires_grad=True)
    h = x * 2
    (h * h).sum().backward()
    assert h.requires_grad and h.grad_fn is not None
    with pytest.warns(UserWarning):
        assert h.grad is None, "a non-leaf got .grad without retain_grad()"
    frozen = torch.ones(2)                                # the two causes the material names
    cut = torch.ones(2, requires_grad=True)
    (x * frozen + (cut * 2).detach() * x).sum().backward()
    assert frozen.grad is None and cut.grad is None, (
        f"frozen.grad={frozen.grad} (requires_grad=False), cut.grad={cut.grad} (cut by detach); both should be None")
    kept = x * 2
    kept.retain_grad()
    (kept * kept).sum().backward()
    torch.testing.assert_close(kept.grad, torch.full((2,), 4.0), msg="a non-leaf's .grad after retain_grad()")


@pytest.mark.claim("autograd.grad-none-diagnosis", as_written=True)
def test_as_written_grad_present_when_checks_pass():
    """Material: if requires_grad is True and the graph is intact, grad is set.
    True: not for a non-leaf."""
    x = torch.ones(2, requires_grad=True)
    h = x * 2
    (h * h).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the non-leaf .grad warning
        assert h.grad is not None, "h.grad is None"


@pytest.mark.claim("autograd.partial-no-grad-leaves-none")
def test_layers_run_under_no_grad_get_no_gradient():
    """Material: forward parts wrapped in no_grad leave those leaves out of the graph (grads None).
    True: those layers keep grad None while reporting requires_grad=True; fully no_grad -> backward raises."""
    torch.manual_seed(0)
    first, second = nn.Linear(3, 3), nn.Linear(3, 1)
    x = torch.randn(2, 3)
    with torch.no_grad():
        h = first(x)
    loss = second(h).sum()
    assert loss.grad_fn is not None
    loss.backward()
    assert all(p.requires_grad and p.grad is None for p in first.parameters()), (
        "the layer run under no_grad got gradients")
    assert all(p.grad is not None for p in second.parameters()), "the layer outside no_grad got no gradient"
    with torch.no_grad():
        dead = second(first(x)).sum()
    assert dead.grad_fn is None, f"a loss computed wholly under no_grad has grad_fn {dead.grad_fn}, expected None"
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        dead.backward()


@pytest.mark.claim("autograd.partial-no-grad-leaves-none")
def test_a_no_grad_layer_also_cuts_off_every_layer_before_it():
    """Material: layers run under no_grad never enter the graph, so their leaves keep grad None.
    True: the cut reaches upstream too: a layer run with grad on before the no_grad one gets no gradient either."""
    torch.manual_seed(0)
    before, frozen, after = nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 1)
    h = before(torch.randn(2, 3))
    assert h.requires_grad, "the first layer's output should be recorded (grad mode on)"
    with torch.no_grad():
        h = frozen(h)
    after(h).sum().backward()
    grads = {name: [p.grad is not None for p in layer.parameters()]
             for name, layer in (("before", before), ("frozen", frozen), ("after", after))}
    assert grads == {"before": [False, False], "frozen": [False, False], "after": [True, True]}, (
        f"which parameters got a .grad: {grads}; only the layer after the no_grad one should")


@pytest.mark.claim("autograd.backward-no-grad-fn-error")
def test_backward_on_tensor_without_graph_raises():
    """Material: backward on something never connected to a requiring-grad tensor raises 'element 0 ...'.
    True: RuntimeError with that fragment."""
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        torch.tensor([1.0, 2.0, 3.0]).sum().backward()
    model = nn.Linear(3, 1)
    with torch.no_grad():
        loss = model(torch.ones(2, 3)).square().mean()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        loss.backward()

"""Modules, parameters and buffers: requires_grad defaults, freezing layers, and what
register_buffer does (issue #41, tutorials)."""
import pytest
import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 2)
        self.fc2 = nn.Linear(2, 2)
        self.fc3 = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def train(model, opt, steps=3, set_to_none=True):
    for _ in range(steps):
        opt.zero_grad(set_to_none=set_to_none)
        model(torch.randn(8, 2)).pow(2).mean().backward()
        opt.step()


# ---------------------------------------------------------------- defaults

@pytest.mark.claim("modules.parameters-require-grad-by-default")
def test_parameters_require_grad_and_plain_tensors_do_not():
    """Tutorials: every model parameter has requires_grad=True by default; ordinary tensors have False.
    True: layer parameters and nn.Parameter(t) require grad, torch.zeros/randn do not, and
    nn.Parameter(t, requires_grad=False) is allowed."""
    model = TinyNet()
    assert all(p.requires_grad for p in model.parameters()), "a layer parameter does not require grad"
    assert nn.Parameter(torch.zeros(2)).requires_grad, "nn.Parameter defaults to requires_grad=False"
    assert not torch.zeros(2).requires_grad and not torch.randn(2).requires_grad, "a plain tensor requires grad"
    assert not nn.Parameter(torch.zeros(2), requires_grad=False).requires_grad


# ---------------------------------------------------------------- freezing

@pytest.mark.claim("modules.frozen-params-still-updated")
@pytest.mark.parametrize("make_opt", [
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
    lambda ps: torch.optim.Adam(ps, lr=0.1),
    lambda ps: torch.optim.AdamW(ps, lr=0.1),
], ids=["sgd-momentum-wd", "adam", "adamw"])
def test_frozen_parameters_passed_to_the_optimizer_stay_unchanged(make_opt):
    """Tutorials: with requires_grad=False but model.parameters() still given to the optimizer, the
    frozen weights keep being updated.  True: they get no .grad and the optimizers skip parameters
    whose grad is None (weight decay included), so they stay exactly as they were."""
    model = TinyNet()
    for p in model.fc1.parameters():
        p.requires_grad = False
    frozen = [p.detach().clone() for p in model.fc1.parameters()]
    trained = model.fc3.weight.detach().clone()
    train(model, make_opt(model.parameters()))
    assert all(p.grad is None for p in model.fc1.parameters()), "a frozen parameter got a .grad"
    assert all(torch.equal(a, p) for a, p in zip(frozen, model.fc1.parameters())), "a frozen parameter changed"
    assert not torch.equal(trained, model.fc3.weight), "the trainable layer did not change"


@pytest.mark.claim("modules.frozen-params-still-updated")
def test_freezing_mid_training_stops_updates_once_the_old_grad_is_none():
    """True: a layer frozen after some momentum steps stays put once zero_grad(set_to_none=True)
    clears its old .grad; with set_to_none=False the zero grad it keeps lets momentum move it on."""
    moved = {}
    for set_to_none in (True, False):
        torch.manual_seed(0)
        model = TinyNet()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        train(model, opt, steps=2, set_to_none=set_to_none)
        model.fc1.requires_grad_(False)
        snapshot = model.fc1.weight.detach().clone()
        train(model, opt, steps=3, set_to_none=set_to_none)
        moved[set_to_none] = not torch.equal(snapshot, model.fc1.weight)
    assert moved == {True: False, False: True}, f"frozen fc1 moved after freezing (by set_to_none): {moved}"


@pytest.mark.claim("modules.frozen-params-still-updated", as_written=True)
def test_as_written_frozen_parameters_in_the_optimizer_are_still_updated():
    """Tutorials: unfiltered, the frozen weights still change.  True: they do not (strict xfail)."""
    model = TinyNet()
    model.fc1.requires_grad_(False)
    before = model.fc1.weight.detach().clone()
    train(model, torch.optim.Adam(model.parameters(), lr=0.1))
    assert not torch.equal(before, model.fc1.weight), "the frozen fc1.weight did not change"


@pytest.mark.claim("modules.frozen-layer-passes-gradient")
def test_a_frozen_middle_layer_still_passes_gradients_to_earlier_layers():
    """Tutorials: freezing fc2 leaves its .grad None, yet the gradient still flows through it to fc1.
    True: fc2's grads are None; fc1 and fc3 get non-zero grads equal to those of the unfrozen net."""
    torch.manual_seed(0)
    model = TinyNet()
    with torch.no_grad():
        model.fc2.weight.copy_(torch.eye(2))
        model.fc2.bias.fill_(1.0)
        model.fc1.bias.fill_(1.0)
    x = torch.tensor([[1.0, 2.0]])
    model(x).sum().backward()
    reference = model.fc1.weight.grad.clone()
    model.zero_grad(set_to_none=True)   # the default only from 2.0 on
    model.fc2.requires_grad_(False)
    model(x).sum().backward()
    assert model.fc2.weight.grad is None and model.fc2.bias.grad is None, "the frozen fc2 got a .grad"
    assert model.fc1.weight.grad is not None and model.fc1.weight.grad.abs().sum() > 0, "fc1 got no gradient"
    assert torch.equal(model.fc1.weight.grad, reference), "freezing fc2 changed fc1's gradient"


# ---------------------------------------------------------------- buffers

class WithBuffer(nn.Module):
    def __init__(self, buffer):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("scale", buffer)

    def forward(self, x):
        return self.fc(x) * self.scale


@pytest.mark.claim("modules.register-buffer-no-grad")
def test_a_registered_buffer_is_saved_but_not_a_parameter_and_gets_no_grad():
    """Tutorials: a buffer is saved in state_dict, is not returned by parameters(), and gets no
    gradient.  True: all three for the usual torch.zeros/ones buffer (requires_grad False)."""
    model = WithBuffer(torch.ones(2))
    assert "scale" in model.state_dict() and [n for n, _ in model.named_buffers()] == ["scale"]
    assert all(p is not model.scale for p in model.parameters()), "the buffer is among the parameters"
    model(torch.randn(3, 2)).sum().backward()
    assert model.scale.grad is None and not model.scale.requires_grad, "the buffer got a gradient"


@pytest.mark.claim("modules.register-buffer-no-grad")
def test_register_buffer_keeps_the_tensors_own_requires_grad():
    """True: register_buffer does not switch requires_grad off: a buffer registered with
    requires_grad=True keeps it and gets a .grad, though the optimizer never sees it."""
    model = WithBuffer(torch.ones(2, requires_grad=True))
    assert model.scale.requires_grad, "register_buffer switched requires_grad off"
    model(torch.randn(3, 2)).sum().backward()
    assert model.scale.grad is not None, "a requires_grad buffer got no gradient"


@pytest.mark.claim("modules.buffer-parameter-name-override")
def test_parameter_and_buffer_name_override_rules():
    """Tutorials: buffers may replace buffers and parameters parameters; a Parameter may replace a
    buffer, a buffer may not replace a Parameter.  True: assignment follows those rules; a buffer
    over a Parameter raises (TypeError by assignment, KeyError by register_buffer); register_parameter
    over a buffer raises KeyError, but assigning an nn.Parameter turns the buffer into a parameter."""
    m = nn.Module()
    m.register_buffer("b", torch.zeros(1))
    m.register_buffer("b", torch.ones(1))
    m.b = torch.full((1,), 2.0)
    assert [n for n, _ in m.named_buffers()] == ["b"] and m.b.item() == 2.0, "buffer over buffer"
    m.w = nn.Parameter(torch.zeros(1))
    m.w = nn.Parameter(torch.ones(1))
    assert [n for n, _ in m.named_parameters()] == ["w"] and m.w.item() == 1.0, "parameter over parameter"
    with pytest.raises(TypeError, match="cannot assign"):
        m.w = torch.zeros(1)
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("w", torch.zeros(1))
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("b", nn.Parameter(torch.zeros(1)))
    m.b = nn.Parameter(torch.zeros(1))
    assert [n for n, _ in m.named_parameters()] == ["w", "b"] and list(m.named_buffers()) == [], "parameter over buffer"


@pytest.mark.claim("modules.unfreeze-after-filtered-optimizer")
def test_unfrozen_parameters_stay_put_until_added_to_the_optimizer():
    """Tutorials: set requires_grad back to True at epoch 10 and the filtered optimizer trains the layer.
    True: the filter ran when the optimizer was built; the unfrozen fc1 gets a .grad but step()
    leaves it unchanged until optimizer.add_param_group adds it."""
    model = TinyNet()
    model.fc1.requires_grad_(False)
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
    train(model, opt, steps=2)
    model.fc1.requires_grad_(True)
    before = model.fc1.weight.detach().clone()
    train(model, opt, steps=3)
    assert model.fc1.weight.grad is not None, "the unfrozen fc1 got no gradient"
    assert torch.equal(before, model.fc1.weight), "step() changed fc1 although it is in no param group"
    opt.add_param_group({"params": list(model.fc1.parameters())})
    train(model, opt, steps=1)
    assert not torch.equal(before, model.fc1.weight), "fc1 did not train after add_param_group"


@pytest.mark.claim("modules.unfreeze-after-filtered-optimizer", as_written=True)
def test_as_written_unfreezing_later_trains_the_layer_with_the_filtered_optimizer():
    """Tutorials: unfreezing mid-training is enough.  True: the filtered optimizer never sees it (strict xfail)."""
    model = TinyNet()
    model.fc1.requires_grad_(False)
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
    model.fc1.requires_grad_(True)
    before = model.fc1.weight.detach().clone()
    train(model, opt, steps=3)
    assert not torch.equal(before, model.fc1.weight), "the unfrozen fc1.weight did not change"


@pytest.mark.claim("modules.none-buffer-is-declaration")
def test_a_none_buffer_or_parameter_only_reserves_the_name():
    """Tutorials: a Parameter or buffer set to None is only a declaration.
    True: the name reads None and is absent from buffers(), parameters() and state_dict() until a
    tensor is assigned, which then lands in the reserved registry."""
    m = nn.Module()
    m.register_buffer("b", None)
    m.register_parameter("p", None)
    assert m.b is None and m.p is None
    assert list(m.buffers()) == [] and list(m.parameters()) == [] and list(m.state_dict()) == [], list(m.state_dict())
    m.b = torch.zeros(2)
    m.p = nn.Parameter(torch.ones(2))
    assert [n for n, _ in m.named_buffers()] == ["b"] and [n for n, _ in m.named_parameters()] == ["p"]
    assert list(m.state_dict()) == ["p", "b"], list(m.state_dict())
    with pytest.raises(TypeError, match="cannot assign"):
        m.p = torch.zeros(2)

"""Modules, chapter 1: nn.Module as a registry of parameters, buffers and submodules.

What attribute assignment registers, what parameters()/buffers()/children()/modules()
walk, what state_dict() holds and what to() converts (the material's table, row by row),
plain lists of layers, layers built inside forward, nn.functional against modules, and
where a module's device really comes from.
Sources: 000 §3, §3.1; 002 §3.3, §5.2; 003 §1, §3.3, §5.1; 004 §4.1, §4.2.
"""
import collections

import pytest
import torch
import torch.nn.functional as F
from torch import nn


class ConvBN(nn.Module):
    """conv1 -> bn1, the shape of model the material's §3.3.1 example prints."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn1(self.conv1(x))


class WithExtraState(nn.Module):
    """A persistent and a non-persistent buffer, a plain tensor and a Dropout."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("kept", torch.ones(2))
        self.register_buffer("scratch", torch.ones(2), persistent=False)
        self.plain = torch.ones(2)
        self.drop = nn.Dropout(0.3)


# --- parameters against buffers (headline) -------------------------------------------


@pytest.mark.claim("modules.parameters-exclude-buffers")
def test_parameters_yield_no_buffers():
    """Material: parameters() gives learnable tensors only, never buffers.
    True: running_mean/var and num_batches_tracked are buffers only."""
    model = ConvBN()
    params = list(model.parameters())
    for name, buf in model.named_buffers():
        assert not any(buf is p for p in params), (
            f"buffer {name!r} is yielded by model.parameters(), but buffers should be excluded")
    assert len(params) == 3, (
        f"len(list(model.parameters())) = {len(params)}, but should be 3 "
        "(conv1.weight, bn1.weight, bn1.bias)")
    registered = [p for m in model.modules() for p in m._parameters.values() if p is not None]
    assert [id(p) for p in params] == [id(p) for p in registered], (
        "model.parameters() should walk exactly the _parameters registries of every module")
    named = [name for name, _ in model.named_parameters()]
    assert named == ["conv1.weight", "bn1.weight", "bn1.bias"], (
        f"named_parameters() names = {named}, but should be the three parameters and no buffer")
    buffers = [name for name, _ in model.named_buffers()]
    assert buffers == ["bn1.running_mean", "bn1.running_var", "bn1.num_batches_tracked"], (
        f"named_buffers() names = {buffers}, but should be bn1's running_mean, running_var, num_batches_tracked")
    assert len(list(model.buffers())) == 3


@pytest.mark.claim("modules.parameters-exclude-buffers")
def test_optimizer_built_from_parameters_leaves_buffers_alone():
    """Material: an optimizer from parameters() cannot touch the running statistics.
    True: optimizer.step() changes weights; only BatchNorm's forward changes buffers."""
    model = ConvBN()
    with torch.no_grad():
        model.bn1.running_mean.fill_(0.5)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    before = {k: v.clone() for k, v in model.named_buffers()}
    model.eval()  # eval forward: buffers untouched, so any change would be the optimizer's
    model(torch.randn(2, 3, 5, 5)).square().sum().backward()
    optimizer.step()
    for name, buf in model.named_buffers():
        torch.testing.assert_close(buf, before[name], msg=lambda m: (
            f"buffer {name!r} changed after optimizer.step(), but the optimizer should "
            f"not see buffers: {m}"))
    assert optimizer.param_groups[0]["params"][0] is model.conv1.weight
    model.train()
    model(torch.randn(2, 3, 5, 5))  # a train-mode forward is what moves the running statistics
    assert not torch.equal(model.bn1.running_mean, before["bn1.running_mean"]), (
        "a train-mode forward of BatchNorm left running_mean unchanged; the forward should update it")
    assert model.bn1.num_batches_tracked.item() == 1, (
        f"num_batches_tracked = {model.bn1.num_batches_tracked.item()} after one train forward, expected 1")


@pytest.mark.claim("modules.named-buffers-lists-running-mean")
def test_bn_running_mean_is_named_buffer_not_parameter():
    """Material: named_buffers() shows bn1.running_mean, named_parameters() does not.
    True: exactly so; bn1.weight/bias are the parameters."""
    model = ConvBN()
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    assert set(params) == {"conv1.weight", "bn1.weight", "bn1.bias"}, (
        f"named_parameters() keys = {sorted(params)}, but should be conv1.weight, bn1.weight, bn1.bias")
    assert set(buffers) == {"bn1.running_mean", "bn1.running_var", "bn1.num_batches_tracked"}, (
        f"named_buffers() keys = {sorted(buffers)}, but should be bn1's running_mean, "
        "running_var, num_batches_tracked")


@pytest.mark.claim("modules.registries-are-ordered-dicts")
def test_three_separate_registries_exist():
    """Material: three separate OrderedDicts for parameters, buffers, modules.
    True: three separate registries, plain dicts on torch >= 2.5."""
    model = ConvBN()
    assert set(model._parameters) == set() and set(model._modules) == {"conv1", "bn1"}, (
        f"ConvBN()._parameters={list(model._parameters)}, _modules={list(model._modules)}; "
        "expected no own parameters and the two submodules")
    assert set(model.bn1._buffers) == {"running_mean", "running_var", "num_batches_tracked"}
    registries = [getattr(model, name) for name in ("_parameters", "_buffers", "_modules")]
    assert len({id(r) for r in registries}) == 3, "the three registries should be separate objects"
    assert list(model._modules) == ["conv1", "bn1"] and list(model.bn1._buffers) == [
        "running_mean", "running_var", "num_batches_tracked"], (
        f"registry order: _modules={list(model._modules)}, bn1._buffers={list(model.bn1._buffers)}; "
        "expected insertion order")
    for name in ("_parameters", "_buffers", "_modules"):
        # what changed in 2.5 (pytorch/pytorch#129164): a plain dict, no longer an OrderedDict
        assert type(getattr(model, name)) is dict, (
            f"type(model.{name}) is {type(getattr(model, name)).__name__}, but should be a plain dict")


# the switch to dict landed in 2024 (pytorch/pytorch#129164); older releases used OrderedDict
@pytest.mark.claim("modules.registries-are-ordered-dicts", as_written=True)
def test_as_written_registries_are_ordered_dicts():
    """Material: the registries are OrderedDict instances.
    True: plain dict since pytorch/pytorch#129164."""
    model = ConvBN()
    for name in ("_parameters", "_buffers", "_modules"):
        assert isinstance(getattr(model, name), collections.OrderedDict), (
            f"type(model.{name}) is {type(getattr(model, name)).__name__}, "
            "but the material says OrderedDict")


# --- the material's table, row by row -----------------------------------------------


@pytest.mark.claim("modules.table-parameters-row")
def test_parameters_row_updated_saved_and_converted():
    """Material: parameters are updated by step(), saved, moved by to().
    True: all three; to() keeps the Parameter objects."""
    model = nn.Linear(3, 2)
    weight = model.weight
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    unchanged = [name for name, p in model.named_parameters() if torch.equal(p.detach(), before[name])]
    assert unchanged == [], f"optimizer.step() left {unchanged} unchanged, but every parameter had a gradient"
    nested = nn.Sequential(nn.Linear(3, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 1)))
    assert list(nested.state_dict()) == [name for name, _ in nested.named_parameters()] == [
        "0.weight", "0.bias", "1.1.weight", "1.1.bias"], (
        f"state_dict() keys = {list(nested.state_dict())}, but should be each parameter's dotted name")
    model.to(torch.float64)
    assert model.weight.dtype == torch.float64 and model.weight is weight, (
        f"after to(float64) weight dtype = {model.weight.dtype}, same object = "
        f"{model.weight is weight}; expected float64 and the same Parameter")
    model.to("meta")
    assert {p.device.type for p in model.parameters()} == {"meta"}, (
        f"after to('meta') parameter devices = {[p.device for p in model.parameters()]}, expected meta")


@pytest.mark.claim("modules.table-buffers-row")
def test_buffers_row_saved_and_converted_but_not_optimised():
    """Material: buffers are not optimised, are saved, are moved by to().
    True: so for persistent buffers such as BatchNorm's running statistics."""
    bn = nn.BatchNorm1d(3)
    optimizer = torch.optim.SGD(bn.parameters(), lr=0.1)
    assert all(bn.running_mean is not p for g in optimizer.param_groups for p in g["params"])
    assert {"running_mean", "running_var", "num_batches_tracked"} <= set(bn.state_dict()), (
        f"BatchNorm1d state_dict keys = {list(bn.state_dict())}, but should hold the running stats")
    assert bn.num_batches_tracked.dtype == torch.int64
    bn.to(torch.float64)
    assert bn.running_mean.dtype == torch.float64, (
        f"running_mean dtype after to(float64) = {bn.running_mean.dtype}, but should be float64")
    assert bn.num_batches_tracked.dtype == torch.int64, (
        "to(float64) converted the integer buffer num_batches_tracked; only floating tensors convert")


@pytest.mark.claim("modules.table-buffers-row")
def test_dropout_p_is_a_float_not_a_buffer():
    """Material: Dropout.p is a typical buffer.
    True: p is a Python float; Dropout has no buffers and an empty state_dict."""
    drop = nn.Dropout(0.3)
    assert isinstance(drop.p, float), f"type(nn.Dropout(0.3).p) = {type(drop.p).__name__}, expected float"
    assert list(drop.buffers()) == [], f"nn.Dropout buffers = {list(drop.buffers())}, expected none"
    assert list(drop.state_dict()) == [], (
        f"nn.Dropout(0.3).state_dict() keys = {list(drop.state_dict())}, expected none")


@pytest.mark.claim("modules.table-buffers-row")
def test_non_persistent_buffer_and_plain_tensor_attribute():
    """Material: buffers are always in state_dict(); the table knows no other kind of state.
    True: persistent=False buffers are moved but not saved; plain tensors neither; no 'training'."""
    model = WithExtraState()
    keys = set(model.state_dict())
    assert keys == {"fc.weight", "fc.bias", "kept"}, (
        f"state_dict() keys = {sorted(keys)}, but should be fc.weight, fc.bias, kept "
        "(no non-persistent buffer, no plain tensor, no Dropout.p, no training flag)")
    assert {name for name, _ in model.named_buffers()} == {"kept", "scratch"}
    model.to(torch.float64)
    assert model.scratch.dtype == torch.float64, (
        f"non-persistent buffer dtype after to(float64) = {model.scratch.dtype}, but should be float64")
    assert model.plain.dtype == torch.float32, (
        f"plain tensor attribute dtype after to(float64) = {model.plain.dtype}, but to() "
        "should not touch unregistered tensors")


@pytest.mark.claim("modules.table-buffers-row", as_written=True)
def test_as_written_dropout_p_in_state_dict():
    """Material: Dropout.p is a buffer, and buffers are saved in state_dict().
    True: Dropout's state_dict is empty."""
    assert "p" in nn.Dropout(0.3).state_dict(), "nn.Dropout(0.3).state_dict() has no 'p'"


@pytest.mark.claim("modules.table-buffers-row", as_written=True)
def test_as_written_every_buffer_saved():
    """Material: buffers are saved in state_dict().
    True: not those registered with persistent=False."""
    model = WithExtraState()
    missing = {name for name, _ in model.named_buffers()} - set(model.state_dict())
    assert not missing, f"buffers {sorted(missing)} are missing from state_dict()"


@pytest.mark.claim("modules.table-modules-row")
def test_state_dict_has_no_key_per_module():
    """Material: a submodule is saved only through its parameters and buffers.
    True: keys are dotted tensor names; ReLU/MaxPool contribute nothing."""
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.BatchNorm2d(2))
    keys = list(model.state_dict())
    assert keys == ["0.weight", "0.bias", "2.weight", "2.bias", "2.running_mean",
                    "2.running_var", "2.num_batches_tracked"], (
        f"state_dict() keys = {keys}; expected only tensors of modules 0 and 2")
    model.to(torch.float64)
    assert model[2].running_var.dtype == torch.float64, "to() did not recurse into the submodule"


@pytest.mark.claim("modules.bn-running-stats-momentum")
def test_bn_running_stats_update_in_train_only():
    """Material: running stats follow a momentum update in training, frozen in eval.
    True: new = 0.9 * old + 0.1 * batch statistic (unbiased var); eval leaves them."""
    bn = nn.BatchNorm1d(2)
    x = torch.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 10.0]])
    bn(x)
    torch.testing.assert_close(bn.running_mean, 0.1 * x.mean(0))
    torch.testing.assert_close(bn.running_var, 0.9 + 0.1 * x.var(0, unbiased=True))
    assert bn.num_batches_tracked.item() == 1
    frozen = bn.running_mean.clone()
    bn.eval()
    bn(x * 100)
    torch.testing.assert_close(bn.running_mean, frozen, msg=lambda m: (
        f"an eval-mode forward changed running_mean, but it should be frozen: {m}"))


# --- registration by attribute assignment -------------------------------------------


class Net(nn.Module):
    """The material's two-layer net (004 §4.1)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


@pytest.mark.claim("modules.setattr-registers")
def test_attribute_assignment_registers_submodules_and_parameters():
    """Material: __setattr__ files Parameters and Modules into their registries.
    True: so; the names leave __dict__ and every walker recurses."""
    net = Net()
    net.scale = nn.Parameter(torch.ones(()))
    assert "fc1" in net._modules and "scale" in net._parameters, (
        f"_modules={list(net._modules)}, _parameters={list(net._parameters)}: assignment did not register")
    assert "fc1" not in net.__dict__ and "scale" not in net.__dict__
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert list(net.state_dict()) == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"], (
        f"state_dict() keys = {list(net.state_dict())}; expected the submodules' tensors under dotted names")
    net.to(torch.float64)
    assert net.fc2.bias.dtype == torch.float64


@pytest.mark.claim("modules.net-has-four-parameter-tensors")
def test_two_layer_net_has_four_parameter_tensors():
    """Material: Net(784->128->10) has 4 parameter tensors.
    True: 4 tensors, 101,770 scalars."""
    net = Net()
    params = list(net.parameters())
    assert len(params) == 4, f"len(list(Net().parameters())) = {len(params)}, but should be 4"
    assert sum(p.numel() for p in params) == 784 * 128 + 128 + 128 * 10 + 10
    assert net(torch.randn(2, 784)).shape == (2, 10)


class ListNet(nn.Module):
    def __init__(self, wrap):
        super().__init__()
        layers = [nn.Linear(3, 3), nn.Linear(3, 1)]
        self.layers = nn.ModuleList(layers) if wrap else layers

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


@pytest.mark.claim("modules.plain-list-not-registered")
def test_plain_list_layers_are_invisible_and_never_learn():
    """Material: layers in a Python list are unregistered and never update.
    True: not in parameters()/state_dict()/children(), not converted, unchanged by step()."""
    model = ListNet(wrap=False)
    assert list(model.parameters()) == [] and list(model.state_dict()) == [], (
        f"parameters()={list(model.parameters())}, state_dict keys={list(model.state_dict())}; "
        "a plain list should register nothing")
    assert list(model.children()) == []
    before = model.layers[0].weight.detach().clone()
    with pytest.raises(ValueError, match="empty parameter list"):
        torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(4, 3)).sum().backward()
    assert model.layers[0].weight.grad is not None, "backward should still fill .grad"
    torch.testing.assert_close(model.layers[0].weight.detach(), before)
    model.head = nn.Linear(1, 1)  # a registered layer, so that an optimizer can be built and step
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.head(model(torch.randn(4, 3))).sum().backward()
    optimizer.step()
    torch.testing.assert_close(model.layers[0].weight.detach(), before, msg=lambda m: (
        f"a layer held in a plain list changed after optimizer.step(), but the optimizer never sees it: {m}"))
    assert model.layers[0].weight.grad is not None
    model.to(torch.float64)
    assert model.layers[0].weight.dtype == torch.float32, "to() reached a layer held in a plain list"
    model.to("meta")
    assert model.layers[0].weight.device.type == "cpu", "to('meta') moved a layer held in a plain list"


@pytest.mark.claim("modules.plain-list-not-registered")
def test_module_list_registers_the_same_layers():
    """Material: nn.ModuleList fixes the plain list.
    True: keys 'layers.0.weight' ...; the optimizer updates them."""
    model = ListNet(wrap=True)
    assert list(model.state_dict()) == ["layers.0.weight", "layers.0.bias",
                                        "layers.1.weight", "layers.1.bias"]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.layers[0].weight.detach().clone()
    model(torch.randn(4, 3)).sum().backward()
    optimizer.step()
    assert not torch.equal(model.layers[0].weight.detach(), before), (
        "a layer inside nn.ModuleList did not change after optimizer.step()")


@pytest.mark.claim("modules.super-init-required")
@pytest.mark.parametrize("value, word", [
    (lambda: nn.Linear(2, 2), "module"),
    (lambda: nn.Parameter(torch.zeros(2)), "parameters"),
])
def test_forgetting_super_init_fails_at_first_registration(value, word):
    """Material: forgetting super().__init__() breaks the module.
    True: AttributeError 'cannot assign ... before Module.__init__() call'."""
    class Forgetful(nn.Module):
        def __init__(self):
            self.plain = torch.zeros(1)  # plain tensors pass: no registry needed
            self.layer = value()

    with pytest.raises(AttributeError, match=f"cannot assign {word} before Module.__init__"):
        Forgetful()


@pytest.mark.claim("modules.super-init-required")
def test_forgetting_super_init_without_layers_fails_at_the_first_call():
    """Material: forgetting super().__init__() breaks the module.
    True: with only plain attributes construction passes, and the first call raises AttributeError."""
    class NoLayers(nn.Module):
        def __init__(self):
            self.scale = torch.ones(1)

        def forward(self, x):
            return x * self.scale

    model = NoLayers()
    assert torch.equal(model.scale, torch.ones(1)), "a plain tensor attribute should be set without super().__init__()"
    with pytest.raises(AttributeError):
        model(torch.ones(2))


@pytest.mark.claim("modules.sequential-runs-in-order")
def test_sequential_calls_layers_in_insertion_order():
    """Material: Sequential pipes the input through its layers in order.
    True: Sequential(a, b, c)(x) == c(b(a(x))); keys '0', '1', '2'."""
    a, b, c = nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)
    seq = nn.Sequential(a, b, c)
    x = torch.randn(5, 3)
    torch.testing.assert_close(seq(x), c(b(a(x))))
    assert list(seq._modules) == ["0", "1", "2"]
    named = nn.Sequential(collections.OrderedDict([("first", a), ("act", b), ("last", c)]))
    assert [n for n, _ in named.named_children()] == ["first", "act", "last"]


@pytest.mark.claim("modules.swappable-head")
def test_swapping_the_head_by_assignment(ref):
    """Material: 64x6x6 features for CIFAR; model.classifier = Linear(2304, 100) swaps the head.
    True: so; an optimizer built before the swap still holds the old head."""
    model = ref.models.SwappableHeadNet(num_classes=10)
    x = torch.randn(2, 3, 32, 32)
    sides, h = [], x
    for layer in model.features:
        h = layer(h)
        if isinstance(layer, (nn.Conv2d, nn.MaxPool2d)):
            sides.append(h.shape[-1])
    assert sides == [30, 15, 13, 6], f"spatial sides after each conv/pool = {sides}, expected 32 -> 30 -> 15 -> 13 -> 6"
    features = model.features(x)
    assert features.shape == (2, 64, 6, 6), f"features(x).shape = {tuple(features.shape)}, expected (2, 64, 6, 6)"
    assert model.feature_size == 64 * 6 * 6 == 2304
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    old_head = model.classifier
    model.classifier = nn.Linear(64 * 6 * 6, 100)
    assert model(x).shape == (2, 100), f"output shape after swap = {tuple(model(x).shape)}, expected (2, 100)"
    assert model.state_dict()["classifier.weight"].shape == (100, 2304)
    params = list(model.parameters())
    assert any(p is model.classifier.weight for p in params) and not any(p is old_head.weight for p in params), (
        "after the swap parameters() should yield the new head's weight and not the old one's")
    held = [p for g in optimizer.param_groups for p in g["params"]]
    assert any(p is old_head.weight for p in held) and not any(p is model.classifier.weight for p in held), (
        "the optimizer built before the swap should hold the old head's weight, not the new one")
    before = model.classifier.weight.detach().clone()
    model(x).sum().backward()
    optimizer.step()
    torch.testing.assert_close(model.classifier.weight.detach(), before, msg=lambda m: (
        f"the old optimizer moved the new head, but it does not hold it: {m}"))
    optimizer.add_param_group({"params": model.classifier.parameters()})
    optimizer.step()
    assert not torch.equal(model.classifier.weight.detach(), before), (
        "after add_param_group(new head) optimizer.step() still left the new head unchanged")


@pytest.mark.claim("modules.swappable-head")
def test_reference_replace_head_returns_registered_head(ref):
    """The reference helper replace_head registers the new head under 'classifier'."""
    model = ref.models.SwappableHeadNet()
    head = model.replace_head(7)
    assert model.classifier is head and model(torch.randn(1, 3, 32, 32)).shape == (1, 7)


class ReluInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return nn.ReLU()(self.fc(x))


class ReluRegistered(ReluInForward):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.fc(x))


@pytest.mark.claim("modules.layer-created-in-forward")
def test_relu_created_in_forward_changes_nothing():
    """Material: nn.ReLU() in forward breaks parameter sharing.
    True: ReLU has no parameters; values and gradients are identical."""
    a, b = ReluInForward(), ReluRegistered()
    b.load_state_dict(a.state_dict())
    x = torch.randn(3, 4)
    out_a, out_b = a(x), b(x)
    torch.testing.assert_close(out_a, out_b)
    out_a.sum().backward()
    out_b.sum().backward()
    torch.testing.assert_close(a.fc.weight.grad, b.fc.weight.grad)
    assert list(nn.ReLU().parameters()) == []
    made = []
    handle = nn.modules.module.register_module_forward_hook(
        lambda m, i, o: made.append(m) if isinstance(m, nn.ReLU) else None)
    try:
        a(x)
        a(x)
    finally:
        handle.remove()
    assert len(made) == 2 and made[0] is not made[1], (
        f"ReLU objects run by two calls of ReluInForward: {len(made)}, distinct: "
        f"{len(made) == 2 and made[0] is not made[1]}; expected a new one per call")


@pytest.mark.claim("modules.layer-created-in-forward")
def test_linear_created_in_forward_is_unregistered_and_random():
    """Material: do not build layers in forward.
    True: a Linear built in forward is re-drawn each call and never in parameters()."""
    class LinearInForward(nn.Module):
        def forward(self, x):
            return nn.Linear(4, 2)(x)

    model = LinearInForward()
    x = torch.randn(3, 4)
    assert list(model.parameters()) == [], "a layer built in forward should not be registered"
    assert not torch.equal(model(x), model(x)), "two calls gave equal outputs, but weights are re-drawn per call"
    with pytest.raises(ValueError, match="empty parameter list"):
        torch.optim.SGD(model.parameters(), lr=0.1)  # nothing for an optimizer to train


@pytest.mark.claim("modules.layer-created-in-forward", as_written=True)
def test_as_written_relu_in_forward_differs_from_registered_relu():
    """Material: a ReLU made in forward behaves differently (cannot share parameters).
    True: no difference at all."""
    a, b = ReluInForward(), ReluRegistered()
    b.load_state_dict(a.state_dict())
    x = torch.randn(3, 4)
    assert not torch.equal(a(x), b(x)), "nn.ReLU() in forward gives the same output as self.relu"


@pytest.mark.claim("modules.functional-vs-module")
def test_functional_is_stateless_module_owns_parameters():
    """Material: F.* stateless, nn.* stateful; learnable things belong in Modules.
    True: F.relu == nn.ReLU(); F.linear needs weight passed; nn.Linear registers 2 params."""
    x = torch.randn(4, 3)
    torch.testing.assert_close(F.relu(x), nn.ReLU()(x))
    layer = nn.Linear(3, 2)
    torch.testing.assert_close(F.linear(x, layer.weight, layer.bias), layer(x))
    assert len(list(layer.parameters())) == 2 and len(list(nn.ReLU().parameters())) == 0
    with pytest.raises(TypeError):
        F.linear(x)  # the functional form owns no weight: it must be passed in
    relu = nn.ReLU()
    assert (list(relu.buffers()), list(relu.state_dict()), list(relu.children())) == ([], [], []), (
        "nn.ReLU() should register no buffers, state or submodules")
    loss = nn.CrossEntropyLoss(label_smoothing=0.1)
    public = {k: v for k, v in vars(loss).items() if not k.startswith("_")}
    assert public == {"training": True, "reduction": "mean", "ignore_index": -100, "label_smoothing": 0.1}, (
        f"nn.CrossEntropyLoss public attributes = {public}; expected its options and the training flag only")
    assert dict(loss.state_dict()) == {}, f"nn.CrossEntropyLoss().state_dict() = {dict(loss.state_dict())}"


@pytest.mark.claim("modules.modules-iterates-recursively")
def test_modules_walks_the_whole_tree_children_only_one_level(ref):
    """Material: self.modules() reaches every Conv2d/Linear, inside Sequential too.
    True: modules() = self + all descendants; children() = direct submodules."""
    model = ref.models.SmallCNN()
    kinds = [type(m).__name__ for m in model.modules()]
    assert kinds[0] == "SmallCNN" and kinds.count("Conv2d") == 2 and kinds.count("Linear") == 2, (
        f"modules() gave {kinds}; expected the root first, then 2 Conv2d and 2 Linear among all")
    assert [n for n, _ in model.named_children()] == ["features", "classifier"]
    assert [n for n, _ in model.named_modules()][:3] == ["", "features", "features.0"]
    shared = nn.Linear(2, 2)
    tree = nn.Sequential(nn.Sequential(shared, nn.ReLU()), shared, nn.Sequential(nn.Tanh()))
    order = [n for n, _ in tree.named_modules()]
    assert order == ["", "0", "0.0", "0.1", "2", "2.0"], (
        f"named_modules() order = {order}; expected depth-first with the shared Linear once")
    assert len(list(tree.modules())) == 6


@pytest.mark.claim("modules.module-has-no-device-attribute")
def test_module_has_no_device_attribute():
    """Material: write x = x.to(self.device) in forward.
    True: nn.Module has no 'device' attribute: AttributeError."""
    with pytest.raises(AttributeError, match="has no attribute 'device'"):
        _ = nn.Linear(2, 2).device


@pytest.mark.claim("modules.module-has-no-device-attribute")
def test_hand_set_device_goes_stale_and_a_parameter_knows_the_device():
    """Material: write x = x.to(self.device) in forward.
    True: a hand-set self.device is not updated by model.to(); next(parameters()).device is."""
    class HandSet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.device = torch.device("cpu")

    model = HandSet().to("meta")
    assert model.device == torch.device("cpu"), f"hand-set device after to('meta') = {model.device}"
    assert next(model.parameters()).device.type == "meta", (
        f"next(model.parameters()).device = {next(model.parameters()).device}, expected meta after to('meta')")


@pytest.mark.claim("modules.module-has-no-device-attribute", as_written=True, raises=AttributeError, match=r"has no attribute 'device'")
def test_as_written_self_device_in_forward():
    """Material: x.to(self.device) keeps input and model together.
    True: AttributeError on a module that does not define device itself."""
    class UsesSelfDevice(nn.Linear):
        def forward(self, x):
            return super().forward(x.to(self.device))

    assert UsesSelfDevice(2, 2)(torch.ones(1, 2)).shape == (1, 2)


@pytest.mark.claim("devices.first-parameter-device-check")
def test_next_parameters_device_follows_the_model(device):
    """Material: next(model.parameters()).device tells where the model lives.
    True: it follows model.to(); a parameterless model raises StopIteration."""
    model = nn.Linear(2, 2).to(device)
    here = next(model.parameters()).device
    assert here.type == torch.device(device).type, f"next(parameters()).device = {here}, expected {device}"
    x = torch.ones(1, 2).to(next(model.parameters()).device)
    assert model(x).device == here
    with pytest.raises(StopIteration):
        next(nn.ReLU().parameters())


@pytest.mark.claim("modules.containers-are-list-and-dict")
def test_containers_are_registered_modules_with_a_list_interface():
    """Material: Sequential and ModuleList are essentially a Python list/dict.
    True: list-like interface, but Module subclasses that register their members."""
    layers = nn.ModuleList([nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 1))
    assert len(layers) == 2 and isinstance(layers[1], nn.Linear)
    assert [type(m).__name__ for m in layers] == ["Linear", "Linear"], "iterating a ModuleList"
    assert list(layers._modules) == ["0", "1"] and type(layers._modules) is dict
    assert isinstance(layers, nn.Module) and not isinstance(layers, list), (
        f"type(nn.ModuleList(...)).__mro__ = {type(layers).__mro__}; expected a Module, not a list")
    seq, table = nn.Sequential(nn.Linear(2, 2)), nn.ModuleDict({"a": nn.Linear(2, 2)})
    for container in (seq, table):
        assert isinstance(container, nn.Module) and not isinstance(container, (list, dict)), (
            f"{type(container).__name__} is a list or dict instance, or not a Module")
    assert list(layers.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert len(list(layers.parameters())) == 4 and len(list(table.parameters())) == 2
    layers.to(torch.float64)
    assert {p.dtype for p in layers.parameters()} == {torch.float64}, "to() did not reach the members"


@pytest.mark.claim("modules.containers-are-list-and-dict", as_written=True)
def test_as_written_module_list_is_a_list():
    """Material: ModuleList is at bottom a Python list.
    True: it is an nn.Module, not a list instance."""
    assert isinstance(nn.ModuleList(), list), "nn.ModuleList() is not a list instance"


@pytest.mark.claim("autograd.partial-no-grad-leaves-none")
def test_forward_under_no_grad_shows_in_grad_fn_not_in_requires_grad():
    """Material: print [p.requires_grad ...] and loss.grad_fn to find why grads are None.
    True: under no_grad grad_fn is None while requires_grad stays True; backward raises."""
    model = nn.Linear(3, 1)
    with torch.no_grad():
        loss = model(torch.randn(4, 3)).pow(2).mean()
    assert [p.requires_grad for p in model.parameters()] == [True, True]
    assert loss.grad_fn is None, f"loss.grad_fn under no_grad = {loss.grad_fn}, expected None"
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        loss.backward()
    assert model.weight.grad is None


@pytest.mark.claim("modules.sequential-cannot-express-custom-forward")
def test_sequential_holds_dropout_but_residual_needs_custom_forward(ref):
    """Material: Dropout and residual connections both need a custom nn.Module forward.
    True: Dropout sits in Sequential and follows eval(); only the residual needs forward."""
    seq = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    x = torch.ones(200, 4)
    seq.train()
    assert (seq(x) == 0).any(), "a train-mode Sequential with Dropout(0.5) dropped nothing"
    seq.eval()
    torch.testing.assert_close(seq(x), seq[0](x))
    with pytest.raises(TypeError):
        nn.Sequential(nn.Linear(4, 4))(x, x)  # a chain takes one input: several inputs need forward
    block = ref.models.BasicBlock(4, 4).eval()
    chain = nn.Sequential(block.conv1, block.bn1, nn.ReLU(), block.conv2, block.bn2)
    y = torch.randn(1, 4, 6, 6)
    with torch.no_grad():
        torch.testing.assert_close(block(y), torch.relu(chain(y) + y))  # the sum needs forward
        assert not torch.allclose(block(y), torch.relu(chain(y))), (
            "the block equals its layers chained; the residual sum should make a difference")


@pytest.mark.claim("modules.sequential-cannot-express-custom-forward", as_written=True)
def test_as_written_dropout_needs_custom_forward():
    """Material: adding Dropout requires writing an nn.Module subclass with forward.
    True: nn.Sequential(..., nn.Dropout(p)) works and honours eval()."""
    seq = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).eval()
    x = torch.ones(2, 4)
    assert not torch.equal(seq(x), seq[0](x)), "Dropout inside Sequential was switched off by eval()"

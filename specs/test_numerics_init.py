"""Numerics, default weight initialisation of Linear and Conv, and nn.init.kaiming_normal_'s defaults (issue #41, tutorials).

Bounds are checked on the drawn values (every value inside, the extremes close to the bound) and
against a reset_parameters done by hand with the same seed.
"""
import math

import pytest
import torch
import torch.nn as nn


def _reinit_by_hand(module):
    nn.init.kaiming_uniform_(module.weight, a=math.sqrt(5))
    fan_in = module.weight[0].numel()
    bound = 1 / math.sqrt(fan_in)
    nn.init.uniform_(module.bias, -bound, bound)


@pytest.mark.claim("numerics.linear-default-init-uniform")
def test_linear_weight_and_bias_are_uniform_within_one_over_sqrt_in_features():
    """Tutorials: Linear weights come from kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)); bias likewise, not 0.
    True: both bounds are 1/sqrt(in_features) and reset_parameters is exactly those two calls."""
    torch.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = layer.weight.detach(), layer.bias.detach()
    assert w.abs().max() <= bound and w.abs().max() > 0.99 * bound, f"max |w| {w.abs().max():.5f}, bound {bound}"
    assert b.abs().max() <= bound and b.abs().max() > 0.95 * bound, f"max |b| {b.abs().max():.5f}, bound {bound}"
    assert b.abs().min() > 0 and b.std() > 0.5 * bound, "bias should be random, not zeros"
    assert abs(w.std().item() - bound / math.sqrt(3)) < 0.02 * bound, f"std {w.std():.5f}, expected {bound / math.sqrt(3):.5f}"
    torch.manual_seed(1)
    layer.reset_parameters()
    again = nn.Linear(400, 300)
    torch.manual_seed(1)
    _reinit_by_hand(again)
    assert torch.equal(layer.weight, again.weight) and torch.equal(layer.bias, again.bias), "reset_parameters differs"


@pytest.mark.claim("numerics.conv-default-init-uniform")
def test_conv2d_uses_the_same_rule_with_fan_in_of_channels_times_kernel():
    """Tutorials: Conv layers are initialised like Linear.  True: the bound is 1/sqrt(in_channels * kh * kw)."""
    torch.manual_seed(0)
    conv = nn.Conv2d(16, 32, 3)
    bound = 1 / math.sqrt(16 * 3 * 3)
    w, b = conv.weight.detach(), conv.bias.detach()
    assert w.abs().max() <= bound and w.abs().max() > 0.99 * bound, f"max |w| {w.abs().max():.5f}, bound {bound}"
    assert b.abs().max() <= bound and b.abs().min() > 0, f"bias range {b.abs().min():.5f}..{b.abs().max():.5f}"
    torch.manual_seed(1)
    conv.reset_parameters()
    again = nn.Conv2d(16, 32, 3)
    torch.manual_seed(1)
    _reinit_by_hand(again)
    assert torch.equal(conv.weight, again.weight) and torch.equal(conv.bias, again.bias), "reset_parameters differs"


@pytest.mark.claim("numerics.kaiming-normal-defaults")
def test_kaiming_normal_defaults_are_a0_fan_in_leaky_relu_and_work_in_place():
    """Tutorials: kaiming_normal_(w) has a=0, mode='fan_in', nonlinearity='leaky_relu'; std = sqrt(2 / ((1 + a**2) * fan_in)).
    True: with those defaults std = sqrt(2 / fan_in) (leaky_relu with a=0 is relu's gain); it fills w in place and returns it."""
    w = torch.empty(500, 800)
    torch.manual_seed(0)
    returned = nn.init.kaiming_normal_(w)
    assert returned is w, "kaiming_normal_ should fill and return the same tensor"
    expected = math.sqrt(2 / 800)
    assert abs(w.std().item() - expected) < 0.01 * expected, f"std {w.std():.5f}, expected {expected:.5f}"
    same = torch.empty(500, 800)
    torch.manual_seed(0)
    nn.init.kaiming_normal_(same, a=0, mode="fan_in", nonlinearity="leaky_relu")
    assert torch.equal(w, same), "the explicit defaults should draw the same values"
    torch.manual_seed(0)
    sloped = nn.init.kaiming_normal_(torch.empty(500, 800), a=1.0)
    assert abs(sloped.std().item() - math.sqrt(1 / 800)) < 0.01 * math.sqrt(1 / 800), "a=1 should halve the variance"


def _xavier_bound(fan_in, fan_out, gain=1.0):
    return gain * math.sqrt(6 / (fan_in + fan_out))


@pytest.mark.claim("numerics.linear-default-not-xavier")
def test_linear_default_bound_is_one_over_sqrt_fan_in_not_xavier():
    """Tutorials: nn.Linear's weights are initialised, usually, with Xavier.
    True: for Linear(400, 100) the default bound is 1/sqrt(400) = 0.05; Xavier's would be sqrt(6/500) = 0.11."""
    torch.manual_seed(0)
    w = nn.Linear(400, 100).weight.detach()
    assert w.abs().max() <= 1 / math.sqrt(400) + 1e-7, f"max |w| {w.abs().max():.4f}"
    assert w.abs().max() < 0.5 * _xavier_bound(400, 100), "the default draws stay far inside Xavier's bound"
    xavier = nn.init.xavier_uniform_(torch.empty(100, 400))
    assert xavier.abs().max() > 2 * w.abs().max(), f"xavier max {xavier.abs().max():.4f} vs default {w.abs().max():.4f}"


@pytest.mark.claim("numerics.linear-default-not-xavier", as_written=True)
def test_as_written_linear_weights_use_xavier_uniform():
    """As the tutorial writes it: a fresh nn.Linear's weights are drawn like xavier_uniform_."""
    torch.manual_seed(0)
    w = nn.Linear(400, 100).weight.detach()
    assert w.abs().max() > 0.9 * _xavier_bound(400, 100), (
        f"max |w| {w.abs().max():.4f} stays under 1/sqrt(400); xavier would reach {_xavier_bound(400, 100):.4f}")


@pytest.mark.claim("numerics.xavier-init-scale")
def test_xavier_uniform_and_normal_scale_with_fan_in_plus_fan_out():
    """Tutorials: xavier_uniform_ draws from U(-a, a), a = gain * sqrt(6 / (n_in + n_out)); xavier_normal_ uses
    std = gain * sqrt(2 / (n_in + n_out)).  True: so on a (300, 500) weight, with gain 1 by default."""
    torch.manual_seed(0)
    u = nn.init.xavier_uniform_(torch.empty(300, 500))
    bound = _xavier_bound(500, 300)
    assert u.abs().max() <= bound and u.abs().max() > 0.99 * bound, f"max {u.abs().max():.5f}, bound {bound:.5f}"
    n = nn.init.xavier_normal_(torch.empty(300, 500))
    std = math.sqrt(2 / 800)
    assert abs(n.std().item() - std) < 0.01 * std, f"std {n.std():.5f}, expected {std:.5f}"
    g = nn.init.xavier_normal_(torch.empty(300, 500), gain=2.0)
    assert abs(g.std().item() - 2 * std) < 0.02 * std, "gain multiplies the std"


@pytest.mark.claim("numerics.init-uniform-normal-defaults")
def test_uniform_and_normal_default_to_the_unit_interval_and_standard_normal():
    """Tutorials: nn.init.uniform_ defaults to a=0, b=1 and nn.init.normal_ to mean 0, std 1; constant_/zeros_ fill values.
    True: the draws match those ranges and moments, and each function fills the tensor in place and returns it."""
    torch.manual_seed(0)
    t = torch.empty(200, 200)
    assert nn.init.uniform_(t) is t and 0 <= t.min() and t.max() < 1 and t.min() < 0.001 and t.max() > 0.999
    assert nn.init.normal_(t) is t and abs(t.mean().item()) < 0.02 and abs(t.std().item() - 1) < 0.02, t.std()
    layer = nn.Linear(5, 5)
    assert torch.equal(nn.init.zeros_(layer.bias), torch.zeros(5)) and torch.equal(layer.bias, torch.zeros(5))
    assert torch.equal(nn.init.constant_(layer.bias, 0.3), torch.full((5,), 0.3))


@pytest.mark.claim("numerics.init-without-underscore-deprecated")
def test_init_names_without_underscore_still_fill_but_warn():
    """Tutorials: nn.init.xavier_normal (no underscore) is deprecated in favour of xavier_normal_.
    True: it still fills the tensor in place and returns it, with a warning naming the underscore form
    (a FutureWarning on the installed torch, a UserWarning on older releases)."""
    t = torch.zeros(4, 6)
    with pytest.warns((FutureWarning, UserWarning), match="xavier_normal_"):
        out = nn.init.xavier_normal(t)
    assert out is t and t.abs().sum() > 0, "the deprecated name should still initialise the tensor"
    with pytest.warns((FutureWarning, UserWarning), match="normal_"):
        nn.init.normal(t)


@pytest.mark.claim("numerics.module-apply-init")
def test_module_apply_calls_the_function_on_every_submodule_then_the_module():
    """Tutorials: an init function is applied to a model's layers through .apply.
    True: model.apply(fn) calls fn on every submodule, children before parents, the model itself last, and returns the model."""
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2)))
    seen = []

    def init(m):
        seen.append(type(m).__name__)
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)

    assert model.apply(init) is model
    assert seen == ["Linear", "ReLU", "Linear", "Sequential", "Sequential"], seen
    assert all(torch.equal(m.bias, torch.zeros_like(m.bias)) for m in model.modules() if isinstance(m, nn.Linear))

"""Modules, optimizers' defaults and param groups: Adam's, AdamW's and SGD's default
hyperparameters, the keys of a param group, and per-group learning rates (issue #41, tutorials)."""
import pytest
import torch
from torch import nn


def params():
    return [nn.Parameter(torch.zeros(2))]


@pytest.mark.claim("modules.adam-sgd-adamw-defaults")
def test_adam_adamw_and_sgd_default_hyperparameters():
    """Tutorials: Adam defaults to lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0; SGD has no
    momentum unless asked.  True: those, AdamW differs only by weight_decay=0.01, and SGD's
    momentum, dampening and weight_decay are 0 with nesterov False."""
    adam = torch.optim.Adam(params()).defaults
    assert (adam["lr"], adam["betas"], adam["eps"], adam["weight_decay"], adam["amsgrad"]) == (1e-3, (0.9, 0.999), 1e-8, 0, False), adam
    adamw = torch.optim.AdamW(params()).defaults
    assert (adamw["lr"], adamw["betas"], adamw["eps"], adamw["weight_decay"]) == (1e-3, (0.9, 0.999), 1e-8, 0.01), adamw
    sgd = torch.optim.SGD(params(), lr=0.1).defaults
    assert (sgd["momentum"], sgd["dampening"], sgd["weight_decay"], sgd["nesterov"]) == (0, 0, 0, False), sgd


@pytest.mark.claim("modules.adam-sgd-adamw-defaults")
def test_sgd_without_momentum_keeps_no_state():
    """True: with the default momentum 0, SGD stores nothing per parameter after a step."""
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    p.sum().backward()
    opt.step()
    assert opt.state_dict()["state"] in ({}, {0: {"momentum_buffer": None}}), f"state {opt.state_dict()['state']}"


ADAM_KEYS_IN_TUTORIAL = {"params", "lr", "betas", "eps", "weight_decay", "amsgrad"}
SGD_KEYS_IN_TUTORIAL = {"params", "lr", "momentum", "dampening", "weight_decay", "nesterov"}


@pytest.mark.claim("modules.param-group-keys-list")
def test_param_groups_hold_params_lr_and_every_default_including_newer_flags():
    """Tutorials: Adam's group keys are params, lr, betas, eps, weight_decay, amsgrad (SGD's: params,
    lr, momentum, dampening, weight_decay, nesterov).  True: every one of those is there, and so are
    flags later releases added to every group, such as maximize, foreach and differentiable."""
    for opt, listed in [(torch.optim.Adam(params()), ADAM_KEYS_IN_TUTORIAL), (torch.optim.SGD(params(), lr=0.1), SGD_KEYS_IN_TUTORIAL)]:
        keys = set(opt.param_groups[0])
        assert keys >= listed, f"{type(opt).__name__}: {sorted(listed - keys)} missing from {sorted(keys)}"
        assert keys >= {"maximize", "foreach", "differentiable"}, f"{type(opt).__name__}: {sorted(keys)}"
        assert set(opt.defaults) | {"params"} == keys, f"{type(opt).__name__}: group keys {sorted(keys)} vs defaults {sorted(opt.defaults)}"


@pytest.mark.claim("modules.param-group-keys-list", as_written=True)
def test_as_written_adam_param_group_keys_are_the_six_listed():
    """Tutorials: exactly the six keys.  True: more (strict xfail)."""
    adam = set(torch.optim.Adam(params()).param_groups[0])
    assert adam == ADAM_KEYS_IN_TUTORIAL, f"Adam's param group keys: {sorted(adam)}"


@pytest.mark.claim("modules.param-group-lr-override")
def test_a_group_without_lr_takes_the_constructor_lr_and_one_with_lr_keeps_its_own():
    """Tutorials: in SGD([{'params': base}, {'params': head, 'lr': 1e-3}], lr=1e-2, momentum=0.9) the
    head uses 1e-3, the base 1e-2, both momentum 0.9.  True: exactly; and writing group['lr'] by
    hand changes the step the next update takes."""
    base, head = nn.Linear(2, 2), nn.Linear(2, 1)
    opt = torch.optim.SGD([{"params": base.parameters()}, {"params": head.parameters(), "lr": 1e-3}], lr=1e-2, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [1e-2, 1e-3], [g["lr"] for g in opt.param_groups]
    assert [g["momentum"] for g in opt.param_groups] == [0.9, 0.9]
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    for group in opt.param_groups:
        group["lr"] = 0.5
    p.grad = torch.ones(1)
    opt.step()
    assert p.item() == pytest.approx(-0.5), f"after setting lr 0.5 by hand, one step moved p to {p.item()}"


@pytest.mark.claim("modules.parameters-become-one-group")
def test_model_parameters_become_a_single_group_with_the_defaults_added():
    """Tutorials: SGD(model.parameters(), ...) wraps them into one group [{'params': ...}] and adds
    the defaults; a list of dicts gives one group per dict.  True: exactly."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    assert len(opt.param_groups) == 1, f"{len(opt.param_groups)} groups"
    group = opt.param_groups[0]
    assert isinstance(group["params"], list) and len(group["params"]) == 4, group["params"]
    assert all(a is b for a, b in zip(group["params"], model.parameters()))
    assert group["lr"] == 0.01 and group["momentum"] == 0.9 and group["nesterov"] is False, group
    opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[1].parameters()}], lr=0.01)
    assert [len(g["params"]) for g in opt.param_groups] == [2, 2]

"""Modules, update rules over several steps: each rule next to its documented formula.

The material shows one step of the simple case: p = p - lr * grad on a registered leaf
(004 §3.3), an SGD with lr=0.1, momentum=0.9 and weight_decay=5e-4 (003 §4.4), Adam(lr=0.001)
and zero_grad in the training loop (002 §4.4), resuming with the optimizer's state (002 §2.3),
and BatchNorm's running statistics moved with momentum while training (000 §3.1).  Here each
rule runs for several steps beside a reference written out in this file, in plain tensor
arithmetic, from the formula in torch's documentation (cited by URL at each reference), in
the cases those examples never show: parameter groups with their own settings, gradients
that are zero or None for some steps, weight decay together with momentum, dampening,
nesterov, the first step against the later ones, the foreach implementation (the default
on CUDA, not on the CPU), and BatchNorm with momentum=None.  Hypothesis draws the settings
and the gradient sequences; plain parametrized cases pin the material's own settings.
"""
from __future__ import annotations

import copy

import pytest
import torch
from hypothesis import given, strategies as st
from torch import nn

from hypothesis_helpers import assert_close, floats, property_settings, reproduce

# Tiny tensors, many small steps: one intra-op thread (conftest restores the count).
pytestmark = pytest.mark.usefixtures("one_thread")

F64 = torch.float64
SHAPES = ((2,), (3,))


def fixed_gradients(shapes=SHAPES, seed=0):
    """Five steps for two parameters, covering every case a rule can get wrong: the second
    parameter has no gradient on the first step (no state yet), the first a zero gradient on
    step 2 and None on step 3 (after it has state), the second a zero gradient on step 4."""
    g = torch.Generator().manual_seed(seed)

    def rand(i):
        return torch.randn(shapes[i], generator=g, dtype=F64)

    zero = [torch.zeros(s, dtype=F64) for s in shapes]
    return [[rand(0), None], [zero[0], rand(1)], [None, rand(1)], [rand(0), zero[1]], [rand(0), rand(1)]]


def initial_params(shapes=SHAPES, seed=1):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g, dtype=F64) for s in shapes]


def replay_code(optimizer, groups, params, steps, foreach):
    """Python that rebuilds the case with torch alone (pasted into a failure's notes)."""
    lines = ["params = [" + ", ".join(f"torch.nn.Parameter(torch.tensor({p.tolist()!r}, dtype=torch.float64))"
                                      for p in params) + "]"]
    group_code = ", ".join(f"dict(params=[params[i] for i in {members!r}], **{settings!r})"
                           for members, settings in groups)
    lines.append(f"opt = torch.optim.{optimizer}([{group_code}], lr=1e-3, foreach={foreach})")
    rows = [[None if g is None else g.tolist() for g in row] for row in steps]
    lines.append(f"for row in {rows!r}:")
    lines.append("    for p, g in zip(params, row):")
    lines.append("        p.grad = None if g is None else torch.tensor(g, dtype=torch.float64)")
    lines.append("    opt.step()")
    return "\n".join(lines)


def run_against_reference(optimizer_cls, reference_step, state_keys, groups, params0, steps, foreach,
                          resume_at=None):
    """Step torch's optimizer and the reference side by side; after every step the parameters
    and the per-parameter state must agree (a parameter the reference never touched has none).

    ``groups``: [(member indices, settings)]; ``reference_step(params, states, grads, settings_of)``
    updates lists in place; ``state_keys``: the state entries compared (name in torch -> in the
    reference).  Before step ``resume_at`` the optimizer is replaced by a fresh one that loads a
    copy of its state_dict(), as a resumed run does.
    """
    params = [nn.Parameter(p.clone()) for p in params0]

    def build():
        return optimizer_cls([dict(params=[params[i] for i in members], **settings) for members, settings in groups],
                             lr=1e-3, foreach=foreach)
    optimizer = build()
    settings_of = {i: settings for members, settings in groups for i in members}
    ref_params = [p.clone() for p in params0]
    ref_states = [{} for _ in params0]
    name = optimizer_cls.__name__
    for t, grads in enumerate(steps, start=1):
        if t == resume_at:
            saved = copy.deepcopy(optimizer.state_dict())
            optimizer = build()
            optimizer.load_state_dict(saved)
        for p, g in zip(params, grads):
            p.grad = None if g is None else g.clone()
        optimizer.step()
        reference_step(ref_params, ref_states, grads, settings_of)
        call = f"{name}(..., foreach={foreach}) step {t}" + ("" if resume_at is None else f", resumed before step {resume_at}")
        for i, (p, expected) in enumerate(zip(params, ref_params)):
            assert_close(p.detach(), expected, f"param {i} after {call}, groups {groups}")
            state = optimizer.state[p] if p in optimizer.state else {}
            for key, ref_key in state_keys.items():
                got, want = state.get(key), ref_states[i].get(ref_key)
                if want is None:
                    assert got is None, f"state[{key!r}] of param {i} = {got}, but should not exist yet [{call}]"
                else:
                    assert got is not None, f"state[{key!r}] of param {i} is missing, expected {want} [{call}]"
                    assert_close(torch.as_tensor(got, dtype=F64), torch.as_tensor(want, dtype=F64),
                                 f"state[{key!r}] of param {i} after {call}")


# --- SGD ------------------------------------------------------------------------------------


def sgd_reference_step(params, states, grads, settings_of):
    """One step of the algorithm box at https://pytorch.org/docs/stable/generated/torch.optim.SGD.html:
    g += wd * p; b = g on the first step, else mu * b + (1 - tau) * g; g = g + mu * b (nesterov)
    or b; p -= lr * g.  A parameter whose grad is None is skipped, its state untouched."""
    for i, grad in enumerate(grads):
        if grad is None:
            continue
        s = settings_of[i]
        d = grad + s["weight_decay"] * params[i]
        if s["momentum"] != 0:
            buf = states[i].get("b")
            buf = d.clone() if buf is None else s["momentum"] * buf + (1 - s["dampening"]) * d
            states[i]["b"] = buf
            d = d + s["momentum"] * buf if s["nesterov"] else buf
        params[i] = params[i] - s["lr"] * d


def sgd_settings(lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
    return dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)


MATERIAL_SGD = sgd_settings(lr=0.1, momentum=0.9, weight_decay=5e-4)  # 003 §4.4
SGD_CASES = {
    "plain p - lr * grad": [((0, 1), sgd_settings(lr=0.1))],
    "the material's momentum 0.9 and weight_decay 5e-4": [((0, 1), MATERIAL_SGD)],
    "dampening 0.5": [((0, 1), sgd_settings(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=5e-4))],
    "nesterov": [((0, 1), sgd_settings(lr=0.1, momentum=0.9, weight_decay=5e-4, nesterov=True))],
    "two groups with their own settings": [
        ((0,), MATERIAL_SGD), ((1,), sgd_settings(lr=0.05, momentum=0.5, dampening=0.2, weight_decay=0.01))],
}
SGD_STATE = {"momentum_buffer": "b"}


@pytest.mark.claim("modules.optimizer-step-rule")
@pytest.mark.claim("modules.table-parameters-row")
@pytest.mark.parametrize("foreach", [False, True], ids=["for-loop", "foreach"])
@pytest.mark.parametrize("case", list(SGD_CASES))
def test_sgd_follows_its_documented_rule_step_by_step(case, foreach):
    """Material: the optimizer updates each parameter as p = p - lr * grad.  True: for plain SGD;
    with momentum, weight decay, dampening, nesterov or groups, the documented rule, over steps."""
    groups, params, steps = SGD_CASES[case], initial_params(), fixed_gradients()
    with reproduce(replay_code("SGD", groups, params, steps, foreach)):
        run_against_reference(torch.optim.SGD, sgd_reference_step, SGD_STATE, groups, params, steps, foreach)


@st.composite
def sgd_group_settings(draw, label):
    momentum = draw(st.sampled_from([0.0, 0.9]) | floats(0.1, 0.95), label=f"{label} momentum")
    nesterov = momentum > 0 and draw(st.booleans(), label=f"{label} nesterov")
    dampening = 0.0 if nesterov or momentum == 0 else draw(
        st.sampled_from([0.0, 0.5]) | floats(0.0, 0.9), label=f"{label} dampening")
    weight_decay = draw(st.sampled_from([0.0, 5e-4]) | floats(1e-3, 0.2), label=f"{label} weight_decay")
    lr = draw(floats(0.01, 0.5), label=f"{label} lr")
    return sgd_settings(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)


@st.composite
def gradient_steps(draw, shapes, min_steps=2, max_steps=6):
    """A few steps; each parameter's gradient at each step is random, zero or None."""
    n = draw(st.integers(min_steps, max_steps), label="steps")
    steps = []
    for t in range(n):
        row = []
        for i, shape in enumerate(shapes):
            kind = draw(st.sampled_from(["random", "random", "zero", "None"]), label=f"step {t} param {i}")
            if kind == "None":
                row.append(None)
            elif kind == "zero":
                row.append(torch.zeros(shape, dtype=F64))
            else:
                seed = draw(st.integers(0, 2 ** 16), label=f"step {t} param {i} seed")
                row.append(torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=F64))
        steps.append(row)
    return steps


@st.composite
def grouping(draw, n_params, settings):
    """Each parameter in one of one or two groups (no group empty), each group its own settings."""
    n_groups = draw(st.integers(1, min(2, n_params)), label="groups")
    owner = draw(st.lists(st.integers(0, n_groups - 1), min_size=n_params, max_size=n_params)
                 .filter(lambda o: len(set(o)) == n_groups), label="group of each param")
    return [(tuple(i for i in range(n_params) if owner[i] == k), draw(settings(f"group {k}")))
            for k in range(n_groups)]


PROPERTY_SHAPES = ((2,), (3,), (1,))


def run_drawn(data, optimizer, group_settings, reference_step, state_keys):
    """Draw a group layout with its settings, a gradient sequence and the foreach flag, then run
    ``optimizer`` against its written rule step by step (a failure carries its replay code)."""
    groups = data.draw(grouping(len(PROPERTY_SHAPES), group_settings), label="groups")
    steps = data.draw(gradient_steps(PROPERTY_SHAPES), label="gradients")
    foreach = data.draw(st.booleans(), label="foreach")
    params = initial_params(PROPERTY_SHAPES)
    with reproduce(replay_code(optimizer.__name__, groups, params, steps, foreach)):
        run_against_reference(optimizer, reference_step, state_keys, groups, params, steps, foreach)


@pytest.mark.property
@pytest.mark.claim("modules.optimizer-step-rule")
@pytest.mark.claim("modules.table-parameters-row")
@property_settings(0.6)
@given(data=st.data())
def test_sgd_matches_its_documented_rule_for_drawn_groups_and_gradients(data):
    """Material: the update is p = p - lr * grad.  True: SGD follows its documented rule for any
    momentum, dampening, weight decay, nesterov and group layout, skipping None gradients only."""
    run_drawn(data, torch.optim.SGD, sgd_group_settings, sgd_reference_step, SGD_STATE)


# --- Adam -----------------------------------------------------------------------------------


def adam_reference_step(params, states, grads, settings_of):
    """One step of the algorithm box at https://pytorch.org/docs/stable/generated/torch.optim.Adam.html:
    g += wd * p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; vmax = max(vmax, v) (amsgrad);
    p -= lr * (m / (1 - b1^t)) / (sqrt(v or vmax / (1 - b2^t)) + eps), t counting this
    parameter's own steps.  A parameter whose grad is None is skipped, its t not advanced."""
    for i, grad in enumerate(grads):
        if grad is None:
            continue
        s, st_ = settings_of[i], states[i]
        b1, b2 = s["betas"]
        d = grad + s["weight_decay"] * params[i]
        t = st_["t"] = st_.get("t", 0) + 1
        m = st_["m"] = b1 * st_.get("m", torch.zeros_like(d)) + (1 - b1) * d
        v = st_["v"] = b2 * st_.get("v", torch.zeros_like(d)) + (1 - b2) * d * d
        if s["amsgrad"]:
            v = st_["vmax"] = torch.maximum(st_.get("vmax", torch.zeros_like(d)), v)
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        params[i] = params[i] - s["lr"] * m_hat / (v_hat.sqrt() + s["eps"])


def adam_settings(lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False):
    return dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad)


ADAM_CASES = {
    "the material's Adam(lr=0.001)": [((0, 1), adam_settings())],  # 002 §4.4
    "weight_decay 0.01 (an L2 term, not AdamW)": [((0, 1), adam_settings(lr=0.01, weight_decay=0.01))],
    "amsgrad": [((0, 1), adam_settings(lr=0.01, amsgrad=True))],
    "two groups with their own settings": [
        ((0,), adam_settings()), ((1,), adam_settings(lr=0.05, betas=(0.5, 0.9), weight_decay=0.1, amsgrad=True))],
}
# max_exp_avg_sq exists in amsgrad groups only, on both sides.
ADAM_STATE = {"step": "t", "exp_avg": "m", "exp_avg_sq": "v", "max_exp_avg_sq": "vmax"}


@pytest.mark.claim("modules.optimizer-step-rule")
@pytest.mark.parametrize("foreach", [False, True], ids=["for-loop", "foreach"])
@pytest.mark.parametrize("case", list(ADAM_CASES))
def test_adam_follows_its_documented_rule_step_by_step(case, foreach):
    """Material: the optimizer uses param.grad to update the parameter.  True: Adam's update is
    not p - lr * grad; it follows the documented moments and per-parameter bias correction."""
    groups, params, steps = ADAM_CASES[case], initial_params(), fixed_gradients()
    with reproduce(replay_code("Adam", groups, params, steps, foreach)):
        run_against_reference(torch.optim.Adam, adam_reference_step, ADAM_STATE, groups, params, steps, foreach)


@st.composite
def adam_group_settings(draw, label):
    return adam_settings(
        lr=draw(floats(1e-3, 0.1), label=f"{label} lr"),
        betas=(draw(st.sampled_from([0.9, 0.5]) | floats(0.0, 0.99), label=f"{label} beta1"),
               draw(st.sampled_from([0.999, 0.9]) | floats(0.5, 0.9999), label=f"{label} beta2")),
        eps=draw(st.sampled_from([1e-8, 1e-3]), label=f"{label} eps"),
        weight_decay=draw(st.sampled_from([0.0, 0.01]) | floats(1e-3, 0.2), label=f"{label} weight_decay"),
        amsgrad=draw(st.booleans(), label=f"{label} amsgrad"))


@pytest.mark.property
@pytest.mark.claim("modules.optimizer-step-rule")
@property_settings(0.6)
@given(data=st.data())
def test_adam_matches_its_documented_rule_for_drawn_groups_and_gradients(data):
    """Material: the optimizer updates each parameter from its grad.  True: Adam follows its
    documented rule for any betas, eps, weight decay, amsgrad and groups; None grads are skipped."""
    run_drawn(data, torch.optim.Adam, adam_group_settings, adam_reference_step, ADAM_STATE)


# --- zero_grad and accumulation ---------------------------------------------------------------


def linear_gradients(x, upstream):
    """The gradient of (x @ W.T + b) * upstream summed, by hand: dW = upstream^T x, db = upstream summed."""
    return upstream.T @ x, upstream.sum(0)


def run_loop(actions):
    """Play a loop of actions on two Linear layers in two SGD groups (lr 0.1 and 0.05) beside a
    reference that accumulates the hand-computed gradients; compare after every action.

    Actions: ("backward", seed, both) runs a batch through the first layer (and the second when
    ``both``); ("zero_grad", set_to_none); ("step",)."""
    torch.manual_seed(0)
    first, second = nn.Linear(3, 2).double(), nn.Linear(3, 1).double()
    lrs = {"first": 0.1, "second": 0.05}
    optimizer = torch.optim.SGD([{"params": first.parameters(), "lr": lrs["first"]},
                                 {"params": second.parameters(), "lr": lrs["second"]}], lr=1e-3)
    layers = {"first": first, "second": second}
    ref_params = {(n, k): p.detach().clone() for n, m in layers.items() for k, p in m.named_parameters()}
    ref_grads = dict.fromkeys(ref_params)
    done = []
    for action in actions:
        done.append(action)
        if action[0] == "backward":
            _, seed, both = action
            g = torch.Generator().manual_seed(seed)
            x = torch.randn(4, 3, generator=g, dtype=F64)
            used = ("first", "second") if both else ("first",)
            loss = 0
            for n in used:
                upstream = torch.randn(4, layers[n].out_features, generator=g, dtype=F64)
                loss = loss + (layers[n](x) * upstream).sum()
                for k, grad in zip(("weight", "bias"), linear_gradients(x, upstream)):
                    old = ref_grads[(n, k)]
                    ref_grads[(n, k)] = grad if old is None else old + grad  # accumulation
            loss.backward()
        elif action[0] == "zero_grad":
            optimizer.zero_grad(set_to_none=action[1])
            for key, old in ref_grads.items():
                ref_grads[key] = None if action[1] or old is None else torch.zeros_like(old)
        else:
            optimizer.step()
            for (n, k), grad in ref_grads.items():
                if grad is not None:
                    ref_params[(n, k)] = ref_params[(n, k)] - lrs[n] * grad
        for (n, k), expected in ref_grads.items():
            p = getattr(layers[n], k)
            call = f"{n}.{k} after {done}"
            if expected is None:
                assert p.grad is None, f"{call}: .grad = {p.grad}, but should be None"
            else:
                assert p.grad is not None, f"{call}: .grad is None, but should be {expected}"
                assert_close(p.grad, expected, f"{call}: .grad")
            assert_close(p.detach(), ref_params[(n, k)], f"{call}: value")


LOOPS = {
    "zero_grad before backward": [("zero_grad", True), ("backward", 1, True), ("step",)] * 3,
    "zero_grad forgotten": [("backward", 1, True), ("step",), ("backward", 2, True), ("step",),
                            ("backward", 3, False), ("step",)],
    "zero_grad between backward and step": [("backward", 1, True), ("zero_grad", True), ("step",)] * 2,
    "accumulate two batches per step": [("backward", 1, True), ("backward", 2, False), ("step",),
                                        ("zero_grad", True)] * 2,
    "zero_grad(set_to_none=False)": [("backward", 1, True), ("step",), ("zero_grad", False),
                                     ("backward", 2, False), ("step",), ("zero_grad", False), ("step",)],
}


@pytest.mark.claim("modules.zero-grad-each-step")
@pytest.mark.claim("autograd.grad-accumulates")
@pytest.mark.claim("autograd.zero-grad-order-004")
@pytest.mark.parametrize("loop", list(LOOPS))
def test_written_out_training_loops_accumulate_and_clear_gradients(loop):
    """Material: without zero_grad() before backward the gradients add up across batches.  True:
    .grad is the sum of the batches since the last zero_grad, in every group; step uses that sum."""
    run_loop(LOOPS[loop])


ACTIONS = st.one_of(
    st.tuples(st.just("backward"), st.integers(0, 2 ** 16), st.booleans()),
    st.tuples(st.just("zero_grad"), st.booleans()),
    st.tuples(st.just("step")))


@pytest.mark.property
@pytest.mark.claim("modules.zero-grad-each-step")
@pytest.mark.claim("autograd.grad-accumulates")
@property_settings(0.6)
@given(actions=st.lists(ACTIONS, min_size=3, max_size=10))
def test_any_loop_of_backward_zero_grad_and_step_matches_the_accumulation_rule(actions):
    """Material: gradients accumulate until zero_grad() clears them.  True: for any order of
    backward, zero_grad (to None or to zeros) and step, in two parameter groups."""
    with reproduce(f"from test_modules_update_rules import run_loop\nrun_loop({actions!r})"):
        run_loop(actions)


# --- StepLR -----------------------------------------------------------------------------------


def steplr_reference(base_lr, gamma, step_size, epoch):
    """The closed form at https://pytorch.org/docs/stable/generated/torch.optim.lr_scheduler.StepLR.html:
    the lr of epoch e is base_lr * gamma ** (e // step_size), for each group's own base_lr."""
    return base_lr * gamma ** (epoch // step_size)


def steplr_run(base_lrs, gamma, step_size, params0):
    params = [nn.Parameter(p.clone()) for p in params0]
    optimizer = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, base_lrs)], lr=1e-3)
    return params, optimizer, torch.optim.lr_scheduler.StepLR(optimizer, step_size=step_size, gamma=gamma)


def check_epochs(params, optimizer, scheduler, ref_params, base_lrs, gamma, step_size, epochs, what):
    """Run ``epochs`` (first, last+1): one SGD step with fixed gradients, then scheduler.step();
    the lr of every group and every parameter must follow the closed form."""
    grads = initial_params(seed=7)
    for epoch in range(*epochs):
        for i, (p, base) in enumerate(zip(params, base_lrs)):
            want = steplr_reference(base, gamma, step_size, epoch)
            got = optimizer.param_groups[i]["lr"]
            assert got == pytest.approx(want, rel=1e-12), (
                f"{what}: group {i} lr at epoch {epoch} = {got}, but should be {base} * {gamma} ** "
                f"({epoch} // {step_size}) = {want}")
            p.grad = grads[i].clone()
            ref_params[i] = ref_params[i] - want * grads[i]
        optimizer.step()
        scheduler.step()
        for i, p in enumerate(params):
            assert_close(p.detach(), ref_params[i], f"{what}: param {i} after epoch {epoch}")


def steplr_case(base_lrs, gamma, step_size, epochs, resume_at):
    params0 = initial_params()
    params, optimizer, scheduler = steplr_run(base_lrs, gamma, step_size, params0)
    ref = [p.clone() for p in params0]
    check_epochs(params, optimizer, scheduler, ref, base_lrs, gamma, step_size, (0, resume_at), "uninterrupted")
    saved = copy.deepcopy({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()})
    at_resume = [p.detach().clone() for p in params]
    check_epochs(params, optimizer, scheduler, ref, base_lrs, gamma, step_size, (resume_at, epochs), "uninterrupted")
    return saved, at_resume


@pytest.mark.claim("modules.resume-without-optimizer-lr-zero")
def test_steplr_follows_its_closed_form_per_group_and_restarts_without_state():
    """Material: without the optimizer's state the lr drops to zero on resume.  True: each group
    follows base_lr * gamma ** (epoch // step_size); a scheduler rebuilt without state restarts at base_lr."""
    base_lrs, gamma, step_size = (0.1, 0.02), 0.5, 3
    _, at_resume = steplr_case(base_lrs, gamma, step_size, epochs=10, resume_at=4)
    params, optimizer, scheduler = steplr_run(base_lrs, gamma, step_size, at_resume)
    check_epochs(params, optimizer, scheduler, [p.clone() for p in at_resume], base_lrs, gamma, step_size,
                 (0, 6), "rebuilt without state (epochs counted from the resume)")


def resume_steplr(saved, at_resume, base_lrs, gamma, step_size, epochs, resume_at):
    params, optimizer, scheduler = steplr_run(base_lrs, gamma, step_size, at_resume)
    optimizer.load_state_dict(saved["optimizer"])
    scheduler.load_state_dict(saved["scheduler"])
    check_epochs(params, optimizer, scheduler, [p.clone() for p in at_resume], base_lrs, gamma, step_size,
                 (resume_at, epochs), f"resumed at epoch {resume_at}")


@pytest.mark.claim("modules.checkpoint-with-optimizer-state")
def test_steplr_resumed_from_both_state_dicts_keeps_its_boundaries():
    """Material: restore the optimizer's (and scheduler's) state to resume.  True: the lr of every
    group continues base_lr * gamma ** (epoch // step_size), boundaries where they were."""
    base_lrs, gamma, step_size = (0.1, 0.02), 0.5, 3
    saved, at_resume = steplr_case(base_lrs, gamma, step_size, epochs=10, resume_at=4)
    resume_steplr(saved, at_resume, base_lrs, gamma, step_size, 10, 4)


@pytest.mark.claim("modules.checkpoint-with-optimizer-state")
@pytest.mark.claim("modules.resume-without-optimizer-lr-zero")
@pytest.mark.property
@property_settings(0.4)
@given(base_lrs=st.tuples(floats(0.01, 0.5), floats(0.01, 0.5)), gamma=floats(0.1, 0.9),
       step_size=st.integers(1, 4), epochs=st.integers(2, 12), data=st.data())
def test_steplr_resumed_from_both_state_dicts_continues_the_closed_form(base_lrs, gamma, step_size, epochs, data):
    """Material: restore the optimizer's (and the scheduler's) state to resume.  True: loaded into
    fresh objects, both state dicts continue the schedule of every group exactly where it was."""
    resume_at = data.draw(st.integers(1, epochs - 1), label="resume at epoch")
    with reproduce(f"from test_modules_update_rules import steplr_case, resume_steplr\n"
                   f"case = ({base_lrs!r}, {gamma!r}, {step_size!r}, {epochs!r}, {resume_at!r})\n"
                   f"resume_steplr(*steplr_case(*case), *case)"):
        saved, at_resume = steplr_case(base_lrs, gamma, step_size, epochs, resume_at)
        resume_steplr(saved, at_resume, base_lrs, gamma, step_size, epochs, resume_at)


# --- BatchNorm running statistics ----------------------------------------------------------------


def bn_reference(state, x, momentum, training):
    """The update at https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm2d.html: in train
    mode num_batches_tracked += 1 and stat = (1 - f) * stat + f * batch statistic, with
    f = momentum, or f = 1 / num_batches_tracked (a cumulative average) for momentum=None, the
    mean and the unbiased variance over (N, H, W); eval mode reads the statistics, never moves them."""
    if not training:
        return
    state["count"] += 1
    f = 1.0 / state["count"] if momentum is None else momentum
    state["mean"] = (1 - f) * state["mean"] + f * x.mean((0, 2, 3))
    state["var"] = (1 - f) * state["var"] + f * x.var((0, 2, 3), unbiased=True)


def run_batchnorm(momentum, batches):
    """``batches``: [(train?, input)]; BatchNorm2d and the reference side by side."""
    channels = batches[0][1].shape[1]
    bn = nn.BatchNorm2d(channels, momentum=momentum).double()
    with torch.no_grad():
        bn.weight.copy_(torch.linspace(0.5, 1.5, channels, dtype=F64))
        bn.bias.copy_(torch.linspace(-1.0, 1.0, channels, dtype=F64))
    state = {"count": 0, "mean": torch.zeros(channels, dtype=F64), "var": torch.ones(channels, dtype=F64)}
    for t, (training, x) in enumerate(batches, start=1):
        bn.train(training)
        out = bn(x)
        bn_reference(state, x, momentum, training)
        call = f"BatchNorm2d(momentum={momentum}) after batch {t} ({'train' if training else 'eval'})"
        assert int(bn.num_batches_tracked) == state["count"], (
            f"num_batches_tracked = {int(bn.num_batches_tracked)}, but should be {state['count']} [{call}]")
        assert_close(bn.running_mean, state["mean"], f"running_mean {call}")
        assert_close(bn.running_var, state["var"], f"running_var {call}")
        if not training:
            shape = (1, channels, 1, 1)
            expected = ((x - state["mean"].view(shape)) / (state["var"].view(shape) + bn.eps).sqrt()
                        * bn.weight.detach().view(shape) + bn.bias.detach().view(shape))
            assert_close(out, expected, f"eval output normalised with the running statistics, {call}")


def bn_batches(pattern, shape=(4, 3, 2, 2), seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(training, torch.randn(shape, generator=g, dtype=F64) * (1 + i) + i)
            for i, training in enumerate(pattern)]


@pytest.mark.claim("modules.bn-running-stats-momentum")
@pytest.mark.parametrize("momentum", [0.1, 0.5, None], ids=["default-0.1", "0.5", "None-cumulative"])
def test_batchnorm_running_statistics_follow_the_documented_update_over_batches(momentum):
    """Material: BatchNorm2d moves its running statistics with momentum in training, frozen at
    inference.  True: the documented update batch by batch (unbiased variance; None averages)."""
    run_batchnorm(momentum, bn_batches([True, True, False, True, True, False]))


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn")
def test_a_validation_pass_in_eval_mode_mid_epoch_leaves_the_running_statistics_as_without_it():
    """Material: calling train() and eval() in one epoch corrupts BatchNorm's statistics.  True: the
    eval batches move nothing: batch by batch the documented update, and the epoch ends as without them."""
    train, val = bn_batches([True] * 6, seed=1), bn_batches([False] * 2, seed=2)
    with_val = train[:3] + val + train[3:]
    run_batchnorm(0.1, with_val)
    ends = []
    for batches in (train, with_val):
        bn = nn.BatchNorm2d(3).double()
        for training, x in batches:
            bn.train(training)
            bn(x)
        ends.append(bn)
    plain, validated = ends
    call = "BatchNorm2d after 6 train batches, with 2 eval batches after the third vs without"
    assert int(validated.num_batches_tracked) == int(plain.num_batches_tracked) == 6, (
        f"num_batches_tracked = {int(validated.num_batches_tracked)} and {int(plain.num_batches_tracked)}, "
        f"but should be 6 both [{call}]")
    assert_close(validated.running_mean, plain.running_mean, f"running_mean {call}")
    assert_close(validated.running_var, plain.running_var, f"running_var {call}")


@pytest.mark.property
@pytest.mark.claim("modules.bn-running-stats-momentum")
@property_settings(0.4)
@given(momentum=st.none() | st.sampled_from([0.1]) | floats(0.01, 0.99),
       pattern=st.lists(st.booleans(), min_size=2, max_size=6),
       shape=st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3))
       .filter(lambda s: s[0] * s[2] * s[3] > 1),
       seed=st.integers(0, 2 ** 16))
def test_batchnorm_running_statistics_match_the_update_for_drawn_momentum_and_batches(momentum, pattern, shape, seed):
    """Material: momentum updates in training, frozen at inference.  True: for any momentum
    (None: the cumulative average), batch shape and order of train and eval batches."""
    batches = bn_batches(pattern, shape, seed)
    code = (f"bn = torch.nn.BatchNorm2d({shape[1]}, momentum={momentum}).double()\n"
            f"g = torch.Generator().manual_seed({seed})\n"
            f"for i, training in enumerate({pattern!r}):\n"
            f"    bn.train(training); bn(torch.randn({shape}, generator=g, dtype=torch.float64) * (1 + i) + i)")
    with reproduce(code):
        run_batchnorm(momentum, batches)


# --- resuming an optimizer from its state dict ----------------------------------------------------


RESUMED = {
    "SGD, the material's momentum and weight decay": (torch.optim.SGD, sgd_reference_step, SGD_STATE,
                                                      SGD_CASES["two groups with their own settings"]),
    "Adam, two groups": (torch.optim.Adam, adam_reference_step, ADAM_STATE, ADAM_CASES["two groups with their own settings"]),
}


@pytest.mark.claim("modules.checkpoint-with-optimizer-state")
@pytest.mark.parametrize("resume_at", [3, 4])
@pytest.mark.parametrize("case", list(RESUMED))
def test_optimizer_resumed_from_its_state_dict_continues_the_documented_rule(case, resume_at):
    """Material: restore optimizer.state_dict() to resume training.  True: a fresh optimizer loaded
    with it continues the documented rule, momentum buffers, moments and per-parameter step counts."""
    optimizer_cls, reference_step, keys, groups = RESUMED[case]
    params, steps = initial_params(), fixed_gradients()
    run_against_reference(optimizer_cls, reference_step, keys, groups, params, steps, False, resume_at=resume_at)

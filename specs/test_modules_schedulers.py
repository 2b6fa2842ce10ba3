"""Modules, learning-rate schedulers: what StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR,
ReduceLROnPlateau, OneCycleLR, LambdaLR and LinearLR do to the optimizer's lr (issue #41, tutorials).

Every spec drives a one-parameter SGD optimizer and reads ``param_groups[0]['lr']`` before each
``optimizer.step()``, which is the lr that step really uses.
"""
import math
import warnings

import pytest
import torch
from torch import nn
from torch.optim import lr_scheduler


def sgd(lr=0.1, groups=1, **kwargs):
    return torch.optim.SGD([{"params": [nn.Parameter(torch.zeros(2))]} for _ in range(groups)], lr=lr, **kwargs)


def schedule(optimizer, scheduler, steps, metric=None):
    """The lr each of ``steps`` optimizer steps uses, stepping the scheduler after each one."""
    used = []
    for _ in range(steps):
        used.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step() if metric is None else scheduler.step(metric)
    return used


def close(a, b):
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------- StepLR and step() counting

@pytest.mark.claim("modules.steplr-decays-every-step-size")
def test_steplr_multiplies_by_gamma_every_step_size_epochs():
    """Tutorials: StepLR multiplies the lr by gamma (default 0.1) every step_size epochs.
    True: lr = base * gamma ** (epoch // step_size); gamma defaults to 0.1."""
    opt = sgd(0.1)
    sched = lr_scheduler.StepLR(opt, step_size=3)
    assert sched.gamma == 0.1, f"StepLR's default gamma is {sched.gamma}, expected 0.1"
    used = schedule(opt, sched, 10)
    expected = [0.1 * 0.1 ** (epoch // 3) for epoch in range(10)]
    assert close(used, expected), f"StepLR(step_size=3) gave {used}, expected {expected}"


@pytest.mark.claim("modules.scheduler-step-counts-calls")
def test_steplr_inside_the_batch_loop_decays_per_batch():
    """Tutorials: an epoch scheduler stepped once per batch decays far too fast.
    True: step_size counts scheduler.step() calls; 5 batches a epoch with step_size=5 decays every epoch."""
    opt = sgd(1.0)
    sched = lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
    per_epoch = []
    for _epoch in range(3):
        per_epoch.append(opt.param_groups[0]["lr"])
        for _batch in range(5):
            opt.step()
            sched.step()
    assert per_epoch == [1.0, 0.5, 0.25], f"lr at the start of each epoch: {per_epoch}, expected [1.0, 0.5, 0.25]"
    assert sched.last_epoch == 15, f"last_epoch is {sched.last_epoch} after 15 step() calls"


@pytest.mark.claim("modules.scheduler-order-warning")
def test_scheduler_step_before_optimizer_step_warns_and_skips_the_first_lr():
    """Tutorials: scheduler.step() before optimizer.step() warns and skips the first lr value.
    True: a UserWarning 'Detected call of `lr_scheduler.step()` before `optimizer.step()`', and the
    first optimizer step already runs with the decayed lr."""
    opt = sgd(1.0)
    sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched.step()
        first = opt.param_groups[0]["lr"]
        opt.step()
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert any("before `optimizer.step()`" in m for m in messages), f"warnings: {messages}"
    assert first == 0.5, f"the first optimizer step used lr {first}; the schedule's first value 1.0 should be skipped"


@pytest.mark.claim("modules.scheduler-order-warning")
def test_the_right_order_keeps_the_first_lr_and_stays_silent():
    """True: optimizer.step() then scheduler.step() uses 1.0 first and emits no order warning."""
    opt = sgd(1.0)
    sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        used = schedule(opt, sched, 3)
    assert used == [1.0, 0.5, 0.25], f"lrs used: {used}"
    assert not [w for w in caught if "optimizer.step()" in str(w.message)], "order warning in the right order"


# ---------------------------------------------------------------- MultiStepLR, ExponentialLR, cosine

@pytest.mark.claim("modules.multisteplr-milestones-must-increase")
def test_multisteplr_decays_at_each_milestone_whatever_their_order():
    """Tutorials: milestones is a list that must be increasing; lr *= gamma at each one.
    True: lr is multiplied by gamma at each milestone; [5, 2] gives the same schedule as [2, 5],
    and a milestone listed twice multiplies by gamma squared."""
    sorted_ = schedule(opt := sgd(1.0), lr_scheduler.MultiStepLR(opt, milestones=[2, 5], gamma=0.1), 7)
    assert close(sorted_, [1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01]), f"milestones [2, 5]: {sorted_}"
    unsorted = schedule(opt := sgd(1.0), lr_scheduler.MultiStepLR(opt, milestones=[5, 2], gamma=0.1), 7)
    assert close(unsorted, sorted_), f"milestones [5, 2]: {unsorted}, [2, 5]: {sorted_}"
    twice = schedule(opt := sgd(1.0), lr_scheduler.MultiStepLR(opt, milestones=[2, 2], gamma=0.1), 4)
    assert close(twice, [1.0, 1.0, 0.01, 0.01]), f"milestones [2, 2]: {twice}"


@pytest.mark.claim("modules.multisteplr-milestones-must-increase", as_written=True)
def test_as_written_multisteplr_milestones_must_be_increasing():
    """Tutorials: milestones must be increasing.  True: their order changes nothing (strict xfail)."""
    unsorted = schedule(opt := sgd(1.0), lr_scheduler.MultiStepLR(opt, milestones=[5, 2]), 7)
    sorted_ = schedule(opt := sgd(1.0), lr_scheduler.MultiStepLR(opt, milestones=[2, 5]), 7)
    assert not close(unsorted, sorted_), f"unsorted milestones gave the same schedule {unsorted}"


@pytest.mark.claim("modules.exponentiallr-gamma-power-epoch")
def test_exponentiallr_multiplies_by_gamma_every_epoch():
    """Tutorials: ExponentialLR gives lr = base * gamma ** epoch.  True: it multiplies by gamma at each step()."""
    used = schedule(opt := sgd(0.5), lr_scheduler.ExponentialLR(opt, gamma=0.9), 6)
    expected = [0.5 * 0.9 ** epoch for epoch in range(6)]
    assert close(used, expected), f"ExponentialLR(gamma=0.9) gave {used}, expected {expected}"


@pytest.mark.claim("modules.cosine-t-max-half-period")
def test_cosine_annealing_reaches_eta_min_at_t_max_and_climbs_back():
    """Tutorials: T_max is half a cosine period: lr falls to eta_min after T_max epochs, then rises again.
    True: base 1.0, T_max=4, eta_min=0 (the default) gives 1, .854, .5, .146, 0, .146, .5, .854, 1."""
    opt = sgd(1.0)
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    assert sched.eta_min == 0.0, f"default eta_min is {sched.eta_min}"
    used = schedule(opt, sched, 9)
    expected = [0.5 * (1 + math.cos(math.pi * t / 4)) for t in range(9)]
    assert all(math.isclose(u, e, abs_tol=1e-9) for u, e in zip(used, expected)), f"cosine schedule {used}"
    assert used[4] == pytest.approx(0.0, abs=1e-12) and used[8] == pytest.approx(1.0), f"cosine schedule {used}"


@pytest.mark.claim("modules.cosine-t-max-half-period")
def test_cosine_annealing_floor_is_eta_min():
    """True: with eta_min=0.1 the lowest lr, reached at T_max, is 0.1."""
    used = schedule(opt := sgd(1.0), lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=0.1), 7)
    assert min(used) == pytest.approx(0.1) and used[3] == pytest.approx(0.1), f"cosine with eta_min=0.1: {used}"


# ---------------------------------------------------------------- ReduceLROnPlateau

@pytest.mark.claim("modules.plateau-defaults-and-patience")
def test_reduce_lr_on_plateau_defaults():
    """Tutorials: mode='min', factor=0.1, patience=10, threshold=1e-4 ('rel'), cooldown=0, min_lr=0, eps=1e-8.
    True: exactly those defaults."""
    sched = lr_scheduler.ReduceLROnPlateau(sgd())
    got = {k: getattr(sched, k) for k in ("mode", "factor", "patience", "threshold", "threshold_mode", "cooldown", "min_lrs", "eps")}
    expected = {"mode": "min", "factor": 0.1, "patience": 10, "threshold": 1e-4, "threshold_mode": "rel",
                "cooldown": 0, "min_lrs": [0], "eps": 1e-8}
    assert got == expected, f"ReduceLROnPlateau defaults {got}, expected {expected}"


@pytest.mark.claim("modules.plateau-defaults-and-patience")
def test_plateau_cuts_the_lr_once_patience_epochs_bring_no_improvement():
    """True: with patience=2 and a flat metric, the lr is cut by factor at the third epoch without
    improvement (the fourth step), and never below min_lr."""
    opt = sgd(1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5, min_lr=0.2)
    after = []
    for _ in range(10):
        opt.step()
        sched.step(1.0)
        after.append(opt.param_groups[0]["lr"])
    assert after[:4] == [1.0, 1.0, 1.0, 0.5], f"lr after each step(1.0): {after}"
    assert min(after) == 0.2, f"lr fell to {min(after)} below min_lr=0.2: {after}"
    opt = sgd(1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=2)
    for metric in [5.0, 4.0, 3.0, 2.0, 1.0, 0.5]:
        sched.step(metric)
    assert opt.param_groups[0]["lr"] == 1.0, "the lr fell although the metric kept improving"


@pytest.mark.claim("modules.plateau-step-needs-metric")
def test_reduce_lr_on_plateau_step_needs_the_metric():
    """Tutorials: ReduceLROnPlateau.step must be given the monitored value.
    True: step() without it raises TypeError (missing 'metrics'); mode='max' watches a value that should rise."""
    sched = lr_scheduler.ReduceLROnPlateau(sgd())
    with pytest.raises(TypeError, match="metrics"):
        sched.step()
    opt = sgd(1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=0)
    sched.step(0.5)
    sched.step(0.9)
    assert opt.param_groups[0]["lr"] == 1.0, "mode='max' cut the lr although accuracy rose"
    sched.step(0.8)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1), "mode='max' did not cut the lr when accuracy fell"


# ---------------------------------------------------------------- OneCycleLR

@pytest.mark.claim("modules.onecycle-optimizer-lr-is-start")
def test_onecycle_starts_at_max_lr_over_div_factor_whatever_the_optimizer_lr():
    """Tutorials: the optimizer's lr should be low because OneCycleLR ramps it up to max_lr.
    True: OneCycleLR overwrites it: the cycle starts at max_lr / div_factor (25) and ends at
    that / final_div_factor (1e4), for an optimizer lr of 1e-4 or 0.5 alike."""
    starts = []
    for opt_lr in (1e-4, 0.5):
        opt = sgd(opt_lr)
        sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
        used = schedule(opt, sched, 9) + [opt.param_groups[0]["lr"]]
        starts.append(used[0])
        assert used[0] == pytest.approx(1.0 / 25), f"optimizer lr {opt_lr}: cycle starts at {used[0]}"
        assert max(used) == pytest.approx(1.0), f"optimizer lr {opt_lr}: peak {max(used)}"
        assert used[-1] == pytest.approx(1.0 / 25 / 1e4), f"optimizer lr {opt_lr}: ends at {used[-1]}"
    assert starts[0] == starts[1], f"start lrs differ with the optimizer's lr: {starts}"


@pytest.mark.claim("modules.onecycle-optimizer-lr-is-start", as_written=True)
def test_as_written_onecycle_starts_from_the_optimizer_lr():
    """Tutorials: the optimizer's lr is where the cycle starts.  True: it is ignored (strict xfail)."""
    opt = sgd(1e-4)
    lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=10)
    assert opt.param_groups[0]["lr"] == pytest.approx(1e-4), f"the cycle starts at {opt.param_groups[0]['lr']}"


@pytest.mark.claim("modules.onecycle-steps-per-batch-total-steps")
def test_onecycle_total_steps_is_epochs_times_steps_per_epoch_and_is_a_hard_limit():
    """Tutorials: OneCycleLR is stepped after every batch; total_steps = epochs * steps_per_epoch.
    True: total_steps is 12 for 3 x 4; max_lr is reached at step pct_start * total_steps - 1
    (pct_start defaults to 0.3); a step() beyond total_steps raises ValueError."""
    opt = sgd()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, epochs=3, steps_per_epoch=4)
    assert sched.total_steps == 12, f"total_steps {sched.total_steps}, expected 12"
    opt = sgd()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    used = schedule(opt, sched, 10)
    assert used.index(max(used)) == 2 and max(used) == pytest.approx(1.0), f"10 steps, pct_start 0.3: {used}"
    opt.step()
    with pytest.raises(ValueError, match="total steps"):
        sched.step()


# ---------------------------------------------------------------- LambdaLR, LinearLR, initial_lr, get_lr

@pytest.mark.claim("modules.lambdalr-base-lr-times-lambda")
def test_lambdalr_sets_base_lr_times_the_function_of_the_epoch():
    """Tutorials: LambdaLR sets lr = base_lr * lr_lambda(epoch); a list gives one function per group.
    True: the function gets the step count 0, 1, 2, ... and multiplies the initial lr, not the current one."""
    opt = sgd(0.1, groups=2)
    sched = lr_scheduler.LambdaLR(opt, lr_lambda=[lambda e: e + 1, lambda e: 0.5 ** e])
    first, second = [], []
    for _ in range(4):
        first.append(opt.param_groups[0]["lr"])
        second.append(opt.param_groups[1]["lr"])
        opt.step()
        sched.step()
    assert close(first, [0.1, 0.2, 0.3, 0.4]), f"group 0 with lambda e: e + 1: {first}"
    assert close(second, [0.1, 0.05, 0.025, 0.0125]), f"group 1 with lambda e: 0.5 ** e: {second}"
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas"):
        lr_scheduler.LambdaLR(sgd(groups=2), lr_lambda=[lambda e: 1.0])


@pytest.mark.claim("modules.linearlr-factor-interpolation")
def test_linearlr_moves_linearly_from_start_factor_to_end_factor_then_stays():
    """Tutorials: LinearLR goes linearly from lr*start_factor to lr*end_factor in total_iters, then stays.
    True: 0.1 with 1.0 -> 0.1 over 4 steps: 0.1, 0.0775, 0.055, 0.0325, 0.01, 0.01; defaults 1/3, 1.0, 5."""
    used = schedule(opt := sgd(0.1), lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=4), 7)
    assert close(used, [0.1, 0.0775, 0.055, 0.0325, 0.01, 0.01, 0.01]), f"LinearLR gave {used}"
    sched = lr_scheduler.LinearLR(opt := sgd(0.3))
    assert (sched.start_factor, sched.end_factor, sched.total_iters) == (1.0 / 3, 1.0, 5), "LinearLR defaults"
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1), f"default warmup starts at {opt.param_groups[0]['lr']}"


@pytest.mark.claim("modules.scheduler-adds-initial-lr")
def test_creating_a_scheduler_adds_initial_lr_to_each_param_group():
    """Tutorials: building a scheduler adds an 'initial_lr' key (the original lr) to each param group.
    True: it does, and base_lrs lists those values; later steps change 'lr' but not 'initial_lr'."""
    opt = torch.optim.SGD([{"params": [nn.Parameter(torch.zeros(1))]},
                           {"params": [nn.Parameter(torch.zeros(1))], "lr": 0.01}], lr=0.1)
    assert all("initial_lr" not in g for g in opt.param_groups), "initial_lr before any scheduler"
    sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.01], f"initial_lr {[g.get('initial_lr') for g in opt.param_groups]}"
    assert sched.base_lrs == [0.1, 0.01], f"base_lrs {sched.base_lrs}"
    opt.step()
    sched.step()
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.01] and opt.param_groups[0]["lr"] == 0.05


@pytest.mark.claim("modules.get-lr-reads-current-lr")
def test_get_last_lr_is_the_current_lr_and_get_lr_warns_and_looks_ahead():
    """Tutorials: record the current lr with scheduler.get_lr().
    True: get_last_lr() gives the lr in use (one per group); get_lr() called by hand warns
    'please use `get_last_lr()`' and for ExponentialLR returns the value one gamma further."""
    opt = sgd(1.0)
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    assert sched.get_last_lr() == [opt.param_groups[0]["lr"]] == [0.5], f"get_last_lr {sched.get_last_lr()}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ahead = sched.get_lr()
    assert ahead == [0.25], f"get_lr() outside step() returned {ahead}"
    assert any("get_last_lr()" in str(w.message) for w in caught), f"warnings {[str(w.message) for w in caught]}"


@pytest.mark.claim("modules.get-lr-reads-current-lr", as_written=True)
def test_as_written_get_lr_reports_the_lr_in_use():
    """Tutorials: scheduler.get_lr() is the lr being used.  True: it is one decay ahead (strict xfail)."""
    opt = sgd(1.0)
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sched.get_lr()
    assert got == [opt.param_groups[0]["lr"]], f"get_lr() {got} but the optimizer uses {opt.param_groups[0]['lr']}"


@pytest.mark.claim("modules.scheduler-step-only-changes-lr")
def test_scheduler_step_changes_the_lr_and_leaves_the_weights_alone():
    """Tutorials: scheduler.step() only changes the lr, so both steps are needed.
    True: scheduler.step() alone leaves the parameters untouched and halves the lr; optimizer.step()
    alone moves them and leaves the lr at 1.0."""
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    p.grad = torch.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched.step()
    assert torch.equal(p.detach(), torch.ones(2)), f"scheduler.step() changed the weights to {p.detach()}"
    assert opt.param_groups[0]["lr"] == 0.5, f"lr {opt.param_groups[0]['lr']}"
    q = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([q], lr=1.0)
    lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    q.grad = torch.ones(2)
    for _ in range(3):
        opt.step()
    assert torch.equal(q.detach(), torch.full((2,), -2.0)) and opt.param_groups[0]["lr"] == 1.0, (q, opt.param_groups[0]["lr"])


@pytest.mark.claim("modules.plateau-threshold-cooldown-eps")
def test_plateau_threshold_mode_decides_what_counts_as_an_improvement():
    """Tutorials: with threshold_mode 'rel' the bar is best * (1 - threshold) in min mode and
    best * (1 + threshold) in max mode; with 'abs' it is best - threshold or best + threshold.
    True: from 10.0 with threshold 0.1, 9.5 is no improvement under 'rel' (bar 9.0) but is one
    under 'abs' (bar 9.9); 10.5 in max mode likewise."""
    for mode, second in (("min", 9.5), ("max", 10.5)):
        cut = {}
        for threshold_mode in ("rel", "abs"):
            opt = sgd(1.0)
            sched = lr_scheduler.ReduceLROnPlateau(opt, mode=mode, patience=0, threshold=0.1, threshold_mode=threshold_mode)
            sched.step(10.0)
            sched.step(second)
            cut[threshold_mode] = opt.param_groups[0]["lr"] < 1.0
        assert cut == {"rel": True, "abs": False}, f"mode={mode}: lr cut after 10.0 then {second}: {cut}"


@pytest.mark.claim("modules.plateau-threshold-cooldown-eps")
def test_plateau_cooldown_min_lr_list_and_eps():
    """Tutorials: cooldown pauses the watch after a cut, min_lr may be a list (one per group), and a
    change smaller than eps is skipped.  True: with patience=0, cooldown=2 and a flat metric the
    cuts come at steps 2 and 5; min_lr=[0.5, 0.01] floors each group; lr 1e-9 is left alone."""
    opt = sgd(1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0, cooldown=2, factor=0.5)
    after = []
    for _ in range(7):
        sched.step(1.0)
        after.append(opt.param_groups[0]["lr"])
    assert after == [1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25], f"lr after each flat step: {after}"
    opt = sgd(1.0, groups=2)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.5, 0.01])
    for _ in range(5):
        sched.step(1.0)
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([0.5, 0.01]), [g["lr"] for g in opt.param_groups]
    opt = sgd(1e-9)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    sched.step(1.0)
    sched.step(1.0)
    assert opt.param_groups[0]["lr"] == 1e-9, f"a cut smaller than eps=1e-8 was applied: {opt.param_groups[0]['lr']}"


@pytest.mark.claim("modules.onecycle-cycles-momentum")
def test_onecycle_cycles_momentum_against_the_lr():
    """Tutorials: while OneCycleLR warms the lr up, momentum goes down, and back up as the lr anneals.
    True: SGD's momentum goes 0.95 -> 0.85 at the peak -> 0.95 (max_momentum, base_momentum);
    plain SGD with momentum 0 gets it switched on; Adam's beta1 is cycled instead; cycle_momentum=False
    leaves it alone."""
    opt = sgd(1.0, momentum=0.9)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    momenta = []
    for _ in range(10):
        momenta.append(opt.param_groups[0]["momentum"])
        opt.step()
        sched.step()
    assert momenta[0] == pytest.approx(0.95) and momenta[2] == pytest.approx(0.85) and momenta[-1] == pytest.approx(0.95), momenta
    plain = sgd(1.0)
    lr_scheduler.OneCycleLR(plain, max_lr=1.0, total_steps=10)
    assert plain.param_groups[0]["momentum"] == pytest.approx(0.95), f"plain SGD momentum {plain.param_groups[0]['momentum']}"
    adam = torch.optim.Adam([nn.Parameter(torch.zeros(1))])
    lr_scheduler.OneCycleLR(adam, max_lr=1.0, total_steps=10)
    assert adam.param_groups[0]["betas"] == pytest.approx((0.95, 0.999)), adam.param_groups[0]["betas"]
    off = sgd(1.0)
    lr_scheduler.OneCycleLR(off, max_lr=1.0, total_steps=10, cycle_momentum=False)
    assert off.param_groups[0]["momentum"] == 0, off.param_groups[0]["momentum"]

"""Numerics, GradScaler over several steps: the scale's bookkeeping next to its documented rule.

The material trains with scaler.scale(loss).backward(), scaler.step(optimizer) and
scaler.update() (002 §6.2), unscales before clipping and saves scaler.state_dict() in the
checkpoint (003 §4.4).  One overflow followed by growth_interval clean steps shows little of
the rule; here a sequence of clean, inf and nan steps runs beside a reference written out in
this file from the GradScaler documentation (https://pytorch.org/docs/stable/amp.html#torch.amp.GradScaler
and the gradient-scaling notes https://pytorch.org/docs/stable/amp.html#gradient-scaling), with
drawn init_scale, growth and backoff factors and growth_interval, two parameter groups, a
parameter whose gradient is None on some steps, an explicit unscale_ on some steps, and a
resume from a saved state dict in the middle of a growth interval.
"""
from __future__ import annotations

import io

import pytest
import torch
from hypothesis import given, strategies as st

from hypothesis_helpers import assert_close, floats, property_settings, reproduce

# torch.amp.GradScaler, usable on the CPU, appeared in 2.3 (before, only torch.cuda.amp's,
# which disables itself without CUDA); one intra-op thread for tiny ops (conftest restores it).
pytestmark = [pytest.mark.needs_torch(">=2.3", reason="torch.amp.GradScaler, usable on the CPU, appeared in 2.3"),
              pytest.mark.usefixtures("one_thread")]

SHAPES = ((2,), (3,))
LRS = (0.1, 0.05)


class Reference:
    """GradScaler's documented bookkeeping in plain arithmetic (float32, as the scale is stored).

    scale(loss) returns loss * scale.  step(): the gradients are divided by the scale (once,
    by unscale_ or by step itself) and checked; if any holds inf or nan, optimizer.step() is
    skipped.  update(): after a skipped step scale *= backoff_factor and the count of clean
    steps restarts; otherwise the count grows by one, and when it reaches growth_interval
    scale *= growth_factor and the count restarts."""

    def __init__(self, init_scale, growth_factor, backoff_factor, growth_interval):
        self.scale = torch.tensor(init_scale, dtype=torch.float32)
        self.growth, self.backoff, self.interval = growth_factor, backoff_factor, growth_interval
        self.tracker = 0

    def update(self, skipped):
        if skipped:
            self.scale, self.tracker = self.scale * self.backoff, 0
        elif self.tracker + 1 == self.interval:
            self.scale, self.tracker = self.scale * self.growth, 0
        else:
            self.tracker += 1


def gradients(step):
    """The step's true gradient per parameter (None where the step leaves the second without one);
    an inf or nan step puts that value into one element of the chosen parameter."""
    g = torch.Generator().manual_seed(step["seed"])
    grads = [torch.randn(s, generator=g) for s in SHAPES]
    if step["kind"] != "clean":
        grads[step["where"]][0] = float(step["kind"])
    if step["second_none"] and step["where"] != 1:
        grads[1] = None
    return grads


def make_scaler(settings):
    return torch.amp.GradScaler("cpu", init_scale=settings[0], growth_factor=settings[1],
                                backoff_factor=settings[2], growth_interval=settings[3])


def run_scaler(settings, steps, resume_at=None):
    """Train two parameters in two SGD groups through GradScaler and the reference, comparing
    after every phase of every step; at ``resume_at`` the scaler is replaced by a fresh one loaded
    from its state dict (saved and loaded with torch.save / torch.load(weights_only=True))."""
    g = torch.Generator().manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(s, generator=g)) for s in SHAPES]
    optimizer = torch.optim.SGD([{"params": [p], "lr": lr} for p, lr in zip(params, LRS)], lr=1e-3)
    scaler, ref = make_scaler(settings), Reference(*settings)
    ref_params = [p.detach().clone() for p in params]
    for t, step in enumerate(steps, start=1):
        call = f"step {t} of {steps} with GradScaler('cpu', {settings})"
        if t == resume_at:
            buffer = io.BytesIO()
            torch.save({"scaler": scaler.state_dict()}, buffer)
            buffer.seek(0)
            scaler = torch.amp.GradScaler("cpu")
            scaler.load_state_dict(torch.load(buffer, weights_only=True)["scaler"])
            call += f", resumed from a state dict before step {t}"
        grads = gradients(step)
        optimizer.zero_grad(set_to_none=True)
        loss = sum((p * gr).sum() for p, gr in zip(params, grads) if gr is not None)
        scaled = scaler.scale(loss)
        clean = step["kind"] == "clean"
        if clean:
            assert_close(scaled, loss * ref.scale, f"scaler.scale(loss) at {call}")
        scaled.backward()
        if clean:
            for i, (p, gr) in enumerate(zip(params, grads)):
                if gr is None:
                    assert p.grad is None, f"param {i} got a gradient {p.grad}, but should have none [{call}]"
                else:
                    assert_close(p.grad, gr * ref.scale, f"param {i} .grad after scale(loss).backward(), {call}")
        if step["unscale"]:
            scaler.unscale_(optimizer)
            if clean:
                for i, (p, gr) in enumerate(zip(params, grads)):
                    if gr is not None:
                        assert_close(p.grad, gr, f"param {i} .grad after scaler.unscale_, {call}")
        scaler.step(optimizer)
        scaler.update()
        if clean:
            for i, gr in enumerate(grads):
                if gr is not None:
                    ref_params[i] = ref_params[i] - LRS[i] * gr
        ref.update(skipped=not clean)
        for i, p in enumerate(params):
            assert_close(p.detach(), ref_params[i], f"param {i} after scaler.step/update, {call}"
                         + ("" if clean else " (the step should be skipped)"))
        assert scaler.get_scale() == pytest.approx(float(ref.scale), rel=1e-6), (
            f"scaler.get_scale() = {scaler.get_scale()}, but should be {float(ref.scale)} [{call}]")
        tracker = scaler.state_dict()["_growth_tracker"]
        assert tracker == ref.tracker, (
            f"state_dict()['_growth_tracker'] = {tracker}, but should be {ref.tracker} clean steps [{call}]")


def step(kind="clean", where=0, second_none=False, unscale=False, seed=0):
    return dict(kind=kind, where=where, second_none=second_none, unscale=unscale, seed=seed)


DEFAULT_FACTORS = (1024.0, 2.0, 0.5, 2)
CASES = {
    "clean steps grow the scale every growth_interval": (DEFAULT_FACTORS, [step(seed=i) for i in range(5)]),
    "an overflow backs off and restarts the count": (DEFAULT_FACTORS, [
        step(seed=1), step("inf", seed=2), step(seed=3), step(seed=4), step(seed=5), step("nan", 1, seed=6),
        step(seed=7), step(seed=8)]),
    "unscale_ before clipping, two groups, a None gradient": ((256.0, 3.0, 0.25, 3), [
        step(unscale=True, seed=1), step(second_none=True, unscale=True, seed=2), step("nan", 1, unscale=True, seed=3),
        step(unscale=True, seed=4), step(second_none=True, seed=5), step(unscale=True, seed=6),
        step("inf", 0, second_none=True, seed=7), step(unscale=True, seed=8)]),
}


@pytest.mark.claim("numerics.gradscaler-update-adjusts-scale")
@pytest.mark.claim("numerics.gradscaler-scale-prevents-underflow")
@pytest.mark.claim("numerics.unscale-before-clip")
@pytest.mark.parametrize("case", list(CASES))
def test_gradscaler_follows_its_documented_rule_step_by_step(case):
    """Material: scale(loss).backward() scales the gradients and update() adjusts the scale.  True:
    step by step, the documented rule: skip and back off on inf/nan, grow after growth_interval clean steps."""
    settings, steps = CASES[case]
    run_scaler(settings, steps)


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
def test_gradscaler_resumed_from_its_state_dict_continues_the_growth_count():
    """Material: save scaler.state_dict(), else the scale restarts after resuming.  True: a fresh
    scaler loaded with it continues the scale and the count of clean steps mid-interval."""
    run_scaler((1024.0, 2.0, 0.5, 3), [step(seed=i) for i in range(1, 8)], resume_at=3)


STEPS = st.builds(step, kind=st.sampled_from(["clean", "clean", "clean", "inf", "nan"]),
                  where=st.integers(0, 1), second_none=st.booleans(), unscale=st.booleans(),
                  seed=st.integers(0, 2 ** 16))
SETTINGS = st.tuples(st.sampled_from([1.0, 1024.0, 65536.0]) | floats(1.0, 65536.0),
                     st.sampled_from([2.0]) | floats(1.1, 4.0),
                     st.sampled_from([0.5]) | floats(0.1, 0.9),
                     st.integers(1, 4))


@pytest.mark.property
@pytest.mark.claim("numerics.gradscaler-update-adjusts-scale")
@pytest.mark.claim("numerics.gradscaler-scale-prevents-underflow")
@pytest.mark.claim("numerics.unscale-before-clip")
@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@property_settings(0.6)
@given(settings=SETTINGS, steps=st.lists(STEPS, min_size=2, max_size=10), data=st.data())
def test_gradscaler_matches_its_documented_rule_for_drawn_factors_and_steps(settings, steps, data):
    """Material: the scaler scales the loss and update() adjusts the scale.  True: for any factors,
    growth_interval and sequence of clean, inf and nan steps, resumed or not, the documented rule."""
    resume_at = data.draw(st.none() | st.integers(2, len(steps)), label="resume before step")
    # settings: GradScaler('cpu', init_scale, growth_factor, backoff_factor, growth_interval)
    code = f"from test_numerics_scaler_rules import run_scaler\nrun_scaler({settings!r}, {steps!r}, resume_at={resume_at!r})"
    with reproduce(code):
        run_scaler(settings, steps, resume_at)

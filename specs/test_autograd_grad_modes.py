"""Autograd: grad modes (no_grad, set_grad_enabled, inference_mode) and memory held by graphs.

Sources: 000 §1 and §2.4, 002 §3.1, §4.4, §4.5 and §5.1, 003 §2.1 and §5.3, 004 §3.3 and §5.3.
Memory is observed through what the graph keeps alive (saved tensors, weak references),
never through wall-clock or process figures; those live in benchmarks/bench_autograd.py.
"""
import weakref

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))


class _SavedCounter:
    """Counts tensors autograd saves for backward while active."""

    def __init__(self):
        self.count = 0
        self.bytes = 0

    def pack(self, t):
        self.count += 1
        self.bytes += t.numel() * t.element_size()
        return t

    def __enter__(self):
        self._ctx = torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


@pytest.mark.claim("autograd.no-grad-stops-recording")
def test_no_grad_records_nothing_and_saves_nothing():
    """Material: no_grad stops graph construction (no grad_fn), saving memory in inference.
    True: outputs have no grad_fn, nothing is saved for backward, leaves keep requires_grad."""
    model, x = _mlp(), torch.randn(32, 8)
    with _SavedCounter() as tracked:
        out = model(x)
    assert out.grad_fn is not None and tracked.count > 0, "the plain forward saved nothing"
    with _SavedCounter() as tracked, torch.no_grad():
        out = model(x)
    assert out.grad_fn is None and not out.requires_grad, f"no_grad output has grad_fn={out.grad_fn}"
    assert tracked.count == 0, f"{tracked.count} tensors were saved for backward under no_grad"
    assert all(p.requires_grad for p in model.parameters()), "no_grad changed the leaves' requires_grad"


@pytest.mark.claim("autograd.no-grad-stops-recording")
def test_inference_mode_also_marks_tensors():
    """Material: inference should run under no_grad.
    True: inference_mode records nothing as well, and its outputs are refused by autograd later."""
    w = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        y = w * 2
    assert y.is_inference() and not y.requires_grad, "inference_mode output is not an inference tensor"
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (y * w).sum().backward()
    with torch.no_grad():
        z = w * 2
    assert not z.is_inference(), "a no_grad output is an inference tensor"
    (z * w).sum().backward()


@pytest.mark.claim("autograd.no-grad-prevents-grad-pollution")
def test_value_computed_under_no_grad_adds_no_gradient():
    """Material: wrapping gradient-free computations in no_grad keeps them from polluting gradients.
    True: such a value is a constant to autograd; it shifts the loss but not y.grad."""
    y = torch.tensor([3.0], requires_grad=True)
    with torch.no_grad():
        penalty = (y ** 3).sum()          # would add 3y**2 = 27 if it were recorded
    loss = (2 * y).sum() + penalty
    loss.backward()
    torch.testing.assert_close(loss.detach(), torch.tensor(33.0), msg="loss = 2y + y**3 at y=3")
    torch.testing.assert_close(y.grad, torch.tensor([2.0]), msg="y.grad with the y**3 term computed under no_grad")


@pytest.mark.claim("autograd.set-grad-enabled-default")
def test_grad_mode_default_and_switches():
    """Material: set_grad_enabled(True) is the default; no_grad disables autograd.
    True: default on; set_grad_enabled(False) acts like no_grad; enable_grad re-enables inside it."""
    assert torch.is_grad_enabled(), "grad mode is off by default"
    x = torch.ones(2, requires_grad=True)
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
        off = x * 2
    with torch.no_grad():
        with torch.enable_grad():
            on = x * 2
        also_off = x * 2
    assert not off.requires_grad and not also_off.requires_grad, "ops recorded while grad mode was off"
    assert on.requires_grad, "enable_grad inside no_grad did not record"
    assert torch.is_grad_enabled(), "grad mode not restored after the context managers"


# --- the edges of the grad modes: nesting, re-entry, decorators, generators ---------------------


@pytest.mark.claim("autograd.no-grad-stops-recording")
def test_nested_no_grad_blocks_give_back_the_mode_they_found():
    """Material: inside no_grad operations record no grad_fn.
    True: also when blocks nest: each one on exit restores the mode it found, not 'on'."""
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        with torch.no_grad():
            pass
        after_inner = x * 2                   # still inside the outer no_grad
        with torch.enable_grad():
            with torch.no_grad():
                innermost = x * 2
            back_on = x * 2                   # inside enable_grad again
        back_off = x * 2                      # inside the outer no_grad again
    recorded = {"after the inner no_grad": after_inner.requires_grad, "innermost": innermost.requires_grad,
                "back in enable_grad": back_on.requires_grad, "back in the outer no_grad": back_off.requires_grad}
    assert recorded == {"after the inner no_grad": False, "innermost": False,
                        "back in enable_grad": True, "back in the outer no_grad": False}, (
        f"requires_grad of x * 2 = {recorded} [no_grad > (no_grad), enable_grad > no_grad]")
    assert torch.is_grad_enabled(), "grad mode is off after the nested blocks"


@pytest.mark.claim("autograd.no-grad-stops-recording")
def test_no_grad_decorated_function_reentered_restores_the_callers_mode():
    """Material: operations under torch.no_grad() record no graph.
    True: also for a decorated function that calls itself; the caller records again after each call."""
    x = torch.ones(4, requires_grad=True)

    @torch.no_grad()
    def predict(t):                           # halves the batch until one element is left
        if t.numel() == 1:
            return t * 2
        half = t.numel() // 2
        return torch.cat([predict(t[:half]), predict(t[half:])])

    for call in (1, 2):
        out = predict(x)
        assert not out.requires_grad, f"call {call}: the @torch.no_grad() function's output requires grad"
        assert torch.is_grad_enabled() and (x * 2).requires_grad, (
            f"call {call}: grad mode {torch.is_grad_enabled()} after a re-entrant @torch.no_grad() call, "
            "but the caller's mode (on) should be back")


@pytest.mark.claim("autograd.no-grad-stops-recording")
def test_no_grad_decorated_generator_records_nothing_while_the_caller_does():
    """Material: operations inside torch.no_grad() record no grad_fn.
    True: a decorated generator runs each step without grad; between steps the caller records."""
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def doubled(t, steps):
        for _ in range(steps):
            yield t * 2, torch.is_grad_enabled()

    seen = [(out.requires_grad, mode, (x * 3).requires_grad) for out, mode in doubled(x, 2)]
    assert seen == [(False, False, True)] * 2, (
        f"(output requires grad, grad mode inside, caller's x * 3 requires grad) per step = {seen}, "
        "expected (False, False, True) [@torch.no_grad() on a generator]")


@pytest.mark.claim("autograd.no-grad-stops-recording")
def test_inference_mode_false_inside_inference_mode_records_normal_tensors():
    """Material: run inference under a grad-free mode.
    True: inference_mode() defaults to on; inference_mode(False) nested inside gives normal, recorded tensors."""
    w = torch.ones(3, requires_grad=True)

    @torch.inference_mode()
    def infer(t):
        with torch.inference_mode(False):
            normal = t * 2
        return normal, t * 2

    normal, inferred = infer(w)
    assert inferred.is_inference() and not inferred.requires_grad, "@torch.inference_mode() output is not inference"
    assert not normal.is_inference() and normal.requires_grad, (
        f"inference_mode(False) output: is_inference={normal.is_inference()}, requires_grad={normal.requires_grad}; "
        "expected a normal tensor with a graph")
    (normal * w).sum().backward()
    torch.testing.assert_close(w.grad, torch.full((3,), 4.0), msg="grad of (2w * w).sum() through inference_mode(False)")


@pytest.mark.claim("autograd.set-grad-enabled-default")
def test_enable_grad_decorated_function_records_under_no_grad_on_every_call():
    """Material: grad mode is on by default and off inside no_grad.
    True: an @torch.enable_grad() function records inside no_grad, on each call, and leaves no_grad on."""
    x = torch.ones(2, requires_grad=True)

    @torch.enable_grad()
    def penalty(t):
        return (t ** 2).sum()

    with torch.no_grad():
        recorded = [penalty(x).requires_grad for _ in range(2)]
        after = (x * 2).requires_grad
    assert recorded == [True, True], f"@torch.enable_grad() output requires_grad per call under no_grad = {recorded}"
    assert not after, "no_grad stopped holding after an @torch.enable_grad() call"


@pytest.mark.claim("autograd.set-grad-enabled-default")
def test_set_grad_enabled_false_as_a_decorator_leaves_the_default_on_around_each_call():
    """Material: set_grad_enabled(True) is the default state.
    True: decorating with @torch.set_grad_enabled(False) keeps it so, at definition and after each call."""
    x = torch.ones(2, requires_grad=True)

    @torch.set_grad_enabled(False)
    def frozen(t):
        return t * 2

    assert torch.is_grad_enabled(), "defining an @torch.set_grad_enabled(False) function turned grad mode off"
    outputs = [frozen(x).requires_grad for _ in range(2)]
    assert outputs == [False, False], f"@torch.set_grad_enabled(False) output requires_grad per call = {outputs}"
    assert torch.is_grad_enabled() and (x * 2).requires_grad, "grad mode is off after calling the decorated function"


@pytest.mark.claim("autograd.set-grad-enabled-default")
def test_set_grad_enabled_true_inside_no_grad_records_and_the_call_form_switches_at_once():
    """Material: set_grad_enabled(True) is the default state; no_grad turns autograd off.
    True: with set_grad_enabled(True) records inside no_grad; called as a function it switches at once."""
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        with torch.set_grad_enabled(True):
            on = x * 2
        off = x * 2
    torch.set_grad_enabled(False)
    try:
        called_off = x * 2
    finally:
        torch.set_grad_enabled(True)
    got = {"with set_grad_enabled(True) in no_grad": on.requires_grad, "after it": off.requires_grad,
           "after set_grad_enabled(False)": called_off.requires_grad}
    assert got == {"with set_grad_enabled(True) in no_grad": True, "after it": False,
                   "after set_grad_enabled(False)": False}, f"requires_grad of x * 2: {got}"


def _saved_bytes_per_inference(model, x, steps):
    """Saved bytes and weakrefs to each step's output while running inference WITHOUT no_grad."""
    per_step, outputs = [], []
    for _ in range(steps):
        with _SavedCounter() as tracked:
            out = model(x)
        per_step.append(tracked.bytes)
        outputs.append(weakref.ref(out))
        del out
    return per_step, outputs


@pytest.mark.claim("autograd.inference-without-no-grad-exponential")
def test_inference_without_no_grad_does_not_grow():
    """Material: inference without no_grad makes memory grow exponentially.
    True: each forward saves the same amount, freed as soon as its output is dropped."""
    model, x = _mlp(), torch.randn(64, 8)
    per_step, outputs = _saved_bytes_per_inference(model, x, steps=5)
    assert len(set(per_step)) == 1 and per_step[0] > 0, f"saved bytes per forward: {per_step}"
    assert all(r() is None for r in outputs), "an earlier forward's output (and graph) is still alive"
    with _SavedCounter() as tracked, torch.no_grad():
        model(x)
    assert tracked.bytes == 0, f"a forward under no_grad saved {tracked.bytes} bytes, expected none"


@pytest.mark.claim("autograd.inference-without-no-grad-exponential", as_written=True)
def test_as_written_inference_without_no_grad_grows():
    """Material: memory grows (exponentially) when inference is not wrapped in no_grad.
    True: every forward holds the same amount."""
    per_step, _ = _saved_bytes_per_inference(_mlp(), torch.randn(64, 8), steps=5)
    assert per_step[-1] > per_step[0], f"saved bytes per forward did not grow: {per_step}"


@pytest.mark.claim("data.item-no-graph-leak")
def test_summing_loss_tensors_keeps_every_graph():
    """Material: accumulating loss tensors (no .item()) keeps each graph alive; use loss.item().
    True: total_loss += loss pins every step's activations; .item() or .detach() frees them."""
    model, x = _mlp(), torch.randn(16, 8)

    def run(record):
        total, hidden = 0.0, []
        for _ in range(3):
            h = model[1](model[0](x))      # tanh output, saved by TanhBackward0 and Linear
            hidden.append(weakref.ref(h))
            loss = model[2](h).square().mean()
            total = total + record(loss)
            del h, loss
        return total, hidden

    total, hidden = run(lambda loss: loss)
    assert isinstance(total, torch.Tensor) and total.grad_fn is not None
    assert all(r() is not None for r in hidden), "a step's activations were freed although total_loss holds the graph"
    del total
    assert all(r() is None for r in hidden), "activations survived dropping total_loss"
    for record in (lambda loss: loss.item(), lambda loss: loss.detach()):
        _, hidden = run(record)
        assert all(r() is None for r in hidden), "a step's activations stayed alive with item()/detach()"


class _Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh())
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.body(x)


@pytest.mark.claim("modules.activation-checkpoint-saves-memory")
def test_checkpoint_recomputes_in_backward_with_same_gradients():
    """Material: checkpoint trades time for memory by recomputing activations (only in training).
    True: forward runs again in backward, fewer tensors are saved, gradients are identical."""
    torch.manual_seed(0)
    block = _Counted().double()
    x = torch.randn(4, 8, dtype=torch.float64, requires_grad=True)
    with _SavedCounter() as plain:
        block(x).sum().backward()
    expected = [p.grad.clone() for p in block.parameters()] + [x.grad.clone()]
    block.zero_grad()
    x.grad = None
    block.calls = 0
    with _SavedCounter() as ckpt:
        out = checkpoint(block, x, use_reentrant=False)
    assert block.calls == 1
    out.sum().backward()
    assert block.calls == 2, f"block ran {block.calls} times; the checkpointed forward should rerun in backward"
    assert ckpt.bytes < plain.bytes, f"checkpoint saved {ckpt.bytes} bytes, plain forward {plain.bytes}"
    for got, want in zip([p.grad for p in block.parameters()] + [x.grad], expected):
        torch.testing.assert_close(got, want, msg="checkpointed gradient differs from the plain one")
    block.calls = 0
    with torch.no_grad():
        checkpoint(block, x, use_reentrant=False)
    assert block.calls == 1, "under no_grad the checkpointed block should run once"


@pytest.mark.claim("modules.activation-checkpoint-saves-memory")
@pytest.mark.needs_torch(">=2.1", reason="checkpoint() warns about an implicit use_reentrant from 2.1 on")
def test_checkpoint_call_without_use_reentrant_warns():
    """Material: calls checkpoint(self.block, x) without use_reentrant.
    True: it works on this torch, with a warning asking for use_reentrant explicitly."""
    block = _Counted()
    x = torch.randn(2, 8, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        out = checkpoint(block, x)
    out.sum().backward()
    assert x.grad is not None, "no gradient through checkpoint(block, x)"

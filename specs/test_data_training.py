"""Data: the training and validation loop — train/eval modes, zero_grad placement, loss.item()
accumulation, no_grad validation, accuracy from max(1), and a loop that really learns.

Sources: 002 §4.4, §4.5; 003 §5.1; 004 §3.3, §5.3, §5.4; 000 §4.5 (tensorboard).  The loop
under test is reference_impl/training.py, reached through the ``ref`` fixture.
"""
import gc
import weakref

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def small_loader(n=32, batch_size=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return DataLoader(TensorDataset(torch.randn(n, 4, generator=g), torch.randint(0, 3, (n,), generator=g)),
                      batch_size=batch_size)


def noisy_model():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5), nn.Linear(8, 3))


# --- train and eval modes --------------------------------------------------------------

@pytest.mark.claim("data.train-eval-mode-switch")
def test_train_mode_makes_repeated_passes_disagree():
    """Material: model.train() enables Dropout/BatchNorm; forgetting eval makes validation jump.
    True: in train mode two passes over one batch differ and BN running stats move."""
    model = noisy_model().train()
    xb, _ = next(iter(small_loader()))
    running = model[1].running_mean.clone()
    with torch.no_grad():
        first, second = model(xb), model(xb)
    assert not torch.equal(first, second), "two train-mode passes gave identical outputs"
    assert not torch.equal(model[1].running_mean, running), "train-mode pass left BN running_mean unchanged"


@pytest.mark.claim("data.train-eval-mode-switch")
def test_evaluate_switches_to_eval_and_is_repeatable(ref):
    """Material: call model.eval() before validation.
    True: ref.training.evaluate gives identical results twice, leaves BN stats alone, ends in eval mode."""
    model = noisy_model().train()
    loader = small_loader()
    running = model[1].running_mean.clone()
    first = ref.training.evaluate(model, loader, nn.CrossEntropyLoss())
    second = ref.training.evaluate(model, loader, nn.CrossEntropyLoss())
    assert first == second, f"two evaluations disagree: {first} vs {second}"
    torch.testing.assert_close(model[1].running_mean, running, msg="evaluate changed BN running_mean")
    assert not model.training and not any(m.training for m in model.modules()), (
        "model is not in eval mode after evaluate (documented: evaluate leaves eval mode on)")
    with torch.enable_grad():
        model(next(iter(loader))[0]).sum().backward()   # forward and backward do not switch modes
    assert not any(m.training for m in model.modules()), "a forward/backward pass left eval mode"
    model.train()
    assert all(m.training for m in model.modules()), "model.train() did not end eval mode"


@pytest.mark.claim("data.train-eval-mode-switch")
def test_train_one_epoch_switches_back_to_train_mode(ref):
    """Material: model.train() before training.
    True: ref.training.train_one_epoch puts an eval-mode model back in train mode."""
    model = noisy_model().eval()
    ref.training.train_one_epoch(model, small_loader(), torch.optim.SGD(model.parameters(), lr=0.01),
                                 nn.CrossEntropyLoss())
    assert model.training and all(m.training for m in model.modules()), "train_one_epoch did not call model.train()"


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn")
def test_eval_pass_inside_an_epoch_leaves_bn_statistics_alone():
    """Material: calling train() and eval() within one epoch corrupts BatchNorm statistics.
    True: an eval-mode validation pass between training steps leaves running stats unchanged."""
    model = noisy_model().train()
    train_batch, val_batch = torch.randn(8, 4), torch.randn(8, 4) * 5 + 3
    with torch.no_grad():
        model(train_batch)
        stats = (model[1].running_mean.clone(), model[1].running_var.clone())
        model.eval()
        model(val_batch)
        model.train()
    torch.testing.assert_close(model[1].running_mean, stats[0], msg="an eval-mode pass moved running_mean")
    torch.testing.assert_close(model[1].running_var, stats[1], msg="an eval-mode pass moved running_var")


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn")
def test_validating_in_train_mode_is_what_moves_bn_statistics():
    """Material: BN statistics get corrupted around validation.
    True: they do when validation batches run in train mode (the forgotten eval())."""
    model = noisy_model().train()
    stats = model[1].running_mean.clone()
    with torch.no_grad():
        model(torch.randn(8, 4) * 5 + 3)
    assert not torch.equal(model[1].running_mean, stats), "a train-mode validation pass left running_mean alone"


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn", as_written=True)
def test_as_written_switching_to_eval_inside_an_epoch_changes_bn_statistics():
    """Material: using model.eval() and model.train() inside one epoch wrecks the BN statistics."""
    model = noisy_model().train()
    stats = model[1].running_mean.clone()
    with torch.no_grad():
        model.eval()
        model(torch.randn(8, 4) * 5 + 3)
        model.train()
    assert not torch.equal(model[1].running_mean, stats)


# --- zero_grad placement ---------------------------------------------------------------

def _grad_of(model, xb, yb):
    model.zero_grad()
    nn.functional.mse_loss(model(xb), yb).backward()
    return model.weight.grad.clone()


@pytest.mark.claim("modules.zero-grad-each-step")
def test_gradients_add_up_across_batches_until_zeroed():
    """Material: without zero_grad before backward, gradients accumulate across batches.
    True: two backwards leave g1 + g2; zero_grad in between leaves g2 alone."""
    model = nn.Linear(3, 1)
    (x1, y1), (x2, y2) = (torch.randn(4, 3), torch.randn(4, 1)), (torch.randn(4, 3), torch.randn(4, 1))
    g1, g2 = _grad_of(model, x1, y1), _grad_of(model, x2, y2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x1), y1).backward()
    nn.functional.mse_loss(model(x2), y2).backward()
    torch.testing.assert_close(model.weight.grad, g1 + g2, msg="two backwards did not sum their gradients")
    optimizer.zero_grad(set_to_none=True)  # the default, since 2.0 (autograd.zero-grad-sets-none)
    assert model.weight.grad is None, f"zero_grad(set_to_none=True) left grad {model.weight.grad}, expected None"
    nn.functional.mse_loss(model(x2), y2).backward()
    torch.testing.assert_close(model.weight.grad, g2, msg="after zero_grad the gradient is not batch 2's alone")


@pytest.mark.claim("modules.zero-grad-each-step")
def test_zero_grad_between_backward_and_step_cancels_the_update():
    """Material: zero_grad placement matters.
    True: backward -> zero_grad -> step leaves the weights unchanged."""
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model.weight.detach().clone()
    nn.functional.mse_loss(model(torch.randn(4, 3)), torch.randn(4, 1)).backward()
    optimizer.zero_grad()
    optimizer.step()
    torch.testing.assert_close(model.weight.detach(), before, msg="step after zero_grad still moved the weights")


# --- metrics -----------------------------------------------------------------------------

@pytest.mark.claim("data.max-dim1-values-indices")
def test_max_dim1_gives_values_and_predicted_classes():
    """Material: output.max(1) -> (values, indices); predicted.eq(target).sum().item() counts hits.
    True: indices == argmax(1), values == amax(1); the count is a Python int."""
    output = torch.tensor([[0.1, 2.0, -1.0], [3.0, 0.0, 0.5], [0.0, 0.2, 0.1], [1.0, 1.5, 9.0]])
    target = torch.tensor([1, 2, 1, 2])
    result = output.max(1)
    assert type(result) is torch.return_types.max and isinstance(result, tuple) and len(result) == 2, (
        f"output.max(1) returned {type(result).__name__}, expected the named tuple torch.return_types.max")
    values, predicted = result
    assert values is result.values and predicted is result.indices, "max(1) fields are not (values, indices)"
    torch.testing.assert_close(predicted, output.argmax(1))
    torch.testing.assert_close(values, output.amax(1))
    hits = predicted.eq(target)
    assert hits.dtype == torch.bool, f"eq gave {hits.dtype}, expected torch.bool"
    correct = hits.sum().item()
    assert type(correct) is int and correct == 3, f"correct={correct!r}, expected the int 3"


class _Marker:
    pass


class _Doubles(torch.autograd.Function):
    """x * 2, keeping a marker object on its context, as saved activations are kept."""

    markers = []

    @staticmethod
    def forward(ctx, x):
        ctx.marker = _Marker()
        _Doubles.markers.append(weakref.ref(ctx.marker))
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def _alive_after_steps(record):
    _Doubles.markers = []
    w = torch.ones(3, requires_grad=True)
    history = []
    for _ in range(4):
        loss = _Doubles.apply(w).sum()
        history.append(record(loss))
    del loss
    gc.collect()
    return sum(ref() is not None for ref in _Doubles.markers), history


def _alive():
    gc.collect()
    return sum(ref() is not None for ref in _Doubles.markers)


@pytest.mark.claim("data.item-no-graph-leak")
def test_storing_loss_tensors_keeps_every_graph_alive_but_item_frees_them():
    """Material: accumulate loss.item(); storing the loss tensor keeps its graph (memory grows).
    True: 4 stored losses keep 4 graphs alive; 4 floats keep none."""
    kept, history = _alive_after_steps(lambda loss: loss)
    assert kept == 4, f"{kept} graphs alive after storing 4 loss tensors, expected 4"
    del history
    assert _alive() == 0, f"{_alive()} graphs still alive after the list of losses was dropped, expected 0"
    freed, history = _alive_after_steps(lambda loss: loss.item())
    assert freed == 0, f"{freed} graphs alive after storing loss.item(), expected 0"
    assert all(type(v) is float for v in history)


@pytest.mark.claim("data.item-no-graph-leak")
def test_reference_loop_reports_plain_floats(ref):
    """Material: the loop accumulates loss.item().
    True: the reference returns Python floats, not tensors holding graphs."""
    model = nn.Linear(4, 3)
    result = ref.training.train_one_epoch(model, small_loader(), torch.optim.SGD(model.parameters(), lr=0.01),
                                          nn.CrossEntropyLoss())
    assert type(result["loss"]) is float and type(result["accuracy"]) is float, f"result types {result}"


# --- validation under no_grad ------------------------------------------------------------

class _RecordsGradMode(nn.Linear):
    def forward(self, x):
        self.grad_modes.append(torch.is_grad_enabled())
        return super().forward(x)


@pytest.mark.claim("data.no-grad-validation")
def test_no_grad_outputs_carry_no_graph_and_equal_values():
    """Material: validation under torch.no_grad() builds no graph, saving memory.
    True: outputs have no grad_fn and requires_grad False; values are unchanged."""
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    with_graph = model(x)
    with torch.no_grad():
        without = model(x)
    assert with_graph.grad_fn is not None
    assert without.grad_fn is None and not without.requires_grad, f"no_grad output has grad_fn {without.grad_fn}"
    torch.testing.assert_close(without, with_graph.detach())
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        model(x)
        grad_saved = len(saved)
        with torch.no_grad():
            model(x)
    assert grad_saved > 0 and len(saved) == grad_saved, (
        f"tensors saved for backward: {grad_saved} with grad, {len(saved) - grad_saved} under no_grad, expected 0")


@pytest.mark.claim("data.no-grad-validation")
def test_reference_evaluate_runs_the_model_with_grad_disabled(ref):
    """Material: wrap validation in torch.no_grad().
    True: inside ref.training.evaluate every forward sees grad disabled; afterwards it is on again."""
    model = _RecordsGradMode(4, 3)
    model.grad_modes = []
    ref.training.evaluate(model, small_loader(), nn.CrossEntropyLoss())
    assert model.grad_modes and not any(model.grad_modes), f"grad mode per forward: {model.grad_modes}"
    assert torch.is_grad_enabled()


# --- the whole loop ---------------------------------------------------------------------

@pytest.mark.claim("data.training-loop-learns")
def test_training_loop_learns_a_synthetic_task(ref):
    """Material: forward, loss, zero_grad, backward, step trains the model.
    True: on a 4-class synthetic task validation loss halves and accuracy exceeds 0.9 (chance 0.25)."""
    train = DataLoader(ref.data.make_synthetic_classification(512, 4, 8, seed=0), batch_size=32, shuffle=True,
                       generator=torch.Generator().manual_seed(0))
    val = DataLoader(ref.data.make_synthetic_classification(256, 4, 8, seed=1), batch_size=64)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    loss_fn = nn.CrossEntropyLoss()
    start = ref.training.evaluate(model, val, loss_fn)
    history = ref.training.fit(model, train, val, torch.optim.Adam(model.parameters(), lr=0.02), loss_fn, epochs=4)
    assert len(history) == 4
    end = history[-1]
    assert end["val_loss"] < 0.5 * start["loss"], f"val loss {start['loss']:.3f} -> {end['val_loss']:.3f}, expected halved"
    assert end["val_accuracy"] > 0.9, f"val accuracy {end['val_accuracy']:.3f}, expected > 0.9 (chance 0.25)"
    assert end["train_loss"] < history[0]["train_loss"], f"train loss did not fall: {history}"


@pytest.mark.claim("data.training-loop-learns")
def test_synthetic_task_is_deterministic_and_balanced_enough(ref):
    """Material: (helper) a small dataset to run the loop on.
    True: same seed -> same tensors; float32 features, int64 labels covering every class."""
    a, b = ref.data.make_synthetic_classification(64, 3, 5, seed=7), ref.data.make_synthetic_classification(64, 3, 5, seed=7)
    torch.testing.assert_close(a.tensors[0], b.tensors[0])
    assert a.tensors[0].shape == (64, 5) and a.tensors[0].dtype == torch.float32
    assert a.tensors[1].dtype == torch.int64 and set(a.tensors[1].tolist()) == {0, 1, 2}


# --- tensorboard --------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.claim("data.tensorboard-add-graph-cpu")
def test_add_graph_traces_a_cuda_model_with_cuda_input(tmp_path):
    """Material: add_graph needs CPU model and input, else 'can't convert cuda:0 ... to numpy'.
    True (checked on CUDA machines with tensorboard installed): a CUDA model and input are traced."""
    tensorboard = pytest.importorskip("torch.utils.tensorboard", reason="needs the tensorboard package")
    writer = tensorboard.SummaryWriter(str(tmp_path))
    try:
        model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).cuda()
        writer.add_graph(model, torch.randn(2, 4, device="cuda"))
    finally:
        writer.close()
    assert any(tmp_path.iterdir()), "add_graph wrote no event file"

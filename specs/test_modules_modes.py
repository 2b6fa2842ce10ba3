"""Modules, chapter 2: train() and eval(), Dropout and BatchNorm, feature maps from hooks.

What eval() changes (only the training flags), how Dropout, F.dropout and BatchNorm react,
BatchNorm's refusal of a single value per channel, whether switching modes within an epoch
harms the running statistics, and capturing feature maps with forward hooks, also under
torch.no_grad().
Sources: 000 §3.2, §4.3; 002 §4.4, §4.5; 003 §1, §3.2, §5.1; 004 §4.3, §5.4.
"""
import inspect

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torchclaims.optional import need


class Block(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.bn1(self.conv(x)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(Block(3), Block(4))

    def forward(self, x):
        return self.layer1(x)


@pytest.mark.claim("modules.eval-sets-training-flag")
def test_eval_sets_training_false_everywhere_and_nothing_else():
    """Material: eval() only flips the training attribute; check bn1.training too.
    True: train(False) on every descendant; returns self; grad mode untouched."""
    model = Model()
    assert model.eval() is model
    flags = {name: m.training for name, m in model.named_modules()}
    assert not any(flags.values()), f"training flags after eval(): {flags}; all should be False"
    assert model.layer1[0].bn1.training is False
    assert all(p.requires_grad for p in model.parameters()), "eval() changed requires_grad"
    out = model(torch.randn(2, 3, 4, 4))
    assert out.grad_fn is not None, "eval() should not disable graph recording; no_grad does that"
    model.train()
    assert all(m.training for m in model.modules())
    assert model.train(False) is model and not any(m.training for m in model.modules()), (
        "train(False) should set the same flags as eval() and return the module")


@pytest.mark.claim("modules.eval-sets-training-flag")
def test_custom_branch_on_self_training_follows_eval():
    """Material: a forward branching on self.training must see the switch.
    True: eval() sets self.training = False, so the branch follows."""
    class Branchy(nn.Module):
        def forward(self, x):
            return x + 1 if self.training else x

    m = Branchy()
    x = torch.zeros(2)
    assert m(x).sum().item() == 2.0 and m.eval()(x).sum().item() == 0.0


@pytest.mark.claim("data.train-eval-mode-switch")
def test_train_mode_is_random_eval_mode_is_deterministic():
    """Material: train() enables Dropout/BN batch statistics, eval() switches to inference.
    True: train outputs vary call to call; eval outputs repeat exactly."""
    model = Model()
    x = torch.randn(4, 3, 6, 6)
    model.train()
    assert not torch.equal(model(x), model(x)), "two train-mode forwards agree; Dropout should differ"
    model.eval()
    with torch.no_grad():
        torch.testing.assert_close(model(x), model(x), rtol=0, atol=0)


@pytest.mark.claim("data.train-eval-mode-switch")
def test_dropout_scales_in_train_and_is_identity_in_eval():
    """Material: Dropout is active in train mode and off in eval mode.
    True: kept elements are scaled by 1/(1-p); eval returns the input unchanged."""
    drop = nn.Dropout(0.25)
    x = torch.ones(10_000)
    y = drop(x)
    kept = y[y != 0]
    torch.testing.assert_close(kept, torch.full_like(kept, 1 / 0.75), msg=lambda m: (
        f"kept elements of Dropout(0.25)(ones) should equal 1/(1-p): {m}"))
    assert 0.2 < (y == 0).float().mean().item() < 0.3
    drop.eval()
    assert torch.equal(drop(x), x), "eval-mode Dropout changed its input"


@pytest.mark.claim("data.train-eval-mode-switch")
def test_bn_uses_batch_statistics_in_train_and_running_in_eval():
    """Material: BatchNorm uses batch statistics in training, stored ones in eval.
    True: train output is batch-normalised; eval output uses running_mean/var."""
    bn = nn.BatchNorm1d(1)
    x = torch.tensor([[10.0], [12.0]])
    torch.testing.assert_close(bn(x), torch.tensor([[-1.0], [1.0]]), atol=1e-3, rtol=0)
    bn.eval()
    expected = (x - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
    torch.testing.assert_close(bn(x), expected)


@pytest.mark.claim("modules.functional-dropout-needs-training-arg")
def test_f_dropout_ignores_eval_unless_training_is_passed():
    """Material: F.dropout must be given training=self.training.
    True: its default is training=True, so a bare call keeps dropping in eval mode."""
    class Bare(nn.Module):
        def forward(self, x):
            return F.dropout(x, p=0.5)

    class Passed(nn.Module):
        def forward(self, x):
            return F.dropout(x, p=0.5, training=self.training)

    assert inspect.signature(F.dropout).parameters["training"].default is True
    x = torch.ones(1000)
    bare, passed = Bare().eval(), Passed().eval()
    assert (bare(x) == 0).any(), "F.dropout(x, p=0.5) in an eval-mode model dropped nothing"
    assert torch.equal(passed(x), x), "F.dropout(..., training=self.training) dropped in eval mode"
    assert (nn.Dropout(0.5).eval()(x) == x).all()


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn")
def test_eval_pass_between_train_steps_leaves_bn_statistics_alone():
    """Material: train() and eval() in the same epoch corrupts BatchNorm statistics.
    True: the eval pass changes nothing; validating in train mode is what does."""
    torch.manual_seed(0)
    train_batches = [torch.randn(8, 3) + 2 for _ in range(3)]
    val_batch = torch.randn(8, 3) * 10 - 50

    def run(validate_mode):
        bn = nn.BatchNorm1d(3)
        for i, batch in enumerate(train_batches):
            bn.train()
            bn(batch)
            if i == 1 and validate_mode is not None:
                bn.train(validate_mode == "train")
                with torch.no_grad():
                    bn(val_batch)
        return bn.running_mean.clone(), bn.num_batches_tracked.item()

    plain, switched, wrong = run(None), run("eval"), run("train")
    torch.testing.assert_close(switched[0], plain[0], msg=lambda m: (
        f"running_mean differs after an eval-mode validation pass mid-epoch: {m}"))
    assert switched[1] == plain[1] == 3
    assert not torch.allclose(wrong[0], plain[0]), "validating in train mode should move running_mean"


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn")
def test_train_mode_validation_normalises_each_batch_with_its_own_statistics():
    """Material: mode switching makes validation metrics oscillate.
    True: validating in train mode does: a sample's output depends on the batch it comes in."""
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    sample = torch.randn(1, 3)
    batch_a = torch.cat([sample, torch.randn(7, 3)])
    batch_b = torch.cat([sample, torch.randn(7, 3) * 4 + 2])
    with torch.no_grad():
        for batch in (batch_a, batch_b):
            expected = (batch - batch.mean(0)) / torch.sqrt(batch.var(0, unbiased=False) + bn.eps)
            torch.testing.assert_close(bn(batch), expected, msg=lambda m: (
                f"train mode should normalise a batch with its own mean and (biased) variance: {m}"))
        in_a, in_b = bn(batch_a)[0], bn(batch_b)[0]
        assert not torch.allclose(in_a, in_b), (
            f"train mode: the same sample gave {in_a.tolist()} and {in_b.tolist()} in two batches; "
            "expected different outputs (batch statistics)")
        bn.eval()
        torch.testing.assert_close(bn(batch_a)[0], bn(batch_b)[0], msg=lambda m: (
            f"eval mode: the same sample should give the same output in any batch: {m}"))


@pytest.mark.claim("modules.train-eval-same-epoch-harms-bn", as_written=True)
def test_as_written_switching_modes_mid_epoch_changes_bn():
    """Material: switching to eval() and back inside an epoch corrupts BN statistics.
    True: the running statistics are identical to never switching."""
    batches = [torch.randn(8, 3) for _ in range(2)]
    a, b = nn.BatchNorm1d(3), nn.BatchNorm1d(3)
    for batch in batches:
        a(batch)
        b(batch)
        b.eval()
        b(torch.randn(8, 3) * 100)
        b.train()
    assert not torch.equal(a.running_mean, b.running_mean), "mode switching left running_mean unchanged"


@pytest.mark.claim("data.drop-last-batchnorm-small-batch")
@pytest.mark.parametrize("bn, shape", [
    (nn.BatchNorm1d(3), (1, 3)),
    (nn.BatchNorm2d(3), (1, 3, 1, 1)),
])
def test_bn_refuses_one_value_per_channel_in_training(bn, shape):
    """Material: tiny batches make BatchNorm's statistics unreliable (hence drop_last).
    True: one value per channel is refused outright in train mode; fine in eval."""
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn.train()(torch.randn(shape))
    assert bn.eval()(torch.randn(shape)).shape == shape


@pytest.mark.claim("data.drop-last-batchnorm-small-batch")
def test_bn_accepts_one_sample_with_spatial_extent():
    """A single image with a spatial extent has several values per channel: accepted."""
    assert nn.BatchNorm2d(3)(torch.randn(1, 3, 2, 2)).shape == (1, 3, 2, 2)


# --- feature maps from forward hooks --------------------------------------------------


@pytest.mark.slow  # builds an 11.7M-parameter resnet18 and runs a 224x224 image
@pytest.mark.claim("modules.forward-hook-captures-feature-map")
def test_forward_hook_captures_resnet_layer4_feature_map():
    """Material: a hook on layer4[-1].conv2 captures a [1, 512, 7, 7] feature map.
    True: for a 224x224 image through resnet18; input arrives as a tuple."""
    torchvision = need("torchvision")
    model = torchvision.models.resnet18(weights=None).eval()
    feature_maps, inputs = {}, {}

    def hook_fn(module, input, output):
        inputs["shape"] = tuple(input[0].shape)
        feature_maps[module.__class__.__name__] = output.detach().cpu()

    handle = model.layer4[-1].conv2.register_forward_hook(hook_fn)
    try:
        with torch.no_grad():
            plain_out = model(torch.randn(1, 3, 224, 224))
    finally:
        handle.remove()
    assert feature_maps["Conv2d"].shape == (1, 512, 7, 7), (
        f"captured feature map shape = {tuple(feature_maps['Conv2d'].shape)}, expected (1, 512, 7, 7)")
    assert inputs["shape"] == (1, 512, 7, 7)
    assert plain_out.shape == (1, 1000)
    handle = model.layer4[-1].conv2.register_forward_hook(hook_fn)
    try:
        with torch.no_grad():
            model(torch.randn(1, 3, 32, 32))
    finally:
        handle.remove()
    assert feature_maps["Conv2d"].shape == (1, 512, 1, 1), (
        f"feature map for a 32x32 image = {tuple(feature_maps['Conv2d'].shape)}, expected (1, 512, 1, 1)")


@pytest.mark.claim("modules.forward-hook-captures-feature-map")
def test_hook_returning_none_leaves_output_and_remove_detaches():
    """A hook that returns None does not change the output; handle.remove() stops it."""
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    calls = []
    handle = model[0].register_forward_hook(lambda m, i, o: calls.append(o.shape))
    x = torch.randn(2, 3)
    with torch.no_grad():
        expected = model[1](model[0](x))
        torch.testing.assert_close(model(x), expected)
        handle.remove()
        model(x)
    assert calls == [(2, 3), (2, 3)], f"hook calls {calls}; expected two before remove() and none after"


@pytest.mark.claim("modules.forward-hook-captures-feature-map")
def test_forward_hook_returning_a_tensor_replaces_the_output():
    """Material: the hook stores output.detach().cpu() and the model's output stays as it is.
    True: only because it returns None; a hook that returns a tensor replaces the layer's output."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    x = torch.randn(2, 3)
    handle = model[0].register_forward_hook(lambda m, i, o: o.abs())
    try:
        with torch.no_grad():
            out = model(x)
            expected = model[0].forward(x).abs()      # forward() itself runs no hooks
    finally:
        handle.remove()
    torch.testing.assert_close(out, expected, msg="model(x) with a hook on model[0] returning output.abs()")


@pytest.mark.claim("modules.forward-hook-captures-feature-map")
def test_feature_map_of_small_cnn_captured(ref):
    """The material's SmallCNN: the last conv's map is (N, 64, 16, 16) before pooling."""
    model = ref.models.SmallCNN().eval()
    captured = []
    handle = model.features[3].register_forward_hook(lambda m, i, o: captured.append(o.detach()))
    try:
        with torch.no_grad():
            model(torch.randn(2, 3, 32, 32))
    finally:
        handle.remove()
    assert captured[0].shape == (2, 64, 16, 16), f"captured {tuple(captured[0].shape)}"


@pytest.mark.claim("autograd.no-grad-silences-hooks")
def test_forward_hooks_fire_inside_no_grad():
    """Material: no_grad disables all hooks, so none fires in a no_grad block.
    True: forward (pre-)hooks fire regardless of grad mode."""
    layer = nn.Linear(3, 2)
    seen = []
    h1 = layer.register_forward_pre_hook(lambda m, i: seen.append("pre"))
    h2 = layer.register_forward_hook(lambda m, i, o: seen.append(("post", o.requires_grad)))
    try:
        with torch.no_grad():
            layer(torch.randn(1, 3))
    finally:
        h1.remove()
        h2.remove()
    assert seen == ["pre", ("post", False)], f"hooks seen under no_grad: {seen}; expected both to fire"


@pytest.mark.claim("autograd.no-grad-silences-hooks", as_written=True)
def test_as_written_no_hook_fires_under_no_grad():
    """Material: inside torch.no_grad() registered hooks never trigger.
    True: the forward hook does trigger."""
    layer = nn.Linear(3, 2)
    seen = []
    handle = layer.register_forward_hook(lambda m, i, o: seen.append(o))
    try:
        with torch.no_grad():
            layer(torch.randn(1, 3))
    finally:
        handle.remove()
    assert seen == [], f"the forward hook fired {len(seen)} time(s) under no_grad"

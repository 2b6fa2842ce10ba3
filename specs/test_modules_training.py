"""Modules, chapter 4: the material's networks, their initialisation and their training step.

The small CIFAR-10 CNN and the "ResNet18Mini" (shapes, parameter counts computed by hand,
and related to torchvision's resnet18), BasicBlock's shortcut, kaiming and normal
initialisation and what fan_in/fan_out preserve, the optimizer's update and zero_grad,
and activation checkpointing with torch.utils.checkpoint.
Sources: 002 §4.3, §4.4, §5.1, §5.2; 003 §4.3, §5.3; 004 §3.3.
"""
import math
import warnings

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from torchclaims.measure import saved_tensor_bytes
from torchclaims.optional import need


def n_params(module):
    return sum(p.numel() for p in module.parameters())


# --- the material's networks ----------------------------------------------------------


@pytest.mark.claim("modules.small-cnn-shapes")
def test_small_cnn_shapes_and_parameter_count(ref):
    """Material: 3x32x32 -> 32x16x16 -> 64x8x8 -> 4096 features -> 512 -> 10.
    True: so; 2,122,186 parameters (896 + 18,496 + 2,097,664 + 5,130)."""
    model = ref.models.SmallCNN(num_classes=10)
    x = torch.randn(2, 3, 32, 32)
    after_first = model.features[:3](x)
    assert after_first.shape == (2, 32, 16, 16), f"after conv1+pool: {tuple(after_first.shape)}"
    features = model.features(x)
    assert features.shape == (2, 64, 8, 8), f"features(x).shape = {tuple(features.shape)}, expected (2, 64, 8, 8)"
    assert model.feature_size == 64 * 8 * 8 == torch.flatten(features, 1).shape[1] == 4096
    by_hand = (3 * 32 * 9 + 32) + (32 * 64 * 9 + 64) + (4096 * 512 + 512) + (512 * 10 + 10)
    assert n_params(model) == by_hand == 2_122_186, (
        f"SmallCNN has {n_params(model)} parameters, by hand {by_hand}; expected 2,122,186")
    out = model(x)
    assert out.shape == (2, 10)
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.claim("modules.small-cnn-shapes")
def test_sequential_version_has_the_same_count():
    """The material's quick nn.Sequential version: same 2,122,186 parameters, (N, 10) output."""
    model = nn.Sequential(
        nn.Conv2d(3, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(4096, 512), nn.ReLU(), nn.Linear(512, 10))
    assert n_params(model) == 2_122_186
    assert model(torch.randn(1, 3, 32, 32)).shape == (1, 10)


@pytest.mark.claim("modules.small-cnn-shapes")
@pytest.mark.parametrize("num_classes", [1, 10, 100])
def test_small_cnn_head_follows_num_classes(ref, num_classes):
    model = ref.models.SmallCNN(num_classes=num_classes).eval()
    assert model(torch.randn(1, 3, 32, 32)).shape == (1, num_classes)


@pytest.mark.claim("modules.resnet-basic-block")
@pytest.mark.parametrize("cin, cout, stride, hw_out", [
    (64, 64, 1, 8), (64, 128, 2, 4), (32, 64, 1, 8), (16, 16, 2, 4),
])
def test_basic_block_shapes_and_projection(ref, cin, cout, stride, hw_out):
    """Material: 1x1 conv + BN shortcut when stride != 1 or channels change; ReLU after add.
    True: projection exactly then; output (N, cout, H/stride, W/stride), non-negative."""
    block = ref.models.BasicBlock(cin, cout, stride)
    projected = len(block.shortcut) > 0
    assert projected == (stride != 1 or cin != cout), (
        f"BasicBlock({cin}, {cout}, {stride}) projection = {projected}")
    out = block(torch.randn(2, cin, 8, 8))
    assert out.shape == (2, cout, hw_out, hw_out)
    assert (out >= 0).all(), "ReLU after the addition should leave no negative value"


@pytest.mark.claim("modules.resnet-basic-block")
def test_identity_shortcut_cannot_add_when_shape_changes(ref):
    """Without the projection the residual addition fails on a size mismatch."""
    for cin, cout, stride in ((64, 128, 2), (64, 64, 2), (64, 128, 1)):
        block = ref.models.BasicBlock(cin, cout, stride)
        block.shortcut = nn.Sequential()
        with pytest.raises(RuntimeError, match="must match the size"):
            block(torch.randn(1, cin, 8, 8))


def resnet_count_by_hand(widths, num_classes):
    conv = lambda cin, cout, k: cin * cout * k * k  # local shorthands
    bn = lambda c: 2 * c
    total = conv(3, 64, 7) + bn(64)
    cin = 64
    for i, c in enumerate(widths):
        for b in range(2):
            total += conv(cin, c, 3) + bn(c) + conv(c, c, 3) + bn(c)
            if b == 0 and (i > 0 or cin != c):
                total += conv(cin, c, 1) + bn(c)
            cin = c
    return total + widths[-1] * num_classes + num_classes


@pytest.mark.claim("modules.resnet18-mini-is-truncated")
def test_resnet18_mini_has_two_stages_and_684362_parameters(ref):
    """Material: ResNet18Mini is ResNet-18 for CIFAR.
    True: only 2 of 4 stages; 684,362 parameters; output (N, 10)."""
    model = ref.models.ResNet18(num_classes=10)
    by_hand = resnet_count_by_hand((64, 128), 10)
    assert n_params(model) == by_hand == 684_362, (
        f"ResNet18(num_classes=10) has {n_params(model)} parameters, by hand {by_hand}")
    assert not hasattr(model, "layer3") and not hasattr(model, "layer4")
    assert (model.conv1.kernel_size, model.conv1.stride) == ((7, 7), (2, 2)), (
        f"stem kernel {model.conv1.kernel_size}, stride {model.conv1.stride}; expected ResNet-18's 7x7, stride 2")
    assert [len(model.layer1), len(model.layer2)] == [2, 2], "each stage should hold two BasicBlocks"
    assert [model.layer1[0].conv1.out_channels, model.layer2[0].conv1.out_channels] == [64, 128]
    assert not any(isinstance(m, nn.MaxPool2d) for m in model.modules()), "the mini net has no max pooling"
    convs = [m for m in model.modules() if isinstance(m, nn.Conv2d) and m.kernel_size != (1, 1)]
    assert len(convs) + 1 == 10, f"{len(convs)} main-path convolutions + fc; the material's net is 10 deep"
    x = torch.randn(2, 3, 32, 32)
    out = model(x)
    assert out.shape == (2, 10)
    out.sum().backward()
    assert model.conv1.weight.grad is not None


@pytest.mark.claim("modules.resnet18-mini-is-truncated")
def test_four_stage_version_matches_torchvision_resnet18_count(ref):
    """With all four stages and 1000 classes the same code has torchvision's 11,689,512."""
    torchvision = need("torchvision")
    with torch.device("meta"):
        full = ref.models.ResNet18(num_classes=1000, stages=4)
        tv = torchvision.models.resnet18(weights=None)
    assert n_params(full) == n_params(tv) == resnet_count_by_hand((64, 128, 256, 512), 1000) == 11_689_512
    assert [tuple(p.shape) for p in full.parameters()] == [tuple(p.shape) for p in tv.parameters()]
    with torch.device("meta"):
        ten = ref.models.ResNet18(num_classes=10, stages=4)
    assert n_params(ten) == 11_181_642


@pytest.mark.claim("modules.resnet18-mini-is-truncated", as_written=True)
def test_as_written_resnet18_mini_is_a_resnet18(ref):
    """Material: the network is ResNet-18 (four stages, ~11M parameters).
    True: two stages, 684,362 parameters."""
    model = ref.models.ResNet18(num_classes=10)
    assert n_params(model) == 11_181_642, f"ResNet18Mini has {n_params(model)} parameters"


# --- initialisation -------------------------------------------------------------------


@pytest.mark.claim("modules.kaiming-normal-std")
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])  # ResNet's convs have none
def test_kaiming_fan_out_std(ref, bias):
    """Material: kaiming_normal_(fan_out, relu) for Conv2d, bias 0.
    True: std = sqrt(2 / (out_channels * k * k))."""
    conv = nn.Conv2d(32, 256, 3, bias=bias)
    ref.models.init_weights(conv)
    expected = math.sqrt(2.0 / (256 * 3 * 3))
    measured = conv.weight.std().item()
    assert abs(measured / expected - 1) < 0.05, (
        f"std of kaiming_normal_(fan_out) weights = {measured:.5f}, expected about {expected:.5f}")
    if bias:
        assert torch.count_nonzero(conv.bias) == 0
    assert nn.init.calculate_gain("relu") == pytest.approx(math.sqrt(2)), "ReLU's gain should be sqrt(2)"
    small = nn.Conv2d(32, 64, 3)
    nn.init.kaiming_normal_(small.weight, mode="fan_out", nonlinearity="relu")
    expected = math.sqrt(2.0 / (64 * 3 * 3))
    w = small.weight.detach()
    assert abs(w.std().item() / expected - 1) < 0.03 and abs(w.mean().item()) < 0.1 * expected, (
        f"Conv2d(32, 64, 3) kaiming fan_out: mean {w.mean().item():.5f}, std {w.std().item():.5f}; "
        f"expected mean 0 and std {expected:.5f}")
    centred = (w / expected).flatten()
    inside = (centred.abs() < 1).float().mean().item()
    assert abs(inside - 0.6827) < 0.02, f"{inside:.3f} of the weights lie within one std; a normal gives 0.683"


@pytest.mark.claim("modules.linear-init-normal-001")
def test_linear_init_normal_std_001_and_zero_bias(ref):
    """Material: Linear weight ~ N(0, 0.01), bias 0.
    True: 0.01 is the standard deviation."""
    model = ref.models.init_weights(ref.models.SmallCNN())
    weight = model.classifier[0].weight
    assert abs(weight.std().item() - 0.01) < 0.0005, f"Linear weight std = {weight.std().item():.5f}"
    assert abs(weight.mean().item()) < 0.001
    assert torch.count_nonzero(model.classifier[0].bias) == 0
    default = nn.Linear(4096, 512).weight.std().item()
    assert default < 0.01, f"nn.Linear's default std {default:.5f}; the material's init is larger here"
    head_default = nn.Linear(512, 10).weight.std().item()
    assert head_default > 2 * 0.01, f"nn.Linear(512, 10)'s default std {head_default:.5f}; 0.01 is smaller here"
    assert nn.Linear(512, 10).weight.abs().max().item() <= 1 / math.sqrt(512), (
        "nn.Linear's default weights should lie in the uniform bound 1/sqrt(in_features)")
    for fan_in, measured in ((4096, default), (512, head_default)):
        expected = 1 / math.sqrt(3 * fan_in)  # kaiming_uniform_(a=sqrt(5)): bound 1/sqrt(fan_in)
        assert abs(measured / expected - 1) < 0.05, (
            f"nn.Linear({fan_in}, ...) default std = {measured:.5f}, expected 1/sqrt(3 * {fan_in}) = {expected:.5f}")


def relu_stack_input_grad_rms(mode, widths):
    """The rms of the gradient at the input of a ReLU stack, for a unit-variance upstream gradient."""
    torch.manual_seed(0)
    x = torch.randn(512, widths[0], requires_grad=True)
    h = x
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
        w = torch.empty(fan_out, fan_in)
        nn.init.kaiming_normal_(w, mode=mode, nonlinearity="relu")
        h = torch.relu(h @ w.t())
    h.backward(torch.randn_like(h))
    return x.grad.pow(2).mean().sqrt().item()


def relu_stack_output_std(mode, widths):
    torch.manual_seed(0)
    x = torch.randn(512, widths[0])
    with torch.no_grad():
        for fan_in, fan_out in zip(widths[:-1], widths[1:]):
            w = torch.empty(fan_out, fan_in)
            nn.init.kaiming_normal_(w, mode=mode, nonlinearity="relu")
            x = torch.relu(x @ w.t())
    return x.pow(2).mean().sqrt().item()


@pytest.mark.claim("modules.kaiming-fan-out-forward-variance")
def test_fan_in_keeps_forward_scale_fan_out_does_not():
    """Material: fan_out keeps the forward variance stable.
    True: fan_in does; fan_out scales it by fan_in/fan_out per layer (here 4x per layer)."""
    widths = [256, 64, 16, 4]  # fan_in = 4 * fan_out in every layer
    fan_in_rms = relu_stack_output_std("fan_in", widths)
    fan_out_rms = relu_stack_output_std("fan_out", widths)
    widening = relu_stack_output_std("fan_out", widths[::-1])  # fan_out = 4 * fan_in: shrinks
    assert widening < 0.25, f"fan_out output rms on widening layers = {widening:.3f}; expected about 1/8"
    assert 0.5 < fan_in_rms < 2.0, f"fan_in output rms = {fan_in_rms:.3f}; expected order 1"
    assert 5 < fan_out_rms / fan_in_rms < 13, (
        f"fan_out output rms = {fan_out_rms:.3f} vs fan_in {fan_in_rms:.3f}; expected the variance to grow "
        "by fan_in/fan_out = 4 per layer, i.e. the rms by about 2 ** 3 = 8 over three layers")
    fan_out_grad = relu_stack_input_grad_rms("fan_out", widths)
    fan_in_grad = relu_stack_input_grad_rms("fan_in", widths)
    assert 0.5 < fan_out_grad < 2.0 and fan_in_grad < 0.5, (
        f"input-gradient rms: fan_out {fan_out_grad:.3f}, fan_in {fan_in_grad:.3f}; expected fan_out to keep the "
        "backward pass at order 1 and fan_in to shrink it")


@pytest.mark.claim("modules.kaiming-fan-out-forward-variance", as_written=True)
def test_as_written_fan_out_keeps_forward_scale():
    """Material: fan_out is the mode that stabilises the forward pass.
    True: it grows here by ~8x over three layers."""
    rms = relu_stack_output_std("fan_out", [256, 64, 16, 4])
    assert 0.5 < rms < 2.0, f"fan_out output rms = {rms:.3f}"


@pytest.mark.claim("numerics.loss-inf-from-bad-init")
def test_init_scale_decides_whether_signal_survives_depth():
    """Material: bad init stalls or explodes training; proper init fixes it.
    True: std 0.01 on 256-wide ReLU layers shrinks the signal ~28x per layer; kaiming keeps it."""
    torch.manual_seed(0)
    x0 = torch.randn(32, 256)

    def final_rms(init):
        x = x0
        with torch.no_grad():
            for _ in range(10):
                w = torch.empty(256, 256)
                init(w)
                x = torch.relu(x @ w.t())
        return x.pow(2).mean().sqrt().item()

    small = final_rms(lambda w: nn.init.normal_(w, 0, 0.01))
    large = final_rms(lambda w: nn.init.normal_(w, 0, 1.0))
    kaiming = final_rms(lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu"))
    assert small < 1e-8, f"rms after 10 layers with std 0.01 = {small:.2e}; expected vanishing"
    assert large > 1e8, f"rms after 10 layers with std 1.0 = {large:.2e}; expected explosion"
    assert 0.3 < kaiming < 3.0, f"rms after 10 layers with kaiming = {kaiming:.3f}; expected order 1"


# --- the optimizer step ---------------------------------------------------------------


@pytest.mark.claim("modules.optimizer-step-rule")
def test_plain_sgd_step_is_p_minus_lr_grad_in_place():
    """Material: the optimizer does p = p - lr * grad on the registered leaf.
    True: exactly for plain SGD, in place on the same Parameter; momentum differs."""
    layer = nn.Linear(3, 2)
    assert all(p.is_leaf and p.requires_grad for p in layer.parameters()), (
        "every parameter of nn.Linear should be a leaf with requires_grad=True")
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(torch.randn(4, 3)).pow(2).sum().backward()
    assert all(p.grad is not None for p in layer.parameters()), "loss.backward() left a parameter's .grad None"
    weight_obj = layer.weight
    expected = layer.weight.detach() - 0.1 * layer.weight.grad
    optimizer.step()
    assert layer.weight is weight_obj
    torch.testing.assert_close(layer.weight.detach(), expected)
    p = nn.Parameter(torch.zeros(1))
    momentum = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    for _ in range(2):
        p.grad = torch.ones(1)
        momentum.step()
    torch.testing.assert_close(p.detach(), torch.tensor([-0.1 - 0.19]), msg=lambda m: (
        f"SGD(momentum=0.9) after two unit gradients should be at -0.29, not -0.2: {m}"))


@pytest.mark.claim("modules.zero-grad-each-step")
def test_gradients_accumulate_without_zero_grad():
    """Material: without zero_grad() gradients add up across batches.
    True: so; zero_grad(set_to_none=True) clears them to None."""
    layer = nn.Linear(2, 1, bias=False)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    x = torch.tensor([[1.0, 2.0]])
    layer(x).sum().backward()
    layer(x).sum().backward()
    torch.testing.assert_close(layer.weight.grad, 2 * x, msg=lambda m: (
        f"two backward passes without zero_grad should give twice the gradient: {m}"))
    optimizer.zero_grad(set_to_none=True)  # the default since 2.0: autograd.zero-grad-sets-none
    assert layer.weight.grad is None, f"grad after zero_grad(set_to_none=True) = {layer.weight.grad}, expected None"


@pytest.mark.claim("modules.zero-grad-each-step")
def test_zero_grad_between_backward_and_step_discards_the_update():
    """Calling zero_grad() after backward() and before step() leaves the weights unchanged."""
    layer = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    before = layer.weight.detach().clone()
    layer(torch.ones(1, 2)).sum().backward()
    optimizer.zero_grad()
    assert layer.weight.grad is None, f"zero_grad() left {layer.weight.grad}; its default set_to_none=True gives None"
    optimizer.step()
    torch.testing.assert_close(layer.weight.detach(), before)


@pytest.mark.claim("modules.zero-grad-each-step")
def test_module_zero_grad_clears_every_nested_parameter():
    """Material: clear the gradients with zero_grad() before each backward.
    True: model.zero_grad() reaches every parameter of every submodule, the first layer and the
    nested ones alike: None with set_to_none=True, zero tensors with set_to_none=False."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.ReLU(), nn.Linear(4, 1)))
    x = torch.randn(5, 3)
    model(x).sum().backward()
    model.zero_grad(set_to_none=True)  # the default since 2.0: autograd.zero-grad-sets-none
    left = [name for name, p in model.named_parameters() if p.grad is not None]
    assert left == [], f"model.zero_grad(set_to_none=True) left .grad set on {left}, expected None everywhere"
    model(x).sum().backward()
    one_batch = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad(set_to_none=False)
    for name, p in model.named_parameters():
        assert p.grad is not None and torch.count_nonzero(p.grad) == 0, (
            f"{name}.grad after model.zero_grad(set_to_none=False) = {p.grad}, expected a zero tensor")
    model(x).sum().backward()
    for name, p in model.named_parameters():
        torch.testing.assert_close(p.grad, one_batch[name], msg=lambda m, name=name: (
            f"{name}.grad after zero_grad and one backward is not that batch's gradient alone: {m}"))


# --- activation checkpointing ---------------------------------------------------------




@pytest.mark.claim("modules.activation-checkpoint-saves-memory")
def test_checkpointed_block_saves_fewer_activations_same_gradients(ref):
    """Material: checkpoint trades recomputation for memory.
    True: fewer bytes saved for backward, same gradients, the block runs forward twice."""
    torch.manual_seed(0)
    block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
    wrapped = ref.models.CheckpointedBlock(block)
    x = torch.randn(4, 8, 16, 16, requires_grad=True)
    calls = []
    handle = block[0].register_forward_hook(lambda m, i, o: calls.append(1))
    try:
        plain_bytes, plain_out = saved_tensor_bytes(lambda: block(x))
        plain_out.sum().backward()
        plain_grads = [p.grad.clone() for p in block.parameters()]
        block.zero_grad()
        calls.clear()
        ckpt_bytes, ckpt_out = saved_tensor_bytes(lambda: wrapped(x))
        ckpt_out.sum().backward()
    finally:
        handle.remove()
    assert ckpt_bytes < plain_bytes / 2, (
        f"saved for backward: {ckpt_bytes} bytes with checkpoint vs {plain_bytes} without; "
        "expected well under half")
    assert ckpt_bytes == x.numel() * x.element_size(), (
        f"checkpointed block saved {ckpt_bytes} bytes; expected only its input ({x.numel() * x.element_size()}), "
        "no intermediate activation")
    assert len(calls) == 2, f"block forward ran {len(calls)} times; recomputation should make it 2"
    for g, p in zip(plain_grads, block.parameters()):
        torch.testing.assert_close(p.grad, g)


@pytest.mark.claim("modules.checkpoint-call-as-written")
def test_reentrant_checkpoint_on_input_without_grad_gives_no_parameter_grads():
    """Material: checkpoint(self.block, x) is all it takes.
    True: the default (reentrant) variant warns, and with x not requiring grad the
    block's weights get no gradient; use_reentrant=False works."""
    block = nn.Linear(4, 4)
    head = nn.Linear(4, 1)
    x = torch.randn(2, 4)  # e.g. raw images: no requires_grad
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = head(checkpoint(block, x, use_reentrant=True))
    out.sum().backward()
    assert block.weight.grad is None, "reentrant checkpoint gave the block a gradient"
    assert any("requires_grad" in str(w.message) for w in caught)
    head(checkpoint(block, x, use_reentrant=False)).sum().backward()
    assert block.weight.grad is not None, "use_reentrant=False should give the block a gradient"


@pytest.mark.claim("modules.checkpoint-call-as-written")
@pytest.mark.needs_torch(">=2.1", reason="checkpoint() warns about an implicit use_reentrant from 2.1 on")
def test_checkpoint_without_use_reentrant_warns():
    """Leaving use_reentrant out is warned about on current torch."""
    x = torch.randn(2, 4, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint(nn.Linear(4, 4), x)
    block = nn.Linear(4, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(block, torch.randn(2, 4))  # the default variant, on an input without grad
    said = [str(w.message) for w in caught]
    assert any("use_reentrant" in m for m in said) and any("requires_grad" in m for m in said), (
        f"warnings of checkpoint(block, x) without use_reentrant: {said}; expected the use_reentrant "
        "and the requires_grad warnings")
    assert out.grad_fn is None and not out.requires_grad, (
        "checkpoint(block, x) without use_reentrant gave an output with a graph; the reentrant default gives none")


@pytest.mark.claim("modules.checkpoint-call-as-written")
def test_reference_checkpointed_block_trains_first_layer(ref):
    """The reference CheckpointedBlock gives parameter gradients for a raw input; no_grad skips it."""
    wrapped = ref.models.CheckpointedBlock(nn.Linear(4, 4))
    wrapped(torch.randn(2, 4)).sum().backward()
    assert wrapped.block.weight.grad is not None
    with torch.no_grad():
        assert wrapped(torch.randn(2, 4)).grad_fn is None
    calls = []
    wrapped = ref.models.CheckpointedBlock(nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4)))
    # hooked inside the block: the recomputation runs the block's layers again
    handle = wrapped.block[0].register_forward_hook(lambda m, i, o: calls.append(m.training))
    try:
        wrapped.eval()
        wrapped(torch.randn(2, 4)).sum().backward()
        assert calls == [False, False], f"eval-mode forwards of the block: {calls}; backward should rerun it"
        calls.clear()
        with torch.no_grad():
            out = checkpoint(wrapped.block, torch.randn(2, 4), use_reentrant=False)
        assert calls == [False] and out.grad_fn is None, (
            f"under no_grad checkpoint ran the block {len(calls)} times (grad_fn {out.grad_fn}); "
            "expected once, nothing saved")
    finally:
        handle.remove()


@pytest.mark.claim("modules.checkpoint-call-as-written", as_written=True)
def test_as_written_plain_checkpoint_call_trains_the_block():
    """Material: checkpoint(self.block, x) simply works.
    True: on an input without grad the block's weights get no gradient."""
    block = nn.Linear(4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = checkpoint(block, torch.randn(2, 4))
    if out.requires_grad:
        out.sum().backward()
    assert block.weight.grad is not None, "block.weight.grad is None after checkpoint(block, x)"


@pytest.mark.claim("modules.small-cnn-shapes")
@pytest.mark.parametrize("name, case", [
    ("SmallCNN", "batch-1"), ("SmallCNN", "batch-0"), ("SmallCNN", "non-contiguous"),
    ("SwappableHeadNet", "batch-1"), ("SwappableHeadNet", "batch-0"),
    ("SwappableHeadNet", "non-contiguous"), ("ResNet18", "batch-1"), ("ResNet18", "batch-0"),
])
def test_reference_models_on_awkward_inputs(ref, name, case):
    """The reference networks give the same eval-mode result for awkward batches and layouts."""
    model = getattr(ref.models, name)().eval()
    x = torch.randn(2, 3, 32, 32)
    if case == "batch-1":
        x = x[:1]
    elif case == "batch-0":
        x = x[:0]
    with torch.no_grad():
        expected = model(x.contiguous())
        if case == "non-contiguous":
            x = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)  # NHWC memory, NCHW view
            assert not x.is_contiguous()
        out = model(x)
    assert out.shape == (x.shape[0], 10), f"{name} output shape {tuple(out.shape)} for input {tuple(x.shape)}"
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-4)

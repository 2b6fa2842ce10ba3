"""Devices, placement: where tensors and modules live, and what moving them does.

Sources: 000 §1, §3.1, §4.5; 002 §4.3, §4.4, §5.4; 003 §1, §3.1, §3.3, §4.4, §5.1; 004 §2.3,
§4.1.  CPU-only machines stand in for a second device with ``meta`` (shape and dtype, no
data), which mixes with ``cpu`` as badly as ``cuda`` does; the CUDA-specific messages are
checked by gpu-marked specs.
"""
import pytest
import torch
from torch import nn

META = torch.device("meta")
# A meta tensor is the CPU-only stand-in for "a second device" in the mixing specs.  It works
# as one from torch 2.0: 1.13's torch.cat takes cpu + meta without a device check (the result
# is meta) and the error only comes from autograd in backward, unlike cuda + cpu, which raises
# at the cat on every release.
META_IS_DEVICE_CHECKED = pytest.mark.measurable_on(
    ">=2.0", reason="before 2.0 torch.cat accepts cpu + meta tensors unchecked, so meta cannot stand in for a second device")


def _registered_tensors(module):
    return dict(module.named_parameters()) | dict(module.named_buffers())


class _CatsWithBias(nn.Module):
    """A forward that concatenates its input with a tensor held as a plain attribute."""

    def __init__(self, extra):
        super().__init__()
        self.extra = extra          # not a buffer: model.to() will not move it
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        joined = torch.cat([x, self.extra.expand(x.shape[0], -1)], dim=1)
        return self.fc(joined)


# ---------------------------------------------------------------- mixing devices

@pytest.mark.gpu
@pytest.mark.claim("devices.mixed-device-error-message")
def test_cuda_and_cpu_tensors_in_one_op_raise_same_device_error():
    """Material: mixing a GPU and a CPU tensor raises 'Expected all tensors to be on the same device'.
    True on CUDA, for non-scalar CPU tensors; a 0-dim CPU tensor is allowed as a scalar."""
    gpu, cpu = torch.ones(3, device="cuda"), torch.ones(3)
    for name, op in [("cat", lambda: torch.cat([gpu, cpu])), ("add", lambda: gpu + cpu),
                     ("mm", lambda: torch.mm(gpu.view(1, 3), cpu.view(3, 1)))]:
        with pytest.raises(RuntimeError) as info:
            op()
        assert str(info.value).startswith("Expected all tensors to be on the same device"), (
            f"{name} of a cuda and a cpu tensor raised {str(info.value)[:120]!r}, expected a message "
            "starting 'Expected all tensors to be on the same device'")
    mixed_with_scalar = gpu + torch.tensor(2.0)
    assert mixed_with_scalar.device.type == "cuda", (
        f"cuda + 0-dim cpu tensor landed on {mixed_with_scalar.device}, expected cuda")


@pytest.mark.claim("devices.mixed-device-error-at-backward")
@META_IS_DEVICE_CHECKED
def test_device_mixing_raises_inside_forward_at_the_cat():
    """Material: the device error surfaces at loss.backward(), far from the torch.cat.
    True: eager mode raises at the torch.cat itself, during forward; backward is never reached."""
    model = _CatsWithBias(torch.zeros(1, 1, device=META))
    x = torch.randn(2, 3)
    reached = []
    with pytest.raises(RuntimeError, match="device") as info:
        out = model(x)
        reached.append("forward returned")
        out.sum().backward()
    assert reached == [], f"forward returned despite mixed devices; reached={reached}"
    frames = [entry.name for entry in info.traceback]
    assert "forward" in frames, (
        f"the error was raised from frames {frames}, expected inside _CatsWithBias.forward (at torch.cat)")
    line = str([entry for entry in info.traceback if entry.name == "forward"][-1].statement)
    assert "torch.cat" in line, f"the traceback's line in forward is {line!r}, expected the torch.cat line"


@pytest.mark.gpu
@pytest.mark.claim("devices.mixed-device-error-at-backward")
def test_cuda_cpu_mixing_raises_inside_forward():
    """Material: the error shows at loss.backward().  True on CUDA too: it is raised by the cat in forward."""
    model = _CatsWithBias(torch.zeros(1, 1)).cuda()       # .extra stays on the CPU
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device") as info:
        model(torch.randn(2, 3, device="cuda"))
    assert "forward" in [entry.name for entry in info.traceback]


@pytest.mark.claim("devices.mixed-device-error-at-backward", as_written=True, raises=RuntimeError, match=r"device")
@META_IS_DEVICE_CHECKED
def test_as_written_device_mixing_only_fails_at_backward():
    """Material: forward with a mixed-in tensor runs; backward is where it breaks.
    True: forward itself raises (strict xfail)."""
    model = _CatsWithBias(torch.zeros(1, 1, device=META))
    out = model(torch.randn(2, 3))          # the material expects this line to pass
    with pytest.raises(RuntimeError):
        out.sum().backward()


# ---------------------------------------------------------------- moving modules

@pytest.mark.claim("devices.module-to-moves-params-and-buffers")
def test_module_to_moves_parameters_and_buffers_recursively():
    """Material: model.to(device) moves parameters and buffers; containers recurse into children.
    True: every registered parameter and buffer of every submodule moves."""
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Sequential(nn.Flatten(), nn.Linear(4, 2)))
    names = sorted(_registered_tensors(model))
    assert {"1.running_mean", "1.running_var", "1.num_batches_tracked", "2.1.weight"} <= set(names), (
        f"registered tensors {names}, expected BatchNorm's three buffers and the nested Linear's weight")
    model.to(META)
    where = {name: t.device for name, t in _registered_tensors(model).items()}
    assert all(dev == META for dev in where.values()), f"after model.to('meta'): {where}, expected all on meta"


@pytest.mark.claim("devices.module-to-moves-all-tensors")
def test_module_to_moves_only_registered_tensors():
    """Material: model.to(device) recursively moves all the model's tensors.
    True: only parameters, buffers and submodules; plain tensor attributes and list-held layers stay."""
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.register_buffer("kept", torch.ones(2))
            self.plain = torch.ones(2)                 # ordinary attribute
            self.in_list = [nn.Linear(2, 2)]           # not registered
            self.in_module_list = nn.ModuleList([nn.Linear(2, 2)])   # the fix for the list

    model = Holder().to(META)
    assert model.fc.weight.device == META and model.kept.device == META, (
        f"a submodule's weight is on {model.fc.weight.device} and a registered buffer on {model.kept.device}, "
        "expected both on meta")
    assert model.in_module_list[0].weight.device == META, (
        f"a layer in nn.ModuleList is on {model.in_module_list[0].weight.device}, expected it moved to meta")
    assert model.plain.device.type == "cpu", f"plain attribute moved to {model.plain.device}, expected to stay on cpu"
    assert model.in_list[0].weight.device.type == "cpu", (
        f"list-held layer moved to {model.in_list[0].weight.device}, expected to stay on cpu")


@pytest.mark.claim("devices.module-to-moves-all-tensors", as_written=True)
def test_as_written_module_to_moves_every_tensor_attribute():
    """Material: all tensors of the model move with model.to.  True: plain attributes stay (strict xfail)."""
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.plain = torch.ones(2)

    model = Holder().to(META)
    assert model.plain.device == META, f"model.plain is on {model.plain.device}, the material expects meta"


@pytest.mark.claim("devices.module-to-in-place-returns-self")
def test_module_to_changes_the_module_in_place_and_returns_it():
    """Material: model = Net().to(dev) puts the model on dev; .cpu()/.cuda() switch it back and forth.
    True: Module.to/.cpu() modify in place and return the same module object."""
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    returned = model.to(META)
    assert returned is model, "Module.to returned a different object, expected the module itself"
    assert model[0].weight.device == META, f"the original module's weight is on {model[0].weight.device}, expected meta"
    assert model.to(torch.float64) is model and model[0].weight.dtype == torch.float64
    back = nn.Linear(2, 2).double()
    assert back.cpu() is back, "Module.cpu() returned a different object, expected the module itself"


@pytest.mark.gpu
@pytest.mark.claim("devices.module-to-in-place-returns-self")
def test_module_cuda_and_cpu_round_trip_the_same_object():
    """Material: model.cpu() then model.cuda() switches the same model between devices.  True on CUDA."""
    model = nn.Linear(3, 2)
    assert model.cuda() is model and model.weight.is_cuda
    assert model.cpu() is model and model.weight.device.type == "cpu"


# ---------------------------------------------------------------- moving tensors

@pytest.mark.claim("devices.tensor-to-returns-new-tensor")
def test_tensor_to_returns_a_new_tensor_and_leaves_the_original():
    """Material: data = data.to(device) has to be reassigned.
    True: Tensor.to returns a new tensor on a change, and the tensor itself when nothing changes."""
    data = torch.arange(6.0)
    moved = data.to(META)
    assert moved is not data and moved.device == META
    assert data.device.type == "cpu", f"data.to('meta') moved the original to {data.device}, expected it untouched"
    assert data.to("cpu") is data, "data.to('cpu') on a cpu tensor returned a new tensor, expected the same object"
    assert data.to(torch.float32) is data, "to(float32) on a float32 tensor returned a new tensor"
    widened = data.to(torch.float64)
    assert widened is not data and (widened.dtype, data.dtype) == (torch.float64, torch.float32), (
        f"to(float64) gave {widened.dtype} and left the original {data.dtype}, expected a new float64 tensor "
        "and the float32 original")
    layer = nn.Linear(2, 2)
    assert layer.to(META) is layer and layer.weight.device == META, "Module.to, unlike Tensor.to, should work in place"
    copied = data.to("cpu", copy=True)
    assert copied is not data and copied.data_ptr() != data.data_ptr(), "to(copy=True) shared memory"


@pytest.mark.gpu
@pytest.mark.claim("devices.tensor-to-returns-new-tensor")
def test_tensor_to_cuda_leaves_cpu_original():
    """Material: reassign the result of .to(device).  True on CUDA: the original stays on the CPU."""
    data = torch.arange(6.0)
    moved = data.to("cuda")
    assert moved.is_cuda and data.device.type == "cpu"
    assert moved.to("cuda") is moved


@pytest.mark.claim("tensors.float-copies-to-does-not")
def test_dtype_change_with_to_copies_like_float():
    """Material: .to(torch.float32) on the same device is zero-copy, unlike .float().
    True: any dtype change allocates; .to(float32) and .float() are the same operation."""
    image = torch.randint(0, 256, (4, 4, 3), dtype=torch.uint8)
    via_to = image.to(torch.float32)
    via_float = image.float()
    assert via_to.data_ptr() != image.data_ptr(), "uint8 -> float32 via .to shared memory, expected a copy"
    assert via_float.data_ptr() != image.data_ptr()
    torch.testing.assert_close(via_to, via_float, rtol=0, atol=0)
    via_to[0, 0, 0] = -1.0
    assert image[0, 0, 0] != -1, "writing the converted tensor changed the uint8 source"


@pytest.mark.claim("tensors.float-copies-to-does-not", as_written=True)
def test_as_written_to_float32_shares_memory():
    """Material: .to(torch.float32) is zero-copy on the same device.  True: it copies (strict xfail)."""
    image = torch.randint(0, 256, (4, 4, 3), dtype=torch.uint8)
    converted = image.to(torch.float32)
    assert converted.data_ptr() == image.data_ptr(), (
        f"data_ptr {converted.data_ptr()} != {image.data_ptr()}: .to(float32) copied")


@pytest.mark.claim("tensors.zeros-like-inherits")
def test_zeros_like_keeps_device_and_dtype_but_not_requires_grad():
    """Material: zeros_like takes device, dtype and requires_grad from its template.
    True: device, dtype and layout yes; requires_grad is False unless asked for."""
    template = torch.ones(2, 3, dtype=torch.float64, device=META, requires_grad=True)
    zeros = torch.zeros_like(template)
    assert (zeros.device, zeros.dtype, zeros.shape) == (META, torch.float64, template.shape)
    assert zeros.requires_grad is False, f"zeros_like(...).requires_grad={zeros.requires_grad}, expected False"
    assert torch.zeros_like(template, requires_grad=True).requires_grad
    # meta tensors have no values; on cpu the values are zeros, whatever the template holds
    on_cpu = torch.zeros_like(torch.full((2, 3), 7.0, dtype=torch.float64, requires_grad=True))
    assert on_cpu.dtype == torch.float64 and not on_cpu.requires_grad and int(on_cpu.count_nonzero()) == 0, (
        f"zeros_like(full(7.0)) gave {on_cpu.tolist()} {on_cpu.dtype} requires_grad={on_cpu.requires_grad}")


@pytest.mark.claim("tensors.zeros-like-inherits", as_written=True)
def test_as_written_zeros_like_inherits_requires_grad():
    """Material: requires_grad is inherited too.  True: it is not (strict xfail)."""
    template = torch.ones(2, requires_grad=True)
    assert torch.zeros_like(template).requires_grad, "zeros_like(template).requires_grad is False"


@pytest.mark.claim("devices.numpy-needs-cpu-tensor")
def test_numpy_of_non_cpu_tensor_raises_type_error_naming_the_device():
    """Material: "can't convert cuda:0 device type tensor to numpy"; .cpu() first fixes it.
    True: .numpy() refuses every non-CPU device with that TypeError (meta here)."""
    with pytest.raises(TypeError, match=r"can't convert meta device type tensor to numpy\. "
                       r"Use Tensor\.cpu\(\) to copy the tensor to host memory first"):
        torch.ones(2, device=META).numpy()
    assert torch.ones(2).numpy().tolist() == [1.0, 1.0]


@pytest.mark.gpu
@pytest.mark.claim("devices.numpy-needs-cpu-tensor")
def test_numpy_of_cuda_tensor_raises_and_cpu_fixes_it():
    """Material: the cuda:0 tensor must go through .cpu() before NumPy.  True on CUDA."""
    gpu = torch.ones(2, device="cuda:0")
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. "
                       r"Use Tensor\.cpu\(\) to copy the tensor to host memory first"):
        gpu.numpy()
    assert gpu.cpu().numpy().tolist() == [1.0, 1.0]


@pytest.mark.claim("tensors.tensor-adds-device-requires-grad")
def test_every_tensor_carries_its_device():
    """Material: unlike an ndarray, a Tensor records whether it is on the CPU or an accelerator.
    True: .device and .is_cuda; factories take device= and default to the CPU."""
    cpu = torch.ones(2)
    assert cpu.device == torch.device("cpu") and cpu.is_cuda is False
    meta = torch.ones(2, device="meta")
    assert meta.device.type == "meta" and meta.shape == (2,)


@pytest.mark.claim("devices.device-string-idiom")
def test_device_strings_and_objects_are_interchangeable():
    """Material: torch.device('cuda' if available else 'cpu'); .to('cuda') with a string.
    True: the idiom gives cuda only where a CUDA device exists; strings and devices mean the same; unknown names raise."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    present = torch.cuda.device_count() > 0
    assert device == torch.device("cuda" if present else "cpu"), (
        f"the idiom gave {device} with {torch.cuda.device_count()} CUDA devices present")
    placed = nn.Linear(2, 2).to(device)
    assert placed(torch.ones(1, 2, device=device)).device.type == device.type, f"a model on {device} did not run there"
    x = torch.ones(2)
    assert x.to("cpu").device == x.to(torch.device("cpu")).device == torch.device("cpu")
    assert torch.device("cuda:1") == torch.device("cuda", 1)
    assert (torch.device("cuda").type, torch.device("cpu").type) == ("cuda", "cpu")
    assert str(torch.device("cpu")) == "cpu"
    with pytest.raises(RuntimeError, match="device"):
        torch.device("gpu")


@pytest.mark.claim("devices.bare-cuda-means-current-device")
def test_bare_cuda_has_no_index_and_indexed_cuda_does():
    """Material: each DDP rank needs f'cuda:{rank}', not 'cuda'.
    True: torch.device('cuda') carries no index (it means 'the current device'); 'cuda:1' does."""
    assert torch.device("cuda").index is None
    assert torch.device("cuda:1").index == 1
    assert torch.device(f"cuda:{3}") != torch.device("cuda")


@pytest.mark.gpu
@pytest.mark.claim("devices.bare-cuda-means-current-device")
def test_bare_cuda_resolves_to_the_current_device():
    """Material: plain 'cuda' is wrong for DDP ranks.  True: it lands on torch.cuda.current_device()."""
    placed = torch.ones(1, device="cuda")
    assert placed.device == torch.device("cuda", torch.cuda.current_device()), (
        f"a tensor made with device='cuda' is on {placed.device}, expected the current device")
    assert torch.cuda.current_device() == 0, (
        f"current device {torch.cuda.current_device()} without torch.cuda.set_device, expected 0")


@pytest.mark.claim("modules.module-has-no-device-attribute")
def test_module_has_no_device_attribute():
    """Material: write x = x.to(self.device) at the top of forward.
    True: nn.Module defines no .device; that line raises AttributeError."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def forward(self, x):
            x = x.to(self.device)
            return self.fc(x)

    assert not hasattr(nn.Linear(2, 2), "device")
    with pytest.raises(AttributeError, match="device"):
        Net()(torch.ones(1, 3))


@pytest.mark.claim("modules.module-has-no-device-attribute", as_written=True, raises=AttributeError, match=r"has no attribute 'device'")
def test_as_written_forward_can_use_self_device():
    """Material: self.device is available inside forward.  True: AttributeError (strict xfail)."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)

        def forward(self, x):
            return self.fc(x.to(self.device))

    assert Net()(torch.ones(1, 3)).shape == (1, 1)


@pytest.mark.claim("devices.first-parameter-device-check")
def test_first_parameter_device_misses_a_split_model():
    """Material: next(model.parameters()).device reveals a model partly left on the CPU.
    True: it reports the first parameter only; checking all parameters finds the split."""
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model[1].to(META)                                   # second half moved, first left on cpu
    first = next(model.parameters()).device
    every = {p.device for p in model.parameters()}
    assert first.type == "cpu", f"next(parameters()).device={first}"
    assert every == {torch.device("cpu"), META}, f"parameter devices {every}, expected cpu and meta"
    whole = nn.Linear(2, 2).to(META)
    x = torch.ones(1, 2).to(next(whole.parameters()).device)
    assert x.device == META, "x.to(next(parameters()).device) did not follow a single-device model"
    norm = nn.BatchNorm1d(2)
    norm.running_mean = norm.running_mean.to(META)       # a buffer elsewhere, every parameter on cpu
    params, buffers = {p.device for p in norm.parameters()}, {b.device for b in norm.buffers()}
    assert params == {torch.device("cpu")} and META in buffers, (
        f"parameter devices {params}, buffer devices {buffers}: only the buffers should show the split")


@pytest.mark.claim("devices.first-parameter-device-check", as_written=True)
def test_as_written_first_parameter_device_detects_a_split_model():
    """Material: next(parameters()).device shows that part of the model is elsewhere.  True: it cannot (strict xfail)."""
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model[1].to(META)
    assert next(model.parameters()).device == META, "next(parameters()).device says cpu: the split is invisible"


# ---------------------------------------------------------------- optimizer state

def _adam_state_after_one_step(dtype=torch.float32):
    param = nn.Parameter(torch.ones(3, dtype=dtype))
    optimizer = torch.optim.Adam([param], lr=0.1)
    param.grad = torch.ones(3, dtype=dtype)
    optimizer.step()
    return optimizer.state_dict()


@pytest.mark.claim("modules.optimizer-to-after-load")
def test_optimizer_load_state_dict_follows_the_parameters_device_and_dtype():
    """Material: after optimizer.load_state_dict you must call optimizer_to(optimizer, device).
    True: load_state_dict casts each state tensor to its parameter's device (and float dtype)."""
    saved = _adam_state_after_one_step(torch.float64)          # saved on cpu, float64
    target = nn.Parameter(torch.ones(3, device=META))          # the model now lives elsewhere
    optimizer = torch.optim.Adam([target], lr=0.1)
    optimizer.load_state_dict(saved)
    state = optimizer.state[target]
    for key in ("exp_avg", "exp_avg_sq"):
        assert (state[key].device, state[key].dtype) == (META, torch.float32), (
            f"state[{key!r}] is {state[key].device}/{state[key].dtype} after load_state_dict, "
            "expected the parameter's meta/float32")


@pytest.mark.gpu
@pytest.mark.claim("modules.optimizer-to-after-load")
def test_optimizer_state_loaded_from_cpu_lands_on_cuda_and_steps():
    """Material: without optimizer_to, step() does not update.  True on CUDA: state follows, step updates."""
    saved = _adam_state_after_one_step()
    param = nn.Parameter(torch.ones(3, device="cuda"))
    optimizer = torch.optim.Adam([param], lr=0.1)
    optimizer.load_state_dict(saved)
    assert optimizer.state[param]["exp_avg"].is_cuda
    before = param.detach().clone()
    param.grad = torch.ones(3, device="cuda")
    optimizer.step()
    assert not torch.equal(before, param.detach()), "optimizer.step() left the parameter unchanged"


@pytest.mark.claim("modules.optimizer-to-after-load", as_written=True)
def test_as_written_optimizer_state_stays_on_the_saved_device():
    """Material: the loaded state stays where it was saved until moved by hand.  True: it follows (strict xfail)."""
    saved = _adam_state_after_one_step()
    target = nn.Parameter(torch.ones(3, device=META))
    optimizer = torch.optim.Adam([target], lr=0.1)
    optimizer.load_state_dict(saved)
    assert optimizer.state[target]["exp_avg"].device.type == "cpu", "state moved to the parameter's device"

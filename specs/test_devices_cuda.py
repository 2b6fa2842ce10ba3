"""Devices, CUDA: availability, builds and versions, GPU memory, CUDA errors, and AMP's
CUDA namespace.

Sources: 000 §5; 002 §2.2, §2.3, §3.1, §4.1, §5.1, §6.2; 003 §4.4, §5.1, §5.3.  What a CPU
settles is checked here on every machine (reading .shape dispatches no operator; the bytes a
forward holds against the batch size); the caching allocator's figures and CUDA's error
messages need a GPU: those specs carry the gpu marker and are skipped with a reason elsewhere.
Questions about other torch versions are catalogued as not-checkable with references; what the
installed torch can answer is checked here.
"""
import contextlib
import copy
import io
import json
import os
import re
import subprocess
import sys

import pytest
import torch
from torch import nn

from torchclaims.versions import torch_in

from aliasing import storage_nbytes, storage_ptr
from dispatch import RecordOps

MiB = 2**20


# ---------------------------------------------------------------- availability

@pytest.mark.claim("devices.cuda-availability-commands")
def test_availability_calls_agree_with_each_other():
    """Material: torch.__version__, cuda.is_available(), cuda.device_count() print e.g. 2.1.2, True, 1.
    True: they never raise; is_available() is True exactly when device_count() > 0."""
    available, count = torch.cuda.is_available(), torch.cuda.device_count()
    assert isinstance(available, bool) and isinstance(count, int) and count >= 0
    assert available == (count > 0), f"is_available()={available} but device_count()={count}"
    assert re.match(r"\d+\.\d+", torch.__version__), f"torch.__version__={torch.__version__!r}"


_PROBE = ("import json, torch; print(json.dumps([torch.cuda.is_available(), torch.cuda.device_count()]))")


def _probe_cuda(env_changes: dict) -> tuple:
    """Start a fresh interpreter with ``env_changes`` applied (None deletes) and ask it about CUDA."""
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.Popen([sys.executable, "-c", _PROBE], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def cuda_probes():
    """is_available()/device_count() in fresh processes: as is, with no GPU visible, with a bare PATH."""
    settings = {
        "as is": {},
        "CUDA_VISIBLE_DEVICES=''": {"CUDA_VISIBLE_DEVICES": ""},
        "PATH without CUDA": {"PATH": "/usr/bin:/bin", "CUDA_HOME": None, "CUDA_PATH": None,
                              "LD_LIBRARY_PATH": None},
    }
    started = {name: _probe_cuda(changes) for name, changes in settings.items()}
    answers = {}
    for name, process in started.items():
        try:
            out, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            pytest.fail(f"the CUDA probe ({name}) did not finish within 120 s")
        assert process.returncode == 0, f"the CUDA probe ({name}) failed:\n{err}"
        answers[name] = tuple(json.loads(out.strip().splitlines()[-1]))
    return answers


@pytest.mark.slow
@pytest.mark.claim("devices.cuda-availability-commands")
def test_hiding_every_gpu_gives_false_and_zero(cuda_probes):
    """Material: device_count() reports the GPUs (1 on a one-GPU machine).
    True: it counts visible GPUs; CUDA_VISIBLE_DEVICES='' hides them all."""
    hidden = cuda_probes["CUDA_VISIBLE_DEVICES=''"]
    assert hidden == (False, 0), f"with CUDA_VISIBLE_DEVICES='' the probe said {hidden}, expected (False, 0)"
    assert cuda_probes["as is"] == (torch.cuda.is_available(), torch.cuda.device_count())


@pytest.mark.slow
@pytest.mark.claim("devices.is-available-needs-toolkit-path")
def test_is_available_does_not_depend_on_path(cuda_probes):
    """Material: is_available() is False mostly because the CUDA Toolkit is missing or not on PATH.
    True: the binaries carry their own CUDA runtime; removing CUDA from PATH changes nothing."""
    assert cuda_probes["PATH without CUDA"] == cuda_probes["as is"], (
        f"is_available/device_count with a bare PATH {cuda_probes['PATH without CUDA']} "
        f"!= {cuda_probes['as is']} with the usual environment")


@pytest.mark.slow
@pytest.mark.claim("devices.is-available-needs-toolkit-path", as_written=True)
def test_as_written_is_available_changes_without_toolkit_on_path(cuda_probes):
    """Material: without the toolkit on PATH, is_available() turns False.  True: unchanged (strict xfail)."""
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA: without a GPU is_available() is False with or without PATH, so the "
                    "material's statement cannot be run here")
    assert cuda_probes["PATH without CUDA"][0] is False, "is_available() stayed True with a bare PATH"


@pytest.mark.claim("devices.cuda-wheel-version-tag")
def test_cuda_build_tag_matches_torch_version_cuda():
    """Material: builds are written like torch==1.13.1+cu117.
    True: CUDA wheels carry '+cuXYZ', and torch.version.cuda names the same CUDA version."""
    tag = re.search(r"\+cu(\d+)$", torch.__version__)
    if torch.version.cuda is None:
        assert tag is None, f"CPU-only build but torch.__version__={torch.__version__!r} has a CUDA tag"
        return
    if tag is None:
        pytest.skip(f"CUDA build without a local tag ({torch.__version__!r}), e.g. a source or conda build")
    assert tag.group(1) == torch.version.cuda.replace(".", ""), (
        f"torch.__version__={torch.__version__!r} but torch.version.cuda={torch.version.cuda!r}")


@pytest.mark.claim("compile.introduced-in-2-0")
def test_torch_compile_exists_from_2_0():
    """Material: torch.compile came with PyTorch 2.0.  True: it exists on every torch >= 2.0."""
    if torch_in(">=2.0"):
        assert callable(getattr(torch, "compile", None)), f"torch {torch.__version__} has no torch.compile"
    else:
        assert not hasattr(torch, "compile"), f"torch {torch.__version__} < 2.0 has torch.compile"
    assert callable(torch.jit.script), "torch.jit.script, the pre-2.0 route, is gone"


# ---------------------------------------------------------------- host metadata vs device work (CPU)

@pytest.mark.claim("devices.shape-print-syncs")
def test_reading_or_printing_shape_dispatches_no_operator():
    """Material: print(tensor.shape) in forward is a hidden GPU operation that synchronises.
    True: shape is host metadata: reading or printing it dispatches no operator at all, while
    .item() dispatches _local_scalar_dense, the host copy that waits for the device."""
    x = torch.randn(4, 3) @ torch.randn(3, 5)
    printed = io.StringIO()
    with RecordOps() as seen, contextlib.redirect_stdout(printed):
        print(x.shape)
        sizes = (tuple(x.shape), x.size(), x.size(1), x.dim())
    assert seen.ops == [], f"print(x.shape) and x.size() dispatched {seen.ops}, expected no operator"
    assert printed.getvalue().strip() == "torch.Size([4, 5])" and sizes[2] == 5, (printed.getvalue(), sizes)
    with RecordOps() as seen:
        x.sum().item()
    assert "aten._local_scalar_dense.default" in seen.ops, (
        f"x.sum().item() dispatched {seen.ops}, expected aten._local_scalar_dense (the copy to the host)")


@pytest.mark.claim("devices.shape-print-syncs", as_written=True)
def test_as_written_printing_shape_runs_an_operation_on_the_device():
    """Material: print(tensor.shape) is a hidden device operation, so it synchronises."""
    x = torch.randn(4, 3) @ torch.randn(3, 5)
    with RecordOps() as seen, contextlib.redirect_stdout(io.StringIO()):
        print(x.shape)
    assert seen.ops, "print(x.shape) dispatched no operator: nothing ran that could wait for a device"


# ---------------------------------------------------------------- memory and the batch size (CPU)

def _bytes_held_by_a_forward(model, batch):
    """Bytes of the distinct storages a forward keeps alive: the parameters, the output and every
    tensor autograd saves for backward (each buffer counted once, views and aliases included)."""
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        out = model(torch.randn(batch, 3, 16, 16))
    buffers = {storage_ptr(t): storage_nbytes(t) for t in [*model.parameters(), out, *saved]}
    return sum(buffers.values())


@pytest.mark.claim("devices.batch-size-memory-linear")
def test_memory_a_step_holds_is_a_fixed_part_plus_the_same_amount_per_sample():
    """Material: GPU memory grows linearly with batch_size.
    True: the bytes a forward holds are the parameters plus activations proportional to the
    batch: equal steps in batch size add equal bytes (the same tensors on every device)."""
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1),
                          nn.ReLU(), nn.Flatten(), nn.Linear(8 * 16 * 16, 10))
    held = {batch: _bytes_held_by_a_forward(model, batch) for batch in (4, 8, 12, 16)}
    per_4 = held[8] - held[4]
    assert per_4 > 0, f"bytes held by batch size {held}: they do not grow"
    assert held[12] - held[8] == held[16] - held[12] == per_4, (
        f"bytes held by batch size {held}: the steps of 4 samples differ, so the growth is not linear")
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    assert held[4] - per_4 == params, (
        f"the fixed part {held[4] - per_4} B (held at batch 4 minus one step) should be the "
        f"parameters' {params} B")
    training = {batch: _bytes_of_gradients_and_adam_state(model, batch) for batch in (4, 16)}
    assert training[4] == training[16] >= 3 * params, (
        f"gradients + Adam state after one step: {training} B by batch size, expected the same for every "
        f"batch and at least 3x the parameters' {params} B")


def _bytes_of_gradients_and_adam_state(model, batch):
    """Bytes of the gradients and Adam's state after one training step on ``batch`` samples."""
    trained = copy.deepcopy(model)
    optimizer = torch.optim.Adam(trained.parameters())
    trained(torch.randn(batch, 3, 16, 16)).sum().backward()
    optimizer.step()
    state = [t for per_param in optimizer.state.values() for t in per_param.values() if torch.is_tensor(t)]
    return sum(t.numel() * t.element_size() for t in [*(p.grad for p in trained.parameters()), *state])


# ---------------------------------------------------------------- GPU memory (gpu only)

def _convnet():
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
                         nn.ReLU(), nn.Flatten(), nn.Linear(32 * 32 * 32, 10)).cuda()


@pytest.mark.gpu
@pytest.mark.claim("devices.batch-size-memory-linear")
def test_activation_memory_grows_in_proportion_to_batch_size():
    """Material: GPU memory grows linearly with batch_size, visible in memory_allocated().
    True: the activations kept for backward scale with the batch, on top of a fixed part."""
    model = _convnet()
    model(torch.randn(8, 3, 32, 32, device="cuda"))       # warm up: cuBLAS/cuDNN keep workspaces
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    held = {}
    for batch in (8, 16, 32):
        x = torch.randn(batch, 3, 32, 32, device="cuda")
        out = model(x)                                     # graph keeps the activations
        torch.cuda.synchronize()
        held[batch] = torch.cuda.memory_allocated() - base
        del x, out
    assert held[8] > 0
    for batch in (16, 32):
        ratio = held[batch] / held[8]
        assert abs(ratio - batch / 8) < 0.1 * batch / 8, (
            f"memory held with batch {batch} is {ratio:.2f}x that of batch 8, expected about {batch / 8:.0f}x "
            f"(bytes: {held})")
    assert base > 0, "the model's parameters should occupy memory that does not depend on the batch"
    before = torch.cuda.memory_allocated()
    one_byte = torch.empty(1, dtype=torch.uint8, device="cuda")
    rounded = torch.cuda.memory_allocated() - before
    assert rounded == 512, f"a 1-byte tensor raised memory_allocated() by {rounded} B, expected a 512-byte block"
    del one_byte


@pytest.mark.gpu
@pytest.mark.claim("autograd.inference-without-no-grad-exponential")
def test_inference_without_no_grad_does_not_accumulate_memory():
    """Material: without no_grad, GPU memory grows exponentially during inference.
    True: each forward's graph is freed with its output; only the single-forward peak is higher."""
    model = _convnet()
    x = torch.randn(16, 3, 32, 32, device="cuda")
    model(x)                                              # warm up: cuBLAS/cuDNN keep workspaces
    torch.cuda.synchronize()
    start = torch.cuda.memory_allocated()
    after = []
    for _ in range(5):
        out = model(x)
        del out
        torch.cuda.synchronize()
        after.append(torch.cuda.memory_allocated() - start)
    assert max(after) <= 1 * MiB, f"memory left after each inference (bytes): {after}, expected none to accumulate"
    with_graph = model(x)
    graph_bytes = torch.cuda.memory_allocated() - start
    with torch.no_grad():
        without_graph = model(x)
    no_grad_bytes = torch.cuda.memory_allocated() - start - graph_bytes
    assert no_grad_bytes < graph_bytes, (
        f"an output under no_grad holds {no_grad_bytes} B, one with a graph {graph_bytes} B; expected less")
    del with_graph, without_graph


@pytest.mark.gpu
@pytest.mark.claim("devices.shape-print-syncs")
def test_reading_shape_does_not_synchronise_but_item_does():
    """Material: print(tensor.shape) in forward triggers a GPU synchronisation.
    True: shape is host metadata; with sync debug mode 'error', .shape passes and .item() raises."""
    x = torch.randn(64, 64, device="cuda")
    y = x @ x
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("error")
    try:
        shape_text = str(y.shape)
        with pytest.raises(RuntimeError, match="synchroniz"):
            y.sum().item()
        with pytest.raises(RuntimeError, match="synchroniz"):
            str(y)                                        # printing the values copies them
        with pytest.raises(RuntimeError, match="synchroniz"):
            y.cpu()
    finally:
        torch.cuda.set_sync_debug_mode(previous)
    assert shape_text == "torch.Size([64, 64])"


@pytest.mark.gpu
@pytest.mark.claim("devices.empty-cache-effect")
def test_empty_cache_returns_unused_blocks_but_frees_no_live_tensor():
    """Material: torch.cuda.empty_cache() force-clears the cache when out of memory.
    True: reserved memory drops, allocated memory (live tensors) stays the same."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()                          # no half-used cached segment to carve from
    keep = torch.empty(64 * MiB, dtype=torch.uint8, device="cuda")
    scratch = torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")
    del scratch                                       # back to the cache, not to the driver
    allocated, reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    assert reserved - allocated >= 256 * MiB
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated() == allocated, "empty_cache changed memory held by live tensors"
    assert torch.cuda.memory_reserved() <= reserved - 256 * MiB, (
        f"memory_reserved {torch.cuda.memory_reserved()} after empty_cache, expected at most {reserved - 256 * MiB}")
    assert keep.numel() == 64 * MiB


@pytest.mark.gpu
@pytest.mark.claim("devices.memory-summary-fields")
def test_memory_summary_lists_allocated_active_and_reserved():
    """Material: memory_summary() shows allocated, reserved and active memory.
    True: a text table with those rows, from the caching allocator (no per-tensor attribution)."""
    held = torch.empty(8 * MiB, dtype=torch.uint8, device="cuda")
    summary = torch.cuda.memory_summary(abbreviated=False)
    for row in ("Allocated memory", "Active memory", "GPU reserved memory", "Non-releasable memory",
                "Allocations", "GPU reserved segments"):
        assert row in summary, f"{row!r} missing from torch.cuda.memory_summary():\n{summary}"
    del held


@pytest.mark.gpu
@pytest.mark.claim("devices.cuda-oom-error")
def test_out_of_memory_is_a_runtime_error_subclass_with_the_quoted_text():
    """Material: 'RuntimeError: CUDA out of memory. Tried to allocate 256.00 MiB'.
    True: torch.OutOfMemoryError, a RuntimeError subclass, with 'CUDA out of memory. Tried to allocate'."""
    too_much = 2**50                                   # a pebibyte: refused at once, nothing is touched
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    with pytest.raises(torch.OutOfMemoryError) as info:
        torch.empty(too_much, dtype=torch.uint8, device="cuda")
    assert isinstance(info.value, RuntimeError), f"{type(info.value).__mro__} does not derive from RuntimeError"
    assert str(info.value).startswith("CUDA out of memory. Tried to allocate"), (
        f"the message starts {str(info.value)[:80]!r}, expected 'CUDA out of memory. Tried to allocate'")
    torch.cuda.empty_cache()
    with pytest.raises(RuntimeError) as on_cpu:
        torch.empty(too_much, dtype=torch.uint8)
    assert "CUDA out of memory" not in str(on_cpu.value), f"a CPU allocation failure said {on_cpu.value}"


@pytest.mark.gpu
@pytest.mark.claim("devices.input-weight-type-error")
def test_conv_with_cuda_input_and_cpu_weight_reports_input_and_weight_type():
    """Material: 'Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same'.
    True for convolutions; Linear reports the generic same-device error."""
    conv, linear = nn.Conv2d(3, 4, 3), nn.Linear(3, 4)         # left on the CPU
    with pytest.raises(RuntimeError, match=r"Input type \(torch\.cuda\.FloatTensor\) and weight type "
                       r"\(torch\.FloatTensor\) should be the same"):
        conv(torch.randn(1, 3, 8, 8, device="cuda"))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        linear(torch.randn(2, 3, device="cuda"))


# ---------------------------------------------------------------- AMP's CUDA namespace

def _scaler_after_an_overflow(device):
    scaler = torch.amp.GradScaler(device)
    param = nn.Parameter(torch.ones(2, device=device))
    optimizer = torch.optim.SGD([param], lr=0.1)
    scaler.scale((param * float("inf")).sum()).backward()   # inf gradients: the step is skipped
    scaler.step(optimizer)
    scaler.update()                                           # ... and the scale is halved
    return scaler


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@pytest.mark.measurable_on(">=2.3", reason="torch.cuda.amp.GradScaler exists, but disables itself without CUDA; "
                           "torch.amp.GradScaler, usable on the CPU, appeared in 2.3")
def test_grad_scaler_scale_survives_only_through_its_state_dict():
    """Material: save scaler.state_dict(), else resuming restarts the dynamic loss scale.
    True: a new GradScaler starts at 65536; load_state_dict restores the saved scale."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    trained = _scaler_after_an_overflow(device)
    assert trained.get_scale() == 32768.0, f"scale after one overflow {trained.get_scale()}, expected 65536/2"
    state = trained.state_dict()
    assert {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"} <= set(state)
    fresh = torch.amp.GradScaler(device)
    assert fresh.get_scale() == 65536.0, f"a new GradScaler starts at {fresh.get_scale()}, expected 65536.0"
    fresh.load_state_dict(state)
    assert fresh.get_scale() == 32768.0, f"after load_state_dict the scale is {fresh.get_scale()}, expected 32768.0"

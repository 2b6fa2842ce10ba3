"""Measurements of the autograd topic's quantitative claims (003 §2.1, 003 §5.3).

Run alone, never under xdist:  pytest benchmarks/bench_autograd.py -p no:xdist
Memory is measured two ways, both stated in ``method``:

- bytes autograd keeps alive for backward, counted with
  ``torch.autograd.graph.saved_tensors_hooks`` and de-duplicated by storage, plus the
  parameters, the input and the output (what a forward pass leaves resident);
- peak RSS growth of a fresh Python subprocess across one forward + backward (VmHWM of
  /proc/self/status after resetting it through /proc/self/clear_refs; Linux only), for
  transient allocations the hooks cannot see (in-place ReLU).

Nothing is asserted; the material's figure and ours go to ``benchmark.extra_info``.
"""
import json
import subprocess
import sys
import textwrap

import pytest
import torch
from torch import nn
from torch.utils import benchmark as tbench
from torch.utils.checkpoint import checkpoint


def _storage_bytes(tensors) -> int:
    """Bytes of the distinct storages behind ``tensors``."""
    seen = {}
    for t in tensors:
        s = t.untyped_storage()
        seen[s.data_ptr()] = s.nbytes()
    return sum(seen.values())


def _resident_after_forward(model, x, grad: bool) -> int:
    """Parameters + input + output + everything the graph saved, after one forward and loss."""
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        with torch.set_grad_enabled(grad):
            out = model(x)
            loss = out.square().mean()
    return _storage_bytes(list(model.parameters()) + [x, out, loss] + saved)


def _two_layer_mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 10))


@pytest.mark.benchmark
def test_no_grad_saved_memory(benchmark):
    """003 §2.1: computing the loss of a two-layer MLP under no_grad lowers memory by 37%."""
    model, x = _two_layer_mlp(), torch.randn(256, 1024)
    with_graph = _resident_after_forward(model, x, grad=True)
    without = _resident_after_forward(model, x, grad=False)
    saving = 100.0 * (with_graph - without) / with_graph
    large_batch = torch.randn(4096, 1024)
    saving_large = 100.0 * (1 - _resident_after_forward(model, large_batch, grad=False)
                            / _resident_after_forward(model, large_batch, grad=True))

    def inference():
        with torch.no_grad():
            return model(x)

    benchmark(inference)
    benchmark.extra_info.update(
        claim="autograd.no-grad-memory-figure", quantity="resident memory saved by no_grad",
        measured=round(saving, 1), material=37.0, unit="%",
        method=("MLP 1024-4096(ReLU)-10, float32, batch 256: distinct storages of parameters, input, "
                "output, loss and saved_tensors_hooks captures after forward+loss, grad vs no_grad "
                f"({with_graph} B vs {without} B); batch 4096 gives {saving_large:.1f}%"),
        saving_batch_4096=round(saving_large, 1))


_PEAK_SCRIPT = textwrap.dedent("""
    import json, re, sys
    import torch
    from torch import nn

    def peak_kb():
        return int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1))

    torch.set_num_threads(1)
    inplace = sys.argv[1] == "1"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(inplace=inplace),
                          nn.Linear(1024, 1024), nn.ReLU(inplace=inplace), nn.Linear(1024, 10))
    x = torch.randn(4096, 1024)
    with open("/proc/self/clear_refs", "w") as f:  # reset the high-water mark (Linux >= 4.0)
        f.write("5")
    before = peak_kb()
    model(x).square().mean().backward()
    print(json.dumps({"before_kb": before, "after_kb": peak_kb()}))
""")


def _peak_growth_kb(inplace: bool) -> int:
    done = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, "1" if inplace else "0"],
                          capture_output=True, text=True, check=True, timeout=120)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["after_kb"] - report["before_kb"]


@pytest.mark.benchmark
def test_relu_inplace_peak_memory(benchmark):
    """003 §2.1: F.relu(x, inplace=True) uses 12% less memory than F.relu(x)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads the peak RSS from /proc/self/status (Linux only)")
    results = benchmark.pedantic(lambda: (_peak_growth_kb(False), _peak_growth_kb(True)),
                                 rounds=1, iterations=1)
    plain, inplace = results
    saving = 100.0 * (plain - inplace) / plain if plain > 0 else 0.0
    benchmark.extra_info.update(
        claim="autograd.relu-inplace-reuses-storage", quantity="peak memory saved by ReLU(inplace=True)",
        measured=round(saving, 1), material=12.0, unit="%",
        method=("peak RSS growth (VmHWM after clear_refs) of a fresh subprocess over one forward+backward "
                "of Linear 1024-1024-ReLU-1024-ReLU-10, float32, batch 4096, 1 thread: "
                f"{plain} kB with ReLU(), {inplace} kB with ReLU(inplace=True)"))


def _deep_block():
    torch.manual_seed(0)
    layers = []
    for _ in range(4):
        layers += [nn.Linear(512, 512), nn.Tanh()]
    return nn.Sequential(*layers)


def _saved_bytes(fn) -> int:
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        out = fn()
    del out
    return _storage_bytes(saved)


@pytest.mark.benchmark
def test_checkpoint_saved_memory(benchmark):
    """003 §5.3: checkpointing a memory-heavy part cuts memory by 40% (and costs ~20% time)."""
    block, x = _deep_block(), torch.randn(256, 512, requires_grad=True)
    plain = _saved_bytes(lambda: block(x))
    ckpt = _saved_bytes(lambda: checkpoint(block, x, use_reentrant=False))
    saving = 100.0 * (plain - ckpt) / plain
    benchmark(lambda: checkpoint(block, x, use_reentrant=False).sum().backward())
    benchmark.extra_info.update(
        claim="autograd.checkpoint-figures", quantity="saved-tensor bytes removed by checkpoint",
        measured=round(saving, 1), material=40.0, unit="%",
        method=("4 x (Linear 512 + Tanh), float32, batch 256, whole block checkpointed "
                "(use_reentrant=False): saved_tensors_hooks captures outside the checkpoint, "
                f"distinct storages, {plain} B plain vs {ckpt} B checkpointed"))


@pytest.mark.benchmark
def test_checkpoint_time_overhead(benchmark):
    """003 §5.3: checkpointing adds about 20% training time."""
    block, x = _deep_block(), torch.randn(256, 512, requires_grad=True)
    before = torch.get_num_threads()
    try:
        timer = lambda stmt: tbench.Timer(  # noqa: E731
            stmt=stmt, num_threads=1,
            globals={"block": block, "x": x, "checkpoint": checkpoint}).blocked_autorange(min_run_time=0.3).median
        plain = timer("block(x).sum().backward()")
        ckpt = timer("checkpoint(block, x, use_reentrant=False).sum().backward()")
    finally:
        torch.set_num_threads(before)
    overhead = 100.0 * (ckpt / plain - 1)
    benchmark(lambda: block(x).sum().backward())
    benchmark.extra_info.update(
        claim="autograd.checkpoint-figures", quantity="extra forward+backward time with checkpoint",
        measured=round(overhead, 1), material=20.0, unit="%",
        method=("torch.utils.benchmark.Timer, 1 thread, median of forward+backward, "
                f"4 x (Linear 512 + Tanh), batch 256: {plain * 1e3:.2f} ms plain, {ckpt * 1e3:.2f} ms checkpointed"))


@pytest.mark.benchmark
def test_no_grad_inference_speed(benchmark):
    """004 §3.3: inference under no_grad is faster (and lighter) than with the graph recorded."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    x = torch.randn(32, 64)
    before = torch.get_num_threads()
    try:
        timer = lambda stmt: tbench.Timer(  # noqa: E731
            stmt=stmt, num_threads=1, globals={"model": model, "x": x, "torch": torch},
        ).blocked_autorange(min_run_time=0.3).median
        recorded = timer("model(x)")
        no_grad = timer("with torch.no_grad():\n    model(x)")
    finally:
        torch.set_num_threads(before)

    def inference():
        with torch.no_grad():
            return model(x)

    benchmark(inference)
    benchmark.extra_info.update(
        claim="autograd.no-grad-inference-faster", quantity="forward time with graph / under no_grad",
        measured=round(recorded / no_grad, 2), material="> 1", unit="x",
        method=("torch.utils.benchmark.Timer, 1 thread, median; MLP 64-64-64-10 with Tanh, batch 32: "
                f"{recorded * 1e6:.1f} us recorded, {no_grad * 1e6:.1f} us under no_grad"))

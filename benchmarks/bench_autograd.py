"""Measurements of the autograd topic's quantitative claims (003 §2.1, 003 §5.3).

Run alone, never under xdist:  pytest benchmarks/bench_autograd.py -p no:xdist
Memory is measured two ways, both stated in ``method``:

- bytes autograd keeps alive for backward, counted with
  ``torch.autograd.graph.saved_tensors_hooks`` and de-duplicated by storage, plus the
  parameters, the input and the output (what a forward pass leaves resident);
- peak RSS growth of a fresh Python subprocess across one forward + backward (VmHWM of
  /proc/self/status after resetting it through /proc/self/clear_refs; Linux only), for
  transient allocations the hooks cannot see (in-place ReLU).

Times are interleaved torch.utils.benchmark rounds (one thread); byte counts are exact.
Nothing is asserted; the raw rounds and the material's figure go to ``benchmark.extra_info``.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchkit import ROUNDS, exact_row, interleaved_timer_rounds, median, pair_row, record


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
@pytest.mark.claim("autograd.no-grad-memory-figure")
def test_no_grad_saved_memory(benchmark):
    """003 §2.1: computing the loss of a two-layer MLP under no_grad lowers memory by 37%."""
    model = _two_layer_mlp()
    rows = []
    for batch in (256, 4096):
        x = torch.randn(batch, 1024)
        with_graph = _resident_after_forward(model, x, grad=True)
        without = _resident_after_forward(model, x, grad=False)
        rows.append(exact_row(
            "autograd.no-grad-memory-figure", f"resident memory saved by no_grad, batch {batch}",
            measured=round(100.0 * (with_graph - without) / with_graph, 2), stat="saving", material=37.0, unit="%",
            scale="the material gives no sizes; MLP 1024-4096(ReLU)-10, float32, batches 256 and 4096",
            method=("distinct storages of parameters, input, output, loss and saved_tensors_hooks captures "
                    f"after forward+loss, grad vs no_grad ({with_graph} B vs {without} B)")))
    x = torch.randn(256, 1024)

    def inference():
        with torch.no_grad():
            return model(x)

    benchmark(inference)
    record(benchmark, rows)


_PEAK_SCRIPT = textwrap.dedent("""
    import gc, json, re, sys
    import torch
    from torch import nn

    def status_kb(field):
        return int(re.search(field + r":\\s+(\\d+)", open("/proc/self/status").read()).group(1))

    torch.set_num_threads(1)
    rounds = int(sys.argv[1])
    torch.manual_seed(0)
    models = {}
    for name, inplace in (("plain", False), ("inplace", True)):
        torch.manual_seed(0)
        models[name] = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(inplace=inplace),
                                     nn.Linear(1024, 1024), nn.ReLU(inplace=inplace), nn.Linear(1024, 10))
    x = torch.randn(4096, 1024)
    peaks = {name: [] for name in models}
    names = list(models)
    for r in range(rounds + 1):                      # round 0 warms up and is dropped
        for name in names[r % 2:] + names[:r % 2]:
            models[name].zero_grad(set_to_none=True)
            gc.collect()
            with open("/proc/self/clear_refs", "w") as f:  # reset the high-water mark (Linux >= 4.0)
                f.write("5")
            before = status_kb("VmRSS")
            models[name](x).square().mean().backward()
            if r:
                peaks[name].append(status_kb("VmHWM") - before)
    print(json.dumps(peaks))
""")


def _peak_growth_kb(rounds: int) -> dict[str, list[int]]:
    # A fixed mmap threshold: every large buffer is mapped on allocation and returned to the
    # OS when freed, so each round's peak is its own (glibc would otherwise keep the memory).
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="131072")
    done = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, str(rounds)], env=env,
                          capture_output=True, text=True, check=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.benchmark
@pytest.mark.claim("autograd.relu-inplace-reuses-storage")
def test_relu_inplace_peak_memory(benchmark):
    """003 §2.1: F.relu(x, inplace=True) uses 12% less memory than F.relu(x)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads the peak RSS from /proc/self/status (Linux only)")
    peaks = benchmark.pedantic(lambda: _peak_growth_kb(ROUNDS), rounds=1, iterations=1)
    record(benchmark, [pair_row(
        "autograd.relu-inplace-reuses-storage", "peak memory saved by ReLU(inplace=True)",
        baseline=peaks["plain"], candidate=peaks["inplace"], stat="saving", material=12.0, unit="%",
        scale="the material gives no model; Linear 1024-1024-ReLU-1024-ReLU-10, float32, batch 4096",
        method=(f"peak RSS growth (VmHWM after clear_refs) over one forward+backward, {ROUNDS} interleaved "
                "rounds in one subprocess (1 thread, fixed glibc mmap threshold); medians "
                f"{median(peaks['plain'])} kB with ReLU(), {median(peaks['inplace'])} kB with ReLU(inplace=True)"))])


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
@pytest.mark.claim("autograd.checkpoint-figures")
def test_checkpoint_saved_memory(benchmark):
    """003 §5.3: checkpointing a memory-heavy part cuts memory by 40% (and costs ~20% time)."""
    block, x = _deep_block(), torch.randn(256, 512, requires_grad=True)
    plain = _saved_bytes(lambda: block(x))
    ckpt = _saved_bytes(lambda: checkpoint(block, x, use_reentrant=False))
    benchmark(lambda: checkpoint(block, x, use_reentrant=False).sum().backward())
    record(benchmark, [exact_row(
        "autograd.checkpoint-figures", "saved-tensor bytes removed by checkpoint",
        measured=round(100.0 * (plain - ckpt) / plain, 2), stat="saving", material=40.0, unit="%",
        scale=_CKPT_SCALE,
        method=("saved_tensors_hooks captures outside the checkpoint (use_reentrant=False), distinct "
                f"storages, {plain} B plain vs {ckpt} B checkpointed"))])


_CKPT_SCALE = "the material names no model; 4 x (Linear 512 + Tanh), float32, batch 256, whole block checkpointed"


@pytest.mark.benchmark
@pytest.mark.claim("autograd.checkpoint-figures")
def test_checkpoint_time_overhead(benchmark):
    """003 §5.3: checkpointing adds about 20% training time."""
    block, x = _deep_block(), torch.randn(256, 512, requires_grad=True)
    times = interleaved_timer_rounds({
        "plain": lambda: block(x).sum().backward(),
        "checkpoint": lambda: checkpoint(block, x, use_reentrant=False).sum().backward(),
    })
    benchmark(lambda: block(x).sum().backward())
    record(benchmark, [pair_row(
        "autograd.checkpoint-figures", "extra forward+backward time with checkpoint",
        baseline=times["plain"], candidate=times["checkpoint"], stat="overhead", material=20.0, unit="%",
        scale=_CKPT_SCALE,
        method=(f"torch.utils.benchmark.Timer, 1 thread, {ROUNDS} interleaved rounds; medians "
                f"{median(times['plain']) * 1e3:.2f} ms plain, {median(times['checkpoint']) * 1e3:.2f} ms checkpointed"))])


@pytest.mark.benchmark
@pytest.mark.claim("autograd.no-grad-inference-faster")
def test_no_grad_inference_speed(benchmark):
    """004 §3.3: inference under no_grad is faster (and lighter) than with the graph recorded."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    x = torch.randn(32, 64)

    def inference():
        with torch.no_grad():
            return model(x)

    times = interleaved_timer_rounds({"recorded": lambda: model(x), "no_grad": inference})
    benchmark(inference)
    record(benchmark, [pair_row(
        "autograd.no-grad-inference-faster", "forward time with graph / under no_grad",
        baseline=times["recorded"], candidate=times["no_grad"], stat="speedup", material="> 1", unit="x",
        scale="the material gives no size; MLP 64-64-64-10 with Tanh, batch 32",
        method=(f"torch.utils.benchmark.Timer, 1 thread, {ROUNDS} interleaved rounds; medians "
                f"{median(times['recorded']) * 1e6:.1f} us recorded, {median(times['no_grad']) * 1e6:.1f} us under no_grad"))])

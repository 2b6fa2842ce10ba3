"""Measurements for the compile topic: eager vs torch.compile (mode='default' and
mode='max-autotune'), forward and training step, compile latency, and the ResNet-50 table
of 000 §5.3 (GPU only).

Run alone, never under xdist:
    pytest benchmarks/bench_compile.py --benchmark-only -p no:xdist --benchmark-json out.json

Method (as PyTorch's own compile benchmarks):
- accuracy first: the compiled model's output (forward) or loss and gradients (training
  step) must match eager within tolerance before anything is timed; Inductor's random ops
  fall back to eager's (``fallback_random``) so dropout masks agree;
- compile latency apart from steady state: *cold* is the first call inside
  ``torch._inductor.utils.fresh_cache()`` (a new temporary TORCHINDUCTOR_CACHE_DIR and
  empty in-memory caches), *warm* the first call after ``torch._dynamo.reset()`` with that
  cache filled; Inductor's one-off start-up in a process (compile workers, toolchain
  checks) is paid by a warm-up compile first and reported apart;
- explicit warm-up calls, then eager and compiled rounds interleaved (rotating order),
  each round a ``torch.utils.benchmark.Timer`` with ``num_threads=torch.get_num_threads()``;
  median and IQR over rounds; CUDA synchronised inside the timed function;
- a recompilation while timing is an error (``error_on_recompile`` plus the Dynamo
  graph counter).
pytest-benchmark's own statistics time the mode='default' step.
By default (TORCHCLAIMS_COMPILE_GRID=lite) max-autotune is timed for SmallCNN's forward
pass only and torchvision's resnet18 for the forward pass only, which keeps the whole CPU
suite under 15 minutes on 2 cores (each cold compile costs tens of seconds there);
TORCHCLAIMS_COMPILE_GRID=full times max-autotune for every model and phase and adds the
resnet18 training step.
"""
from __future__ import annotations

import copy
import os
import time

import numpy as np
import pytest
import torch
import torch._dynamo
import torch.nn.functional as F
from torch import nn
from torch.utils import benchmark as tbench

MATERIAL = {  # 000 §5.3, ResNet-50 on an A100
    "eager": {"throughput": 1250.0, "memory_gb": 18.2, "startup_ms": 0.0},
    "default": {"throughput": 2180.0, "memory_gb": 19.5, "startup_ms": 1200.0},
    "max-autotune": {"throughput": 2450.0, "memory_gb": 20.1, "startup_ms": 3500.0},
}
CLAIMS = {
    ("eager", "throughput"): "compile.resnet50-eager-throughput",
    ("default", "throughput"): "compile.resnet50-compile-default-throughput",
    ("max-autotune", "throughput"): "compile.resnet50-max-autotune-throughput",
    ("eager", "memory_gb"): "compile.resnet50-eager-memory",
    ("default", "memory_gb"): "compile.resnet50-compile-default-memory",
    ("max-autotune", "memory_gb"): "compile.resnet50-max-autotune-memory",
    ("eager", "startup_ms"): "compile.resnet50-eager-startup",
    ("default", "startup_ms"): "compile.resnet50-compile-default-startup",
    ("max-autotune", "startup_ms"): "compile.resnet50-max-autotune-startup",
}
GRID = os.environ.get("TORCHCLAIMS_COMPILE_GRID", "lite")
ROUNDS = 7


# ------------------------------------------------------------------ the measuring kit

def _graphs() -> int:
    from torch._dynamo.utils import counters
    return int(counters["stats"]["unique_graphs"])


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _median_iqr(samples) -> tuple[float, float]:
    q1, med, q3 = np.percentile(np.asarray(samples, dtype=float), [25, 50, 75])
    return float(med), float(q3 - q1)


def interleaved(steps: dict, rounds: int = ROUNDS, number: int = 3) -> dict[str, tuple[float, float]]:
    """Per-call (median, IQR) seconds of each step, eager and compiled rounds interleaved."""
    threads = torch.get_num_threads()
    timers = {name: tbench.Timer(stmt="step()", globals={"step": step}, num_threads=threads)
              for name, step in steps.items()}
    names = list(steps)
    samples = {name: [] for name in names}
    graphs_before = _graphs()
    with torch._dynamo.config.patch(error_on_recompile=True):
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                samples[name].append(timers[name].timeit(number).mean)
    if _graphs() != graphs_before:
        raise AssertionError(f"{_graphs() - graphs_before} graph(s) compiled while timing: a recompilation")
    return {name: _median_iqr(values) for name, values in samples.items()}


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


@pytest.fixture(scope="session")
def inductor_started():
    """Pay Inductor's one-off start-up in this process before any compile is timed."""
    torch._dynamo.reset()
    from torch._inductor.utils import fresh_cache
    with fresh_cache():
        compiled = torch.compile(lambda x: torch.relu(x) * 2 + 1)
        _, seconds = _timed(lambda: compiled(torch.randn(16)))
    torch._dynamo.reset()
    return seconds


class Workload:
    """A model, its inputs and one step (forward, or a full SGD training step)."""

    def __init__(self, make_model, batch, image, phase, device, num_classes=10, amp=False):
        self.phase, self.device, self.amp = phase, device, amp
        torch.manual_seed(0)
        self.template = make_model().to(device)
        self.x = torch.randn(batch, 3, image, image, device=device)
        self.y = torch.randint(0, num_classes, (batch,), device=device)

    def fresh_model(self) -> nn.Module:
        model = copy.deepcopy(self.template)
        return model.train() if self.phase == "train" else model.eval()

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16 if self.device.type == "cpu" else torch.float16,
                              enabled=self.amp)

    def step_fn(self, model: nn.Module, module_for_optimizer: nn.Module):
        """A closure running one step of ``model`` (possibly compiled), synchronised."""
        device, x, y = self.device, self.x, self.y
        if self.phase == "train":
            optimizer = torch.optim.SGD(module_for_optimizer.parameters(), lr=1e-3, momentum=0.9)
            scaler = torch.amp.GradScaler(device.type, enabled=self.amp and device.type == "cuda")

            def step():
                optimizer.zero_grad(set_to_none=True)
                with self._autocast():
                    loss = F.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                _sync(device)
                return loss
        else:
            def step():
                with torch.no_grad(), self._autocast():
                    out = model(x)
                _sync(device)
                return out
        return step

    def reference(self, model: nn.Module):
        """Forward output, or (loss, gradients) of one training step, without updating."""
        torch.manual_seed(1)
        if self.phase == "train":
            model.zero_grad(set_to_none=True)
            with self._autocast():
                loss = F.cross_entropy(model(self.x), self.y)
            loss.backward()
            grads = [p.grad.detach().clone() for p in self._orig(model).parameters() if p.grad is not None]
            self._orig(model).zero_grad(set_to_none=True)
            return [loss.detach()] + grads
        with torch.no_grad(), self._autocast():
            return [model(self.x)]

    @staticmethod
    def _orig(model):
        return getattr(model, "_orig_mod", model)


def check_accuracy(expected, got, what, rtol, atol):
    assert len(expected) == len(got), f"{what}: {len(got)} tensors, expected {len(expected)}"
    for index, (e, g) in enumerate(zip(expected, got)):
        torch.testing.assert_close(g.float(), e.float(), rtol=rtol, atol=atol,
                                   msg=lambda m: f"{what}: tensor #{index} differs from eager before timing: {m}")


def compare_modes(work: Workload, modes, benchmark, rounds=3, iterations=2, rtol=1e-3, atol=1e-3):
    """Compile per mode (cold, then warm), check accuracy, then time all modes interleaved;
    pytest-benchmark times the mode='default' step last, under the same settings."""
    from torch._inductor.utils import fresh_cache
    eager_model = work.fresh_model()
    expected = work.reference(work.fresh_model())
    results = {"eager": {"first_call_s": None}}
    steps = {"eager": work.step_fn(eager_model, eager_model)}
    with torch._inductor.config.patch(fallback_random=True):
        for mode in modes:
            torch._dynamo.reset()
            with fresh_cache():
                cold_model = work.fresh_model()
                got, cold = _timed(lambda: work.reference(torch.compile(cold_model, mode=mode)))
                check_accuracy(expected, got, f"torch.compile(mode={mode!r})", rtol, atol)
                torch._dynamo.reset()
                model = work.fresh_model()
                compiled = torch.compile(model, mode=mode)
                _, warm = _timed(lambda: work.reference(compiled))
            steps[mode] = work.step_fn(compiled, model)
            results[mode] = {"cold_first_call_s": cold, "warm_first_call_s": warm}
        for step in steps.values():  # explicit warm-up: lazy backward graphs, allocator, caches
            for _ in range(3):
                step()
        if work.device.type == "cuda":
            for name, step in steps.items():
                torch.cuda.reset_peak_memory_stats(work.device)
                step()
                results[name]["peak_memory_gb"] = torch.cuda.max_memory_allocated(work.device) / 1e9
        timings = interleaved(steps)
        with torch._dynamo.config.patch(error_on_recompile=True):
            graphs = _graphs()
            benchmark.pedantic(steps["default"], rounds=rounds, iterations=iterations, warmup_rounds=1)
            assert _graphs() == graphs, "pytest-benchmark's rounds recompiled the default step"
    for name, (median, iqr) in timings.items():
        results[name].update(median_s=median, iqr_s=iqr,
                             images_per_s=work.x.shape[0] / median)
    for mode in modes:
        results[mode]["speedup"] = results[mode]["images_per_s"] / results["eager"]["images_per_s"]
        results[mode]["cold_compile_s"] = max(0.0, results[mode]["cold_first_call_s"] - timings[mode][0])
        results[mode]["warm_compile_s"] = max(0.0, results[mode]["warm_first_call_s"] - timings[mode][0])
    return results


def _row(claim, quantity, measured, material, unit, method):
    return dict(claim=claim, quantity=quantity, measured=measured, material=material, unit=unit, method=method)


def _cpu_rows(results, modes, label, method):
    """Context rows: how this CPU's speed-ups and compile latencies compare with the table."""
    rows = []
    for mode in modes:
        r = results[mode]
        rows.append(_row(CLAIMS[(mode, "throughput")], f"{label}: compiled/eager speed-up, mode={mode}",
                         round(r["speedup"], 3), round(MATERIAL[mode]["throughput"] / MATERIAL["eager"]["throughput"], 3),
                         "x", method + " (CPU context for the A100 table: speed-up ratio, not images/s)"))
        rows.append(_row(CLAIMS[(mode, "startup_ms")], f"{label}: cold compile latency, mode={mode}",
                         round(r["cold_compile_s"] * 1000), MATERIAL[mode]["startup_ms"], "ms",
                         "first call in a fresh Inductor cache minus one steady-state step (CPU context)"))
    return rows


def _details(results):
    out = {}
    for name, r in results.items():
        for key, value in r.items():
            if value is not None:
                out[f"{name}.{key}"] = round(value, 6) if isinstance(value, float) else value
    return out


# ------------------------------------------------------------------ CPU: the material's models

def _small_cnn(ref):
    return ref.models.SmallCNN


def _resnet18_ref(ref):
    return ref.models.ResNet18


def _resnet18_torchvision(ref):
    torchvision = pytest.importorskip("torchvision")
    return lambda: torchvision.models.resnet18(weights=None, num_classes=10)


CPU_MODELS = {
    # name: (factory(ref), batch, image size)
    "SmallCNN": (_small_cnn, 8, 32),
    "ResNet18-material": (_resnet18_ref, 8, 32),
    "torchvision-resnet18": (_resnet18_torchvision, 4, 64),
}


@pytest.mark.benchmark
@pytest.mark.timeout(1200)  # cold compiles on a small, busy CPU
@pytest.mark.parametrize("phase", ["forward", "train"])
@pytest.mark.parametrize("model_name", list(CPU_MODELS))
def test_compile_vs_eager_cpu(benchmark, ref, inductor_started, model_name, phase):
    """Eager vs torch.compile default and max-autotune on CPU: accuracy, compile latency
    (cold and warm) and steady-state speed; context for the ResNet-50 table of 000 §5.3."""
    factory, batch, image = CPU_MODELS[model_name]
    if GRID != "full" and model_name == "torchvision-resnet18" and phase == "train":
        pytest.skip("TORCHCLAIMS_COMPILE_GRID=full times this (minutes of cold compile on a small CPU)")
    work = Workload(factory(ref), batch, image, phase, torch.device("cpu"))
    with_autotune = GRID == "full" or (model_name == "SmallCNN" and phase == "forward")
    modes = ["default", "max-autotune"] if with_autotune else ["default"]
    try:
        results = compare_modes(work, modes, benchmark, rtol=1e-3, atol=1e-3 if phase == "forward" else 2e-3)
    finally:
        torch._dynamo.reset()
    method = (f"{model_name}, {phase}, batch {batch}, {image}x{image}, fp32, CPU, "
              f"{torch.get_num_threads()} threads; median of {ROUNDS} interleaved rounds")
    rows = _cpu_rows(results, modes, f"{model_name} {phase}", method)
    benchmark.extra_info.update(rows[0])
    benchmark.extra_info.update(more=rows[1:], inductor_start_up_s=round(inductor_started, 2),
                                **_details(results))


# ------------------------------------------------------------------ CPU: Python overhead

class _PointwiseMLP(nn.Module):
    """Tiny layers and many element-wise ops: eager time is mostly per-op overhead."""

    def __init__(self, width=32, depth=6):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x)) * torch.sigmoid(x) + 0.5 * x
        return x


@pytest.mark.benchmark
@pytest.mark.timeout(1200)
def test_overhead_bound_mlp_forward(benchmark, inductor_started):
    """004 §6: eager pays Python/dispatch overhead; fusion (graph optimisation) removes it."""
    work = Workload(lambda: _PointwiseMLP(), 1, 1, "forward", torch.device("cpu"))
    work.x = torch.randn(4, 32)
    try:
        results = compare_modes(work, ["default"], benchmark, rounds=5, iterations=20)
    finally:
        torch._dynamo.reset()
    speedup = results["default"]["speedup"]
    benchmark.extra_info.update(
        claim="compile.eager-python-overhead", quantity="eager/compiled forward time (6 tiny layers, 4x32 input)",
        measured=round(speedup, 2), material="> 1", unit="x",
        method=(f"torch.compile default vs eager, median of {ROUNDS} interleaved rounds, "
                f"{torch.get_num_threads()} threads; accuracy checked first"),
        **_details(results))


# ------------------------------------------------------------------ GPU: the ResNet-50 table

@pytest.mark.gpu
@pytest.mark.benchmark
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("precision", ["fp32", "amp"])
@pytest.mark.parametrize("phase", ["inference", "train"])
def test_resnet50_gpu(benchmark, inductor_started, phase, precision):
    """000 §5.3: ResNet-50 images/s, peak memory and start-up for eager, compile default and
    max-autotune (material: A100; batch size and precision unstated: batch 64, 224x224)."""
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA: no GPU on this machine")
    torchvision = pytest.importorskip("torchvision")
    device = torch.device("cuda")
    work = Workload(lambda: torchvision.models.resnet50(weights=None), 64, 224,
                    "train" if phase == "train" else "forward", device, num_classes=1000,
                    amp=precision == "amp")
    _sync(device)
    eager_first = work.fresh_model()
    _, eager_start = _timed(work.step_fn(eager_first, eager_first))
    del eager_first
    tolerance = 1e-2 if precision == "fp32" else 5e-2
    try:
        results = compare_modes(work, ["default", "max-autotune"], benchmark, rounds=5, iterations=3,
                                rtol=tolerance, atol=tolerance)
    finally:
        torch._dynamo.reset()
    results["eager"]["first_call_s"] = eager_start
    method = (f"torchvision resnet50, {phase}, {precision}, batch 64, 224x224, "
              f"{torch.cuda.get_device_name(0)}; median of {ROUNDS} interleaved rounds")
    rows = []
    for mode in ("eager", "default", "max-autotune"):
        r = results[mode]
        rows.append(_row(CLAIMS[(mode, "throughput")], f"images/s, {mode}, {phase} {precision}",
                         round(r["images_per_s"], 1), MATERIAL[mode]["throughput"], "images/s", method))
        rows.append(_row(CLAIMS[(mode, "memory_gb")], f"peak allocated memory, {mode}, {phase} {precision}",
                         round(r["peak_memory_gb"], 2), MATERIAL[mode]["memory_gb"], "GB",
                         "torch.cuda.max_memory_allocated over one step after warm-up"))
        startup = (r["first_call_s"] - r["median_s"]) if mode == "eager" else r["cold_compile_s"]
        rows.append(_row(CLAIMS[(mode, "startup_ms")], f"start-up latency (cold), {mode}, {phase} {precision}",
                         round(max(startup, 0.0) * 1000), MATERIAL[mode]["startup_ms"], "ms",
                         "first call minus one steady-state step; compiled: fresh Inductor cache"))
    benchmark.extra_info.update(rows[0])
    benchmark.extra_info.update(more=rows[1:], **_details(results))

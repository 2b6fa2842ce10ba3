"""One torch.compile mode against eager for torchvision ResNet-50 inference, in a fresh process.

Run by ``bench_compile.py::test_resnet50_cpu`` and ``test_resnet50_gpu`` (a subprocess per
mode, so a slow ``max-autotune`` compile can be bounded with a timeout, and so "cold" means a
fresh process and a fresh ``TORCHINDUCTOR_CACHE_DIR``, Triton's kernels included)::

    python benchmarks/compile_worker.py --mode default --batch 4 --image 224 --rounds 21
    python benchmarks/compile_worker.py --mode max-autotune --device cuda --batch 64 --no-warm

Prints one JSON object: eager and compiled per-call seconds of interleaved rounds, the
first-call times (eager, Inductor's own start-up, cold compile, warm compile unless
``--no-warm``), and the peak memory of one forward pass per side: on the CPU the resident
memory growth (Linux/glibc), on CUDA ``torch.cuda.max_memory_allocated`` (eager measured
before anything is compiled).  The compiled output is checked against eager before anything
is timed; on CUDA every timed call is synchronised.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        return int(re.search(field + r":\s+(\d+)", f.read()).group(1))


def _peak_growth_mb(step, rounds: int) -> list[float]:
    """Peak RSS growth (VmHWM after clear_refs minus VmRSS) over one call, ``rounds`` times."""
    peaks = []
    for _ in range(rounds):
        gc.collect()
        _libc().malloc_trim(0)
        with open("/proc/self/clear_refs", "w") as f:   # reset the high-water mark (Linux >= 4.0)
            f.write("5")
        before = _status_kb("VmRSS")
        step()
        peaks.append((_status_kb("VmHWM") - before) * 1024 / 1e6)
    return peaks


def resnet50():
    """(torchvision's ResNet-50 with random weights, "torchvision"), or where torchvision is not
    installed (a GPU machine with only its own torch) the same architecture written out here:
    the bottleneck blocks of torchvision.models.resnet50, layer for layer and parameter for
    parameter (tests/bench/test_bench_kit.py compares the two)."""
    try:
        import torchvision
    except ImportError:
        return _ResNet50(), "the same architecture written out in compile_worker.py (no torchvision here)"
    return torchvision.models.resnet50(weights=None), "torchvision.models.resnet50"


def _ResNet50():
    from torch import nn

    class Bottleneck(nn.Module):
        def __init__(self, inplanes, planes, stride):
            super().__init__()
            width, out = planes, planes * 4
            self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, out, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(out)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = (nn.Sequential(nn.Conv2d(inplanes, out, 1, stride, bias=False), nn.BatchNorm2d(out))
                               if stride != 1 or inplanes != out else None)

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)))
            return self.relu(self.bn3(self.conv3(y)) + identity)

    class ResNet50(nn.Module):
        def __init__(self, num_classes=1000):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            inplanes, layers = 64, []
            for planes, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                stage = []
                for i in range(blocks):
                    stage.append(Bottleneck(inplanes, planes, stride if i == 0 else 1))
                    inplanes = planes * 4
                layers.append(nn.Sequential(*stage))
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(2048, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))

    return ResNet50()


def _cuda_peak_gb(step, rounds: int, device) -> list[float]:
    """Peak allocated CUDA memory over one call (GB), ``rounds`` times."""
    import torch
    peaks = []
    for _ in range(rounds):
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        step()
        peaks.append(torch.cuda.max_memory_allocated(device) / 1e9)
    return peaks


def _libc():
    return ctypes.CDLL("libc.so.6")


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", required=True, choices=["default", "reduce-overhead", "max-autotune"])
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--image", type=int, default=224)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--memory-rounds", type=int, default=6)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--no-warm", dest="warm", action="store_false",
                        help="skip the warm compile (a second compile after a Dynamo reset)")
    args = parser.parse_args(argv)

    # A cold compile: an empty Inductor cache of our own, set before torch is imported.
    cache = tempfile.mkdtemp(prefix="torchclaims-inductor-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    try:
        return measure(args)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def measure(args) -> int:
    import torch
    import torch._dynamo
    from torch.utils import benchmark as tbench

    threads = torch.get_num_threads()
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    if cuda:
        torch.ones(1, device=device)               # the CUDA context, outside every timing
    torch.manual_seed(0)
    model, source = resnet50()
    model = model.eval().to(device)
    x = torch.randn(args.batch, 3, args.image, args.image, device=device)

    def synchronised(fn):
        def run():
            out = fn()
            if cuda:
                torch.cuda.synchronize(device)
            return out
        return run

    @synchronised
    def eager():
        with torch.no_grad():
            return model(x)

    expected, eager_first = _timed(eager)
    expected = expected.clone()
    memory = {}
    if cuda:                                   # eager's peak before any compiled graph holds memory
        eager()
        memory["eager"] = _cuda_peak_gb(eager, args.memory_rounds, device)

    # Inductor's one-off start-up in a process (compile workers, toolchain checks), apart.
    tiny = torch.compile(lambda t: torch.relu(t) * 2 + 1)
    _, start_up = _timed(lambda: tiny(torch.randn(16, device=device)))
    torch._dynamo.reset()

    compiled_model = torch.compile(model, mode=args.mode)

    @synchronised
    def compiled():
        with torch.no_grad():
            return compiled_model(x)

    got, cold = _timed(compiled)
    scale = float(expected.abs().max())
    tolerance = 1e-2 if cuda else 1e-3         # TF32 convolutions and other kernels on a GPU
    torch.testing.assert_close(got, expected, rtol=tolerance, atol=tolerance * max(scale, 1.0),
                               msg=lambda m: f"torch.compile(mode={args.mode!r}) differs from eager: {m}")
    warm = None
    if args.warm:
        torch._dynamo.reset()                  # warm: the same compile again, its caches filled
        compiled_model = torch.compile(model, mode=args.mode)
        _, warm = _timed(compiled)

    from torch._dynamo.utils import counters
    for _ in range(2):                         # explicit warm-up of both sides
        eager()
        compiled()
    timers = {"eager": tbench.Timer("fn()", globals={"fn": eager}, num_threads=threads),
              "compiled": tbench.Timer("fn()", globals={"fn": compiled}, num_threads=threads)}
    samples = {"eager": [], "compiled": []}
    graphs = int(counters["stats"]["unique_graphs"])
    with torch._dynamo.config.patch(error_on_recompile=True):
        for r in range(args.rounds):
            for name in (["eager", "compiled"] if r % 2 == 0 else ["compiled", "eager"]):
                samples[name].append(timers[name].timeit(1).median)
        if int(counters["stats"]["unique_graphs"]) != graphs:
            raise SystemExit("a recompilation happened while timing")

        # Peak memory last, so the allocator setting cannot touch the timings: a fixed mmap
        # threshold makes every large buffer mapped on allocation and returned when freed.
        if cuda:
            memory["compiled"] = _cuda_peak_gb(compiled, args.memory_rounds, device)
        elif sys.platform.startswith("linux"):
            _libc().mallopt(-3, 128 * 1024)      # M_MMAP_THRESHOLD
            for name, step in (("eager", eager), ("compiled", compiled)):
                memory[name] = _peak_growth_mb(step, args.memory_rounds)

    steady = statistics.median(samples["compiled"])
    eager_steady = statistics.median(samples["eager"])
    print(json.dumps({
        "mode": args.mode, "model": source, "threads": threads, "batch": args.batch, "image": args.image,
        "eager_s": samples["eager"], "compiled_s": samples["compiled"],
        "eager_first_call_s": eager_first, "eager_start_up_s": max(0.0, eager_first - eager_steady),
        "inductor_start_up_s": start_up,
        "cold_first_call_s": cold, "warm_first_call_s": warm,
        "cold_compile_s": max(0.0, cold - steady), "warm_compile_s": None if warm is None else max(0.0, warm - steady),
        **({"eager_peak_gb": memory.get("eager"), "compiled_peak_gb": memory.get("compiled"),
            "device_name": torch.cuda.get_device_name(device)} if cuda else
           {"eager_peak_mb": memory.get("eager"), "compiled_peak_mb": memory.get("compiled")}),
        "max_abs_output": scale,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

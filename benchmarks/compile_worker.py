"""One torch.compile mode against eager for torchvision ResNet-50 inference, in a fresh process.

Run by ``bench_compile.py::test_resnet50_cpu`` (a subprocess per mode, so a slow
``max-autotune`` compile can be bounded with a timeout, and so "cold" means a fresh process
and a fresh ``TORCHINDUCTOR_CACHE_DIR``)::

    python benchmarks/compile_worker.py --mode default --batch 4 --image 224 --rounds 21

Prints one JSON object: eager and compiled per-call seconds of interleaved rounds, the
first-call times (eager, Inductor's own start-up, cold compile, warm compile), and peak
resident memory growth of one forward pass per side (Linux/glibc).  The compiled output
is checked against eager before anything is timed.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import re
import shutil
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
    args = parser.parse_args(argv)

    # A cold compile: an empty Inductor cache of our own, set before torch is imported.
    cache = tempfile.mkdtemp(prefix="torchclaims-inductor-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    try:
        return measure(args)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def measure(args) -> int:
    import torch
    import torch._dynamo
    import torchvision
    from torch.utils import benchmark as tbench

    threads = torch.get_num_threads()
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).eval()
    x = torch.randn(args.batch, 3, args.image, args.image)

    def eager():
        with torch.no_grad():
            return model(x)

    expected, eager_first = _timed(eager)

    # Inductor's one-off start-up in a process (compile workers, toolchain checks), apart.
    tiny = torch.compile(lambda t: torch.relu(t) * 2 + 1)
    _, start_up = _timed(lambda: tiny(torch.randn(16)))
    torch._dynamo.reset()

    compiled_model = torch.compile(model, mode=args.mode)

    def compiled():
        with torch.no_grad():
            return compiled_model(x)

    got, cold = _timed(compiled)
    scale = float(expected.abs().max())
    torch.testing.assert_close(got, expected, rtol=1e-3, atol=1e-3 * max(scale, 1.0),
                               msg=lambda m: f"torch.compile(mode={args.mode!r}) differs from eager: {m}")
    torch._dynamo.reset()                      # warm: the same compile again, its caches filled
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
        memory = {}
        if sys.platform.startswith("linux"):
            _libc().mallopt(-3, 128 * 1024)      # M_MMAP_THRESHOLD
            for name, step in (("eager", eager), ("compiled", compiled)):
                memory[name] = _peak_growth_mb(step, args.memory_rounds)

    steady = sorted(samples["compiled"])[len(samples["compiled"]) // 2]
    eager_steady = sorted(samples["eager"])[len(samples["eager"]) // 2]
    print(json.dumps({
        "mode": args.mode, "threads": threads, "batch": args.batch, "image": args.image,
        "eager_s": samples["eager"], "compiled_s": samples["compiled"],
        "eager_first_call_s": eager_first, "eager_start_up_s": max(0.0, eager_first - eager_steady),
        "inductor_start_up_s": start_up,
        "cold_first_call_s": cold, "warm_first_call_s": warm,
        "cold_compile_s": max(0.0, cold - steady), "warm_compile_s": max(0.0, warm - steady),
        "eager_peak_mb": memory.get("eager"), "compiled_peak_mb": memory.get("compiled"),
        "max_abs_output": scale,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Measurements of the data topic's quantitative claims (003 §3.4, §4.2; 004 §4.3).

Run alone, never under xdist:  pytest benchmarks/bench_data.py -p no:xdist
Each benchmark times one configuration with pytest-benchmark and records the comparison
the material makes (a throughput ratio, a memory figure) in ``benchmark.extra_info``;
nothing is asserted.  Data is synthetic and small: each benchmark takes a few seconds.
"""
import gc
import os
import time
import tracemalloc

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset

SAMPLES = 128
BATCH = 16


@pytest.fixture(autouse=True)
def unix_sockets_for_workers():
    """Workers return batches over AF_UNIX sockets; allow them if pytest-socket is active."""
    try:
        import pytest_socket
    except ImportError:
        return
    pytest_socket.socket_allow_hosts(["127.0.0.1", "localhost", "::1"], allow_unix_socket=True)


class CostlySamples(Dataset):
    """``SAMPLES`` 3x32x32 images, each costing ``work`` seconds of CPU to produce."""

    def __init__(self, work):
        self.work = work

    def __len__(self):
        return SAMPLES

    def __getitem__(self, i):
        end = time.perf_counter() + self.work
        x = np.float32(i)
        while time.perf_counter() < end:  # busy work, like decoding and augmenting an image
            x = x * np.float32(1.000001)
        return torch.full((3, 32, 32), float(x)), i % 10


def _proc_bytes(pid, field):
    """A ``kB`` field of /proc/<pid>/smaps_rollup (``Pss``, ``Rss``) in bytes; 0 if unavailable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, PermissionError, ProcessLookupError):
        return 0
    return 0


def _pss_bytes(pid):
    """Proportional set size: pages shared with the parent after fork count only in part."""
    return _proc_bytes(pid, "Pss")


def _rss_bytes(pid):
    return _proc_bytes(pid, "Rss")


def _epoch(num_workers, work, prefetch_factor=None):
    """Samples per second over one epoch, and peak summed worker PSS seen between batches."""
    loader = DataLoader(CostlySamples(work), batch_size=BATCH, num_workers=num_workers,
                        prefetch_factor=prefetch_factor, timeout=60 if num_workers else 0)
    start = time.perf_counter()
    iterator = iter(loader)
    peak = 0
    for _ in iterator:
        workers = getattr(iterator, "_workers", [])
        peak = max(peak, sum(_pss_bytes(w.pid) for w in workers))
    elapsed = time.perf_counter() - start
    del iterator
    gc.collect()
    return SAMPLES / elapsed, peak


@pytest.mark.benchmark
def test_loader_throughput_by_workers(benchmark):
    """003 §3.4: 0 workers ~35% slower than 2; 4 workers' memory keeps growing. 004 §4.3: more is not always better."""
    results = {}
    for work in (0.0, 0.002):
        for workers in (0, 2, 4):
            results[(work, workers)] = _epoch(workers, work)
    benchmark.pedantic(_epoch, args=(2, 0.002), rounds=1, iterations=1)
    costly = {w: results[(0.002, w)] for w in (0, 2, 4)}
    cheap = {w: results[(0.0, w)] for w in (0, 2, 4)}
    benchmark.extra_info.update(
        claim="data.num-workers-memory-throughput-figures", quantity="throughput 2 workers / 0 workers (costly samples)",
        measured=round(costly[2][0] / costly[0][0], 2), material=1.22, unit="x",
        method=(f"{SAMPLES} samples of 3x32x32, batch {BATCH}, one epoch each, {os.cpu_count()} CPUs; "
                "samples/s costly (2 ms busy work) "
                + ", ".join(f"{w} workers {costly[w][0]:.0f}" for w in costly)
                + "; cheap (no work) " + ", ".join(f"{w} workers {cheap[w][0]:.0f}" for w in cheap)
                + "; peak summed worker PSS MiB " + ", ".join(f"{w}: {costly[w][1] / 2**20:.0f}" for w in costly)),
        other_claims=["data.num-workers-not-more-better"],
        cheap_ratio_2_over_0=round(cheap[2][0] / cheap[0][0], 2),
        ratio_4_over_2=round(costly[4][0] / costly[2][0], 2),
        worker_pss_mib={str(w): round(costly[w][1] / 2**20, 1) for w in costly})


@pytest.mark.benchmark
def test_loader_throughput_by_prefetch_factor(benchmark):
    """003 §4.2: prefetch_factor=2 keeps data flowing, +18% throughput; 003 §3.4: 1 saves memory."""
    rates = {pf: _epoch(2, 0.002, prefetch_factor=pf)[0] for pf in (1, 2, 4)}
    benchmark.pedantic(_epoch, args=(2, 0.002), kwargs={"prefetch_factor": 2}, rounds=1, iterations=1)
    benchmark.extra_info.update(
        claim="data.prefetch-throughput-figure", quantity="throughput prefetch_factor 2 / 1 (2 workers)",
        measured=round(rates[2] / rates[1], 2), material=1.18, unit="x",
        method=(f"{SAMPLES} samples, 2 ms busy work each, batch {BATCH}, 2 workers, one epoch per setting; "
                "samples/s " + ", ".join(f"pf {pf}: {r:.0f}" for pf, r in rates.items())
                + "; the consumer does no work, so prefetching can only hide worker start-up"))


@pytest.mark.benchmark
def test_memmap_vs_eager_memory(benchmark, tmp_path):
    """003 §4.2: np.memmap cuts the 1000 images' memory from 1.2 GB to 20 MB."""
    path = tmp_path / "images.dat"
    np.random.default_rng(0).integers(0, 256, size=(1000, 32, 32, 3), dtype=np.uint8).tofile(path)
    pid = os.getpid()

    tracemalloc.start()  # numpy reports its buffers to tracemalloc
    try:
        eager = np.fromfile(path, dtype=np.uint8).reshape(1000, 32, 32, 3)
        eager_total = int(eager.sum(dtype=np.int64))
        _, eager_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del eager
    gc.collect()

    before = _rss_bytes(pid)
    mapped = np.memmap(path, dtype=np.uint8, mode="r", shape=(1000, 32, 32, 3))
    sample_total = int(sum(int(mapped[i].sum()) for i in range(0, 1000, 100)))  # 10 samples read
    mapped_rss = _rss_bytes(pid) - before
    del mapped

    benchmark.pedantic(lambda: np.array(np.memmap(path, dtype=np.uint8, mode="r", shape=(1000, 32, 32, 3))[7]),
                       rounds=20, iterations=1)
    benchmark.extra_info.update(
        claim="data.memmap-memory-figures", quantity="resident memory of an eager load of the 1000 images",
        measured=round(eager_peak / 2**20, 2), material=1.2 * 1024, unit="MiB",
        method=(f"tracemalloc peak of np.fromfile on the 3,072,000-byte file {eager_peak / 2**20:.2f} MiB "
                f"(checksum {eager_total}); Rss delta of np.memmap reading 10 samples {mapped_rss / 2**20:.2f} MiB "
                f"(checksum {sample_total}); material says 1.2 GB eager vs 20 MB memmap"),
        memmap_rss_mib=round(mapped_rss / 2**20, 2), file_mib=round(os.path.getsize(path) / 2**20, 2))

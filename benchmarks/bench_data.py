"""Measurements of the data topic's quantitative claims (003 §3.4, §4.2; 004 §4.3).

Run alone, never under xdist:  pytest benchmarks/bench_data.py --benchmark-only -p no:xdist
Loader settings are compared in interleaved epochs (one epoch a round, settings in
rotating order); resident memory is measured in fresh subprocesses, one a round, from
/proc/self/status (Linux).  The raw rounds go to ``benchmark.extra_info``; the report
computes medians and intervals.  Nothing is asserted.
"""
import gc
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from benchkit import ROUNDS, SMOKE, interleaved_calls, median, pair_row, record, samples_row

SAMPLES = 128
BATCH = 16
WORK_S = 0.002          # CPU cost of one sample (decoding, augmenting)
STEP_S = 0.016          # the consumer's step per batch, spent waiting as a GPU step would be
LOADER_ROUNDS = min(ROUNDS, 15)
MEMORY_ROUNDS = min(ROUNDS, 9)
# The material: 1000 images taking 1.2 GB loaded whole.  1000 images of 3x640x640 uint8
# (1,228,800 bytes each) are that total; the 32x32 images the material names would be 3 MB.
IMAGES = 1000
IMAGE_SHAPE = (3, 160, 160) if SMOKE else (3, 640, 640)
MATERIAL_EAGER_MB, MATERIAL_MEMMAP_MB = 1200.0, 20.0
LOADER_SCALE = ("the material's dataset, model and machine are not stated; 128 synthetic 3x32x32 samples "
                "costing 2 ms of CPU each, a consumer waiting 16 ms a batch (a GPU step), 2 CPUs")


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


def _pss_bytes(pid):
    """Proportional set size from /proc/<pid>/smaps_rollup (pages shared after fork count in part)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, PermissionError, ProcessLookupError):
        return 0
    return 0


def _epoch(num_workers, work, prefetch_factor=None, peaks=None):
    """Seconds for one epoch, worker start-up included, the consumer waiting STEP_S a batch."""
    loader = DataLoader(CostlySamples(work), batch_size=BATCH, num_workers=num_workers,
                        prefetch_factor=prefetch_factor, timeout=60 if num_workers else 0)
    start = time.perf_counter()
    iterator = iter(loader)
    peak = 0
    for _ in iterator:
        time.sleep(STEP_S)
        workers = getattr(iterator, "_workers", [])
        peak = max(peak, sum(_pss_bytes(w.pid) for w in workers))
    elapsed = time.perf_counter() - start
    del iterator
    gc.collect()
    if peaks is not None:
        peaks.setdefault(num_workers, []).append(peak)
    return elapsed


@pytest.mark.benchmark
@pytest.mark.timeout(900)
@pytest.mark.claim("data.num-workers-memory-throughput-figures")
@pytest.mark.claim("data.num-workers-not-more-better")
@pytest.mark.filterwarnings("ignore:This DataLoader will create 4 worker processes")  # the point: more than cores
def test_loader_throughput_by_workers(benchmark):
    """003 §3.4: 0 workers ~22% slower than 2; 4 workers' memory keeps growing. 004 §4.3: more is not always better."""
    peaks = {}
    costly = interleaved_calls({w: (lambda w=w: _epoch(w, WORK_S, peaks=peaks)) for w in (0, 2, 4)},
                               rounds=LOADER_ROUNDS)
    cheap = interleaved_calls({w: (lambda w=w: _epoch(w, 0.0)) for w in (0, 2)}, rounds=LOADER_ROUNDS)
    benchmark.pedantic(_epoch, args=(2, WORK_S), rounds=1, iterations=1)
    method = ("epoch time (worker start-up included), {r} interleaved epochs; medians " +
              ", ".join(f"{w} workers {median(costly[w]) * 1e3:.0f} ms" for w in costly))
    rows = [
        pair_row("data.num-workers-memory-throughput-figures", "costly samples: epoch time 0 workers / 2 workers",
                 baseline=costly[0], candidate=costly[2], stat="speedup", material=1.22, unit="x",
                 scale=LOADER_SCALE, method=method.format(r=LOADER_ROUNDS),
                 note="the material's 22% more throughput for 2 workers, as a ratio 1.22"),
        pair_row("data.num-workers-not-more-better", "costly samples: epoch time 2 workers / 4 workers",
                 baseline=costly[2], candidate=costly[4], stat="speedup", material="< 1", unit="x",
                 scale=LOADER_SCALE, method=method.format(r=LOADER_ROUNDS)),
        pair_row("data.num-workers-not-more-better", "cheap samples: epoch time 0 workers / 2 workers",
                 baseline=cheap[0], candidate=cheap[2], stat="speedup", material="< 1", unit="x",
                 scale=LOADER_SCALE.replace("costing 2 ms of CPU each", "costing nothing"),
                 method=(f"epoch time, {LOADER_ROUNDS} interleaved epochs; medians 0 workers "
                         f"{median(cheap[0]) * 1e3:.0f} ms, 2 workers {median(cheap[2]) * 1e3:.0f} ms")),
    ]
    record(benchmark, rows, worker_pss_mib_median={
        str(w): round(median(v) / 2**20, 1) for w, v in sorted(peaks.items())})


@pytest.mark.benchmark
@pytest.mark.timeout(900)
@pytest.mark.claim("data.prefetch-throughput-figure")
def test_loader_throughput_by_prefetch_factor(benchmark):
    """003 §4.2: prefetch_factor=2 keeps the GPU fed, +18% throughput (against 1, 2 workers)."""
    times = interleaved_calls({pf: (lambda pf=pf: _epoch(2, WORK_S, prefetch_factor=pf)) for pf in (1, 2, 4)},
                              rounds=LOADER_ROUNDS)
    benchmark.pedantic(_epoch, args=(2, WORK_S), kwargs={"prefetch_factor": 2}, rounds=1, iterations=1)
    record(benchmark, [pair_row(
        "data.prefetch-throughput-figure", "epoch time prefetch_factor 1 / 2 (2 workers)",
        baseline=times[1], candidate=times[2], stat="speedup", material=1.18, unit="x", scale=LOADER_SCALE,
        method=(f"epoch time, {LOADER_ROUNDS} interleaved epochs; medians "
                + ", ".join(f"prefetch_factor {pf} {median(v) * 1e3:.0f} ms" for pf, v in times.items())))],
        prefetch_4_over_2_time=round(median(times[4]) / median(times[2]), 3))


_MEMORY_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np

    def status():
        fields = {}
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                    fields[key] = int(value.split()[0]) * 1024
        return fields

    path, mode, images = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shape = tuple(int(s) for s in sys.argv[4].split("x"))
    with open("/proc/self/clear_refs", "w") as f:   # reset the high-water mark (Linux >= 4.0)
        f.write("5")
    base = status()
    if mode == "eager":                               # load the whole dataset, as without memmap
        data = np.fromfile(path, dtype=np.uint8).reshape(images, *shape)
        checksum = int(data[:, 0, 0, :8].sum(dtype=np.int64))
    else:                                             # a memmap Dataset: samples copied on access
        mapped = np.memmap(path, dtype=np.uint8, mode="r", shape=(images, *shape))
        if mode == "batch":                           # one shuffled batch of 32 samples, collated
            order = np.random.default_rng(0).permutation(images)[:32]
            batch = np.stack([np.array(mapped[i]) for i in order])
            checksum = int(batch.sum(dtype=np.int64))
        else:                                         # one epoch: every sample once
            checksum = 0
            for i in range(images):
                checksum += int(np.array(mapped[i])[0, 0, :8].sum(dtype=np.int64))
    end = status()
    print(json.dumps({"peak": end["VmHWM"] - base["VmRSS"], "anon": end["RssAnon"] - base["RssAnon"],
                      "file": end["RssFile"] - base["RssFile"], "checksum": checksum}))
""")


def _resident(path, mode):
    shape = "x".join(str(s) for s in IMAGE_SHAPE)
    done = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, str(path), mode, str(IMAGES), shape],
                          capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.benchmark
@pytest.mark.timeout(900)
@pytest.mark.claim("data.memmap-memory-figures")
def test_memmap_vs_eager_memory(benchmark, tmp_path):
    """003 §4.2: np.memmap cuts the 1000 images' memory from 1.2 GB to 20 MB."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads resident memory from /proc/self/status (Linux only)")
    path = tmp_path / "images.u8"
    image_bytes = int(np.prod(IMAGE_SHAPE))
    pattern = np.random.default_rng(0).integers(0, 256, size=image_bytes, dtype=np.uint8)
    with open(path, "wb") as f:          # real bytes on disk (no sparse holes), one image at a time
        for i in range(IMAGES):
            f.write((pattern + np.uint8(i % 251)).tobytes())
    file_mb = os.path.getsize(path) / 1e6
    results = interleaved_calls({mode: (lambda mode=mode: _resident(path, mode))
                                 for mode in ("eager", "batch", "epoch")}, rounds=MEMORY_ROUNDS)
    mb = {mode: [r["peak"] / 1e6 for r in rs] for mode, rs in results.items()}
    benchmark.pedantic(lambda: np.array(np.memmap(path, dtype=np.uint8, mode="r",
                                                  shape=(IMAGES, *IMAGE_SHAPE))[7]), rounds=20, iterations=1)
    scale = (f"the material's total: {IMAGES} images of {'x'.join(map(str, IMAGE_SHAPE))} uint8, a "
             f"{file_mb:,.0f} MB file (the 32x32 images it names would total 3 MB)" if not SMOKE else
             f"smoke: {IMAGES} images of {'x'.join(map(str, IMAGE_SHAPE))} uint8, {file_mb:,.0f} MB")
    epoch_anon = median([r["anon"] / 1e6 for r in results["epoch"]])
    epoch_file = median([r["file"] / 1e6 for r in results["epoch"]])
    method = ("peak resident memory growth (VmHWM after clear_refs minus VmRSS before) of a fresh Python "
              f"subprocess, {MEMORY_ROUNDS} interleaved rounds; medians: eager np.fromfile "
              f"{median(mb['eager']):,.0f} MB, memmap + one batch of 32 {median(mb['batch']):,.1f} MB, "
              f"memmap epoch {median(mb['epoch']):,.0f} MB")
    rows = [
        pair_row("data.memmap-memory-figures",
                 "resident memory saved by a memmap Dataset reading one batch of 32, against loading the file",
                 baseline=mb["eager"], candidate=mb["batch"], stat="saving",
                 material=round(100 * (1 - MATERIAL_MEMMAP_MB / MATERIAL_EAGER_MB), 1), unit="%",
                 scale=scale, method=method, note="the material's 1.2 GB -> 20 MB is a saving of 98.3%"),
        samples_row("data.memmap-memory-figures",
                    "resident memory of a memmap Dataset after one epoch (every sample read once)",
                    samples=mb["epoch"], material=MATERIAL_MEMMAP_MB, unit="MB", scale=scale,
                    method=(method + f"; of the epoch's, anonymous {epoch_anon:,.1f} MB and file-backed "
                            f"{epoch_file:,.0f} MB: clean page cache the kernel can reclaim, unlike an eager load")),
    ]
    record(benchmark, rows, file_mb=round(file_mb, 1),
           eager_resident_mb_median=round(median(mb["eager"]), 1),
           memmap_epoch_anon_mb_median=round(epoch_anon, 1), memmap_epoch_file_mb_median=round(epoch_file, 1))

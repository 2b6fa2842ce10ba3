"""Data: the material's DataLoader figures (workers, memory, prefetching) and its picture of a
normalized image shown with plt.imshow.

Sources: 003 §3.4 (0/2/4 workers: memory and throughput), 003 §4.2 (num_workers=2,
prefetch_factor=2, +18%), 004 §4.3 (more workers is not always better), 003 §5.2 (imshow of a
normalized tensor is black).  Throughput is measured by benchmarks/bench_data.py, never
asserted here; these specs check what the figures rest on: which processes load, how batches
travel, what the loader's settings are, what matplotlib draws.
"""
import functools
import logging
import multiprocessing
import os

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from torchclaims.optional import need

from workers import WORKER_TIMEOUT, workers_allowed_and_reaped  # noqa: F401  (autouse fixture)


class Pids(Dataset):
    """Sample i is tensor([i, pid of the process that built it])."""

    def __init__(self, n=16):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([i, os.getpid()])


# --- more workers is not always better --------------------------------------------------

@pytest.mark.workers
@pytest.mark.claim("data.num-workers-not-more-better")
def test_each_worker_is_a_process_started_per_epoch_whose_batches_cross_shared_memory():
    """Material: more workers is not always better: copying between processes and memory cost.
    True: every epoch starts num_workers new processes, and each batch they build comes back
    through shared memory; with num_workers=0 the main process builds plain batches."""
    main = os.getpid()
    inline = list(DataLoader(Pids(), batch_size=4))
    assert {int(p) for b in inline for p in b[:, 1]} == {main} and not any(b.is_shared() for b in inline)
    loader = DataLoader(Pids(), batch_size=4, num_workers=2, timeout=WORKER_TIMEOUT)
    epochs = [list(loader) for _ in range(2)]
    pids = [{int(p) for b in batches for p in b[:, 1]} for batches in epochs]
    assert all(len(p) == 2 and main not in p for p in pids), f"pids per epoch {pids}, main process {main}"
    assert not pids[0] & pids[1], f"the second epoch reused worker processes {pids[0] & pids[1]}"
    assert all(b.is_shared() for batches in epochs for b in batches), (
        "a batch built by a worker is not in shared memory [DataLoader(num_workers=2)]")


# --- 0 / 2 / 4 workers: memory over epochs --------------------------------------------------

def _live_workers_after_epochs(epochs: int, workers: int = 4) -> list[int]:
    """Worker processes alive in the middle and at the end of each epoch of one loader."""
    loader = DataLoader(Pids(32), batch_size=4, num_workers=workers, timeout=WORKER_TIMEOUT)
    counts = []
    for _ in range(epochs):
        it = iter(loader)
        next(it)
        counts.append(len(multiprocessing.active_children()))
        for _ in it:
            pass
        counts.append(len(multiprocessing.active_children()))
    return counts


@pytest.mark.filterwarnings("ignore:This DataLoader will create 4 worker processes")
@pytest.mark.slow
@pytest.mark.claim("data.num-workers-memory-throughput-figures")
def test_ordinary_workers_exit_at_the_end_of_every_epoch():
    """Material: with 4 workers memory keeps growing over 10 epochs to 3.5 GB and runs out.
    True: without persistent_workers the 4 worker processes exit when an epoch ends, so nothing
    they hold carries over to the next epoch: 4 alive during each epoch, none after."""
    counts = _live_workers_after_epochs(3)
    assert counts == [4, 0] * 3, f"live worker processes (during, after) per epoch: {counts}"


@pytest.mark.filterwarnings("ignore:This DataLoader will create 4 worker processes")
@pytest.mark.slow
@pytest.mark.claim("data.num-workers-memory-throughput-figures", as_written=True)
def test_as_written_four_workers_accumulate_over_epochs():
    """Material: with num_workers=4 memory grows epoch after epoch."""
    counts = _live_workers_after_epochs(3)
    after = counts[1::2]
    assert after[-1] > after[0], f"live worker processes after each epoch {after}: nothing accumulates"


# --- prefetch_factor=2 ---------------------------------------------------------------------

@functools.cache   # two specs ask for the same loaders: each starts two worker processes once
def _first_requests(**kwargs) -> tuple[int, int]:
    """(loader.prefetch_factor, index batches handed to the workers when an epoch starts)."""
    loader = DataLoader(Pids(64), batch_size=4, num_workers=2, timeout=WORKER_TIMEOUT, **kwargs)
    it = iter(loader)
    try:
        return loader.prefetch_factor, it._send_idx  # private: batches requested so far
    finally:
        it._shutdown_workers()


@pytest.mark.workers
@pytest.mark.claim("data.prefetch-throughput-figure")
def test_prefetch_factor_2_is_the_default_and_bounds_the_batches_in_flight():
    """Material: setting prefetch_factor=2 keeps the GPU fed and raises throughput by 18%.
    True: 2 is already DataLoader's default with workers; each worker gets prefetch_factor batches
    ahead, so an epoch starts with 2 x num_workers requests whether or not it is written."""
    default, requested = _first_requests()
    assert (default, requested) == (2, 4), f"default prefetch_factor {default}, {requested} batches requested"
    assert _first_requests(prefetch_factor=2) == (default, requested), (
        "writing prefetch_factor=2 changed the loader's setting or its first requests")
    assert _first_requests(prefetch_factor=4) == (4, 8)


@pytest.mark.workers
@pytest.mark.claim("data.prefetch-throughput-figure", as_written=True)
def test_as_written_setting_prefetch_factor_2_changes_the_loader():
    """Material: prefetch_factor=2 is a tuning step that raises throughput over the loader without it."""
    assert _first_requests(prefetch_factor=2) != _first_requests(), (
        "DataLoader(num_workers=2, prefetch_factor=2) prefetches exactly as DataLoader(num_workers=2)")


# --- plt.imshow of a normalized image ---------------------------------------------------------

def _drawn_pixels(image_hwc: np.ndarray) -> np.ndarray:
    """The RGB pixels matplotlib draws for ``imshow(image_hwc)`` (Agg canvas, no pyplot state)."""
    need("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(1, 1), dpi=32)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.imshow(image_hwc, interpolation="nearest")
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3]


def _normalized_cifar_like_image() -> np.ndarray:
    transforms = need("torchvision.transforms")
    torch.manual_seed(0)
    x = torch.rand(3, 32, 32)
    out = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))(x)
    assert out.min() < -2 and out.max() > 2  # the material's [-2.5, 2.5]
    return out.permute(1, 2, 0).numpy()


# The three imshow specs are slow (--full): drawing needs matplotlib, whose first import costs about
# 0.3 s of CPU, a thirtieth of the learner's quick run, for this one claim (docs/measurements.md).
@pytest.mark.slow
@pytest.mark.claim("data.imshow-normalized-black")
def test_imshow_clips_a_normalized_image_to_0_1_instead_of_blacking_it_out():
    """Material: plt.imshow of a normalized tensor is all black (out-of-range values cut to 0).
    True: matplotlib clips float RGB to [0, 1]: negatives become 0 and values above 1 become 1, so
    the picture is saturated, with black and white pixels, and most of it is not black."""
    image = _normalized_cifar_like_image()
    records = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append
    logger = logging.getLogger("matplotlib")
    logger.addHandler(handler)
    try:
        drawn = _drawn_pixels(image)
    finally:
        logger.removeHandler(handler)
    messages = [r.getMessage() for r in records]
    assert any("Clipping input data" in m for m in messages), f"matplotlib logged {messages}, expected a clipping warning"
    expected = (np.clip(image, 0, 1) * 255).round()
    assert drawn.shape == expected.shape, f"drawn {drawn.shape}, image {expected.shape}"
    assert np.abs(drawn.astype(float) - expected).max() <= 1, "imshow drew something else than clip(x, 0, 1)"
    not_black = (drawn.max(axis=2) > 0).mean()
    assert not_black > 0.5, f"only {not_black:.0%} of the drawn pixels are not black"
    assert (drawn == 255).all(axis=2).any(), "no pixel was clipped to white"


@pytest.mark.slow
@pytest.mark.claim("data.imshow-normalized-black")
def test_imshow_of_the_denormalized_image_shows_the_original_pixels():
    """Material: denormalize before plt.imshow.
    True: x * std + mean, clamped, draws the original image's pixels."""
    torch.manual_seed(0)
    original = torch.rand(3, 32, 32)   # what _normalized_cifar_like_image normalizes
    normalized = torch.from_numpy(_normalized_cifar_like_image()).permute(2, 0, 1)
    std = torch.tensor((0.2023, 0.1994, 0.2010)).view(3, 1, 1)
    mean = torch.tensor((0.4914, 0.4822, 0.4465)).view(3, 1, 1)
    shown = (normalized * std + mean).clamp(0, 1).permute(1, 2, 0).numpy()
    drawn = _drawn_pixels(shown)
    expected = (original.permute(1, 2, 0).numpy() * 255).round()
    assert np.abs(drawn.astype(float) - expected).max() <= 1, "the denormalized image drew other pixels than the original"


@pytest.mark.slow
@pytest.mark.claim("data.imshow-normalized-black", as_written=True)
def test_as_written_imshow_of_a_normalized_image_is_all_black():
    """Material: plt.imshow of the normalized tensor shows an all-black picture."""
    drawn = _drawn_pixels(_normalized_cifar_like_image())
    assert (drawn == 0).all(), f"{(drawn.max(axis=2) > 0).mean():.0%} of the drawn pixels are not black"

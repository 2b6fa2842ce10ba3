"""Devices: the material's troubleshooting advice for out-of-memory errors and DataLoader
workers (pinned batches themselves are specified in test_data_workers.py and
test_devices_processes.py).

Sources: 002 §5.1, 003 §5.1 (CUDA out of memory: pin_memory, no_grad, num_workers, batch_size),
000 §4.2 (BrokenPipeError from forked workers and CUDA).  Memory is counted in bytes that
autograd saves, which is what a training step keeps on whatever device it runs.
"""
import functools

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

from torchclaims.measure import saved_tensor_bytes

from workers import WORKER_TIMEOUT, workers_allowed_and_reaped  # noqa: F401  (autouse fixture)

# --- what fills memory in a training step ------------------------------------------------------

def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 16 * 16, 10))


def _step_bytes(batch, grad=True) -> int:
    """Bytes autograd keeps for backward over one forward + loss of ``_model`` on ``batch``."""
    model = _model()
    with torch.set_grad_enabled(grad):
        saved, _ = saved_tensor_bytes(lambda: nn.functional.cross_entropy(
            model(batch), torch.zeros(len(batch), dtype=torch.long)))
    return saved


@functools.cache   # a truth spec and its as-written twin read the same loaders: their workers start once
def _batch_from_loader(workers: int, batch_size: int = 8) -> torch.Tensor:
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(16, 3, 16, 16))
    loader = DataLoader(ds, batch_size=batch_size, num_workers=workers, timeout=WORKER_TIMEOUT if workers else 0)
    return next(iter(loader))[0]


@pytest.mark.workers
@pytest.mark.claim("devices.oom-causes")
def test_batch_size_and_no_grad_set_the_step_memory_and_workers_do_not():
    """Material: CUDA OOM comes from pin_memory/no_grad (002) or num_workers/batch_size (003).
    True: the step's activation memory grows by the same amount per sample, vanishes under
    no_grad, and is the same whether the batch came from 0 or 2 worker processes."""
    sizes = {n: _step_bytes(torch.randn(n, 3, 16, 16)) for n in (4, 8, 16)}
    assert sizes[16] - sizes[8] == 2 * (sizes[8] - sizes[4]) > 0, f"saved bytes by batch size {sizes}"
    assert _step_bytes(torch.randn(8, 3, 16, 16), grad=False) == 0, "a no_grad forward saved tensors"
    assert _step_bytes(_batch_from_loader(0)) == _step_bytes(_batch_from_loader(2)) == sizes[8]


@pytest.mark.workers
@pytest.mark.claim("devices.oom-causes", as_written=True)
def test_as_written_fewer_workers_shrink_the_step_memory():
    """Material: lower num_workers to 2 to get out of CUDA out of memory."""
    with_workers, without = _step_bytes(_batch_from_loader(2)), _step_bytes(_batch_from_loader(0))
    assert without < with_workers, (
        f"the step saves {without} bytes on a batch from 0 workers and {with_workers} from 2: the same")


@pytest.mark.gpu
@pytest.mark.claim("devices.oom-causes")
def test_pinned_batches_take_no_gpu_memory():
    """Material: CUDA out of memory comes from pin_memory=True (002).
    True: pinned batches live in host memory; loading them allocates nothing on the GPU."""
    torch.ones(1, device="cuda")                              # the CUDA context, before counting
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    loader = DataLoader(TensorDataset(torch.randn(64, 3, 32, 32)), batch_size=32, pin_memory=True)
    batches = [batch for (batch,) in loader]
    assert all(batch.is_pinned() and batch.device.type == "cpu" for batch in batches), (
        "DataLoader(pin_memory=True) on a CUDA machine should give pinned cpu batches")
    after = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    assert after == before, (
        f"GPU memory (allocated, reserved) went from {before} to {after} B while pinning 2 batches, "
        "expected no change")


# --- BrokenPipeError and forked workers --------------------------------------------------------

class _TouchesCuda(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.ones(1, device="cuda") * i


@pytest.mark.gpu
@pytest.mark.claim("devices.brokenpipe-from-fork-cuda")
def test_forked_worker_touching_cuda_raises_reinit_error_not_broken_pipe():
    """Material: forked workers that touch the GPU break the pipe (BrokenPipeError).
    True: once the parent has initialised CUDA, the forked worker's CUDA call raises RuntimeError
    'Cannot re-initialize CUDA in forked subprocess', re-raised in the main process."""
    torch.cuda.init()
    loader = DataLoader(_TouchesCuda(), batch_size=2, num_workers=1, timeout=WORKER_TIMEOUT,
                        multiprocessing_context="fork")
    with pytest.raises(RuntimeError, match="Cannot re-initialize CUDA in forked subprocess") as info:
        next(iter(loader))
    assert not isinstance(info.value, BrokenPipeError)

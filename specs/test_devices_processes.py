"""Devices, processes: multiprocessing start methods, DataLoader workers, CUDA in forked
children, and pinned memory.

Sources: 000 §4.2; 002 §4.2; 003 §3.3, §3.4, §4.2, §5.1.  The default start method is a
property of Python and the platform, not of torch: 'fork' on Linux up to Python 3.13,
'forkserver' from 3.14, 'spawn' on Windows and macOS.
"""
import functools
import multiprocessing
import multiprocessing.context
import sys
import warnings

import pytest
import torch
import torch.multiprocessing as torch_mp
from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info

from workers import workers_allowed_and_reaped  # noqa: F401  (autouse fixture)

LINUX = sys.platform.startswith("linux")
LINUX_DEFAULT = "forkserver" if sys.version_info >= (3, 14) else "fork"


def _current_default_start_method() -> str:
    """torch.multiprocessing.get_start_method(), without leaving the start method fixed.

    Asking for the method fixes the process-wide default context; undo that afterwards so
    a later set_start_method elsewhere in the session still works.
    """
    default = multiprocessing.context._default_context
    saved = default._actual_context
    try:
        return torch_mp.get_start_method()
    finally:
        default._actual_context = saved


@pytest.mark.skipif(not LINUX, reason="the default start method differs on Windows and macOS (spawn)")
@pytest.mark.claim("devices.start-method-default-spawn")
def test_default_start_method_on_linux_is_fork_or_forkserver():
    """Material: torch.multiprocessing uses 'spawn' by default.
    True: it keeps Python's default, 'fork' on Linux (Python <= 3.13), 'forkserver' from 3.14."""
    method = _current_default_start_method()
    assert method == LINUX_DEFAULT, (
        f"torch.multiprocessing.get_start_method()={method!r} on Python {sys.version_info[:2]}, "
        f"expected {LINUX_DEFAULT!r}")
    assert torch_mp.get_start_method is multiprocessing.get_start_method, (
        "torch.multiprocessing has its own get_start_method; expected it to re-export Python's")


@pytest.mark.skipif(not LINUX, reason="on Windows and macOS spawn really is the default")
@pytest.mark.claim("devices.start-method-default-spawn", as_written=True)
def test_as_written_default_start_method_is_spawn():
    """Material: the default is spawn.  True on Linux: fork/forkserver (strict xfail)."""
    method = _current_default_start_method()
    assert method == "spawn", f"torch.multiprocessing.get_start_method()={method!r}, the material expects 'spawn'"


@pytest.mark.claim("devices.set-start-method-placement")
def test_set_start_method_works_late_but_only_once():
    """Material: call set_start_method('spawn') right after import torch.
    True: any time before the method is fixed, once; a second call needs force=True."""
    assert torch_mp.set_start_method.__func__ is multiprocessing.context.DefaultContext.set_start_method
    # A private default context with the same class, so the session's real one is untouched.
    context = multiprocessing.context.DefaultContext(multiprocessing.get_context("fork"))
    torch.ones(3).sum()                                   # unrelated work first: still fine
    context.set_start_method("spawn")
    assert context.get_start_method() == "spawn"
    with pytest.raises(RuntimeError, match="context has already been set"):
        context.set_start_method("forkserver")
    context.set_start_method("forkserver", force=True)
    assert context.get_start_method() == "forkserver"

    asked_first = multiprocessing.context.DefaultContext(multiprocessing.get_context("fork"))
    asked_first.get_start_method()                        # asking fixes the method
    with pytest.raises(RuntimeError, match="context has already been set"):
        asked_first.set_start_method("spawn")


@pytest.mark.workers
@pytest.mark.skipif(not LINUX, reason="the default start method differs on Windows and macOS (spawn)")
@pytest.mark.claim("devices.set-start-method-placement")
def test_starting_a_process_fixes_the_start_method():
    """Material: call set_start_method('spawn') right after import torch.
    True: the deadline is the first process started, not the import; afterwards the call raises."""
    default = multiprocessing.context._default_context
    saved = default._actual_context
    default._actual_context = None                        # as in a fresh program: nothing fixed yet
    try:
        child = multiprocessing.Process(target=int)       # started through the default context
        child.start()
        child.join(10)
        with pytest.raises(RuntimeError, match="context has already been set"):
            torch_mp.set_start_method("spawn")
    finally:
        default._actual_context = saved


@pytest.mark.claim("devices.set-start-method-placement", as_written=True)
def test_as_written_set_start_method_after_other_work_fails():
    """Material: set_start_method must come immediately after import torch.  True: later is fine (strict xfail)."""
    context = multiprocessing.context.DefaultContext(multiprocessing.get_context("fork"))
    torch.ones(3).sum()
    with pytest.raises(RuntimeError):
        context.set_start_method("spawn")


# A value set at run time in the parent: a forked worker inherits it, a spawned one re-imports
# this module and sees the import-time value instead.
_RUNTIME_MARK = {"value": -1}


class _MarkProbe(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, index):
        info = get_worker_info()
        return torch.tensor([_RUNTIME_MARK["value"], -2 if info is None else info.id])


@functools.cache   # the truth spec and its as-written twin read the same batch: one worker starts once
def _first_batch_from_worker():
    _RUNTIME_MARK["value"] = 4242
    try:
        loader = DataLoader(_MarkProbe(), batch_size=2, num_workers=1, timeout=20)
        return [batch for batch in loader][0]           # run to the end: the worker exits
    finally:
        _RUNTIME_MARK["value"] = -1


@pytest.mark.workers
@pytest.mark.skipif(not LINUX or sys.version_info >= (3, 14), reason="workers are forked on Linux up to Python 3.13")
@pytest.mark.claim("devices.dataloader-workers-spawn-copy")
@pytest.mark.claim("devices.start-method-default-spawn")
def test_dataloader_workers_are_forked_and_see_parent_runtime_state():
    """Material: num_workers > 0 spawns workers, each copying the parent's memory image.
    True on Linux: workers are forked; they share the parent's state copy-on-write."""
    batch = _first_batch_from_worker()
    marks, worker_ids = batch[:, 0].tolist(), batch[:, 1].tolist()
    assert worker_ids == [0, 0], f"items came from worker ids {worker_ids}, expected worker 0"
    assert marks == [4242, 4242], (
        f"worker saw mark {marks}, expected the parent's run-time value 4242 (a forked child); "
        "-1 would mean a fresh interpreter (spawn)")


@pytest.mark.workers
@pytest.mark.skipif(not LINUX or sys.version_info >= (3, 14), reason="workers are forked on Linux up to Python 3.13")
@pytest.mark.claim("devices.dataloader-workers-spawn-copy", as_written=True)
def test_as_written_dataloader_workers_are_spawned():
    """Material: workers are created by spawn.  True on Linux: by fork (strict xfail)."""
    batch = _first_batch_from_worker()
    assert batch[:, 0].tolist() == [-1, -1], "the worker saw the parent's run-time state: it was forked"


@pytest.mark.gpu
@pytest.mark.skipif(not LINUX, reason="fork is only available on POSIX")
@pytest.mark.claim("devices.cuda-in-forked-worker")
def test_cuda_call_in_forked_child_after_parent_init_raises():
    """Material: a CUDA call in a forked worker fails with 'Cannot re-initialize CUDA in forked subprocess'.
    True once the parent has initialised CUDA."""
    torch.ones(1, device="cuda")                  # the parent initialises CUDA
    fork = multiprocessing.get_context("fork")
    answers = fork.SimpleQueue()

    def child():
        try:
            torch.cuda.current_device()
            answers.put("no error")
        except RuntimeError as exc:
            answers.put(str(exc))

    process = fork.Process(target=child)
    process.start()
    process.join(30)
    if process.is_alive():
        process.kill()
        process.join(5)
        pytest.fail("the forked child did not finish within 30 s")
    message = answers.get()
    assert ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, "
            "you must use the 'spawn' start method") in message, (
        f"forked child's torch.cuda.current_device() gave {message!r}, expected the re-initialize error")


@pytest.mark.gpu
@pytest.mark.claim("devices.pin-memory-page-locked")
def test_pin_memory_batches_are_pinned_and_copy_asynchronously():
    """Material: pin_memory=True returns page-locked batches for faster host-to-GPU copies.
    True with CUDA: batches are pinned and copy with non_blocking=True."""
    data = torch.randn(8, 3)
    loader = DataLoader(TensorDataset(data), batch_size=4, pin_memory=True)
    (batch,) = next(iter(loader))
    assert batch.is_pinned(), "DataLoader(pin_memory=True) returned an unpinned batch on a CUDA machine"
    moved = batch.to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    torch.testing.assert_close(moved.cpu(), data[:4])


@pytest.mark.claim("devices.pin-memory-page-locked")
def test_pin_memory_without_accelerator_warns_and_returns_ordinary_tensors():
    """Material: pin_memory=True gives page-locked batches.
    True only with an accelerator; without one DataLoader warns and does not pin."""
    accelerator = torch.accelerator.is_available() if hasattr(torch, "accelerator") else torch.cuda.is_available()
    if accelerator:
        pytest.skip("an accelerator is present: batches are pinned (see the gpu spec)")
    loader = DataLoader(TensorDataset(torch.randn(8, 3)), batch_size=4, pin_memory=True)
    with warnings.catch_warnings(record=True) as caught:   # torch warns that there is nothing to pin to
        warnings.simplefilter("always")
        (batch,) = next(iter(loader))
    assert not batch.is_pinned(), "a batch came back pinned on a machine without an accelerator"
    messages = [str(w.message) for w in caught]
    assert any("no accelerator is found" in m for m in messages), (
        f"DataLoader(pin_memory=True) warned {messages}, expected a warning that no accelerator is found")

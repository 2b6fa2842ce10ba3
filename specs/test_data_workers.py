"""Data: DataLoader worker processes — num_workers, worker ids and seeding, persistent
workers, prefetching, pinned memory, and errors raised inside a worker.

Sources: 002 §2.3, §4.2; 003 §2.2, §3.4, §4.2, §5.2; 004 §4.3; 000 §4.2.  Every loader
with workers is small and bounded by ``timeout=``; every spec checks that no worker
process outlives it.  Throughput and memory figures are measured in bench_data.py.
"""
import functools
import gc
import inspect
import os
import random
import re
import resource
import time
import warnings

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info
from torch.utils.data._utils.worker import _generate_state  # private: how a worker's numpy seed is derived

from workers import WORKER_TIMEOUT, workers_allowed_and_reaped  # noqa: F401  (autouse fixture)


class WhoLoads(Dataset):
    """Sample i is tensor([i, pid, worker id or -1, 1 if worker_init_fn ran here else 0,
    get_worker_info().num_workers or -1, times worker_init_fn ran in this process])."""

    def __init__(self, n=16):
        self.n = n
        self.init_pid = None
        self.init_runs = 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([i, os.getpid(), -1 if info is None else info.id,
                             int(self.init_pid == os.getpid()), -1 if info is None else info.num_workers,
                             self.init_runs])


def mark_worker_init(worker_id):
    dataset = get_worker_info().dataset
    dataset.init_pid = os.getpid()
    dataset.init_runs += 1


class RandomDraws(Dataset):
    """Sample i is (worker id, torch.rand, numpy rand, random.random, worker seed, torch seed,
    then the first torch, numpy and random draws of generators seeded as the worker's should be:
    torch and random with get_worker_info().seed, numpy with _generate_state(base_seed, id))."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        drawn = [torch.rand(()).item(), np.random.rand(), random.random()]
        if info is None:
            expected = [float("nan")] * 3
        else:
            base_seed = info.seed - info.id
            expected = [torch.rand((), generator=torch.Generator().manual_seed(info.seed)).item(),
                        np.random.RandomState(_generate_state(base_seed, info.id)).rand(),
                        random.Random(info.seed).random()]
        return torch.tensor([
            -1 if info is None else info.id, *drawn,
            float("nan") if info is None else info.seed % 2**31, torch.initial_seed() % 2**31, *expected,
        ], dtype=torch.float64)


class RecordsFetches(Dataset):
    """Creates the file ``<folder>/<index>`` whenever sample ``index`` is loaded."""

    def __init__(self, folder, n=64):
        self.folder, self.n = str(folder), n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        open(os.path.join(self.folder, str(i)), "w").close()
        return i


def fetched(folder):
    return len(os.listdir(folder))


def wait_for_fetches(folder, expected, limit=15.0):
    """Poll until ``expected`` samples were loaded (or ``limit`` seconds pass), then settle."""
    deadline = time.monotonic() + limit
    while fetched(folder) < expected and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # a loader that over-fetches would do so within this settle time
    return fetched(folder)


def shutdown(iterator):
    """Stop an iterator's workers now (the garbage-collector path waits on join time-outs)."""
    stop = getattr(iterator, "_shutdown_workers", None)
    if stop is not None:
        stop()


# --- where loading happens --------------------------------------------------------------

@pytest.mark.claim("data.num-workers-default-zero")
def test_default_loader_loads_in_the_main_process():
    """Material: num_workers defaults to 0, a single process; 0 isolates worker problems.
    True: default 0; __getitem__ runs in this process, get_worker_info() is None."""
    loader = DataLoader(WhoLoads(6), batch_size=3)
    assert loader.num_workers == 0, f"default num_workers {loader.num_workers}, expected 0"
    rows = torch.cat(list(loader))
    assert set(rows[:, 1].tolist()) == {os.getpid()}, f"pids {set(rows[:, 1].tolist())}, expected only {os.getpid()}"
    assert set(rows[:, 2].tolist()) == {-1}, "get_worker_info() was not None with num_workers=0"

    class Fails(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            raise KeyError(f"no sample {i}")

    with pytest.raises(KeyError) as caught:
        next(iter(DataLoader(Fails(), batch_size=2)))
    assert str(caught.value) == "'no sample 0'", (
        f"num_workers=0 raised {type(caught.value).__name__}: {caught.value}, expected the dataset's own KeyError")


@pytest.mark.workers
@pytest.mark.claim("data.num-workers-subprocesses")
@pytest.mark.claim("data.max-workers-argument")
def test_two_workers_are_child_processes_with_ids_and_init_fn():
    """Material: num_workers > 0 starts child processes that prefetch data.
    True: two pids other than ours, worker ids {0, 1}, worker_init_fn ran once in each, order kept."""
    loader = DataLoader(WhoLoads(16), batch_size=2, num_workers=2, worker_init_fn=mark_worker_init,
                        timeout=WORKER_TIMEOUT)
    assert loader.in_order is True, f"DataLoader.in_order defaults to {loader.in_order!r}, expected True"
    rows = torch.cat(list(loader))
    pids = set(rows[:, 1].tolist())
    assert len(pids) == 2 and os.getpid() not in pids, f"loading pids {pids}, main pid {os.getpid()}"
    assert set(rows[:, 2].tolist()) == {0, 1}, f"worker ids {set(rows[:, 2].tolist())}, expected {{0, 1}}"
    assert set(rows[:, 4].tolist()) == {2}, f"get_worker_info().num_workers {set(rows[:, 4].tolist())}, expected 2"
    assert rows[:, 3].tolist() == [1] * 16, "worker_init_fn did not run in the worker that loaded a sample"
    assert rows[:, 5].tolist() == [1] * 16, f"worker_init_fn ran {set(rows[:, 5].tolist())} times in a worker, expected once"
    assert rows[:, 0].tolist() == list(range(16)), "batches came back out of sampler order"


@pytest.mark.workers
@pytest.mark.claim("data.getitem-exception-skipped")
def test_getitem_exception_in_a_worker_is_reraised_with_the_worker_named():
    """Material: the loader silently skips a batch whose __getitem__ raises.
    True: the main process re-raises IndexError, 'Caught IndexError in DataLoader worker process N'."""

    class FailsAtFive(Dataset):
        def __len__(self):
            return 12

        def __getitem__(self, i):
            if i == 5:
                raise IndexError(f"index {i} is out of bounds")
            return i

    iterator = iter(DataLoader(FailsAtFive(), batch_size=2, num_workers=2, timeout=WORKER_TIMEOUT))
    kind, message = None, ""
    try:
        for _ in iterator:
            pass
    except Exception as exc:  # the spec inspects whatever came out
        kind, message = type(exc), str(exc)
    finally:
        shutdown(iterator)
    assert kind is IndexError, f"iterating raised {kind}, expected IndexError from the worker"
    assert re.match(r"Caught IndexError in DataLoader worker process \d", message), f"message {message[:200]!r}"
    assert "index 5 is out of bounds" in message and "Traceback" in message, (
        f"worker traceback missing: {message[:500]!r}")


# --- randomness and worker count ---------------------------------------------------------

@functools.cache   # a truth spec and its as-written twin read the same loaders: their workers start once
def _batches(num_workers, seed=0, pin_memory=False) -> tuple[torch.Tensor, ...]:
    ds = TensorDataset(torch.arange(40).view(20, 2))
    loader = DataLoader(ds, batch_size=3, shuffle=True, num_workers=num_workers, pin_memory=pin_memory,
                        generator=torch.Generator().manual_seed(seed),
                        timeout=WORKER_TIMEOUT if num_workers else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # pin_memory without an accelerator warns
        return tuple(b[0] for b in loader)


@pytest.mark.workers
@pytest.mark.claim("data.num-workers-affects-results")
def test_worker_count_does_not_change_batches_of_a_deterministic_dataset():
    """Material: shuffle and num_workers both change the training result.
    True: for one generator seed, num_workers 0 and 2 give identical batches in identical order."""
    single, multi = _batches(0), _batches(2)
    assert len(single) == len(multi) == 7
    assert torch.cat(single)[:, 0].tolist() != list(range(0, 40, 2)), "shuffle=True kept the dataset order"
    assert any(not torch.equal(a, b) for a, b in zip(single, _batches(0, seed=1))), "another shuffle seed gave the same batches"
    for i, (a, b) in enumerate(zip(single, multi)):
        torch.testing.assert_close(b, a, msg=lambda m, i=i: f"batch {i} differs between 0 and 2 workers: {m}")


@pytest.mark.slow
@pytest.mark.claim("data.num-workers-affects-results")
def test_each_worker_has_its_own_torch_numpy_and_random_streams():
    """Material: num_workers changes the randomness of training.
    True: inside __getitem__ it does: each worker is seeded base_seed + id, numpy included."""
    rows = torch.cat(list(DataLoader(RandomDraws(), batch_size=1, num_workers=2, timeout=WORKER_TIMEOUT)))
    first = {int(w): rows[rows[:, 0] == w][0] for w in (0, 1)}
    for column, name in ((1, "torch.rand"), (2, "numpy.random.rand"), (3, "random.random")):
        assert first[0][column] != first[1][column], (
            f"workers 0 and 1 drew the same first {name} value {first[0][column].item()}: duplicated RNG state")
    torch.testing.assert_close(rows[:, 4], rows[:, 5], msg="get_worker_info().seed is not the worker's torch seed")
    assert first[1][4] - first[0][4] == 1, "worker seeds are not base_seed + worker_id"
    for w in (0, 1):
        for column, name in ((1, "torch"), (2, "numpy"), (3, "random")):
            assert first[w][column] == first[w][column + 5], (
                f"worker {w}'s first {name} draw {first[w][column].item()} is not that of a generator seeded as "
                f"DataLoader documents ({first[w][column + 5].item()})")
    single = torch.cat(list(DataLoader(RandomDraws(), batch_size=1)))
    assert not torch.equal(single[:, 1], rows[:, 1]), "augmentation draws were the same with and without workers"


@pytest.mark.workers
@pytest.mark.claim("data.num-workers-affects-results", as_written=True)
def test_as_written_worker_count_changes_the_batches():
    """Material: num_workers is one of the loader settings that change the result."""
    assert any(not torch.equal(a, b) for a, b in zip(_batches(0), _batches(2)))


@pytest.mark.slow
@pytest.mark.claim("data.num-workers-needs-pin-memory")
def test_workers_work_without_pin_memory():
    """Material: num_workers must be paired with pin_memory=True.
    True: independent options; pin_memory=False with workers gives the same batches."""
    for a, b in zip(_batches(0), _batches(2, pin_memory=False)):
        torch.testing.assert_close(b, a)
    for a, b in zip(_batches(0), _batches(2, pin_memory=True)):  # pinned or not, the values are the same
        torch.testing.assert_close(b, a)


@pytest.mark.slow
@pytest.mark.claim("data.num-workers-needs-pin-memory", as_written=True)
def test_as_written_workers_without_pin_memory_fail():
    """Material: workers have to be combined with pin_memory=True.
    True: the options are independent; DataLoader refuses a bad combination with ValueError, not this one."""
    with pytest.raises(ValueError):
        _batches(2, pin_memory=False)


# --- pinned memory ---------------------------------------------------------------------

@pytest.mark.claim("devices.pin-memory-page-locked")
@pytest.mark.skipif(torch.cuda.is_available(), reason="this spec covers machines without an accelerator")
@pytest.mark.needs_torch(">=2.7", reason="the DataLoader warns that no accelerator is found from 2.7 on (2.6.0 has no such warning)")
def test_pin_memory_without_an_accelerator_warns_and_does_not_pin():
    """Material: pin_memory=True puts batches in page-locked memory.
    True without a GPU: the loader warns that no accelerator is found; batches are unpinned."""
    loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, pin_memory=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batch = next(iter(loader))[0]
    assert not batch.is_pinned(), "a batch was pinned although there is no accelerator"
    messages = [str(w.message) for w in caught]
    assert any("no accelerator is found" in m for m in messages), (
        f"warnings {messages}, expected one saying no accelerator is found [DataLoader(pin_memory=True)]")


@pytest.mark.gpu
@pytest.mark.claim("devices.pin-memory-page-locked")
@pytest.mark.parametrize("num_workers", [0, 2])
def test_pin_memory_returns_page_locked_batches_on_gpu_machines(num_workers):
    """Material: pin_memory=True puts batches in page-locked memory.
    True on a CUDA machine: every tensor of the batch reports is_pinned()."""
    loader = DataLoader(TensorDataset(torch.arange(16.0), torch.arange(16)), batch_size=4, pin_memory=True,
                        num_workers=num_workers, timeout=WORKER_TIMEOUT if num_workers else 0)
    for xb, yb in loader:
        assert xb.is_pinned() and yb.is_pinned(), f"pin_memory=True gave unpinned tensors (num_workers={num_workers})"
        torch.testing.assert_close(xb.to("cuda", non_blocking=True).cpu(), xb)


# --- open files ---------------------------------------------------------------------------

class _Rows(Dataset):
    def __len__(self):
        return 400

    def __getitem__(self, i):
        return torch.full((4,), float(i))


def _keep_every_batch(strategy, spare_descriptors=96, keep=True):
    """Load 400 one-sample batches from 4 forked workers and keep them all (or, with keep=False, drop
    each at once), with the descriptor limit lowered to the ones open now plus ``spare_descriptors``,
    under a sharing strategy.  Returns (batches loaded, None) or (batches loaded, (error type, its
    context's type and errno, message, whether the context is suppressed))."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    previous = torch.multiprocessing.get_sharing_strategy()
    kept, failure, loaded = [], None, 0
    try:
        torch.multiprocessing.set_sharing_strategy(strategy)
        resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + spare_descriptors, hard))
        batches = iter(DataLoader(_Rows(), batch_size=1, num_workers=4, multiprocessing_context="fork",
                                  timeout=WORKER_TIMEOUT))
        try:
            for batch in batches:
                loaded += 1
                if keep:
                    kept.append(batch)  # alive, and with it the descriptor of its shared storage
                del batch
        except RuntimeError as error:  # keep no reference to it: its traceback holds the workers
            failure = (type(error).__name__, type(error.__context__).__name__,
                       getattr(error.__context__, "errno", None), str(error), error.__suppress_context__)
        kept.clear()
        del batches
        gc.collect()   # the failed iterator sits in a reference cycle: shut its workers down now
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        torch.multiprocessing.set_sharing_strategy(previous)
    return loaded, failure


@pytest.mark.slow
@pytest.mark.claim("data.too-many-open-files")
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open descriptors in /proc (Linux)")
def test_workers_run_out_of_descriptors_with_many_batches_alive_unless_file_system_sharing():
    """Material: num_workers=4 loads faster but may fail with OSError: Too many open files.
    True: every live batch from a worker holds a descriptor ('file_descriptor' strategy); under a
    low limit DataLoader fails, raising RuntimeError in place of the OSError errno 24; 'file_system' does not."""
    if "file_descriptor" not in torch.multiprocessing.get_all_sharing_strategies():
        pytest.skip("this platform has no 'file_descriptor' sharing strategy (only Linux does)")
    assert torch.multiprocessing.get_sharing_strategy() == "file_descriptor", (
        f"default sharing strategy {torch.multiprocessing.get_sharing_strategy()!r}, expected 'file_descriptor'")
    assert _keep_every_batch("file_system") == (400, None), (
        "with set_sharing_strategy('file_system') the load should keep all 400 batches under the same limit")
    assert _keep_every_batch("file_descriptor", spare_descriptors=1024) == (400, None), (
        "with a higher descriptor limit the load should keep all 400 batches")
    assert _keep_every_batch("file_descriptor", keep=False) == (400, None), (
        "dropping each batch at once should load all 400 under the low limit: it is the batches kept alive "
        "that hold the descriptors, not the 4 workers")
    loaded, failure = _keep_every_batch("file_descriptor")
    assert failure is not None, f"all {loaded} batches stayed alive under a low descriptor limit, expected a failure"
    kind, context, errno_, message, suppressed = failure
    assert (kind, context, errno_) == ("RuntimeError", "OSError", 24) and "Too many open files" in message, (
        f"{kind}: {message!r} (during {context} errno {errno_}), expected RuntimeError 'Too many open files' "
        f"raised while handling OSError errno 24 [DataLoader(num_workers=4), 400 batches kept]")
    assert suppressed, "the RuntimeError does not suppress its OSError context (raise ... from None)"
    assert "ulimit -n" in message and "set_sharing_strategy('file_system')" in message, (
        f"the message names other remedies: {message!r}")


@pytest.mark.slow
@pytest.mark.claim("data.too-many-open-files", as_written=True)
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open descriptors in /proc (Linux)")
def test_as_written_workers_fail_with_os_error_too_many_open_files():
    """Material: the failure is OSError: Too many open files."""
    if "file_descriptor" not in torch.multiprocessing.get_all_sharing_strategies():
        pytest.skip("this platform has no 'file_descriptor' sharing strategy (only Linux does)")
    loaded, failure = _keep_every_batch("file_descriptor")
    assert failure is not None and failure[0] == "OSError", (
        f"after {loaded} batches the loader raised {failure and failure[0]}, not OSError: {failure and failure[3]!r}")


# --- persistent workers and their shutdown ----------------------------------------------

def _worker_pids_per_epoch(persistent, epochs=2):
    loader = DataLoader(WhoLoads(8), batch_size=2, num_workers=2, persistent_workers=persistent,
                        timeout=WORKER_TIMEOUT)
    pids = [set(torch.cat(list(loader))[:, 1].tolist()) for _ in range(epochs)]
    if loader._iterator is not None:
        shutdown(loader._iterator)
    return pids


@pytest.mark.slow
@pytest.mark.claim("data.persistent-workers-reuse")
@pytest.mark.claim("data.max-workers-argument")
def test_persistent_workers_serve_every_epoch_with_the_same_processes():
    """Material: persistent_workers=True reuses the worker processes across epochs.
    True: same pids in both epochs; without it each epoch has new pids."""
    kept = _worker_pids_per_epoch(persistent=True)
    assert kept[0] == kept[1] and len(kept[0]) == 2, f"persistent workers changed pids: {kept}"
    fresh = _worker_pids_per_epoch(persistent=False)
    assert not fresh[0] & fresh[1], f"non-persistent workers kept pids across epochs: {fresh}"


@pytest.mark.claim("data.persistent-workers-reuse")
def test_persistent_workers_need_worker_processes():
    """Material: persistent_workers=True keeps workers alive.
    True: there must be workers: num_workers=0 raises ValueError."""
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(TensorDataset(torch.arange(4)), persistent_workers=True)


@pytest.mark.claim("data.max-workers-argument")
def test_dataloader_has_no_max_workers_argument():
    """Material: max_workers=2 bounds the workers' lifetime.
    True: DataLoader has no such parameter; TypeError."""
    assert "max_workers" not in inspect.signature(DataLoader.__init__).parameters
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_workers'"):
        DataLoader(TensorDataset(torch.arange(4)), num_workers=2, persistent_workers=True, max_workers=2)


@pytest.mark.claim("data.max-workers-argument", as_written=True, raises=TypeError, match=r"unexpected keyword argument 'max_workers'")
def test_as_written_max_workers_is_accepted():
    """Material: DataLoader(..., persistent_workers=True, max_workers=2) is a valid configuration."""
    DataLoader(TensorDataset(torch.arange(4)), num_workers=2, persistent_workers=True, max_workers=2)


@pytest.mark.slow
@pytest.mark.claim("data.shutdown-workers-private")
def test_ordinary_workers_exit_after_the_epoch_and_keep_no_iterator():
    """Material: call train_loader._iterator._shutdown_workers() after training.
    True: a non-persistent loader keeps no _iterator, and its workers are gone after the epoch."""
    loader = DataLoader(WhoLoads(8), batch_size=2, num_workers=2, timeout=WORKER_TIMEOUT)
    iterator = iter(loader)
    for _ in iterator:
        pass
    workers = list(iterator._workers)
    for w in workers:
        w.join(timeout=10)
    assert not any(w.is_alive() for w in workers), "a worker outlived its exhausted iterator"
    assert loader._iterator is None, f"loader._iterator is {loader._iterator!r}, expected None"
    with pytest.raises(AttributeError, match="_shutdown_workers"):
        loader._iterator._shutdown_workers()


@pytest.mark.slow
@pytest.mark.claim("data.shutdown-workers-private")
def test_persistent_workers_are_the_only_ones_with_a_stored_iterator():
    """Material: _iterator._shutdown_workers() closes the workers.
    True: for persistent workers it exists and stops them (private API)."""
    loader = DataLoader(WhoLoads(8), batch_size=2, num_workers=2, persistent_workers=True,
                        timeout=WORKER_TIMEOUT)
    list(loader)
    workers = list(loader._iterator._workers)
    assert all(w.is_alive() for w in workers), "persistent workers died after the epoch"
    loader._iterator._shutdown_workers()
    for w in workers:
        w.join(timeout=10)
    assert not any(w.is_alive() for w in workers), "_shutdown_workers() left a worker running"


@pytest.mark.slow
@pytest.mark.claim("data.shutdown-workers-private", as_written=True, raises=AttributeError,
                   match=r"NoneType. object has no attribute ._shutdown_workers")
def test_as_written_shutdown_call_works_on_an_ordinary_loader():
    """Material: after the training loop, train_loader._iterator._shutdown_workers() closes the workers."""
    train_loader = DataLoader(WhoLoads(8), batch_size=2, num_workers=2, timeout=WORKER_TIMEOUT)
    for _ in train_loader:
        pass
    train_loader._iterator._shutdown_workers()


# --- prefetching ----------------------------------------------------------------------------

@pytest.mark.claim("data.prefetch-factor-default")
def test_prefetch_factor_is_two_with_workers():
    """Material: prefetch_factor defaults to 2.
    True: a loader with workers prefetches 2 batches per worker unless told otherwise."""
    ds = TensorDataset(torch.arange(4))
    assert DataLoader(ds, num_workers=2).prefetch_factor == 2


@pytest.mark.claim("data.prefetch-factor-default")
@pytest.mark.claim("data.prefetch-factor-one-less-memory")
@pytest.mark.needs_torch(">=2.0", reason="the None default, resolved to 2 only with workers, came in 2.0 (1.13: plain 2)")
def test_prefetch_factor_resolves_to_two_only_with_workers():
    """Material: prefetch_factor defaults to 2.
    True: signature default None, resolved to 2 with workers; with num_workers=0 any value is refused."""
    assert inspect.signature(DataLoader.__init__).parameters["prefetch_factor"].default is None
    ds = TensorDataset(torch.arange(4))
    assert DataLoader(ds).prefetch_factor is None
    for factor in (1, 2, 4):
        with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
            DataLoader(ds, prefetch_factor=factor)


@pytest.mark.slow
@pytest.mark.claim("data.prefetch-factor-default")
@pytest.mark.claim("data.prefetch-factor-one-less-memory")
@pytest.mark.parametrize("prefetch_factor, expected_batches", [(None, 4), (1, 2)])
def test_workers_request_prefetch_factor_batches_each_before_any_is_consumed(
        tmp_path, prefetch_factor, expected_batches):
    """Material: each worker loads prefetch_factor (default 2) batches ahead; 1 holds fewer.
    True: before the first next(), exactly prefetch_factor * num_workers batches are loaded."""
    batch_size, num_workers = 4, 2
    loader = DataLoader(RecordsFetches(tmp_path), batch_size=batch_size, num_workers=num_workers,
                        prefetch_factor=prefetch_factor, timeout=WORKER_TIMEOUT)
    iterator = iter(loader)
    try:
        loaded = wait_for_fetches(tmp_path, expected_batches * batch_size)
        assert loaded == expected_batches * batch_size, (
            f"{loaded} samples loaded ahead, expected {expected_batches} batches of {batch_size} "
            f"[DataLoader(num_workers={num_workers}, prefetch_factor={prefetch_factor})]")
        first = next(iterator)
        assert first.tolist() == [0, 1, 2, 3]
    finally:
        shutdown(iterator)

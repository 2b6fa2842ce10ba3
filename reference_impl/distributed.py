"""Multi-process helpers for the material's DistributedDataParallel snippets, run on CPU.

The material (002 §5.4-§5.5) trains with ``DistributedDataParallel`` over NCCL and one GPU
per process, and loads the saved weights back with a helper that drops the ``module.``
prefix.  Here the same mechanics run on CPU with the ``gloo`` backend, so a spec can start
real worker processes on the loopback address and look at what DDP really does.

- :func:`strip_module_prefix` is the material's key fix (its ``load_model``), as a function;
- :func:`run_workers` starts ``world_size`` processes joined in one gloo process group on
  127.0.0.1 and a free port, with a hard time limit and no process left behind;
- :func:`ddp_train_step` is a worker body: one DDP forward/backward on this rank's shard.
"""
from __future__ import annotations

import contextlib
import datetime
import io
import os
import socket
import time
from collections import OrderedDict

import torch
import torch.distributed as dist
import torch.multiprocessing as torch_mp
from torch import nn

LOOPBACK = "127.0.0.1"


def strip_module_prefix(state_dict, prefix: str = "module."):
    """Return a copy of ``state_dict`` with one leading ``prefix`` removed from each key.

    This is what the material's ``load_model`` does before ``load_state_dict``: a state dict
    saved from a ``DistributedDataParallel`` (or ``DataParallel``) wrapper names every entry
    ``module.<name>``, while the plain model expects ``<name>``.  Keys without the prefix are
    kept as they are; only a prefix at the very start is removed, once; order is kept.
    """
    return OrderedDict(
        (key[len(prefix):] if key.startswith(prefix) else key, value)
        for key, value in state_dict.items())


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port on ``host`` that was free a moment ago (bind to port 0, read, close)."""
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class WorkerError(RuntimeError):
    """A worker process raised, died, or did not finish in time; the message says which."""


def _dumps(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _loads(data: bytes):
    return torch.load(io.BytesIO(data), weights_only=False)


def _worker_main(rank, fn, world_size, port, timeout_s, results, args):
    """Body of one worker process: join the group, run ``fn``, report, leave the group."""
    # Only this (forked) child changes its environment and thread count.
    os.environ["MASTER_ADDR"] = LOOPBACK
    os.environ["MASTER_PORT"] = str(port)
    if os.path.isdir("/sys/class/net/lo"):
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"   # keep gloo's traffic on the loopback device
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", init_method=f"tcp://{LOOPBACK}:{port}", rank=rank, world_size=world_size,
        timeout=datetime.timedelta(seconds=timeout_s))
    try:
        result = fn(rank, world_size, *args)
        dist.barrier()
    finally:
        dist.destroy_process_group()
    results.put((rank, _dumps(result)))


def run_workers(fn, world_size: int = 2, *, args: tuple = (), timeout: float = 20.0):
    """Run ``fn(rank, world_size, *args)`` in ``world_size`` processes; return results by rank.

    The processes are forked with ``torch.multiprocessing.start_processes`` (the machinery
    behind ``mp.spawn``, which passes the rank as the first argument) and join one gloo
    process group on 127.0.0.1 and a free port.  ``fn`` runs inside the initialised group
    and returns something ``torch.save`` can write.  Raises :class:`WorkerError` if a
    worker raises or dies, or if all are not done within ``timeout`` seconds; every process
    still alive at the end is terminated, then killed, and joined.  If the free port was
    taken by someone else before rank 0 could bind it, the run is retried once on another.
    """
    try:
        return _run_workers_once(fn, world_size, args, timeout)
    except WorkerError as exc:
        if "address already in use" not in str(exc).lower():
            raise
        return _run_workers_once(fn, world_size, args, timeout)


def _run_workers_once(fn, world_size, args, timeout):
    port = free_port()
    fork = torch_mp.get_context("fork")
    results = fork.SimpleQueue()
    context = torch_mp.start_processes(
        _worker_main, args=(fn, world_size, port, max(5.0, timeout / 2), results, args),
        nprocs=world_size, join=False, start_method="fork")
    deadline = time.monotonic() + timeout
    collected = {}

    def drain():
        # Read while waiting: a worker blocks on a full pipe until its result is taken.
        while not results.empty():
            rank, data = results.get()
            collected[rank] = _loads(data)

    try:
        while True:
            drain()
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerError(f"workers did not finish within {timeout} s "
                                  f"(fn={getattr(fn, '__name__', fn)!r}, world_size={world_size})")
            try:
                if context.join(timeout=min(left, 0.2)):
                    break
            except Exception as exc:  # ProcessRaisedException / ProcessExitedException
                raise WorkerError(f"a worker failed running {getattr(fn, '__name__', fn)!r}:\n{exc}") from None
        drain()
        missing = sorted(set(range(world_size)) - set(collected))
        if missing:
            raise WorkerError(f"ranks {missing} exited without a result")
        return [collected[rank] for rank in range(world_size)]
    finally:
        for process in context.processes:
            if process.is_alive():
                process.terminate()
                process.join(2)
            if process.is_alive():
                process.kill()
                process.join(2)
        with contextlib.suppress(Exception):
            results.close()


def make_model() -> nn.Module:
    """The small model the DDP specs train: weights, biases and BatchNorm buffers."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1))


def ddp_train_step(rank: int, world_size: int, inputs: torch.Tensor, targets: torch.Tensor):
    """One training step of :func:`make_model` under DDP, on this rank's shard of the data.

    Ranks other than 0 start from deliberately different weights, which DDP's constructor
    overwrites with rank 0's.  ``DistributedSampler`` (without shuffling) gives each rank its
    own indices; the rank runs forward and backward on them through
    ``DistributedDataParallel``, then one SGD step (lr 0.1).  Returns the rank's indices, its
    parameter gradients after backward, its parameters after the step, and both state
    dicts (of the wrapper and of the wrapped module) taken before the step.
    """
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data import DistributedSampler, TensorDataset

    model = make_model()
    if rank != 0:
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.add_(1.0)
    ddp = DistributedDataParallel(model)
    sampler = DistributedSampler(TensorDataset(inputs, targets), shuffle=False)
    indices = list(sampler)
    loss = nn.functional.mse_loss(ddp(inputs[indices]), targets[indices])
    loss.backward()
    result = {
        "rank": dist.get_rank(),
        "indices": indices,
        "grads": {name: p.grad.detach().clone() for name, p in ddp.module.named_parameters()},
        "ddp_state_dict": {k: v.clone() for k, v in ddp.state_dict().items()},
        "module_state_dict": {k: v.clone() for k, v in ddp.module.state_dict().items()},
    }
    torch.optim.SGD(ddp.parameters(), lr=0.1).step()
    result["params_after_step"] = {name: p.detach().clone() for name, p in ddp.module.named_parameters()}
    return result


def all_reduce_sum(rank: int, world_size: int):
    """Each rank contributes ``rank + 1``; returns what ``all_reduce`` (SUM) leaves it with."""
    value = torch.tensor([float(rank + 1)])
    dist.all_reduce(value)
    return value


def report_rank(rank: int, world_size: int):
    """What a worker knows about itself: the index it was started with and the group's view."""
    return {"started_as": rank, "group_rank": dist.get_rank(), "group_size": dist.get_world_size(),
            "backend": dist.get_backend()}

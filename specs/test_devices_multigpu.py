"""Devices, DataParallel on GPUs: scatter, replicate, parallel_apply, gather, gradients (issue #41).

DataParallel's forward scatters the batch over ``device_ids``, replicates the module, runs the
replicas in threads and gathers the outputs on ``output_device``; all of it needs CUDA devices
(on a machine without them DataParallel keeps ``device_ids`` empty and calls the module as it
is).  So every spec here is ``gpu``-marked, and those that spread a batch also skip with
"needs CUDA: two devices" on a machine with one GPU.  The input rows are numbered, so a replica's
log tells which rows reached which device.
"""
import os
import threading

import pytest
import torch
from torch import nn

two_gpus = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs CUDA: two devices")


class _Logged(nn.Module):
    """A linear layer that logs, for every call, the device, the rows (their first column), the
    thread, the process and the module object that ran it."""

    def __init__(self, log, features=4, out=3):
        super().__init__()
        self.linear = nn.Linear(features, out)
        self.log = log

    def forward(self, x):
        self.log.append({"device": x.device.index, "rows": x[:, 0].tolist(), "thread": threading.current_thread().name,
                         "pid": os.getpid(), "module": id(self)})
        return self.linear(x)


def _numbered_rows(n, features=4):
    """An (n, features) batch whose row i starts with i, so a log's 'rows' names the rows it saw."""
    return torch.arange(n * features, dtype=torch.float32).view(n, features) / features


@pytest.mark.gpu
@two_gpus
@pytest.mark.claim("devices.dataparallel-scatter-replicate-gather")
def test_dataparallel_splits_the_batch_runs_a_replica_per_gpu_and_gathers_on_output_device():
    """Tutorials: DataParallel splits the batch along dim 0, replicates the module per device and gathers
    on output_device.  True (needs two GPUs): rows 0-3 go to cuda:0, rows 4-7 to cuda:1, outputs come
    back in order on output_device (device_ids[0] by default)."""
    log = []
    model = _Logged(log).cuda(0)
    x = _numbered_rows(8).cuda(0)
    expected = model.linear(x)
    out = nn.DataParallel(model, device_ids=[0, 1])(x)
    seen = sorted((entry["device"], entry["rows"]) for entry in log)
    assert seen == [(0, [0.0, 1.0, 2.0, 3.0]), (1, [4.0, 5.0, 6.0, 7.0])], f"(device, rows) per replica: {seen}"
    assert all(entry["module"] != id(model) for entry in log), "a replica should run, not the original module"
    assert out.device == torch.device("cuda", 0), f"output on {out.device}, expected output_device cuda:0"
    torch.testing.assert_close(out, expected)
    log.clear()
    on_one = nn.DataParallel(model, device_ids=[0, 1], output_device=1)(x)
    assert on_one.device == torch.device("cuda", 1), f"output_device=1 gathered on {on_one.device}"
    torch.testing.assert_close(on_one.cpu(), expected.cpu())


@pytest.mark.gpu
@two_gpus
@pytest.mark.claim("devices.dataparallel-threads-one-process")
def test_dataparallel_runs_the_replicas_in_threads_of_one_process():
    """Tutorials: DataParallel is one process with a thread per GPU.  True (needs two GPUs): the two
    replicas run in two threads other than the caller's, in the caller's process."""
    log = []
    model = _Logged(log).cuda(0)
    nn.DataParallel(model, device_ids=[0, 1])(_numbered_rows(8).cuda(0))
    assert len(log) == 2, f"{len(log)} replica calls, expected 2"
    assert {entry["pid"] for entry in log} == {os.getpid()}, "a replica ran in another process"
    threads = {entry["thread"] for entry in log}   # names: unique per Thread object, unlike idents
    assert len(threads) == 2 and threading.current_thread().name not in threads, (
        f"replicas ran in threads {threads}, the caller in {threading.current_thread().name}: "
        "expected two worker threads")


@pytest.mark.gpu
@two_gpus
@pytest.mark.claim("devices.dataparallel-replica-grads-summed")
def test_replica_gradients_are_summed_into_the_original_parameters():
    """Tutorials: in backward the replicas' gradients are summed into the original module.
    True (needs two GPUs): the original weight's grad equals the one-device grad of the whole batch,
    the sum of the two chunks' grads, not their mean."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1, bias=False).cuda(0)
    x = torch.randn(8, 4, device="cuda:0")
    nn.DataParallel(model, device_ids=[0, 1])(x).sum().backward()
    torch.testing.assert_close(model.weight.grad, x.sum(0, keepdim=True))
    parallel_grad = model.weight.grad.clone()
    model.weight.grad = None
    model(x).sum().backward()
    torch.testing.assert_close(parallel_grad, model.weight.grad)
    assert model.weight.grad.device == torch.device("cuda", 0), f"grad on {model.weight.grad.device}"


@pytest.mark.gpu
@two_gpus
@pytest.mark.claim("devices.dataparallel-uneven-batch")
def test_uneven_batch_is_split_into_unequal_chunks_and_small_batch_uses_fewer_gpus():
    """Tutorials: the batch size should divide by the number of GPUs.
    True (needs two GPUs): 5 rows go as 3 and 2, and 1 row runs on one replica; no error either way."""
    log = []
    model = _Logged(log).cuda(0)
    parallel = nn.DataParallel(model, device_ids=[0, 1])
    x = _numbered_rows(5).cuda(0)
    out = parallel(x)
    seen = sorted((entry["device"], entry["rows"]) for entry in log)
    assert seen == [(0, [0.0, 1.0, 2.0]), (1, [3.0, 4.0])], f"(device, rows) per replica for 5 rows: {seen}"
    torch.testing.assert_close(out, model.linear(x))
    log.clear()
    single = parallel(_numbered_rows(1).cuda(0))
    assert [(entry["device"], entry["rows"]) for entry in log] == [(0, [0.0])], f"1 row over 2 GPUs ran as {log}"
    assert single.shape == (1, 3), f"output shape {tuple(single.shape)}"


@pytest.mark.gpu
@pytest.mark.claim("devices.dataparallel-default-device-ids")
def test_device_ids_default_to_every_visible_gpu_and_output_device_to_the_first():
    """Tutorials: device_ids defaults to all visible GPUs, output_device to the first of them.
    True (needs CUDA): device_ids == list(range(device_count())), output_device == 0; given ids,
    output_device is the first one given."""
    parallel = nn.DataParallel(nn.Linear(2, 2).cuda(0))
    assert parallel.device_ids == list(range(torch.cuda.device_count())), (
        f"default device_ids {parallel.device_ids} with {torch.cuda.device_count()} visible GPUs")
    assert parallel.output_device == 0, f"default output_device {parallel.output_device}"
    last = torch.cuda.device_count() - 1
    given = nn.DataParallel(nn.Linear(2, 2).cuda(last), device_ids=[last])
    assert (given.device_ids, given.output_device) == ([last], last), (
        f"device_ids=[{last}] gave device_ids {given.device_ids}, output_device {given.output_device}")


@pytest.mark.gpu
@pytest.mark.claim("devices.dataparallel-single-device-direct-call")
def test_one_device_id_calls_the_module_itself_without_replicating(monkeypatch):
    """Tutorials: with a single device id, DataParallel calls the module directly.
    True (needs CUDA): the original module runs (no replicate, parallel_apply or gather), on the
    input moved to that GPU; the constructor moves the module there."""
    log = []
    model = _Logged(log)
    parallel = nn.DataParallel(model, device_ids=[0])
    assert model.linear.weight.device == torch.device("cuda", 0), f"module left on {model.linear.weight.device}"

    def refuse(*args, **kwargs):
        raise AssertionError("DataParallel replicated or gathered with a single device id")

    for step in ("replicate", "parallel_apply", "gather"):
        monkeypatch.setattr(parallel, step, refuse)
    x = _numbered_rows(3)
    out = parallel(x)
    assert [(entry["device"], entry["module"]) for entry in log] == [(0, id(model))], f"calls: {log}"
    assert out.device == torch.device("cuda", 0), f"output on {out.device}"
    torch.testing.assert_close(out, model.linear(x.cuda(0)))


@pytest.mark.gpu
@pytest.mark.claim("devices.dataparallel-labels-on-output-device")
def test_loss_needs_labels_on_the_output_device():
    """Tutorials: labels must be on output_device, or the loss fails.
    True (needs CUDA): the gathered output sits on output_device; CPU labels make cross_entropy raise
    a device mismatch, labels moved there work."""
    parallel = nn.DataParallel(nn.Linear(4, 3).cuda(0), device_ids=[0])
    out = parallel(_numbered_rows(6).cuda(0))
    assert out.device == torch.device("cuda", parallel.output_device), f"output on {out.device}"
    labels = torch.tensor([0, 1, 2, 0, 1, 2])
    with pytest.raises(RuntimeError, match="same device"):
        nn.functional.cross_entropy(out, labels)
    loss = nn.functional.cross_entropy(out, labels.to(parallel.output_device))
    assert loss.device == out.device and torch.isfinite(loss), f"loss {loss} on {loss.device}"


@pytest.mark.gpu
@two_gpus
@pytest.mark.claim("devices.one-gpu-unless-parallel")
def test_a_model_on_cuda_uses_the_current_gpu_alone_until_dataparallel_spreads_it():
    """Tutorials: PyTorch runs on one GPU unless the model is wrapped in DataParallel.
    True (needs two GPUs): to('cuda') puts model and input on cuda:0 and a forward allocates nothing
    on cuda:1; DataParallel over [0, 1] allocates there too."""
    torch.manual_seed(0)
    model = nn.Linear(256, 256).to("cuda")
    x = torch.randn(64, 256, device="cuda")
    assert model.weight.device == x.device == torch.device("cuda", 0), f"to('cuda') gave {model.weight.device}"
    base = torch.cuda.memory_allocated(1)   # earlier specs may leave cuBLAS workspaces there
    torch.cuda.reset_peak_memory_stats(1)
    out = model(x)
    torch.cuda.synchronize(0)
    assert torch.cuda.max_memory_allocated(1) == base, (
        f"a forward on cuda:0 raised cuda:1's peak from {base} to {torch.cuda.max_memory_allocated(1)} bytes")
    parallel_out = nn.DataParallel(model, device_ids=[0, 1])(x)
    assert torch.cuda.max_memory_allocated(1) > base, "DataParallel over [0, 1] allocated nothing on cuda:1"
    torch.testing.assert_close(parallel_out, out)


class _TwoStage(nn.Module):
    """Model parallelism by hand: the first layer on cuda:0, the second on cuda:1."""

    def __init__(self):
        super().__init__()
        self.first = nn.Linear(4, 8).to("cuda:0")
        self.second = nn.Linear(8, 2).to("cuda:1")

    def forward(self, x):
        return self.second(torch.relu(self.first(x.to("cuda:0"))).to("cuda:1"))


@pytest.mark.gpu
@two_gpus
@pytest.mark.claim("devices.ddp-combines-with-model-parallel")
def test_ddp_wraps_a_model_split_over_two_gpus_and_dataparallel_refuses_it():
    """Tutorials: DDP can be combined with model parallelism, DataParallel cannot.
    True (needs two GPUs): DataParallel refuses a model with layers on cuda:0 and cuda:1; DDP without
    device_ids runs it and leaves each layer's gradient on that layer's GPU."""
    import datetime

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    torch.manual_seed(0)
    model = _TwoStage()
    x = torch.randn(6, 4)
    with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device cuda:0"):
        nn.DataParallel(model, device_ids=[0, 1])(x)
    expected = model(x)
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore(),
                            timeout=datetime.timedelta(seconds=60))
    try:
        wrapped = DistributedDataParallel(model)        # device_ids=None: a multi-device module
        out = wrapped(x)
        out.sum().backward()
    finally:
        dist.destroy_process_group()
    assert out.device == torch.device("cuda", 1), f"DDP output on {out.device}"
    torch.testing.assert_close(out, expected)
    grads = (model.first.weight.grad.device, model.second.weight.grad.device)
    assert grads == (torch.device("cuda", 0), torch.device("cuda", 1)), f"gradients on {grads}"

"""Devices, process groups: backends, the default group, env:// and torchrun (issue #41, tutorials).

Tutorials run NCCL on GPUs; here the same calls run on the CPU with gloo: two processes forked
on 127.0.0.1 and a free port (marker ``distributed``), a one-process group joined through the
environment, torchrun's launch configuration read without launching, and one real torchrun
run (its main, in this process) of a script that only reports its environment (``slow``).
"""
import datetime
import json
import os
import sys
import uuid

import pytest
import torch
import torch.distributed as dist
from packaging.version import Version

WORLD_SIZE = 2


def _free_port():
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------- which backends exist

@pytest.mark.claim("devices.backends-built-per-platform")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux: the claim is about Linux builds")
def test_linux_build_has_gloo_and_nccl_exactly_when_built_with_cuda_and_no_mpi():
    """Tutorials: Linux builds include Gloo and NCCL (NCCL only with CUDA); MPI needs a source build.
    True: gloo is there; NCCL is there exactly when the wheel is a CUDA build; MPI is not."""
    assert dist.is_available(), "torch.distributed is not available on this Linux build"
    assert dist.is_gloo_available(), "gloo is missing from this Linux build"
    assert dist.is_nccl_available() == (torch.version.cuda is not None), (
        f"is_nccl_available()={dist.is_nccl_available()} on a build with torch.version.cuda={torch.version.cuda}")
    assert not dist.is_mpi_available(), "this pip wheel reports MPI, which needs a build from source"


@pytest.mark.claim("devices.nccl-needs-gpus")
@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without GPUs: NCCL's refusal is the check")
def test_nccl_group_is_refused_without_gpus_while_gloo_starts():
    """Tutorials: NCCL is the backend for GPUs; without GPUs use gloo.
    True: on a machine with no GPU, init_process_group('nccl') raises ValueError (RuntimeError on
    older releases; a CPU-only build has no NCCL at all); gloo starts."""
    assert not dist.is_initialized()
    with pytest.raises((ValueError, RuntimeError),
                       match="ProcessGroupNCCL is only supported with GPUs, no GPUs found|doesn't have NCCL built in"
                             "|requires at least one CUDA device"):
        dist.init_process_group("nccl", rank=0, world_size=1, store=dist.HashStore())
    if dist.is_initialized():  # the refusal above must not leave a half-made group behind
        dist.destroy_process_group()
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    try:
        assert dist.get_backend() == "gloo"
    finally:
        dist.destroy_process_group()


# ---------------------------------------------------------------- two gloo processes

def _collectives(rank, world_size, port, answers):
    """One worker: join a gloo group through MASTER_ADDR/MASTER_PORT, run collectives on CPU tensors."""
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    if os.path.isdir("/sys/class/net/lo"):
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=datetime.timedelta(seconds=20))
    try:
        total = torch.tensor([float(rank + 1)])
        dist.all_reduce(total)
        value = torch.tensor([float(10 * rank)])
        dist.broadcast(value, src=1)
        gathered = [torch.zeros(1) for _ in range(world_size)]
        dist.all_gather(gathered, torch.tensor([float(rank)]))
        sub = dist.new_group([0])                       # every rank calls new_group, only rank 0 joins
        if sub == dist.GroupMember.NON_GROUP_MEMBER:
            in_sub = ("outside", None)
        else:
            own = torch.tensor([5.0])
            dist.all_reduce(own, group=sub)
            in_sub = (dist.get_world_size(sub), own.item())
        answers.put({"rank": rank, "device": total.device.type, "sum": total.item(), "broadcast": value.item(),
                     "gathered": [g.item() for g in gathered], "world": dist.get_world_size(),
                     "world_group": dist.get_world_size(dist.group.WORLD), "group_rank": dist.get_rank(),
                     "sub": in_sub})
        dist.barrier()
    finally:
        dist.destroy_process_group()


@pytest.fixture(scope="module")
def collectives():
    """Two forked gloo workers, run once for the specs below; their reports by rank."""
    import multiprocessing
    answers = multiprocessing.get_context("fork").SimpleQueue()
    torch.multiprocessing.start_processes(_collectives, args=(WORLD_SIZE, _free_port(), answers),
                                          nprocs=WORLD_SIZE, join=True, start_method="fork")
    reports = [answers.get() for _ in range(WORLD_SIZE)]
    return sorted(reports, key=lambda r: r["rank"])


@pytest.mark.distributed
@pytest.mark.claim("devices.gloo-cpu-collectives")
def test_gloo_runs_all_reduce_broadcast_and_all_gather_on_cpu_tensors(collectives):
    """Tutorials: gloo is the backend for CPU training.
    True: two CPU processes all_reduce (1 + 2 = 3), broadcast from rank 1 and all_gather CPU tensors."""
    for report in collectives:
        assert report["device"] == "cpu"
        assert report["sum"] == 3.0, f"rank {report['rank']}: all_reduce gave {report['sum']}, expected 3.0"
        assert report["broadcast"] == 10.0, f"rank {report['rank']}: broadcast from rank 1 gave {report['broadcast']}"
        assert report["gathered"] == [0.0, 1.0], f"rank {report['rank']}: all_gather gave {report['gathered']}"


@pytest.mark.distributed
@pytest.mark.claim("devices.default-group-is-world")
def test_default_group_is_the_world_and_new_group_takes_a_subset(collectives):
    """Tutorials: by default there is one group, the world of all processes; new_group makes subsets.
    True: group=None and group.WORLD both count 2 ranks; new_group([0]) has rank 0 alone, and rank 1
    gets NON_GROUP_MEMBER."""
    for report in collectives:
        assert (report["world"], report["world_group"], report["group_rank"]) == (2, 2, report["rank"]), report
    assert collectives[0]["sub"] == (1, 5.0), f"rank 0 in new_group([0]): (size, all_reduce of 5) = {collectives[0]['sub']}"
    assert collectives[1]["sub"] == ("outside", None), (
        f"rank 1 should get NON_GROUP_MEMBER from new_group([0]), got (size, all_reduce of 5) = {collectives[1]['sub']}")


# ---------------------------------------------------------------- env:// and torchrun

@pytest.mark.claim("devices.env-init-reads-rank-world-size")
def test_init_process_group_without_arguments_reads_rank_and_world_size_from_the_environment(monkeypatch):
    """Tutorials: under torchrun the script calls init_process_group(backend) and the rank and world
    size come from the environment.  True: env:// reads MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE."""
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(_free_port()))
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    try:
        assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    finally:
        dist.destroy_process_group()
    monkeypatch.delenv("RANK")
    with pytest.raises(ValueError, match="environment variable RANK expected, but not set"):
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    assert not dist.is_initialized()


def _launch_config(monkeypatch, argv):
    """What torchrun would launch for ``argv``: its run() with the launch itself replaced."""
    import torch.distributed.run as run_module
    seen = {}

    def fake_launch(config, entrypoint):
        seen.update(config=config, entrypoint=entrypoint)
        return lambda *args: seen.update(args=args)

    monkeypatch.setattr(run_module, "elastic_launch", fake_launch)
    monkeypatch.setattr(torch.multiprocessing, "_set_thread_name", lambda name: None, raising=False)  # absent on older releases
    monkeypatch.setenv("OMP_NUM_THREADS", "1")    # or the launcher exports 1 into this process
    run_module.run(run_module.parse_args(argv))
    return seen


@pytest.mark.claim("devices.torchrun-standalone-rendezvous")
def test_standalone_means_c10d_rendezvous_on_localhost_with_one_node(monkeypatch):
    """Tutorials: --standalone stands for --rdzv-backend=c10d --rdzv-endpoint=localhost:PORT --nnodes=1.
    True on every release measured: c10d on localhost, one node, a fresh uuid as run id; the port is
    0 (a free one) from 2.1 (29400 before); a plain one-node run gets the same rendezvous from 2.12."""
    release = Version(torch.__version__).release
    seen = _launch_config(monkeypatch, ["--standalone", "--nproc_per_node=2", "train.py", "--lr", "0.1"])  # 1.13 knows only _
    config = seen["config"]
    port = "0" if release >= (2, 1) else "29400"    # measured on the 20 releases (docs/history.md)
    assert (config.rdzv_backend, config.rdzv_endpoint) == ("c10d", f"localhost:{port}"), (
        f"--standalone gave rdzv backend {config.rdzv_backend!r} at {config.rdzv_endpoint!r}")
    assert (config.min_nodes, config.max_nodes, config.nproc_per_node) == (1, 1, 2)
    assert str(uuid.UUID(config.run_id)) == config.run_id
    assert seen["args"] == ("-u", "train.py", "--lr", "0.1")
    plain = _launch_config(monkeypatch, ["--nproc_per_node=2", "train.py"])["config"]
    before = ("static", "127.0.0.1:29500")   # the static rendezvous of a plain run before 2.12
    assert (plain.rdzv_backend, plain.rdzv_endpoint) == (("c10d", "localhost:0") if release >= (2, 12) else before)


_REPORT_ENV = """
import json, os, sys
keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"]
with open(os.path.join(sys.argv[1], "rank" + os.environ["RANK"] + ".json"), "w") as f:
    json.dump({k: os.environ.get(k) for k in keys}, f)
"""


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.claim("devices.torchrun-sets-rank-env")
def test_torchrun_exports_rank_local_rank_world_size_and_master_to_each_worker(tmp_path, monkeypatch):
    """Tutorials: torchrun sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT for the script.
    True: torchrun --standalone --nproc-per-node=2 (its main, run in this process) gives each worker
    its own RANK and LOCAL_RANK, WORLD_SIZE=2 and one shared MASTER_ADDR/MASTER_PORT."""
    import signal

    import torch.distributed.run as run_module
    script = tmp_path / "report_env.py"
    script.write_text(_REPORT_ENV, encoding="utf-8")
    monkeypatch.setattr(torch.multiprocessing, "_set_thread_name", lambda name: None, raising=False)  # absent on older releases
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    handled = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
    saved = {sig: signal.getsignal(sig) for sig in handled}
    try:   # the launcher installs its own handlers for these signals and leaves them
        run_module.main(["--standalone", "--nproc_per_node=2", str(script), str(tmp_path)])
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    reports = [json.loads((tmp_path / f"rank{r}.json").read_text(encoding="utf-8")) for r in range(2)]
    for rank, report in enumerate(reports):
        assert (report["RANK"], report["LOCAL_RANK"], report["WORLD_SIZE"]) == (str(rank), str(rank), "2"), report
        assert report["LOCAL_WORLD_SIZE"] == "2" and report["MASTER_ADDR"] and report["MASTER_PORT"], report
    assert reports[0]["MASTER_PORT"] == reports[1]["MASTER_PORT"], f"workers got different ports: {reports}"

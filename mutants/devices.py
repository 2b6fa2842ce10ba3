"""Planted faults for the devices topic: each breaks behaviour a devices spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection (add
``-m "distributed or not distributed"`` for the DDP faults, whose specs start processes).
The DDP worker processes are forked from the pytest process, so they inherit a fault
applied there.
"""
import copy
import multiprocessing

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from torchclaims.impl import Impl
from torchclaims.mutants import fault


@fault("devices.ddp-averages-gradients", "devices.mp-spawn-passes-rank")
def ddp_no_allreduce():
    """DDP keeps each rank's local gradient (a comm hook that skips the all-reduce), and
    torch.distributed.all_reduce leaves its tensor unchanged."""
    def local_gradient_only(state, bucket):
        done = torch.futures.Future()
        done.set_result(bucket.buffer())
        return done

    original_init = DistributedDataParallel.__init__

    def init_without_averaging(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.register_comm_hook(None, local_gradient_only)

    DistributedDataParallel.__init__ = init_without_averaging
    dist.all_reduce = lambda tensor, *args, **kwargs: None


@fault("devices.ddp-state-dict-module-prefix")
def ddp_state_dict_unprefixed():
    """DistributedDataParallel.state_dict returns the wrapped module's plain keys."""
    DistributedDataParallel.state_dict = lambda self, *args, **kwargs: self.module.state_dict(*args, **kwargs)


@fault("devices.module-to-in-place-returns-self", "devices.module-to-moves-params-and-buffers")
def module_to_returns_copy():
    """Module.to leaves the module alone and returns a converted deep copy."""
    original = nn.Module.to

    def to_copy(self, *args, **kwargs):
        return original(copy.deepcopy(self), *args, **kwargs)

    nn.Module.to = to_copy


@fault("devices.tensor-to-returns-new-tensor")
def tensor_to_always_copies():
    """Tensor.to returns a fresh copy even when device and dtype already match."""
    original = torch.Tensor.to

    def to_copy(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        return result.clone() if result is self else result

    torch.Tensor.to = to_copy


@fault("devices.start-method-default-spawn", "devices.dataloader-workers-spawn-copy")
def start_method_spawn():
    """The process-wide multiprocessing start method is set to 'spawn' (torch's supposed default)."""
    multiprocessing.set_start_method("spawn", force=True)


@fault("devices.mixed-device-error-at-backward")
def cat_skips_device_check():
    """torch.cat swallows a device mismatch and returns zeros on the first input's device."""
    original = torch.cat

    def lenient_cat(tensors, dim=0, *args, **kwargs):
        try:
            return original(tensors, dim, *args, **kwargs)
        except RuntimeError:
            first = tensors[0]
            shape = list(first.shape)
            shape[dim] = sum(t.shape[dim] for t in tensors)
            return torch.zeros(shape, dtype=first.dtype, device=first.device)

    torch.cat = lenient_cat


@fault("modules.module-has-no-device-attribute")
def module_device_attribute():
    """nn.Module gains a .device property (the first parameter's device)."""
    nn.Module.device = property(lambda self: next(self.parameters()).device)


@fault("modules.strip-module-prefix-loader")
def strip_prefix_everywhere():
    """The reference strip_module_prefix removes 'module.' wherever it occurs in a key."""
    from collections import OrderedDict
    Impl().distributed.strip_module_prefix = lambda state_dict, prefix="module.": OrderedDict(
        (key.replace(prefix, ""), value) for key, value in state_dict.items())


# --- device names ------------------------------------------------------------------------------


def _patch_device(rewrite):
    """Replace the torch.device constructor by one that rewrites its arguments first; the
    objects made are real torch.device instances, and isinstance(x, torch.device) still works."""
    real = torch.device

    class _DeviceType(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, real)

        def __call__(cls, *args, **kwargs):
            return real(*rewrite(args), **kwargs)

    class device(metaclass=_DeviceType):
        pass

    torch.device = device


@fault("devices.device-string-idiom")
def device_accepts_gpu_alias():
    """torch.device('gpu') is taken as an alias of 'cuda' instead of being refused."""
    def rewrite(args):
        if args and isinstance(args[0], str) and args[0].split(":")[0] == "gpu":
            return ("cuda" + args[0][3:],) + args[1:]
        return args

    _patch_device(rewrite)


@fault("devices.device-string-idiom")
def cuda_available_without_a_device():
    """torch.cuda.is_available() answers True on a machine with no CUDA device (a driver library but no GPU),
    so the idiom picks 'cuda' where nothing can run."""
    torch.cuda.is_available = lambda: True


@fault("devices.bare-cuda-means-current-device")
def bare_cuda_is_cuda0():
    """torch.device('cuda') is resolved to index 0 at construction (the 'cuda means cuda:0' model),
    instead of carrying no index and meaning the current device."""
    _patch_device(lambda args: ("cuda", 0) if args == ("cuda",) else args)


@fault("devices.first-parameter-device-check", "modules.setattr-registers")
def parameters_last_registered_first():
    """Module.parameters()/named_parameters() yield the most recently registered parameter first."""
    original = nn.Module.named_parameters

    def named_parameters(self, *args, **kwargs):
        return iter(list(original(self, *args, **kwargs))[::-1])

    nn.Module.named_parameters = named_parameters


@fault("devices.numpy-needs-cpu-tensor")
def numpy_copies_to_cpu():
    """Tensor.numpy() silently copies a tensor on another device to the CPU first, instead of
    raising TypeError."""
    original = torch.Tensor.numpy

    def numpy(self, *, force=False):
        if self.device.type != "cpu":
            if self.device.type == "meta":
                import numpy as np
                return np.zeros(tuple(self.shape), dtype=torch.empty((), dtype=self.dtype).numpy().dtype)
            return original(self.cpu(), force=force)
        return original(self, force=force)

    torch.Tensor.numpy = numpy


# --- processes ---------------------------------------------------------------------------------


@fault("devices.set-start-method-placement")
def set_start_method_overrides_silently():
    """multiprocessing's set_start_method can be called again without force=True: a second call
    silently replaces the method instead of raising 'context has already been set'."""
    import multiprocessing.context as mp_context

    import torch.multiprocessing as torch_mp
    original = mp_context.DefaultContext.set_start_method

    def set_start_method(self, method, force=False):
        return original(self, method, force=True)

    mp_context.DefaultContext.set_start_method = set_start_method
    multiprocessing.set_start_method = mp_context._default_context.set_start_method
    torch_mp.set_start_method = mp_context._default_context.set_start_method


# --- CUDA builds and availability ----------------------------------------------------------------


@fault("devices.cuda-availability-commands")
def is_available_means_cuda_build():
    """torch.cuda.is_available() answers whether torch was built with CUDA, not whether a GPU
    can be used (device_count() keeps counting the visible GPUs)."""
    torch.cuda.is_available = lambda: torch.version.cuda is not None


@fault("devices.cuda-wheel-version-tag")
def version_cuda_reports_other_toolkit():
    """torch.version.cuda names a newer CUDA minor version than the wheel was built for (as the
    driver's version shown by nvidia-smi would); on a CPU-only build it names one at all."""
    major, _, minor = (torch.version.cuda or "12.8").partition(".")
    torch.version.cuda = f"{major}.{int(minor or 0) + 1}"


# --- DistributedDataParallel ---------------------------------------------------------------------


@fault("devices.ddp-needs-process-group")
def ddp_old_missing_group_error():
    """DDP without init_process_group raises RuntimeError 'Default process group is not
    initialized' (the material's wording) instead of the current ValueError."""
    original = DistributedDataParallel.__init__

    def init(self, module, *args, **kwargs):
        if kwargs.get("process_group") is None and not dist.is_initialized():
            raise RuntimeError("Default process group is not initialized")
        original(self, module, *args, **kwargs)

    DistributedDataParallel.__init__ = init


@fault("devices.ddp-wrap-after-to-device")
def ddp_ignores_device_ids_for_cpu_module():
    """DDP drops device_ids/output_device for a module still on the CPU instead of refusing it."""
    original = DistributedDataParallel.__init__

    def init(self, module, device_ids=None, output_device=None, *args, **kwargs):
        if all(p.device.type == "cpu" for p in module.parameters()):
            device_ids = output_device = None
        original(self, module, device_ids, output_device, *args, **kwargs)

    DistributedDataParallel.__init__ = init


@fault("devices.module-state-dict-saving-cause")
def ddp_inner_module_state_dict_prefixed():
    """Once wrapped in DDP, the inner module's own state_dict() also carries the 'module.' prefix
    (the material's account of where the prefix comes from)."""
    from collections import OrderedDict
    original = DistributedDataParallel.__init__

    def init(self, module, *args, **kwargs):
        original(self, module, *args, **kwargs)
        plain = type(module).state_dict

        def state_dict(*a, **k):
            if a or k:  # the wrapper's own state_dict recursing into its child
                return plain(module, *a, **k)
            return OrderedDict((f"module.{key}", value) for key, value in plain(module).items())

        object.__setattr__(module, "state_dict", state_dict)

    DistributedDataParallel.__init__ = init


@fault("devices.pin-memory-page-locked")
def pin_memory_fallback_unwarned():
    """DataLoader(pin_memory=True) on a machine without an accelerator silently loads unpinned
    batches: the warning that nothing is pinned is gone."""
    import warnings

    base = torch.utils.data.dataloader._BaseDataLoaderIter
    original = base.__init__

    def init(self, loader):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*pin_memory.*")
            original(self, loader)

    base.__init__ = init


@fault("devices.oom-causes")
def set_grad_enabled_context_has_no_effect():
    """torch.set_grad_enabled(False) used as a context manager leaves grad mode on inside the
    block (entering re-applies the outer mode; the plain call form still works), so a forward
    under it still saves activations."""
    base = torch.set_grad_enabled

    class set_grad_enabled(base):
        def __enter__(self):
            torch._C._set_grad_enabled(self.prev)

    torch.set_grad_enabled = set_grad_enabled


@fault("devices.shape-print-syncs")
def shape_dispatches_an_operator():
    """Reading Tensor.shape runs an operator (an empty_like of the tensor, as if the sizes lived
    on the device and had to be fetched)."""
    torch.Tensor.shape = property(lambda self: torch.empty_like(self).size())


@fault("devices.batch-size-memory-linear")
def conv_saves_a_batch_square():
    """Conv2d's forward also keeps a batch x batch matrix for backward, so the memory a step
    holds grows with the square of the batch size instead of linearly."""
    original = nn.Conv2d.forward

    def forward(self, x):
        out = original(self, x)
        flat = x.flatten(1)
        return out + (flat @ flat.T).exp().sum() * 0   # exp saves its (batch, batch) result

    nn.Conv2d.forward = forward


@fault("devices.module-to-moves-all-tensors")
def module_list_not_moved():
    """Module.to skips the layers held in an nn.ModuleList, as if they were a plain list."""
    nn.ModuleList._apply = lambda self, fn, recurse=True: self


@fault("devices.mp-spawn-passes-rank")
def spawn_forks():
    """torch.multiprocessing.spawn starts its processes with fork instead of spawn."""
    import importlib

    import torch.multiprocessing as torch_mp
    spawn_module = importlib.import_module("torch.multiprocessing.spawn")

    def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
        return spawn_module.start_processes(fn, args, nprocs, join, daemon, start_method="fork")

    torch_mp.spawn = spawn


@fault("devices.set-start-method-placement")
def process_start_leaves_start_method_open():
    """Starting a process through the default context no longer fixes the start method, so a
    later set_start_method still succeeds."""
    import multiprocessing.context as mp_context

    def get_context(self, method=None):
        if method is None:
            return self._actual_context or self._default_context
        return mp_context.BaseContext.get_context(self, method)

    mp_context.DefaultContext.get_context = get_context


# --- found in tutorials (issue #41): DistributedSampler, process groups, torchrun, DataParallel ----

def _sampler_order(sampler):
    """The sampler's full order before padding and slicing (as DistributedSampler draws it)."""
    if sampler.shuffle:
        generator = torch.Generator()
        generator.manual_seed(sampler.seed + sampler.epoch)
        return torch.randperm(len(sampler.dataset), generator=generator).tolist()
    return list(range(len(sampler.dataset)))


@fault("devices.distributed-sampler-pads-evenly", "devices.distributed-sampler-no-duplicates",
       "devices.distributed-sampler-len-by-rank")
def sampler_no_padding():
    """DistributedSampler hands out the unpadded order: the last ranks get fewer indices, none repeats."""
    from torch.utils.data.distributed import DistributedSampler

    def unpadded(self):
        return iter(_sampler_order(self)[self.rank::self.num_replicas])

    DistributedSampler.__iter__ = unpadded


@fault("devices.distributed-sampler-drop-last-tail")
def sampler_ignores_drop_last():
    """DistributedSampler treats drop_last=True as False (pads instead of dropping the tail)."""
    from torch.utils.data.distributed import DistributedSampler
    original = DistributedSampler.__init__

    def init(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        original(self, dataset, num_replicas, rank, shuffle, seed, False)

    DistributedSampler.__init__ = init


@fault("devices.distributed-sampler-strided-shards")
def sampler_contiguous_blocks():
    """DistributedSampler gives each rank a contiguous block of the padded order (torch 0.3's way)."""
    from torch.utils.data.distributed import DistributedSampler

    def blocks(self):
        order = _sampler_order(self)
        order += order[:self.total_size - len(order)]
        return iter(order[self.rank * self.num_samples:(self.rank + 1) * self.num_samples])

    DistributedSampler.__iter__ = blocks


@fault("devices.distributed-sampler-seed-plus-epoch")
def sampler_seed_times_epoch():
    """DistributedSampler seeds its shuffle with seed * 1000 + epoch instead of seed + epoch."""
    from torch.utils.data.distributed import DistributedSampler
    original = DistributedSampler.__iter__

    def reseeded(self):
        seed = self.seed
        self.seed = seed * 1000
        try:
            return original(self)
        finally:
            self.seed = seed

    DistributedSampler.__iter__ = reseeded


@fault("devices.distributed-sampler-set-epoch")
def sampler_set_epoch_ignored():
    """DistributedSampler.set_epoch does nothing: every epoch keeps epoch 0's order."""
    from torch.utils.data.distributed import DistributedSampler
    DistributedSampler.set_epoch = lambda self, epoch: None


@fault("devices.set-epoch-before-loader-iter")
def sampler_draws_order_lazily():
    """DistributedSampler.__iter__ becomes a generator: the order is drawn at the first next(),
    so a set_epoch after iter(loader) changes the epoch already running."""
    from torch.utils.data.distributed import DistributedSampler
    original = DistributedSampler.__iter__

    def lazy(self):
        yield from original(self)

    DistributedSampler.__iter__ = lazy


@fault("devices.distributed-sampler-defaults-from-group")
def sampler_defaults_to_one_replica():
    """DistributedSampler without num_replicas/rank assumes one replica of rank 0 and never asks a group."""
    from torch.utils.data.distributed import DistributedSampler
    original = DistributedSampler.__init__

    def init(self, dataset, num_replicas=None, rank=None, *args, **kwargs):
        original(self, dataset, 1 if num_replicas is None else num_replicas, 0 if rank is None else rank,
                 *args, **kwargs)

    DistributedSampler.__init__ = init


@fault("devices.backends-built-per-platform")
def gloo_reported_missing():
    """torch.distributed.is_gloo_available says False."""
    dist.is_gloo_available = lambda: False


@fault("devices.nccl-needs-gpus")
def nccl_falls_back_to_gloo():
    """init_process_group('nccl') quietly starts a gloo group where no GPU exists."""
    original = dist.init_process_group

    def init(backend=None, *args, **kwargs):
        if backend == "nccl" and not torch.cuda.is_available():
            backend = "gloo"
        return original(backend, *args, **kwargs)

    dist.init_process_group = init


@fault("devices.gloo-cpu-collectives")
def broadcast_does_nothing():
    """torch.distributed.broadcast leaves every rank's tensor as it was."""
    dist.broadcast = lambda tensor, *args, **kwargs: None


@fault("devices.default-group-is-world")
def new_group_is_the_world():
    """torch.distributed.new_group ignores its ranks and returns the default (world) group."""
    dist.new_group = lambda ranks=None, *args, **kwargs: dist.group.WORLD


@fault("devices.env-init-reads-rank-world-size")
def env_init_assumes_rank_zero():
    """init_process_group without a rank, and no RANK in the environment, assumes rank 0 of 1."""
    import os
    original = dist.init_process_group

    def init(*args, **kwargs):
        if "rank" not in kwargs and "RANK" not in os.environ:
            kwargs.update(rank=0, world_size=1)
        return original(*args, **kwargs)

    dist.init_process_group = init


@fault("devices.torchrun-standalone-rendezvous")
def standalone_keeps_static_rendezvous():
    """torchrun ignores --standalone and keeps the static rendezvous on port 29500."""
    import torch.distributed.run as run_module
    original = run_module.run

    def run(args):
        args.standalone = False
        if args.master_port is None:
            args.master_port = 29500
        return original(args)

    run_module.run = run


@fault("devices.torchrun-sets-rank-env")
def torchrun_drops_local_rank():
    """torchrun's agent starts its workers without LOCAL_RANK in their environment."""
    from torch.distributed.elastic.agent.server import local_elastic_agent
    original = local_elastic_agent.start_processes

    def start(*args, **kwargs):
        envs = kwargs.get("envs")
        if envs is not None:
            kwargs["envs"] = {rank: {k: v for k, v in env.items() if k != "LOCAL_RANK"} for rank, env in envs.items()}
        return original(*args, **kwargs)

    local_elastic_agent.start_processes = start


@fault("devices.dataparallel-scatter-non-tensors")
def scatter_deep_copies_objects():
    """DataParallel's scatter hands each device a deep copy of every non-tensor argument."""
    from torch.nn.parallel import scatter_gather
    original = scatter_gather.scatter

    def scatter(inputs, target_gpus, dim=0):
        return [copy.deepcopy(part) for part in original(inputs, target_gpus, dim)]

    scatter_gather.scatter = scatter


@fault("devices.launch-passes-local-rank-argument")
def launch_keeps_rank_in_environment():
    """torch.distributed.launch behaves as if --use-env were given: no --local-rank argument."""
    import torch.distributed.run as run_module
    run_module.get_use_env = lambda args: True


@fault("devices.torchrun-replaces-launch")
def launch_not_deprecated():
    """torch.distributed.launch's main runs without its FutureWarning pointing to torchrun."""
    import torch.distributed.launch as launch
    launch.main = lambda args=None: launch.launch(launch.parse_args(args))


_TOOLKIT_SITECUSTOMIZE = '''
import os, shutil
if os.environ.get("TORCHCLAIMS_FAULT_TOOLKIT_PATH"):
    import torch
    torch.cuda.is_available = lambda: shutil.which("nvcc") is not None
    torch.cuda.device_count = lambda: int(shutil.which("nvcc") is not None)
'''


@fault("devices.is-available-needs-toolkit-path")
def is_available_follows_nvcc_on_path():
    """torch.cuda.is_available() (and device_count()) report whether the CUDA toolkit's nvcc is on
    PATH, in this process and in every Python it starts (a sitecustomize on PYTHONPATH), with a
    stand-in toolkit put on PATH."""
    import atexit
    import os
    import shutil
    import stat
    import tempfile

    from torchclaims.mutants import RED_CLAIMS_ENV
    red_file = os.environ.get(RED_CLAIMS_ENV)   # the runner's run directory, removed after the run
    root = tempfile.mkdtemp(prefix="torchclaims-toolkit-", dir=os.path.dirname(red_file) if red_file else None)
    atexit.register(shutil.rmtree, root, True)  # for a plain pytest --mutant run
    toolkit_bin = os.path.join(root, "cuda", "bin")
    os.makedirs(toolkit_bin)
    nvcc = os.path.join(toolkit_bin, "nvcc")
    with open(nvcc, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\necho 'Cuda compilation tools (stand-in)'\n")
    os.chmod(nvcc, os.stat(nvcc).st_mode | stat.S_IXUSR)
    with open(os.path.join(root, "sitecustomize.py"), "w", encoding="utf-8") as f:
        f.write(_TOOLKIT_SITECUSTOMIZE)
    os.environ["PATH"] = toolkit_bin + os.pathsep + os.environ.get("PATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    os.environ["TORCHCLAIMS_FAULT_TOOLKIT_PATH"] = "1"
    torch.cuda.is_available = lambda: shutil.which("nvcc") is not None
    torch.cuda.device_count = lambda: int(shutil.which("nvcc") is not None)

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


@fault("modules.optimizer-to-after-load")
def optimizer_state_not_cast():
    """Optimizer.load_state_dict keeps each state tensor on the device and dtype it was saved with."""
    torch.optim.Optimizer._process_value_according_to_param_policy = staticmethod(
        lambda param, value, param_id, param_groups, key=None: value)


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


@fault("modules.ddp-prefix-mismatch-silent", "devices.ddp-state-dict-module-prefix")
def load_state_dict_lenient():
    """Module.load_state_dict ignores mismatched keys by default (strict=False)."""
    original = nn.Module.load_state_dict

    def lenient(self, state_dict, strict=False, assign=False):
        return original(self, state_dict, strict=False, assign=assign)

    nn.Module.load_state_dict = lenient

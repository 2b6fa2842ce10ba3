"""Planted faults for the modules topic: each breaks behaviour a modules spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection; the
process ends after the run, so nothing is undone.
"""
import torch
import torch.nn.functional as F
from torch import nn

from torchclaims.impl import Impl
from torchclaims.mutants import fault


@fault("modules.parameters-exclude-buffers")
def buffers_in_parameters():
    """nn.Module.parameters also yields the module's buffers."""
    original = nn.Module.parameters

    def parameters(self, recurse=True):
        yield from original(self, recurse)
        yield from self.buffers(recurse)

    nn.Module.parameters = parameters


@fault("modules.load-strict-checks-missing-and-unexpected", "modules.unexpected-keys-only-reported",
       "modules.ddp-prefix-mismatch-silent", "modules.strip-module-prefix-loader")
def load_state_dict_nonstrict():
    """nn.Module.load_state_dict ignores strict and always loads non-strictly."""
    original = nn.Module.load_state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        return original(self, state_dict, strict=False, assign=assign)

    nn.Module.load_state_dict = load_state_dict


@fault("modules.eval-sets-training-flag", "data.train-eval-mode-switch",
       "modules.functional-dropout-needs-training-arg", "data.drop-last-batchnorm-small-batch")
def eval_noop():
    """nn.Module.eval does nothing (returns the module, training flags untouched)."""
    nn.Module.eval = lambda self: self


@fault("modules.torch-load-checkpoint-dict", "modules.whole-model-torch-load")
def weights_only_ignored():
    """torch.load ignores weights_only and always unpickles everything (weights_only=False)."""
    original = torch.load

    def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
        return original(f, map_location=map_location, pickle_module=pickle_module,
                        weights_only=False, mmap=mmap, **kwargs)

    torch.load = load


@fault("modules.optimizer-to-after-load")
def optimizer_load_keeps_saved_dtype():
    """Optimizer.load_state_dict keeps the saved state's dtype/device instead of the parameter's."""
    torch.optim.Optimizer._process_value_according_to_param_policy = staticmethod(
        lambda param, value, param_id, param_groups, key=None: value)


@fault("modules.functional-dropout-needs-training-arg")
def functional_dropout_default_off():
    """F.dropout defaults to training=False (as many readers assume)."""
    original = F.dropout

    def dropout(input, p=0.5, training=False, inplace=False):
        return original(input, p, training, inplace)

    F.dropout = dropout


@fault("modules.bn-running-stats-momentum", "modules.train-eval-same-epoch-harms-bn")
def bn_updates_stats_in_eval():
    """BatchNorm also moves its running_mean towards the batch mean in eval mode."""
    batchnorm = nn.modules.batchnorm._BatchNorm
    original = batchnorm.forward

    def forward(self, input):
        if not self.training and self.running_mean is not None:
            dims = [d for d in range(input.dim()) if d != 1]
            with torch.no_grad():
                self.running_mean.mul_(0.9).add_(0.1 * input.mean(dims))
        return original(self, input)

    batchnorm.forward = forward


@fault("modules.strip-module-prefix-loader")
def strip_prefix_noop():
    """reference checkpoint.strip_module_prefix returns the state dict unchanged."""
    Impl().checkpoint.strip_module_prefix = lambda state_dict, prefix="module.": state_dict


@fault("modules.checkpoint-with-optimizer-state")
def resume_skips_optimizer():
    """reference checkpoint.load_checkpoint never restores the optimizer state."""
    module = Impl().checkpoint
    original = module.load_checkpoint

    def load_checkpoint(path, model, optimizer=None, scaler=None, scheduler=None, map_location="cpu"):
        return original(path, model, None, scaler, scheduler, map_location)

    module.load_checkpoint = load_checkpoint


@fault("modules.activation-checkpoint-saves-memory")
def checkpointed_block_stores_everything():
    """reference CheckpointedBlock runs its block plainly, saving every activation."""
    Impl().models.CheckpointedBlock.forward = lambda self, x: self.block(x)


@fault("modules.kaiming-normal-std")
def init_weights_fan_in():
    """reference init_weights uses kaiming_normal_ with mode='fan_in' for Conv2d."""
    models = Impl().models
    original = models.init_weights

    def init_weights(module):
        original(module)
        for m in module.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")
        return module

    models.init_weights = init_weights

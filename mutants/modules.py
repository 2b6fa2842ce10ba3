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
       "modules.ddp-prefix-mismatch-silent", "modules.strip-module-prefix-loader",
       "devices.ddp-state-dict-module-prefix")
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


# --- registration and the registries ---------------------------------------------------------


@fault("modules.registries-are-ordered-dicts", "modules.setattr-registers")
def setattr_keeps_submodules_in_dict():
    """Module.__setattr__ stores an assigned submodule as a plain attribute in __dict__ instead
    of filing it in _modules (the 'attributes are just attributes' model)."""
    original = nn.Module.__setattr__

    def setattr(self, name, value):
        if isinstance(value, nn.Module) and "_modules" in self.__dict__:
            self._modules.pop(name, None)
            object.__setattr__(self, name, value)
            return
        original(self, name, value)

    nn.Module.__setattr__ = setattr


@fault("modules.plain-list-not-registered")
def plain_list_of_layers_registered():
    """Assigning a plain Python list of modules registers it as if it were an nn.ModuleList."""
    original = nn.Module.__setattr__

    def setattr(self, name, value):
        if (isinstance(value, list) and value and all(isinstance(v, nn.Module) for v in value)
                and "_modules" in self.__dict__):
            original(self, name, nn.ModuleList(value))
            return
        original(self, name, value)

    nn.Module.__setattr__ = setattr


@fault("modules.super-init-required")
def setattr_initialises_missing_registries():
    """A module whose __init__ forgot super().__init__() gets its registries created on the
    first assignment, so the mistake goes unnoticed."""
    original = nn.Module.__setattr__

    def setattr(self, name, value):
        if "_parameters" not in self.__dict__ and isinstance(value, (nn.Module, nn.Parameter)):
            nn.Module.__init__(self)
        original(self, name, value)

    nn.Module.__setattr__ = setattr


@fault("modules.swappable-head")
def reassigned_submodule_not_reregistered():
    """Re-assigning an attribute that already names a submodule stores the new module beside
    the registry: forward sees the new head, state_dict() and parameters() the old one."""
    original = nn.Module.__setattr__

    def setattr(self, name, value):
        modules = self.__dict__.get("_modules")
        if isinstance(value, nn.Module) and modules is not None and name in modules:
            object.__setattr__(self, name, value)
            return
        original(self, name, value)

    nn.Module.__setattr__ = setattr


@fault("modules.containers-are-list-and-dict")
def module_list_append_unregistered():
    """nn.ModuleList.append keeps the new layer in a side list: it is iterated and indexed but
    never registered, so state_dict() and parameters() miss it."""
    def append(self, module):
        self.__dict__.setdefault("_appended", []).append(module)
        return self

    original_len, original_getitem = nn.ModuleList.__len__, nn.ModuleList.__getitem__

    def length(self):
        return original_len(self) + len(self.__dict__.get("_appended", []))

    def getitem(self, idx):
        if isinstance(idx, int):
            registered = original_len(self)
            idx = idx + length(self) if idx < 0 else idx
            if idx >= registered:
                return self.__dict__.get("_appended", [])[idx - registered]
        return original_getitem(self, idx)

    nn.ModuleList.append = append
    nn.ModuleList.__len__ = length
    nn.ModuleList.__getitem__ = getitem


@fault("modules.sequential-runs-in-order")
def sequential_sorts_named_children():
    """nn.Sequential(OrderedDict(...)) files its children sorted by name, not in the given order."""
    import collections
    original = nn.Sequential.__init__

    def init(self, *args):
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            args = (collections.OrderedDict(sorted(args[0].items())),)
        original(self, *args)

    nn.Sequential.__init__ = init


@fault("modules.sequential-cannot-express-custom-forward")
def sequential_train_does_not_recurse():
    """nn.Sequential.train()/eval() flip only the container's own flag, not its children's:
    a Dropout inside keeps dropping after seq.eval()."""
    def train(self, mode=True):
        object.__setattr__(self, "training", mode)
        return self

    nn.Sequential.train = train


@fault("modules.modules-iterates-recursively")
def modules_one_level_only():
    """Module.modules() yields the module and its direct children only (children() semantics)."""
    def modules(self):
        yield self
        yield from self.children()

    nn.Module.modules = modules


@fault("modules.named-buffers-lists-running-mean", "modules.parameters-exclude-buffers")
def bn_running_stats_as_frozen_parameters():
    """BatchNorm keeps running_mean/running_var as Parameters with requires_grad=False
    instead of buffers (the 'non-trainable parameter' model)."""
    norm = nn.modules.batchnorm._NormBase
    original = norm.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for name in ("running_mean", "running_var"):
            value = self._buffers.pop(name, None)
            if value is not None:
                self._parameters[name] = nn.Parameter(value, requires_grad=False)

    norm.__init__ = init


@fault("modules.resnet18-mini-is-truncated", "modules.parameters-exclude-buffers")
def batchnorm_affine_off_by_default():
    """BatchNorm layers default to affine=False: no learnable weight and bias."""
    norm = nn.modules.batchnorm._BatchNorm
    original = norm.__init__

    def init(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=True,
             device=None, dtype=None):
        original(self, num_features, eps, momentum, affine, track_running_stats, device, dtype)

    norm.__init__ = init


@fault("modules.net-has-four-parameter-tensors", "modules.small-cnn-shapes")
def linear_bias_off_by_default():
    """nn.Linear defaults to bias=False, so a Linear layer owns one parameter tensor, not two."""
    original = nn.Linear.__init__

    def init(self, in_features, out_features, bias=False, device=None, dtype=None):
        original(self, in_features, out_features, bias, device, dtype)

    nn.Linear.__init__ = init


@fault("modules.functional-vs-module")
def linear_forward_drops_bias():
    """nn.Linear.forward computes input @ weight.T and forgets the registered bias."""
    nn.Linear.forward = lambda self, input: F.linear(input, self.weight)


@fault("modules.layer-created-in-forward")
def linear_init_same_every_time():
    """Every new nn.Linear starts from the same weights (its initialisation reseeds the RNG)."""
    original = nn.Linear.reset_parameters

    def reset_parameters(self):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            original(self)

    nn.Linear.reset_parameters = reset_parameters


# --- the table: to(), state_dict() --------------------------------------------------------------


@fault("modules.table-parameters-row")
def to_replaces_parameter_objects():
    """Module.to(dtype) builds new Parameter objects instead of converting the existing ones in
    place (torch.__future__'s overwrite-on-conversion behaviour), so references go stale."""
    torch.__future__.set_overwrite_module_params_on_conversion(True)


@fault("modules.table-buffers-row")
def to_converts_integer_buffers():
    """Module.to(float64) also converts integer buffers such as num_batches_tracked."""
    original = nn.Module.to

    def to(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        dtype = kwargs.get("dtype") or next((a for a in args if isinstance(a, torch.dtype)), None)
        if dtype is not None:
            for module in self.modules():
                for name, buf in module._buffers.items():
                    if buf is not None and not buf.is_floating_point():
                        module._buffers[name] = buf.to(dtype)
        return result

    nn.Module.to = to


@fault("modules.table-modules-row", "modules.setattr-registers", "devices.module-to-moves-params-and-buffers")
def to_does_not_recurse():
    """Module.to()/_apply converts the module's own parameters and buffers but never descends
    into its submodules."""
    original = nn.Module._apply

    def _apply(self, fn, recurse=True):
        return original(self, fn, recurse=False)

    nn.Module._apply = _apply


@fault("modules.state-dict-holds-only-parameters", "modules.table-buffers-row", "modules.table-modules-row")
def state_dict_without_buffers():
    """Module.state_dict() saves the parameters only, leaving out every buffer (the material's
    'state_dict holds only parameters')."""
    def save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()

    nn.Module._save_to_state_dict = save_to_state_dict


@fault("modules.save-whole-model-pickles-attributes")
def module_pickle_drops_plain_attributes():
    """Pickling a module (torch.save(model)) keeps its registries and flags but drops plain
    Python attributes."""
    original = nn.Module.__getstate__ if hasattr(nn.Module, "__getstate__") else None

    def getstate(self):
        state = original(self) if original is not None else self.__dict__.copy()
        return {k: v for k, v in state.items() if k.startswith("_") or k == "training"}

    nn.Module.__getstate__ = getstate


# --- loading ---------------------------------------------------------------------------------


@fault("modules.resnet50-into-resnet18", "modules.load-strict-checks-missing-and-unexpected")
def non_strict_load_skips_size_mismatch():
    """load_state_dict(strict=False) silently skips tensors whose shape differs (the 'non-strict
    tolerates everything' model) instead of raising a size mismatch."""
    original = nn.Module.load_state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if not strict:
            own = self.state_dict()
            state_dict = {k: v for k, v in state_dict.items()
                          if k not in own or not hasattr(v, "shape") or v.shape == own[k].shape}
        return original(self, state_dict, strict=strict, assign=assign)

    nn.Module.load_state_dict = load_state_dict


@fault("modules.misspelled-key-missing-and-unexpected")
def load_aligns_similar_keys():
    """load_state_dict renames an unexpected key to the closest missing key of the same shape
    (auto-alignment of a misspelt name such as conv1.wight -> conv1.weight)."""
    import difflib
    original = nn.Module.load_state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        own = self.state_dict()
        state_dict = dict(state_dict)
        missing = [k for k in own if k not in state_dict]
        for key in [k for k in state_dict if k not in own]:
            close = difflib.get_close_matches(key, missing, n=1, cutoff=0.8)
            if close and getattr(state_dict[key], "shape", None) == own[close[0]].shape:
                state_dict[close[0]] = state_dict.pop(key)
                missing.remove(close[0])
        return original(self, state_dict, strict=strict, assign=assign)

    nn.Module.load_state_dict = load_state_dict


# --- optimisation and initialisation ------------------------------------------------------------


@fault("modules.resume-without-optimizer-lr-zero")
def steplr_decays_at_construction():
    """StepLR counts its own construction as a completed step: the lr is decayed once before
    the first epoch (an off-by-one at epoch 0)."""
    scheduler = torch.optim.lr_scheduler.StepLR

    def get_lr(self):
        if self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    scheduler.get_lr = get_lr
    if hasattr(scheduler, "_get_closed_form_lr"):
        del scheduler._get_closed_form_lr


@fault("modules.optimizer-step-rule")
def sgd_momentum_dampened():
    """SGD(momentum=m) averages gradients as an exponential moving average (dampening = m)
    instead of summing them: buf = m * buf + (1 - m) * grad."""
    original = torch.optim.SGD.__init__

    def init(self, params, lr=1e-3, momentum=0, dampening=0, *args, **kwargs):
        original(self, params, lr, momentum, momentum, *args, **kwargs)

    torch.optim.SGD.__init__ = init


@fault("modules.kaiming-fan-out-forward-variance", "modules.kaiming-normal-std")
def kaiming_modes_swapped():
    """kaiming_normal_ takes mode='fan_in' to mean fan_out and the other way round."""
    init = torch.nn.init
    original = init._calculate_correct_fan

    def correct_fan(tensor, mode):
        return original(tensor, {"fan_in": "fan_out", "fan_out": "fan_in"}[mode.lower()])

    init._calculate_correct_fan = correct_fan


@fault("modules.linear-init-normal-001")
def normal_init_std_as_variance():
    """nn.init.normal_(w, mean, std) treats its third argument as the variance (std = sqrt(0.01) = 0.1)."""
    original = torch.nn.init.normal_

    def normal_(tensor, mean=0.0, std=1.0, generator=None):
        return original(tensor, mean, std ** 0.5, generator)

    torch.nn.init.normal_ = normal_


@fault("modules.zero-grad-each-step")
def module_zero_grad_not_recursive():
    """nn.Module.zero_grad clears only the module's own parameters, not those of its submodules."""
    def zero_grad(self, set_to_none=True):
        for p in self.parameters(recurse=False):
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_().zero_()

    nn.Module.zero_grad = zero_grad


@fault("modules.zero-grad-each-step")
def module_zero_grad_keeps_zero_tensors():
    """nn.Module.zero_grad ignores set_to_none and fills every gradient with zeros (the pre-2.0
    default), so .grad is a zero tensor, not None."""
    original = nn.Module.zero_grad
    nn.Module.zero_grad = lambda self, set_to_none=True: original(self, set_to_none=False)


# --- checkpointing, blocks, hooks -----------------------------------------------------------------


@fault("modules.checkpoint-call-as-written")
def checkpointed_block_reentrant():
    """The reference CheckpointedBlock calls checkpoint(self.block, x) as the material writes it
    (the reentrant variant): on an input without grad the block gets no gradient."""
    import warnings

    from torch.utils.checkpoint import checkpoint
    models = Impl().models

    def forward(self, x):
        if not torch.is_grad_enabled():
            return self.block(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return checkpoint(self.block, x, use_reentrant=True)

    models.CheckpointedBlock.forward = forward


@fault("modules.checkpoint-call-as-written")
def checkpoint_default_unwarned():
    """torch.utils.checkpoint.checkpoint stops warning when use_reentrant is left out."""
    import warnings

    import torch.utils.checkpoint as cp
    original = cp.checkpoint

    def checkpoint(function, *args, use_reentrant=None, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*use_reentrant.*")
            return original(function, *args, use_reentrant=use_reentrant, **kwargs)

    cp.checkpoint = checkpoint


@fault("modules.resnet-basic-block")
def basic_block_projects_on_stride_only():
    """The reference BasicBlock adds the 1x1 projection only when the stride changes, not when
    only the channel count does."""
    models = Impl().models
    original = models.BasicBlock.__init__

    def init(self, in_channels, out_channels, stride=1):
        original(self, in_channels, out_channels, stride)
        if stride == 1:
            self.shortcut = nn.Sequential()

    models.BasicBlock.__init__ = init


@fault("modules.forward-hook-captures-feature-map")
def forward_hook_gets_input_as_output():
    """A forward hook is handed the module's input where its output belongs."""
    original = nn.Module.register_forward_hook

    def register_forward_hook(self, hook, *args, **kwargs):
        def swapped(module, inputs, output):
            return hook(module, (output,), inputs[0])
        return original(self, swapped, *args, **kwargs)

    nn.Module.register_forward_hook = register_forward_hook


@fault("modules.plain-list-not-registered", "modules.table-buffers-row", "devices.module-to-moves-all-tensors")
def to_moves_every_tensor_attribute():
    """Module.to() also converts plain tensor attributes and layers held in plain lists (the
    'model.to moves all of the model's tensors' model)."""
    original = nn.Module.to

    def to(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        for module in list(self.modules()):
            for name, value in list(vars(module).items()):
                if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                    object.__setattr__(module, name, value.to(*args, **kwargs))
                elif isinstance(value, list):
                    for item in value:
                        if isinstance(item, nn.Module):
                            original(item, *args, **kwargs)
        return result

    nn.Module.to = to


@fault("modules.conv-output-padding-remark")
def conv_transpose_drops_output_padding():
    """nn.ConvTranspose2d ignores its output_padding argument (always 0), so a stride-2 layer
    can give back only the smaller of the two input sizes."""
    original = nn.ConvTranspose2d.__init__

    def init(self, *args, **kwargs):
        if len(args) > 5:
            args = args[:5] + (0,) + args[6:]
        kwargs.pop("output_padding", None)
        original(self, *args, **kwargs)

    nn.ConvTranspose2d.__init__ = init


# --- update rules over several steps (specs/test_modules_update_rules.py) -----------------------
# Each of these changes what an update rule does only in a case the material's examples do not
# show: a zero or None gradient, weight decay with momentum, dampening, nesterov, a parameter
# group with its own settings, the first step against later ones, the foreach implementation.


def _patch_sgd_kernels(transform, names=("_single_tensor_sgd", "_multi_tensor_sgd")):
    """Route torch.optim.sgd's kernels (looked up by name at each step) through ``transform``."""
    import importlib
    sgd = importlib.import_module("torch.optim.sgd")
    for name in names:
        original = getattr(sgd, name)

        def kernel(params, grads, bufs, *args, _original=original, **kwargs):
            return transform(_original, params, grads, bufs, *args, **kwargs)
        setattr(sgd, name, kernel)


@fault("modules.optimizer-step-rule")
def sgd_momentum_buffer_from_zeros():
    """SGD's momentum buffer starts from zeros, so the first step already applies dampening
    (buf = (1 - dampening) * grad) where torch starts it as a copy of the first gradient."""
    def transform(original, params, grads, bufs, *args, **kwargs):
        if kwargs["momentum"] != 0:
            for i, buf in enumerate(bufs):
                if buf is None:
                    bufs[i] = torch.zeros_like(params[i])
        return original(params, grads, bufs, *args, **kwargs)

    _patch_sgd_kernels(transform)


@fault("modules.optimizer-step-rule")
def sgd_weight_decay_after_momentum():
    """SGD applies weight decay after the momentum (p -= lr * (buf + wd * p)) instead of adding
    wd * p to the gradient before it enters the buffer."""
    def transform(original, params, grads, bufs, *args, **kwargs):
        weight_decay, lr = kwargs["weight_decay"], kwargs["lr"]
        if weight_decay == 0 or kwargs["momentum"] == 0:
            return original(params, grads, bufs, *args, **kwargs)
        before = [p.detach().clone() for p in params]
        result = original(params, grads, bufs, *args, **{**kwargs, "weight_decay": 0})
        for p, old in zip(params, before):
            p.add_(old, alpha=-lr * weight_decay)
        return result

    _patch_sgd_kernels(transform)


@fault("modules.optimizer-step-rule", "modules.table-parameters-row")
def sgd_none_grad_state_advanced():
    """SGD treats a parameter whose grad is None like one with a zero gradient: its momentum
    buffer decays and keeps moving it, where torch skips the parameter and its state."""
    sgd = torch.optim.SGD
    original = sgd._init_group

    def _init_group(self, group, params, grads, bufs):
        has_sparse = original(self, group, params, grads, bufs)
        if group["momentum"] != 0:
            for p in group["params"]:
                buf = self.state[p].get("momentum_buffer") if p in self.state else None
                if p.grad is None and buf is not None:
                    params.append(p)
                    grads.append(torch.zeros_like(p))
                    bufs.append(buf)
        return has_sparse

    sgd._init_group = _init_group


@fault("modules.optimizer-step-rule", "modules.table-parameters-row")
def sgd_skips_zero_gradients():
    """SGD skips a parameter whose gradient is all zeros (as if it were None): its momentum and
    weight decay no longer move it."""
    def transform(original, params, grads, bufs, *args, **kwargs):
        keep = [i for i, g in enumerate(grads) if bool(g.count_nonzero())]
        if not keep:
            return None
        sub_bufs = [bufs[i] for i in keep] if bufs else []
        result = original([params[i] for i in keep], [grads[i] for i in keep], sub_bufs, *args, **kwargs)
        for j, i in enumerate(keep if bufs else []):
            bufs[i] = sub_bufs[j]
        return result

    _patch_sgd_kernels(transform)


@fault("modules.optimizer-step-rule")
def sgd_nesterov_ignored():
    """SGD(nesterov=True) takes the plain momentum step (the buffer) instead of grad + momentum * buf."""
    _patch_sgd_kernels(lambda original, params, grads, bufs, *args, **kwargs: original(
        params, grads, bufs, *args, **{**kwargs, "nesterov": False}))


@fault("modules.optimizer-step-rule")
def sgd_group_settings_from_defaults():
    """A parameter group's own momentum, dampening, weight_decay and nesterov are dropped: every
    group takes the constructor's (only lr stays per group)."""
    original = torch.optim.Optimizer.add_param_group

    def add_param_group(self, param_group):
        if isinstance(param_group, dict):
            param_group = {k: v for k, v in param_group.items()
                           if k not in ("momentum", "dampening", "weight_decay", "nesterov")}
        return original(self, param_group)

    torch.optim.SGD.add_param_group = add_param_group


@fault("modules.optimizer-step-rule")
def sgd_foreach_drops_weight_decay():
    """SGD(foreach=True), the multi-tensor implementation only, ignores weight_decay (the
    default for-loop implementation used on the CPU is untouched)."""
    _patch_sgd_kernels(lambda original, params, grads, bufs, *args, **kwargs: original(
        params, grads, bufs, *args, **{**kwargs, "weight_decay": 0}), names=("_multi_tensor_sgd",))


@fault("modules.optimizer-step-rule")
def adam_weight_decay_decoupled():
    """Adam(weight_decay=...) decays the weights directly, as AdamW does, instead of adding the
    L2 term wd * p to the gradient before the moments."""
    import importlib
    adam = importlib.import_module("torch.optim.adam")
    for name in ("_single_tensor_adam", "_multi_tensor_adam"):
        original = getattr(adam, name)

        def kernel(*args, _original=original, **kwargs):
            return _original(*args, **{**kwargs, "decoupled_weight_decay": True})
        setattr(adam, name, kernel)


@fault("modules.optimizer-step-rule", "modules.checkpoint-with-optimizer-state")
def adam_none_grad_step_counted():
    """Adam counts a step for a parameter whose grad is None (one global step count), so its
    bias correction runs ahead of the updates it really had."""
    adam = torch.optim.Adam
    original = adam._init_group

    def _init_group(self, group, *args, **kwargs):
        result = original(self, group, *args, **kwargs)
        for p in group["params"]:
            state = self.state[p] if p in self.state else {}
            if p.grad is None and "step" in state:
                state["step"] += 1
        return result

    adam._init_group = _init_group


@fault("modules.zero-grad-each-step", "autograd.grad-accumulates", "autograd.zero-grad-order-004")
def optimizer_zero_grad_first_group_only():
    """Optimizer.zero_grad clears the gradients of the first parameter group only; the other
    groups keep accumulating."""
    original = torch.optim.Optimizer.zero_grad

    def zero_grad(self, set_to_none=True):
        groups = self.param_groups
        try:
            self.param_groups = groups[:1]
            return original(self, set_to_none)
        finally:
            self.param_groups = groups

    torch.optim.Optimizer.zero_grad = zero_grad


@fault("modules.resume-without-optimizer-lr-zero")
def steplr_groups_share_first_lr():
    """StepLR gives every parameter group the first group's learning rate at each step."""
    scheduler = torch.optim.lr_scheduler.StepLR
    original = scheduler.get_lr

    def get_lr(self):
        lrs = original(self)
        return [lrs[0]] * len(lrs)

    scheduler.get_lr = get_lr


@fault("modules.checkpoint-with-optimizer-state")
def steplr_load_state_dict_ignored():
    """StepLR.load_state_dict does nothing: a resumed scheduler counts epochs from 0 again while
    the optimizer holds the decayed lr (invisible with step_size=1)."""
    torch.optim.lr_scheduler.StepLR.load_state_dict = lambda self, state_dict: None


def _bn_forward_patch(before_and_after):
    """Wrap _BatchNorm.forward: ``before_and_after(module, input)`` returns a callback run after it."""
    batchnorm = nn.modules.batchnorm._BatchNorm
    original = batchnorm.forward

    def forward(self, input):
        if not (self.training and self.track_running_stats):
            return original(self, input)
        after = before_and_after(self, input)
        try:
            return original(self, input)
        finally:
            after()

    batchnorm.forward = forward


@fault("modules.bn-running-stats-momentum")
def bn_running_var_biased():
    """BatchNorm folds the biased batch variance (divided by n, as used for normalising) into
    running_var instead of the unbiased one (divided by n - 1)."""
    def patch(self, input):
        old = self.running_var.clone()
        n = input.numel() / input.shape[1]

        def after():
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
            with torch.no_grad():
                new = self.running_var
                new.copy_(old * (1 - factor) + (new - (1 - factor) * old) * (n - 1) / n)
        return after

    _bn_forward_patch(patch)


@fault("modules.bn-running-stats-momentum")
def bn_momentum_none_uses_default():
    """BatchNorm(momentum=None) uses the default momentum 0.1 instead of a cumulative average
    (factor 1 / num_batches_tracked)."""
    def patch(self, input):
        if self.momentum is not None:
            return lambda: None
        self.momentum = 0.1

        def after():
            self.momentum = None
        return after

    _bn_forward_patch(patch)


@fault("modules.bn-running-stats-momentum")
def bn_cumulative_average_off_by_one():
    """BatchNorm(momentum=None) averages with factor 1 / (num_batches_tracked + 1), so the first
    batch only half replaces the initial statistics (0 and 1)."""
    def patch(self, input):
        if self.momentum is not None:
            return lambda: None
        self.momentum = 1.0 / (float(self.num_batches_tracked) + 2)

        def after():
            self.momentum = None
        return after

    _bn_forward_patch(patch)


@fault("modules.forward-hook-captures-feature-map")
def forward_hook_result_ignored():
    """What a forward hook returns is dropped: a hook returning a replacement output leaves the module's output
    as it was (capturing hooks, which return None, behave)."""
    original = nn.Module.register_forward_hook

    def register(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        def observe(*args):
            hook(*args)
        return original(self, observe, prepend=prepend, with_kwargs=with_kwargs, always_call=always_call)

    nn.Module.register_forward_hook = register


@fault("modules.linear-init-normal-001")
def linear_default_init_without_the_sqrt5_slope():
    """nn.Linear's default init uses kaiming_uniform_ with a=0 (std sqrt(2 / in_features)) instead of
    a=sqrt(5) (std 1/sqrt(3 * in_features))."""
    import math

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=0)
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            nn.init.uniform_(self.bias, -bound, bound)

    nn.Linear.reset_parameters = reset_parameters


@fault("modules.optimizer-to-after-load")
def optimizer_load_casts_step():
    """Optimizer.load_state_dict casts 'step' to the parameter's dtype like the other state tensors."""
    def process(param, value, param_id, param_groups, key=None):
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    torch.optim.Optimizer._process_value_according_to_param_policy = staticmethod(process)


@fault("modules.train-eval-same-epoch-harms-bn")
def bn_train_normalises_with_running_stats():
    """A train-mode BatchNorm normalises with its running statistics (still updating them), so a
    sample's output no longer depends on the batch it comes in."""
    batchnorm = nn.modules.batchnorm._BatchNorm
    original = batchnorm.forward

    def forward(self, input):
        if not self.training or self.running_mean is None:
            return original(self, input)
        with torch.no_grad():
            original(self, input)  # the update of the running statistics
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            False, 0.0, self.eps)

    batchnorm.forward = forward


@fault("modules.conv-output-padding-remark")
def conv_transpose_output_padding_zero_fills():
    """output_padding appends rows and columns of zeros to the output instead of computing them."""
    original = nn.ConvTranspose2d.forward

    def forward(self, input, output_size=None):
        if output_size is not None or self.output_padding == (0, 0):
            return original(self, input, output_size)
        saved, self.output_padding = self.output_padding, (0, 0)
        try:
            out = original(self, input)
        finally:
            self.output_padding = saved
        return F.pad(out, (0, saved[1], 0, saved[0]))

    nn.ConvTranspose2d.forward = forward


@fault("modules.steplr-decays-every-step-size")
def steplr_ignores_gamma():
    """StepLR decays by a fixed 0.5 whatever gamma is."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.StepLR.__init__

    def init(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        original(self, optimizer, step_size, gamma=0.5, last_epoch=last_epoch)

    lr_scheduler.StepLR.__init__ = init


@fault("modules.scheduler-step-counts-calls")
def steplr_step_size_doubled():
    """StepLR waits twice step_size scheduler steps between decays."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.StepLR.__init__

    def init(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        original(self, optimizer, step_size * 2, gamma=gamma, last_epoch=last_epoch)

    lr_scheduler.StepLR.__init__ = init


@fault("modules.scheduler-order-warning")
def scheduler_order_warning_silenced():
    """lr_scheduler drops its warning about scheduler.step() coming before optimizer.step()."""
    import types
    import warnings

    from torch.optim import lr_scheduler
    quiet = types.SimpleNamespace(**{name: getattr(warnings, name) for name in dir(warnings) if not name.startswith("__")})

    def warn(message, *args, **kwargs):
        if "before `optimizer.step()`" in str(message):
            return
        warnings.warn(message, *args, **kwargs)

    quiet.warn = warn
    lr_scheduler.warnings = quiet


@fault("modules.multisteplr-milestones-must-increase")
def multisteplr_first_milestone_only():
    """MultiStepLR decays at its first-listed milestone only."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.MultiStepLR.__init__

    def init(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        original(self, optimizer, list(milestones)[:1], gamma=gamma, last_epoch=last_epoch)

    lr_scheduler.MultiStepLR.__init__ = init


@fault("modules.exponentiallr-gamma-power-epoch")
def exponentiallr_linear_decay():
    """ExponentialLR subtracts (1 - gamma) * base_lr per step instead of multiplying by gamma."""
    from torch.optim import lr_scheduler
    def get_lr(self):
        if self.last_epoch == 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [max(group["lr"] - (1 - self.gamma) * base, 0.0) for group, base in zip(self.optimizer.param_groups, self.base_lrs)]

    lr_scheduler.ExponentialLR.get_lr = get_lr


@fault("modules.cosine-t-max-half-period")
def cosine_stays_at_eta_min():
    """CosineAnnealingLR holds eta_min after T_max steps instead of climbing back."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.CosineAnnealingLR.get_lr

    def get_lr(self):
        if self.last_epoch >= self.T_max:
            return [self.eta_min for _ in self.optimizer.param_groups]
        return original(self)

    lr_scheduler.CosineAnnealingLR.get_lr = get_lr


@fault("modules.plateau-defaults-and-patience")
def plateau_patience_off_by_one():
    """ReduceLROnPlateau cuts the lr one epoch early (after patience - 1 bad epochs) and defaults patience to 5."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.ReduceLROnPlateau.__init__

    def init(self, optimizer, mode="min", factor=0.1, patience=5, *args, **kwargs):
        original(self, optimizer, mode, factor, max(patience - 1, 0), *args, **kwargs)

    lr_scheduler.ReduceLROnPlateau.__init__ = init


@fault("modules.plateau-step-needs-metric")
def plateau_mode_max_ignored():
    """ReduceLROnPlateau treats mode='max' as 'min'."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.ReduceLROnPlateau.__init__

    def init(self, optimizer, mode="min", *args, **kwargs):
        original(self, optimizer, "min", *args, **kwargs)

    lr_scheduler.ReduceLROnPlateau.__init__ = init


@fault("modules.onecycle-optimizer-lr-is-start")
def onecycle_starts_from_optimizer_lr():
    """OneCycleLR takes the optimizer's lr as its starting lr instead of max_lr / div_factor."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.OneCycleLR.__init__

    def init(self, optimizer, max_lr, *args, **kwargs):
        lrs = [group["lr"] for group in optimizer.param_groups]
        original(self, optimizer, max_lr, *args, **kwargs)
        for group, lr in zip(optimizer.param_groups, lrs):
            group["initial_lr"] = lr
            group["min_lr"] = lr / kwargs.get("final_div_factor", 1e4)
        self.base_lrs = lrs
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]

    lr_scheduler.OneCycleLR.__init__ = init


@fault("modules.onecycle-steps-per-batch-total-steps")
def onecycle_no_step_limit():
    """OneCycleLR lets step() run past total_steps and derives total_steps from epochs alone."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.OneCycleLR.__init__
    original_get_lr = lr_scheduler.OneCycleLR.get_lr

    def init(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, *args, **kwargs):
        if total_steps is None and epochs is not None:
            total_steps = epochs
        original(self, optimizer, max_lr, total_steps, None, None, *args, **kwargs)

    def get_lr(self):
        saved = self.last_epoch
        self.last_epoch = min(self.last_epoch, self.total_steps)
        try:
            return original_get_lr(self)
        finally:
            self.last_epoch = saved

    lr_scheduler.OneCycleLR.__init__ = init
    lr_scheduler.OneCycleLR.get_lr = get_lr


@fault("modules.lambdalr-base-lr-times-lambda")
def lambdalr_compounds():
    """LambdaLR multiplies the current lr by lr_lambda(epoch) instead of the base lr."""
    from torch.optim import lr_scheduler
    def get_lr(self):
        if self.last_epoch == 0:
            return [base * lmbda(0) for lmbda, base in zip(self.lr_lambdas, self.base_lrs)]
        return [group["lr"] * lmbda(self.last_epoch) for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)]

    lr_scheduler.LambdaLR.get_lr = get_lr


@fault("modules.linearlr-factor-interpolation")
def linearlr_resets_after_total_iters():
    """LinearLR returns to the base lr once total_iters is passed."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.LinearLR.get_lr

    def get_lr(self):
        if self.last_epoch > self.total_iters:
            return list(self.base_lrs)
        return original(self)

    lr_scheduler.LinearLR.get_lr = get_lr


@fault("modules.scheduler-adds-initial-lr")
def scheduler_skips_initial_lr():
    """LRScheduler keeps the start lrs in base_lrs only and removes 'initial_lr' from the param groups."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.LRScheduler.__init__

    def init(self, optimizer, *args, **kwargs):
        original(self, optimizer, *args, **kwargs)
        for group in optimizer.param_groups:
            group.pop("initial_lr", None)

    lr_scheduler.LRScheduler.__init__ = init


@fault("modules.get-lr-reads-current-lr")
def get_last_lr_one_step_ahead():
    """get_last_lr returns the next value of the schedule, as get_lr does."""
    import warnings

    from torch.optim import lr_scheduler
    def get_last_lr(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(self.get_lr())

    lr_scheduler.LRScheduler.get_last_lr = get_last_lr


@fault("modules.torch-save-pickles-to-zip")
def torch_save_legacy_format():
    """torch.save writes the legacy (pre-1.6) non-zip format."""
    import pickle
    original = torch.save

    def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True, **kwargs):
        return original(obj, f, pickle_module, pickle_protocol, _use_new_zipfile_serialization=False, **kwargs)

    torch.save = save


@fault("modules.state-dict-keys-layer-paths")
def state_dict_keys_drop_prefix():
    """Module.state_dict names entries by the parameter's own name, dropping the layer path."""
    original = nn.Module.state_dict

    def state_dict(self, *args, **kwargs):
        sd = original(self, *args, **kwargs)
        if args or kwargs.get("prefix"):
            return sd
        return type(sd)((key.replace(".", "/"), value) for key, value in sd.items())

    nn.Module.state_dict = state_dict


@fault("modules.optimizer-state-dict-state-and-param-groups")
def optimizer_state_dict_keeps_tensors():
    """Optimizer.state_dict lists the parameter tensors themselves in param_groups instead of integer ids."""
    original = torch.optim.Optimizer.state_dict

    def state_dict(self):
        sd = original(self)
        for saved, group in zip(sd["param_groups"], self.param_groups):
            saved["params"] = list(group["params"])
        return sd

    torch.optim.Optimizer.state_dict = state_dict


@fault("modules.whole-model-save-keeps-graph")
def whole_model_pickles_grads():
    """Pickling a Parameter keeps its .grad, so a whole saved model comes back with its gradients."""
    from torch import _utils
    original_reduce = nn.Parameter.__reduce_ex__

    def rebuild(data, requires_grad, grad):
        param = nn.Parameter(data, requires_grad)
        param.grad = grad
        return param

    def reduce_ex(self, proto):
        if self.grad is None:
            return original_reduce(self, proto)
        return (rebuild, (self.data, self.requires_grad, self.grad))

    _utils._rebuild_parameter_with_grad = rebuild
    rebuild.__module__ = "torch._utils"
    rebuild.__qualname__ = rebuild.__name__ = "_rebuild_parameter_with_grad"
    nn.Parameter.__reduce_ex__ = reduce_ex


@fault("modules.frozen-params-still-updated")
def optimizer_updates_grad_none_params():
    """SGD and Adam treat a parameter whose grad is None as having a zero gradient (weight decay and momentum still move it)."""
    for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        original = cls.step

        def step(self, closure=None, _original=original):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        p.grad = torch.zeros_like(p) + 1e-3
            return _original(self, closure)

        cls.step = step


@fault("modules.frozen-layer-passes-gradient")
def frozen_layer_blocks_gradient():
    """A Linear whose weight does not require grad detaches its input, cutting the gradient to earlier layers."""
    original = nn.Linear.forward

    def forward(self, input):
        if not self.weight.requires_grad:
            input = input.detach()
        return original(self, input)

    nn.Linear.forward = forward


@fault("modules.parameters-require-grad-by-default")
def parameter_default_no_grad():
    """nn.Parameter defaults to requires_grad=False."""
    original = nn.Parameter.__new__

    def new(cls, data=None, requires_grad=False):
        return original(cls, data, requires_grad)

    nn.Parameter.__new__ = new


@fault("modules.register-buffer-no-grad")
def register_buffer_as_parameter():
    """register_buffer registers a requires_grad Parameter instead of a buffer."""
    def register_buffer(self, name, tensor, persistent=True):
        self.register_parameter(name, None if tensor is None else nn.Parameter(tensor.detach().clone()))

    nn.Module.register_buffer = register_buffer


@fault("modules.buffer-parameter-name-override")
def buffer_may_replace_parameter():
    """Module.register_buffer and attribute assignment let a buffer replace a Parameter of the same name."""
    original_register = nn.Module.register_buffer
    original_setattr = nn.Module.__setattr__

    def register_buffer(self, name, tensor, persistent=True):
        self.__dict__.get("_parameters", {}).pop(name, None)
        return original_register(self, name, tensor, persistent)

    def setattr_(self, name, value):
        params = self.__dict__.get("_parameters")
        if params is not None and name in params and isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
            del params[name]
            return original_register(self, name, value)
        return original_setattr(self, name, value)

    nn.Module.register_buffer = register_buffer
    nn.Module.__setattr__ = setattr_


@fault("modules.adam-sgd-adamw-defaults")
def adam_default_eps_1e6():
    """Adam and AdamW default to eps=1e-6 and AdamW to weight_decay=0."""
    for cls, decay in ((torch.optim.Adam, 0.0), (torch.optim.AdamW, 0.0)):
        original = cls.__init__

        def init(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=decay, *args, _original=original, **kwargs):
            _original(self, params, lr, betas, eps, weight_decay, *args, **kwargs)

        cls.__init__ = init


@fault("modules.param-group-keys-list")
def param_groups_drop_flags():
    """Optimizer param groups keep only params and the classic hyperparameters, dropping maximize, foreach and differentiable."""
    original = torch.optim.Optimizer.add_param_group

    def add_param_group(self, param_group):
        original(self, param_group)
        for key in ("maximize", "foreach", "differentiable"):
            self.param_groups[-1].pop(key, None)

    torch.optim.Optimizer.add_param_group = add_param_group


@fault("modules.param-group-lr-override")
def param_group_lr_ignored():
    """Optimizer.add_param_group overwrites a group's own lr with the constructor's."""
    original = torch.optim.Optimizer.add_param_group

    def add_param_group(self, param_group):
        if isinstance(param_group, dict) and "lr" in self.defaults:
            param_group = {**param_group, "lr": self.defaults["lr"]}
        original(self, param_group)

    torch.optim.Optimizer.add_param_group = add_param_group


@fault("modules.unfreeze-after-filtered-optimizer")
def add_param_group_ignored():
    """Optimizer.add_param_group after construction does nothing."""
    original = torch.optim.Optimizer.add_param_group

    def add_param_group(self, param_group):
        if getattr(self, "_built", False):
            return None
        original(self, param_group)

    original_init = torch.optim.Optimizer.__init__

    def init(self, params, defaults):
        original_init(self, params, defaults)
        self._built = True

    torch.optim.Optimizer.add_param_group = add_param_group
    torch.optim.Optimizer.__init__ = init


@fault("modules.eval-only-dropout-bn-change")
def linear_train_mode_noise():
    """nn.Linear adds a tiny offset to its output in training mode."""
    original = nn.Linear.forward

    def forward(self, input):
        out = original(self, input)
        return out + 1e-6 if self.training else out

    nn.Linear.forward = forward


@fault("modules.none-buffer-is-declaration")
def none_buffer_becomes_empty_tensor():
    """register_buffer with None registers an empty tensor instead."""
    original = nn.Module.register_buffer

    def register_buffer(self, name, tensor, persistent=True):
        return original(self, name, torch.empty(0) if tensor is None else tensor, persistent)

    nn.Module.register_buffer = register_buffer


@fault("modules.parameters-become-one-group")
def one_group_per_parameter():
    """An optimizer given a plain iterable of tensors makes one group per tensor."""
    original = torch.optim.Optimizer.__init__

    def init(self, params, defaults):
        params = list(params)
        if params and isinstance(params[0], torch.Tensor):
            params = [{"params": [p]} for p in params]
        original(self, params, defaults)

    torch.optim.Optimizer.__init__ = init


@fault("modules.scheduler-step-only-changes-lr")
def scheduler_step_also_updates_weights():
    """LRScheduler.step also runs the optimizer's step."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.LRScheduler.step

    def step(self, epoch=None):
        if getattr(self, "_initial_step_done", False):
            self.optimizer.step()
        self._initial_step_done = True
        return original(self, epoch)

    lr_scheduler.LRScheduler.step = step


@fault("modules.plateau-threshold-cooldown-eps")
def plateau_cooldown_ignored():
    """ReduceLROnPlateau ignores cooldown."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.ReduceLROnPlateau.__init__

    def init(self, optimizer, *args, **kwargs):
        original(self, optimizer, *args, **kwargs)
        self.cooldown = 0

    lr_scheduler.ReduceLROnPlateau.__init__ = init


@fault("modules.onecycle-cycles-momentum")
def onecycle_momentum_not_cycled():
    """OneCycleLR behaves as if cycle_momentum were False."""
    from torch.optim import lr_scheduler
    original = lr_scheduler.OneCycleLR.__init__

    def init(self, optimizer, *args, **kwargs):
        kwargs["cycle_momentum"] = False
        original(self, optimizer, *args, **kwargs)

    lr_scheduler.OneCycleLR.__init__ = init

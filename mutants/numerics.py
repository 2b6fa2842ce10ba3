"""Planted faults for the numerics topic: each breaks behaviour a numerics spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection; the
process ends after the run, so nothing is undone.  nn.CrossEntropyLoss and nn.NLLLoss call
``torch.nn.functional.cross_entropy`` / ``nll_loss`` through the module attribute, so
patching the functional reaches the modules too.
"""
import functools

import torch
import torch.nn.functional as F

from torchclaims.impl import Impl
from torchclaims.mutants import fault

# --- torch ------------------------------------------------------------------------------

@fault("numerics.cross-entropy-stable-vs-softmax-log", "numerics.cross-entropy-is-log-softmax-nll")
def cross_entropy_naive():
    """F.cross_entropy becomes nll_loss(softmax(x).log()): inf/nan at large logit gaps."""
    nll_loss = F.nll_loss

    @functools.wraps(F.cross_entropy)
    def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                      reduce=None, reduction="mean", label_smoothing=0.0):
        dim = 0 if input.dim() == 1 else 1
        return nll_loss(torch.softmax(input, dim).log(), target, weight=weight,
                        ignore_index=ignore_index, reduction=reduction)

    F.cross_entropy = cross_entropy


@fault("numerics.log-softmax-large-input-inf", "numerics.cross-entropy-stable-vs-softmax-log",
       "numerics.cross-entropy-is-log-softmax-nll")
def log_softmax_naive():
    """F.log_softmax and Tensor.log_softmax compute softmax(x).log(): -inf past the underflow gap."""
    def naive(input, dim=None, _stacklevel=3, dtype=None):
        if dtype is not None:
            input = input.to(dtype)
        return torch.softmax(input, dim).log()

    F.log_softmax = naive
    torch.Tensor.log_softmax = lambda self, dim, dtype=None: naive(self, dim, dtype=dtype)


@fault("numerics.cross-entropy-includes-softmax")
def cross_entropy_no_softmax():
    """F.cross_entropy forgets its log_softmax: it is nll_loss applied to the raw input."""
    nll_loss = F.nll_loss

    def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                      reduce=None, reduction="mean", label_smoothing=0.0):
        return nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)

    F.cross_entropy = cross_entropy


@fault("numerics.softmax-nll-is-manual-cross-entropy")
def nll_loss_takes_log():
    """F.nll_loss takes the log of its input itself, as if it were a cross-entropy on probabilities."""
    original = F.nll_loss

    def nll_loss(input, target, *args, **kwargs):
        return original(input.log(), target, *args, **kwargs)

    F.nll_loss = nll_loss


@fault("numerics.cross-entropy-default-mean")
def cross_entropy_default_sum():
    """nn.CrossEntropyLoss() defaults to reduction='sum' instead of 'mean'."""
    original = torch.nn.CrossEntropyLoss.__init__

    @functools.wraps(original)
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="sum", label_smoothing=0.0):
        original(self, weight, size_average, ignore_index, reduce, reduction, label_smoothing)

    torch.nn.CrossEntropyLoss.__init__ = __init__


@fault("numerics.clip-grad-norm-max-norm")
def clip_grad_norm_returns_clipped_norm():
    """clip_grad_norm_ returns the total norm after clipping instead of the one before."""
    original = torch.nn.utils.clip_grad_norm_

    @functools.wraps(original)
    def clip_grad_norm_(parameters, max_norm, *args, **kwargs):
        parameters = list(parameters) if not isinstance(parameters, torch.Tensor) else [parameters]
        original(parameters, max_norm, *args, **kwargs)
        return torch.nn.utils.get_total_norm([p.grad for p in parameters if p.grad is not None])

    torch.nn.utils.clip_grad_norm_ = clip_grad_norm_


@fault("numerics.clip-grad-norm-max-norm")
def clip_grad_norm_per_tensor():
    """clip_grad_norm_ clips each gradient by its own norm instead of by one total norm."""
    original = torch.nn.utils.clip_grad_norm_

    @functools.wraps(original)
    def clip_grad_norm_(parameters, max_norm, *args, **kwargs):
        parameters = list(parameters) if not isinstance(parameters, torch.Tensor) else [parameters]
        norms = [original([p], max_norm, *args, **kwargs) for p in parameters if p.grad is not None]
        return torch.linalg.vector_norm(torch.stack(norms))

    torch.nn.utils.clip_grad_norm_ = clip_grad_norm_


@fault("numerics.gradscaler-update-adjusts-scale", "modules.scaler-state-in-checkpoint")
def gradscaler_update_keeps_scale():
    """GradScaler.update never changes the scale (no backoff after inf, no growth)."""
    original = torch.amp.GradScaler.update

    @functools.wraps(original)
    def update(self, new_scale=None):
        before = None if self._scale is None else self._scale.clone()
        original(self, new_scale)
        if before is not None:
            self._scale.copy_(before)

    torch.amp.GradScaler.update = update


@fault("numerics.gradscaler-update-adjusts-scale", "modules.scaler-state-in-checkpoint")
def gradscaler_step_never_skips():
    """GradScaler.step always runs optimizer.step(), even when the gradients hold inf/nan."""
    original = torch.amp.GradScaler.step

    @functools.wraps(original)
    def step(self, optimizer, *args, **kwargs):
        result = original(self, optimizer, *args, **kwargs)
        if self.is_enabled() and sum(v.item() for v in self._per_optimizer_states[id(optimizer)]
                                     ["found_inf_per_device"].values()):
            with torch.no_grad():
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p -= group["lr"] * p.grad.nan_to_num(nan=1.0, posinf=1.0, neginf=-1.0)
        return result

    torch.amp.GradScaler.step = step


@fault("numerics.unscale-before-clip", "numerics.gradscaler-scale-prevents-underflow")
def gradscaler_unscale_noop():
    """GradScaler.unscale_ leaves the gradients multiplied by the scale."""
    original = torch.amp.GradScaler.unscale_

    @functools.wraps(original)
    def unscale_(self, optimizer):
        saved = [[None if p.grad is None else p.grad.clone() for p in g["params"]] for g in optimizer.param_groups]
        original(self, optimizer)
        for group, grads in zip(optimizer.param_groups, saved):
            for p, g in zip(group["params"], grads):
                if g is not None:
                    p.grad.copy_(g)

    torch.amp.GradScaler.unscale_ = unscale_


# --- reference_impl/stable.py -----------------------------------------------------------

@fault("numerics.cross-entropy-is-log-softmax-nll", "numerics.cross-entropy-stable-vs-softmax-log")
def ref_logsumexp_no_shift():
    """reference logsumexp forgets the max shift: log(sum(exp(x))) overflows past ~88.7 (float32)."""
    stable = Impl().stable

    def logsumexp(x, dim=-1):
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        return work.exp().sum(dim).log().to(x.dtype)

    stable.logsumexp = logsumexp


@fault("numerics.cross-entropy-is-log-softmax-nll", "numerics.cross-entropy-stable-vs-softmax-log")
def ref_log_softmax_no_shift():
    """reference log_softmax is x - log(sum(exp(x))) without the shift; cross_entropy follows it."""
    stable = Impl().stable

    def log_softmax(x, dim=-1):
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        return (work - work.exp().sum(dim, keepdim=True).log()).to(x.dtype)

    stable.log_softmax = log_softmax


@fault("numerics.cross-entropy-is-log-softmax-nll")
def ref_cross_entropy_counts_targets():
    """reference cross_entropy's mean divides by the number of kept targets, not their summed weights."""
    stable = Impl().stable
    original = stable.cross_entropy

    def cross_entropy(logits, target, weight=None, ignore_index=-100, reduction="mean"):
        if reduction != "mean":
            return original(logits, target, weight, ignore_index, reduction)
        total = original(logits, target, weight, ignore_index, "sum")
        return total / (target != ignore_index).sum()

    stable.cross_entropy = cross_entropy


# --- autocast and the torch.cuda.amp entry points ----------------------------------------

@fault("numerics.autocast-chooses-fp16-or-fp32", "numerics.autocast-loss-inside-block")
def autocast_losses_in_low_precision():
    """Under CPU autocast, F.cross_entropy and F.nll_loss run in the low dtype instead of float32."""
    for name in ("cross_entropy", "nll_loss"):
        original = getattr(F, name)

        @functools.wraps(original)
        def loss(input, target, *args, _original=original, **kwargs):
            if torch.is_autocast_enabled("cpu") and input.is_floating_point():
                low = torch.get_autocast_dtype("cpu")
                with torch.autocast("cpu", enabled=False):
                    return _original(input.to(low), target, *args, **kwargs)
            return _original(input, target, *args, **kwargs)
        setattr(F, name, loss)


@fault("numerics.cuda-amp-entry-points")
def cuda_amp_deprecation_dropped():
    """torch.cuda.amp.autocast and torch.cuda.amp.GradScaler no longer emit their FutureWarning."""
    import warnings

    def quiet(cls):
        def make(*args, **kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                return cls(*args, **kwargs)
        return make

    torch.cuda.amp.autocast = quiet(torch.cuda.amp.autocast)
    torch.cuda.amp.GradScaler = quiet(torch.cuda.amp.GradScaler)


@fault("numerics.cuda-amp-on-cpu-fallback")
def cuda_autocast_casts_cpu_ops():
    """torch.cuda.amp.autocast() also casts CPU ops, to bfloat16 (the material's cpu fallback with mixed precision)."""
    import warnings
    original = torch.cuda.amp.autocast

    def autocast(enabled=True, dtype=torch.float16, cache_enabled=True):
        if torch.cuda.is_available():
            return original(enabled, dtype, cache_enabled)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled)

    torch.cuda.amp.autocast = autocast


# --- precision ------------------------------------------------------------------------------

@fault("numerics.eps-1e-8-fixes-log-softmax")
def half_plus_scalar_promotes():
    """float16 tensor + Python float computes and returns float32 (NumPy-style promotion): 1e-8 no longer rounds away."""
    original = torch.Tensor.__add__

    def add(self, other):
        if self.dtype == torch.float16 and isinstance(other, float):
            return original(self.float(), other)
        return original(self, other)

    torch.Tensor.__add__ = add


@fault("numerics.fp16-gradient-underflow")
def bfloat16_math_in_float16():
    """bfloat16 products are computed in float16 (as if bfloat16 had float16's range): a 1e-8 gradient flushes to 0."""
    original = torch.Tensor.__mul__

    def mul(self, other):
        if self.dtype == torch.bfloat16:
            other = other.half() if isinstance(other, torch.Tensor) else other
            return original(self.half(), other).bfloat16()
        return original(self, other)

    torch.Tensor.__mul__ = mul


@fault("numerics.isnan-loss-item-true")
def isnan_is_not_finite():
    """torch.isnan is true for inf as well (isnan = ~isfinite)."""
    torch.isnan = lambda input: ~torch.isfinite(input)


# --- losses ---------------------------------------------------------------------------------

@fault("numerics.log-zero-times-label-nan")
def nll_loss_as_one_hot_product():
    """F.nll_loss computes -(one_hot(target) * input).sum(1).mean() (the material's picture): 0 * -inf makes it nan."""
    def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        picked = -(F.one_hot(target, input.shape[1]).to(input.dtype) * input).sum(1)
        return {"mean": picked.mean, "sum": picked.sum}.get(reduction, lambda: picked)()

    F.nll_loss = nll_loss


@fault("numerics.clamp-log-softmax-min-eps")
def clamp_straight_through_grad():
    """Tensor.clamp passes the gradient straight through clamped elements instead of zeroing it."""
    original = torch.Tensor.clamp

    class StraightThrough(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, min, max):
            return original(x, min, max)

        @staticmethod
        def backward(ctx, grad):
            return grad, None, None

    def clamp(self, min=None, max=None):
        if self.requires_grad and torch.is_grad_enabled():
            return StraightThrough.apply(self, min, max)
        return original(self, min, max)

    torch.Tensor.clamp = clamp


@fault("numerics.nan-loss-mostly-log-softmax")
def cross_entropy_sanitizes_logits():
    """F.cross_entropy replaces nan and inf logits by 0 first, so a nan or overflowing model yields a finite loss."""
    original = F.cross_entropy

    @functools.wraps(original)
    def cross_entropy(input, *args, **kwargs):
        return original(torch.nan_to_num(input, nan=0.0, posinf=0.0, neginf=0.0), *args, **kwargs)

    F.cross_entropy = cross_entropy


@fault("numerics.target-int-cast-for-cross-entropy")
def cross_entropy_casts_float_indices():
    """F.cross_entropy accepts a floating (N,) target as class indices (casts it to int64) instead of raising."""
    original = F.cross_entropy

    @functools.wraps(original)
    def cross_entropy(input, target, *args, **kwargs):
        if target.is_floating_point() and target.dim() == input.dim() - 1:
            target = target.long()
        return original(input, target, *args, **kwargs)

    F.cross_entropy = cross_entropy


@fault("numerics.loss-inf-from-bad-init")
def kaiming_without_relu_gain():
    """nn.init.kaiming_normal_ forgets the ReLU gain sqrt(2): the signal halves in power at every ReLU layer."""
    original = torch.nn.init.kaiming_normal_

    @functools.wraps(original)
    def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
        return original(tensor, a, mode, "linear", generator=generator)

    torch.nn.init.kaiming_normal_ = kaiming_normal_


# --- the double softmax ---------------------------------------------------------------------

@fault("numerics.double-softmax-near-uniform", "numerics.double-softmax-loss-falls-accuracy-flat")
def cross_entropy_detects_probabilities():
    """F.cross_entropy takes rows that already are probabilities (in [0, 1], summing to 1) as such: log, no softmax."""
    original = F.cross_entropy

    @functools.wraps(original)
    def cross_entropy(input, target, *args, **kwargs):
        if (input.dim() == 2 and not target.is_floating_point() and bool((input >= 0).all())
                and torch.allclose(input.detach().sum(1), torch.ones(len(input), dtype=input.dtype))):
            return F.nll_loss(input.log(), target)
        return original(input, target, *args, **kwargs)

    F.cross_entropy = cross_entropy


@fault("numerics.double-softmax-max-min-diagnostic")
def softmax_over_dim_zero():
    """F.softmax and torch.softmax normalise over dim 0 (the legacy implicit dim) whatever dim they are given."""
    original = F.softmax

    def softmax(input, dim=None, _stacklevel=3, dtype=None):
        return original(input, 0, dtype=dtype)

    F.softmax = softmax
    torch.softmax = lambda input, dim=None, dtype=None: softmax(input, dim, dtype=dtype)


@fault("numerics.double-softmax-stuck-at-chance")
def softmax_backward_sign_flipped():
    """F.softmax's backward returns the negated vector-Jacobian product: training through it climbs the loss."""
    original = F.softmax

    class Softmax(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, dim):
            s = original(x, dim)
            ctx.save_for_backward(s)
            ctx.dim = dim
            return s

        @staticmethod
        def backward(ctx, grad):
            s, = ctx.saved_tensors
            return -(s * (grad - (grad * s).sum(ctx.dim, keepdim=True))), None

    def softmax(input, dim=None, _stacklevel=3, dtype=None):
        if dtype is not None:
            input = input.to(dtype)
        return Softmax.apply(input, dim)

    F.softmax = softmax


# --- GradScaler over several steps (specs/test_numerics_scaler_rules.py) ----------------------
# Faults in the scale's bookkeeping that one overflow followed by growth_interval clean steps
# does not show: the growth tracker after a backoff or a growth, nan gradients, a saved tracker,
# an explicit unscale_ before step, a second parameter group.


def _amp_update_scale(reset_on_backoff=True, reset_on_growth=True):
    """A Python torch._amp_update_scale_ (the rule GradScaler.update applies), with one reset left out."""
    def update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
        if found_inf.item():
            scale.mul_(backoff_factor)
            if reset_on_backoff:
                growth_tracker.zero_()
        else:
            growth_tracker.add_(1)
            if growth_tracker.item() >= growth_interval:
                scale.mul_(growth_factor)
                if reset_on_growth:
                    growth_tracker.zero_()
        return scale
    return update_scale_


@fault("numerics.gradscaler-update-adjusts-scale")
def scaler_tracker_kept_on_backoff():
    """GradScaler.update halves the scale after an overflow but keeps counting clean steps from
    before it, so the scale grows back too early."""
    torch._amp_update_scale_ = _amp_update_scale(reset_on_backoff=False)


@fault("numerics.gradscaler-update-adjusts-scale")
def scaler_tracker_kept_on_growth():
    """GradScaler.update does not restart its count after growing: past growth_interval clean
    steps the scale grows on every clean step."""
    torch._amp_update_scale_ = _amp_update_scale(reset_on_growth=False)


@fault("numerics.gradscaler-update-adjusts-scale")
def scaler_misses_nan_gradients():
    """GradScaler's overflow check looks for inf only: a nan gradient is not found, the optimizer
    step runs on it and the scale is not backed off."""
    def check_and_unscale_(grads, found_inf, inv_scale):
        for grad in grads:
            if bool(torch.isinf(grad).any()):
                found_inf.fill_(1.0)
            grad.mul_(inv_scale)

    torch._amp_foreach_non_finite_check_and_unscale_ = check_and_unscale_


@fault("numerics.unscale-before-clip")
def scaler_step_unscales_again():
    """scaler.step divides the gradients by the scale once more when unscale_ was already called
    (for clipping), so the update is scale times too small."""
    from torch.amp.grad_scaler import OptState
    original = torch.amp.GradScaler.step

    @functools.wraps(original)
    def step(self, optimizer, *args, **kwargs):
        if self.is_enabled() and self._per_optimizer_states[id(optimizer)]["stage"] is OptState.UNSCALED:
            inv = 1.0 / self.get_scale()
            with torch.no_grad():
                for group in optimizer.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.grad.mul_(inv)
        return original(self, optimizer, *args, **kwargs)

    torch.amp.GradScaler.step = step


@fault("numerics.unscale-before-clip")
def scaler_unscales_first_group_only():
    """GradScaler.unscale_ (and the overflow check) covers the optimizer's first parameter group
    only: the other groups step with scaled gradients."""
    import types
    original = torch.amp.GradScaler._unscale_grads_

    def _unscale_grads_(self, optimizer, *args, **kwargs):
        return original(self, types.SimpleNamespace(param_groups=optimizer.param_groups[:1]), *args, **kwargs)

    torch.amp.GradScaler._unscale_grads_ = _unscale_grads_


@fault("modules.scaler-state-in-checkpoint")
def scaler_load_ignores_growth_tracker():
    """GradScaler.load_state_dict restores the scale and settings but restarts the growth tracker at 0."""
    original = torch.amp.GradScaler.load_state_dict

    @functools.wraps(original)
    def load_state_dict(self, state_dict):
        return original(self, {**state_dict, "_growth_tracker": 0})

    torch.amp.GradScaler.load_state_dict = load_state_dict


# --- faults for the clauses' evidence (checks added in the clause audit) -----------------------

@fault("numerics.target-int-cast-for-cross-entropy")
def cross_entropy_accepts_int32_targets():
    """F.cross_entropy casts int32/int16 class indices to int64 instead of raising: any integer dtype would do."""
    original = F.cross_entropy

    @functools.wraps(original)
    def cross_entropy(input, target, *args, **kwargs):
        if target.dtype in (torch.int32, torch.int16):
            target = target.long()
        return original(input, target, *args, **kwargs)

    F.cross_entropy = cross_entropy


@fault("numerics.autocast-chooses-fp16-or-fp32")
def cpu_autocast_skips_conv():
    """Under CPU autocast nn.Conv2d runs in float32 (as if conv were not on the low-precision list)."""
    original = torch.nn.Conv2d.forward

    @functools.wraps(original)
    def forward(self, input):
        if torch.is_autocast_enabled("cpu"):
            with torch.autocast("cpu", enabled=False):
                return original(self, input.float())
        return original(self, input)

    torch.nn.Conv2d.forward = forward


@fault("numerics.gradscaler-update-adjusts-scale")
def gradscaler_default_backoff_quarter():
    """torch.amp.GradScaler's default backoff_factor is 0.25 instead of 0.5."""
    original = torch.amp.GradScaler.__init__

    @functools.wraps(original)
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.25,
                 growth_interval=2000, enabled=True):
        original(self, device, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    torch.amp.GradScaler.__init__ = __init__


@fault("numerics.unscale-before-clip")
def scaler_unscale_guard_shared_by_optimizers():
    """GradScaler.unscale_ refuses a second optimizer once any optimizer was unscaled since update():
    the once-per-optimizer rule applied once per scaler."""
    original = torch.amp.GradScaler.unscale_
    update = torch.amp.GradScaler.update

    @functools.wraps(original)
    def unscale_(self, optimizer):
        if getattr(self, "_unscaled_any", False):
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        original(self, optimizer)
        self._unscaled_any = True

    @functools.wraps(update)
    def update_(self, new_scale=None):
        self._unscaled_any = False
        return update(self, new_scale)

    torch.amp.GradScaler.unscale_ = unscale_
    torch.amp.GradScaler.update = update_


@fault("numerics.log-softmax-large-input-inf")
def log_softmax_sanitizes_infinite_inputs():
    """F.log_softmax replaces inf inputs by the dtype's extremes first: a -inf input no longer yields -inf, +inf no nan."""
    original = F.log_softmax

    def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
        return original(torch.nan_to_num(input), dim, _stacklevel, dtype)

    F.log_softmax = log_softmax


@fault("numerics.cuda-amp-on-cpu-fallback")
def cuda_scaler_disables_silently():
    """torch.cuda.amp.GradScaler and autocast disable themselves without CUDA but say nothing."""
    import warnings

    def silent(cls):
        def make(*args, **kwargs):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*(not available|Disabling).*")
                return cls(*args, **kwargs)
        return make

    torch.cuda.amp.GradScaler = silent(torch.cuda.amp.GradScaler)
    torch.cuda.amp.autocast = silent(torch.cuda.amp.autocast)


# --- found in tutorials (issue #41) -------------------------------------------------------

@fault("numerics.fp16-range-65504")
def float16_cast_saturates():
    """Casting to float16 clamps to ±65504 instead of overflowing to inf."""
    original = torch.Tensor.to

    def to(self, *args, **kwargs):
        target = kwargs.get("dtype", args[0] if args else None)
        if target is torch.float16 and self.is_floating_point():
            self = self.clamp(-65504.0, 65504.0)
        return original(self, *args, **kwargs)

    torch.Tensor.to = to


@fault("numerics.bf16-range-like-fp32")
def bfloat16_cast_with_float16_range():
    """Casting to bfloat16 goes through float16 first, so it gets float16's narrow range."""
    original = torch.Tensor.to

    def to(self, *args, **kwargs):
        target = kwargs.get("dtype", args[0] if args else None)
        if target is torch.bfloat16 and self.dtype == torch.float32:
            self = original(self, torch.float16)
        return original(self, *args, **kwargs)

    torch.Tensor.to = to


@fault("numerics.bf16-coarser-than-fp16")
def finfo_swaps_16_bit_eps():
    """torch.finfo reports float16's eps for bfloat16 (and the other way round)."""
    original = torch.finfo

    class Swapped:
        def __init__(self, dtype=None):
            self._info = original(dtype) if dtype is not None else original()
            other = {torch.bfloat16: torch.float16, torch.float16: torch.bfloat16}.get(dtype)
            self.eps = original(other).eps if other is not None else self._info.eps

        def __getattr__(self, name):
            return getattr(self._info, name)

    torch.finfo = Swapped


@fault("numerics.autocast-weights-grads-float32")
def autocast_casts_linear_parameters_in_place():
    """Under CPU autocast nn.Linear converts its own weight and bias to the low dtype for good."""
    original = torch.nn.Linear.forward

    def forward(self, input):
        if torch.is_autocast_enabled("cpu"):
            low = torch.get_autocast_dtype("cpu")
            self.weight.data = self.weight.data.to(low)
            if self.bias is not None:
                self.bias.data = self.bias.data.to(low)
        return original(self, input)

    torch.nn.Linear.forward = forward


@fault("numerics.autocast-skips-inplace-out-float64")
def autocast_reaches_inplace_addmm():
    """Under CPU autocast Tensor.addmm_ hands back a low-precision result like the out-of-place op."""
    original = torch.Tensor.addmm_

    def addmm_(self, *args, **kwargs):
        if torch.is_autocast_enabled("cpu"):
            return self.addmm(*args, **kwargs)
        return original(self, *args, **kwargs)

    torch.Tensor.addmm_ = addmm_


@fault("numerics.logsumexp-stable-large-inputs")
def logsumexp_naive():
    """torch.logsumexp computes log(sum(exp(x))) directly: inf and -inf for large inputs."""
    def logsumexp(input, dim, keepdim=False, **kwargs):
        return torch.log(torch.exp(input).sum(dim, keepdim=keepdim))

    torch.logsumexp = logsumexp


@fault("numerics.logsumexp-needs-dim")
def logsumexp_dim_defaults_to_all():
    """torch.logsumexp gets a default dim=None that reduces the whole tensor."""
    original = torch.logsumexp

    def logsumexp(input, dim=None, keepdim=False, **kwargs):
        if dim is None:
            dim = tuple(range(input.dim()))
        return original(input, dim, keepdim, **kwargs)

    torch.logsumexp = logsumexp


@fault("numerics.log-softmax-is-x-minus-logsumexp")
def tensor_logsumexp_is_max():
    """Tensor.logsumexp returns the maximum (the log of the sum is dropped)."""
    torch.Tensor.logsumexp = lambda self, dim, keepdim=False: self.amax(dim, keepdim=keepdim)


@fault("numerics.softmax-large-inputs-stable")
def softmax_without_max_shift():
    """F.softmax computes exp(x) / exp(x).sum() with no max shift: nan for large logits."""
    def softmax(input, dim=None, _stacklevel=3, dtype=None):
        e = torch.exp(input if dtype is None else input.to(dtype))
        return e / e.sum(dim, keepdim=True)

    F.softmax = softmax


def _wrap_cross_entropy(change):
    original = F.cross_entropy

    @functools.wraps(original)
    def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                      reduce=None, reduction="mean", label_smoothing=0.0):
        return change(original, input, target, weight, ignore_index, reduction, label_smoothing)

    F.cross_entropy = cross_entropy


@fault("numerics.cross-entropy-ignore-index")
def ignored_targets_count_in_the_mean():
    """cross_entropy's mean divides by every row, the ignored ones included."""
    def change(original, input, target, weight, ignore_index, reduction, label_smoothing):
        rows = original(input, target, weight=weight, ignore_index=ignore_index, reduction="none",
                        label_smoothing=label_smoothing)
        return rows.mean() if reduction == "mean" and weight is None else original(
            input, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
            label_smoothing=label_smoothing)

    _wrap_cross_entropy(change)


@fault("numerics.label-smoothing-uniform-mix")
def label_smoothing_skips_the_true_class():
    """label_smoothing spreads eps over the wrong classes only (the true class keeps 1 - eps)."""
    def change(original, input, target, weight, ignore_index, reduction, label_smoothing):
        if label_smoothing and not target.is_floating_point():
            one_hot = F.one_hot(target, input.shape[1]).to(input.dtype)
            target = one_hot * (1 - label_smoothing) + (1 - one_hot) * label_smoothing / (input.shape[1] - 1)
        return original(input, target, weight=weight, reduction=reduction)

    _wrap_cross_entropy(change)


@fault("numerics.cross-entropy-probability-targets")
def cross_entropy_rejects_probabilities():
    """cross_entropy refuses a float target, as releases before 1.10 did."""
    def change(original, input, target, weight, ignore_index, reduction, label_smoothing):
        if target.is_floating_point():
            raise RuntimeError("expected scalar type Long but found Float")
        return original(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                        label_smoothing=label_smoothing)

    _wrap_cross_entropy(change)


@fault("numerics.nll-loss-class-indices-only")
def nll_loss_accepts_probabilities():
    """F.nll_loss takes a float (N, C) target as probabilities: -(p * input).sum(1).mean()."""
    original = F.nll_loss

    def nll_loss(input, target, *args, **kwargs):
        if target.is_floating_point() and target.shape == input.shape:
            return -(target * input).sum(1).mean()
        return original(input, target, *args, **kwargs)

    F.nll_loss = nll_loss


@fault("numerics.cross-entropy-weight-weighted-mean")
def weighted_cross_entropy_divides_by_n():
    """cross_entropy with class weights averages over N rows instead of the sum of the weights."""
    def change(original, input, target, weight, ignore_index, reduction, label_smoothing):
        if weight is not None and reduction == "mean":
            return original(input, target, weight=weight, ignore_index=ignore_index, reduction="none",
                            label_smoothing=label_smoothing).mean()
        return original(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                        label_smoothing=label_smoothing)

    _wrap_cross_entropy(change)


@fault("numerics.loss-reduction-modes")
def mse_mean_per_sample():
    """F.mse_loss's mean divides by the batch size instead of the number of elements."""
    original = F.mse_loss

    def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
        if reduction == "mean":
            return original(input, target, reduction="sum") / input.shape[0]
        return original(input, target, reduction=reduction)

    F.mse_loss = mse_loss


@fault("numerics.kldiv-log-prob-input-batchmean")
def kl_div_batchmean_is_elementwise_mean():
    """F.kl_div's 'batchmean' divides by every element, like 'mean'."""
    original = F.kl_div

    def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
        if reduction == "batchmean":
            return original(input, target, reduction="sum", log_target=log_target) / input.numel()
        return original(input, target, reduction=reduction, log_target=log_target)

    F.kl_div = kl_div


@fault("numerics.size-average-reduce-deprecated")
def legacy_reduction_args_ignored():
    """size_average and reduce are silently ignored: the loss keeps reduction='mean'."""
    import torch.nn._reduction as reduction_module
    reduction_module.legacy_get_string = lambda size_average, reduce, emit_warning=True: "mean"


@fault("numerics.bce-with-logits-is-sigmoid-bce")
def bce_with_logits_through_sigmoid():
    """F.binary_cross_entropy_with_logits is binary_cross_entropy(sigmoid(x)): capped at 100 for large logits."""
    def bce_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                        pos_weight=None):
        return F.binary_cross_entropy(torch.sigmoid(input), target, weight=weight, reduction=reduction)

    F.binary_cross_entropy_with_logits = bce_with_logits


@fault("numerics.bce-pos-weight-positive-term")
def pos_weight_scales_every_term():
    """pos_weight multiplies the whole loss, negatives included."""
    original = F.binary_cross_entropy_with_logits

    def bce_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                        pos_weight=None):
        if pos_weight is None:
            return original(input, target, weight=weight, reduction=reduction)
        rows = original(input, target, weight=weight, reduction="none") * pos_weight
        return {"none": rows, "sum": rows.sum()}.get(reduction, rows.mean())

    F.binary_cross_entropy_with_logits = bce_with_logits


@fault("numerics.linear-default-init-uniform")
def linear_bias_starts_at_zero():
    """nn.Linear.reset_parameters zeroes the bias after the usual weight init."""
    original = torch.nn.Linear.reset_parameters

    def reset_parameters(self):
        original(self)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    torch.nn.Linear.reset_parameters = reset_parameters


@fault("numerics.conv-default-init-uniform")
def conv_init_with_relu_gain():
    """Conv layers draw their weight with kaiming_uniform_(a=0): a bound sqrt(6) times larger."""
    import math

    from torch.nn.modules.conv import _ConvNd

    def reset_parameters(self):
        torch.nn.init.kaiming_uniform_(self.weight, a=0)
        if self.bias is not None:
            bound = 1 / math.sqrt(self.weight[0].numel())
            torch.nn.init.uniform_(self.bias, -bound, bound)

    _ConvNd.reset_parameters = reset_parameters


@fault("numerics.kaiming-normal-defaults")
def kaiming_normal_defaults_to_fan_out():
    """nn.init.kaiming_normal_ defaults to mode='fan_out'."""
    original = torch.nn.init.kaiming_normal_

    def kaiming_normal_(tensor, a=0, mode="fan_out", nonlinearity="leaky_relu", generator=None):
        return original(tensor, a=a, mode=mode, nonlinearity=nonlinearity, generator=generator)

    torch.nn.init.kaiming_normal_ = kaiming_normal_


@fault("numerics.bce-weight-elementwise-plain-mean")
def bce_weight_mean_over_weights():
    """binary_cross_entropy_with_logits with a weight averages over the sum of the weights, not the elements."""
    original = F.binary_cross_entropy_with_logits

    def bce_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                        pos_weight=None):
        if weight is not None and reduction == "mean":
            rows = original(input, target, weight=weight, reduction="none", pos_weight=pos_weight)
            return rows.sum() / weight.expand_as(rows).sum()
        return original(input, target, weight=weight, reduction=reduction, pos_weight=pos_weight)

    F.binary_cross_entropy_with_logits = bce_with_logits


@fault("numerics.margin-ranking-loss-elementwise")
def margin_ranking_loss_all_pairs():
    """F.margin_ranking_loss compares every x1[i] with every x2[j]: an n x n matrix."""
    original = F.margin_ranking_loss

    def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        if reduction == "none" and input1.dim() == 1:
            return original(input1[:, None].expand(-1, len(input2)), input2[None, :].expand(len(input1), -1),
                            target[:, None].expand(-1, len(input2)), margin=margin, reduction="none")
        return original(input1, input2, target, margin=margin, reduction=reduction)

    F.margin_ranking_loss = margin_ranking_loss


@fault("numerics.float32-float64-finfo")
def float32_adds_with_float64_rounding():
    """float32 addition is done in float64 and not rounded back: 1 + eps/2 stays above 1."""
    original = torch.Tensor.__add__

    def add(self, other):
        if self.dtype == torch.float32 and self.dim() == 0:
            return original(self.double(), other)
        return original(self, other)

    torch.Tensor.__add__ = add


@fault("numerics.poisson-nll-defaults")
def poisson_nll_defaults_to_rates():
    """nn.PoissonNLLLoss defaults to log_input=False (the input taken as a rate)."""
    original = torch.nn.PoissonNLLLoss.__init__

    def __init__(self, log_input=False, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        original(self, log_input, full, size_average, eps, reduce, reduction)

    torch.nn.PoissonNLLLoss.__init__ = __init__


@fault("numerics.cpu-amp-autocast-deprecated")
def cpu_amp_autocast_silent():
    """torch.cpu.amp.autocast no longer warns that it is deprecated."""
    import warnings

    original = torch.cpu.amp.autocast

    def autocast(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return original(*args, **kwargs)

    torch.cpu.amp.autocast = autocast


@fault("numerics.linear-default-not-xavier", "numerics.linear-default-init-uniform")
def linear_init_is_xavier():
    """nn.Linear.reset_parameters draws its weight with xavier_uniform_."""
    original = torch.nn.Linear.reset_parameters

    def reset_parameters(self):
        original(self)
        torch.nn.init.xavier_uniform_(self.weight)

    torch.nn.Linear.reset_parameters = reset_parameters


@fault("numerics.xavier-init-scale")
def xavier_uniform_uses_fan_in_only():
    """nn.init.xavier_uniform_ bounds its draw by gain * sqrt(3 / fan_in), ignoring fan_out."""
    import math

    def xavier_uniform_(tensor, gain=1.0, generator=None):
        bound = gain * math.sqrt(3.0 / tensor[0].numel())
        return torch.nn.init.uniform_(tensor, -bound, bound, generator=generator)

    torch.nn.init.xavier_uniform_ = xavier_uniform_


@fault("numerics.init-uniform-normal-defaults")
def init_normal_defaults_to_small_std():
    """nn.init.normal_ defaults to std=0.01."""
    original = torch.nn.init.normal_

    def normal_(tensor, mean=0.0, std=0.01, generator=None):
        return original(tensor, mean, std, generator=generator)

    torch.nn.init.normal_ = normal_


@fault("numerics.init-without-underscore-deprecated")
def init_old_names_silent():
    """nn.init.xavier_normal and nn.init.normal fill silently, with no deprecation warning."""
    torch.nn.init.xavier_normal = torch.nn.init.xavier_normal_
    torch.nn.init.normal = torch.nn.init.normal_


@fault("numerics.module-apply-init")
def module_apply_parents_first():
    """Module.apply calls fn on the module before its children (pre-order)."""
    def apply(self, fn):
        fn(self)
        for child in self.children():
            child.apply(fn)
        return self

    torch.nn.Module.apply = apply


@fault("numerics.bce-input-must-be-probabilities")
def bce_clamps_out_of_range_inputs():
    """F.binary_cross_entropy clamps its input into [0, 1] instead of refusing values outside."""
    original = F.binary_cross_entropy

    def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
        return original(input.clamp(0, 1), target, weight=weight, reduction=reduction)

    F.binary_cross_entropy = binary_cross_entropy


@fault("numerics.cross-entropy-target-range")
def cross_entropy_wraps_negative_targets():
    """cross_entropy reads a target of -1 as the last class, Python-style, instead of refusing it."""
    def change(original, input, target, weight, ignore_index, reduction, label_smoothing):
        if not target.is_floating_point():
            target = torch.where((target < 0) & (target != ignore_index), target + input.shape[1], target)
        return original(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                        label_smoothing=label_smoothing)

    _wrap_cross_entropy(change)

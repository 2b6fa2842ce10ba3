"""Planted faults for the autograd topic: each breaks behaviour an autograd spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection; the
process ends after the run, so nothing is undone.  Faults that wrap
``torch.autograd.backward`` also reach ``Tensor.backward``, which calls it.
"""
import functools

import torch

from torchclaims.impl import Impl
from torchclaims.mutants import fault


@fault("autograd.detach-shares-storage", "autograd.detach-inplace-is-harmless",
       "autograd.inplace-saved-tensor-version-error", "autograd.data-write-raises-at-backward")
def detach_copies():
    """Tensor.detach returns a clone: no shared storage, no shared version counter."""
    original = torch.Tensor.detach
    torch.Tensor.detach = lambda self: original(self).clone()


@fault("autograd.data-write-raises-at-backward", "autograd.data-keeps-grad-fn", "autograd.data-is-legacy")
def data_is_detach():
    """Tensor.data behaves like detach(): writes through it bump the shared version counter."""
    descriptor = torch._C.TensorBase.__dict__["data"]
    torch.Tensor.data = property(lambda self: self.detach(), lambda self, value: descriptor.__set__(self, value))


@fault("autograd.no-grad-stops-recording", "autograd.set-grad-enabled-default",
       "autograd.inplace-on-leaf-raises", "autograd.partial-no-grad-leaves-none",
       "autograd.detach-later-ops-differentiable", "autograd.no-grad-prevents-grad-pollution")
def no_grad_noop():
    """torch.no_grad is a context manager (and decorator) that does nothing."""
    class NoGrad:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def __call__(self, fn):
            return fn

    torch.no_grad = NoGrad


def _wrap_backward(transform):
    """Replace torch.autograd.backward by one that rewrites its arguments first."""
    original = torch.autograd.backward

    @functools.wraps(original)
    def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *args, **kwargs):
        tensors = (tensors,) if isinstance(tensors, torch.Tensor) else tuple(tensors)
        tensors, grad_tensors, retain_graph = transform(tensors, grad_tensors, retain_graph)
        return original(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)

    torch.autograd.backward = backward


@fault("autograd.example-004-w-times-x", "autograd.example-002-gradients",
       "autograd.example-002-weighted-backward", "autograd.example-004-masked-backward",
       "autograd.gradient-arg-is-vjp", "autograd.grad-accumulates",
       "autograd.backward-reverse-topological")
def grads_scaled():
    """Every backward seeds 1.01 times the requested gradient."""
    def scale(tensors, grad_tensors, retain_graph):
        if grad_tensors is None:
            grads = [None] * len(tensors)
        elif isinstance(grad_tensors, torch.Tensor):
            grads = [grad_tensors]
        else:
            grads = list(grad_tensors)
        if len(grads) != len(tensors):  # leave malformed calls to torch's own error
            return tensors, grad_tensors, retain_graph
        seeded = []
        for t, g in zip(tensors, grads):
            if g is None and t.numel() == 1:
                g = torch.ones_like(t)
            if isinstance(g, torch.Tensor) and g.is_floating_point():
                g = g * 1.01
            seeded.append(g)
        return tensors, tuple(seeded), retain_graph

    _wrap_backward(scale)


@fault("autograd.grad-accumulates", "autograd.second-backward-raises",
       "modules.zero-grad-each-step")
def accumulate_overwrites():
    """Backward overwrites leaf gradients: every reachable leaf's .grad is reset to None first."""
    def reset_leaves(tensors, grad_tensors, retain_graph):
        seen, stack = set(), [t.grad_fn for t in tensors if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if hasattr(node, "variable"):
                node.variable.grad = None
            stack.extend(n for n, _ in node.next_functions)
        return tensors, grad_tensors, retain_graph

    _wrap_backward(reset_leaves)


@fault("autograd.second-backward-raises", "autograd.saved-buffers-freed")
def retain_graph_always():
    """Backward always keeps the graph (retain_graph=True): saved tensors are never freed."""
    _wrap_backward(lambda tensors, grads, retain: (tensors, grads, True))


@fault("autograd.backward-reverse-topological")
def engine_no_unbroadcast():
    """The reference engine hands broadcast gradients back unreduced (wrong shapes and sums)."""
    engine = Impl().autograd_engine
    engine._unbroadcast = lambda grad, shape: grad


@fault("autograd.gradient-arg-is-vjp", "autograd.backward-reverse-topological")
def finite_diff_one_sided():
    """central_difference_jacobian uses a one-sided difference: error O(eps) instead of O(eps**2)."""
    module = Impl().finite_diff

    def forward_difference(fn, inputs, eps=1e-6):
        inputs = tuple(inputs)
        base = [x.detach().to(torch.float64).clone().contiguous() for x in inputs]
        with torch.no_grad():
            f0 = module._flat_output(fn(*base)).to(torch.float64)
            columns = []
            for x in base:
                flat = x.view(-1)
                for j in range(flat.numel()):
                    saved = flat[j].item()
                    flat[j] = saved + eps
                    columns.append((module._flat_output(fn(*base)).to(torch.float64) - f0) / eps)
                    flat[j] = saved
        return torch.stack(columns, dim=1) if columns else torch.zeros(f0.numel(), 0, dtype=torch.float64)

    module.central_difference_jacobian = forward_difference


@fault("autograd.inplace-on-leaf-raises")
def inplace_on_leaf_allowed():
    """add_ and += on a leaf that requires grad write through .data instead of raising."""
    for name in ("add_", "__iadd__"):
        original = getattr(torch.Tensor, name)

        def lenient(self, *args, _original=original, **kwargs):
            if self.is_leaf and self.requires_grad and torch.is_grad_enabled():
                _original(self.data, *args, **kwargs)
                return self
            return _original(self, *args, **kwargs)
        setattr(torch.Tensor, name, lenient)


@fault("autograd.inplace-saved-tensor-version-error")
def inplace_skips_version_counter():
    """torch.relu_ writes through .data: the version counter never sees the change."""
    original = torch.relu_

    def relu_(t):
        original(t.data)
        return t
    torch.relu_ = relu_


# --- backward's arguments ---------------------------------------------------------------


@fault("autograd.backward-no-grad-fn-error")
def backward_without_graph_is_noop():
    """backward() on a tensor with no graph (nothing requires grad) returns silently instead of raising."""
    original = torch.autograd.backward

    @functools.wraps(original)
    def backward(tensors, *args, **kwargs):
        outputs = (tensors,) if isinstance(tensors, torch.Tensor) else tuple(tensors)
        if outputs and all(isinstance(t, torch.Tensor) and not t.requires_grad for t in outputs):
            return None
        return original(tensors, *args, **kwargs)

    torch.autograd.backward = backward


@fault("autograd.implicit-grad-scalar-only")
def implicit_ones_gradient():
    """backward() without a gradient seeds ones for any output, not only one-element ones."""
    def implicit(tensors, grad_tensors, retain_graph):
        if grad_tensors is None and len(tensors) == 1 and tensors[0].numel() > 1:
            grad_tensors = (torch.ones_like(tensors[0]),)
        return tensors, grad_tensors, retain_graph

    _wrap_backward(implicit)


@fault("autograd.gradient-arg-shape-and-type")
def backward_broadcasts_gradient():
    """backward(gradient) broadcasts a gradient of the wrong shape to the output's instead of raising."""
    def broadcast(tensors, grad_tensors, retain_graph):
        if isinstance(grad_tensors, torch.Tensor) and len(tensors) == 1 and grad_tensors.shape != tensors[0].shape:
            try:
                grad_tensors = grad_tensors.expand_as(tensors[0]).contiguous()
            except RuntimeError:
                pass
        return tensors, grad_tensors, retain_graph

    _wrap_backward(broadcast)


@fault("autograd.ones-gradient-equals-sum")
def vjp_averaged():
    """backward(v) for a batch-shaped output averages (v / N) as if the loss were a mean, instead of v^T J."""
    def average(tensors, grad_tensors, retain_graph):
        if isinstance(grad_tensors, torch.Tensor) and grad_tensors.numel() > 1:
            grad_tensors = grad_tensors / grad_tensors.numel()
        return tensors, grad_tensors, retain_graph

    _wrap_backward(average)


@fault("autograd.engine-dfs-in-python")
def python_dfs_engine():
    """backward() of a scalar walks the graph depth-first in Python, calling a shared node once per path
    (the material's picture); tensor hooks, which only the C++ engine runs, never fire."""
    original = torch.autograd.backward

    def walk(node, grads):
        outs = node(*grads)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for (child, _), grad in zip(node.next_functions, outs):
            if child is not None and grad is not None:
                walk(child, (grad,))

    @functools.wraps(original)
    def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *args, **kwargs):
        if (isinstance(tensors, torch.Tensor) and grad_tensors is None and not create_graph and not args
                and not kwargs.get("inputs") and tensors.grad_fn is not None and tensors.numel() == 1):
            with torch.no_grad():
                walk(tensors.grad_fn, (torch.ones_like(tensors),))
            return None
        return original(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)

    torch.autograd.backward = backward


# --- the graph: nodes, leaves, lifetime ---------------------------------------------------


@fault("autograd.graph-built-during-forward")
def grad_fn_reused_per_type():
    """Tensor.grad_fn returns the first node ever built of its kind (a static graph reused by every forward)."""
    descriptor = torch._C.TensorBase.__dict__["grad_fn"]
    first = {}

    def grad_fn(self):
        node = descriptor.__get__(self)
        return None if node is None else first.setdefault(type(node).__name__, node)

    torch.Tensor.grad_fn = property(grad_fn)


@fault("autograd.grad-fn-is-function-instance")
def add_records_under_no_grad():
    """torch.add ignores an enclosing no_grad: it records a graph node whenever an input requires grad."""
    original = torch.add

    @functools.wraps(original)
    def add(*args, **kwargs):
        with torch.enable_grad():
            return original(*args, **kwargs)

    torch.add = add


@fault("autograd.next-functions-accumulate-grad", "autograd.operator-overloading-builds-node")
def add_via_sub():
    """a + b is computed as torch.sub(a, -b): right values, but the graph holds SubBackward0 and a NegBackward0."""
    def add(self, other):
        return torch.sub(self, -other)

    torch.Tensor.__add__ = add
    torch.Tensor.__radd__ = add


@fault("autograd.node-saves-and-links")
def mul_swaps_operands():
    """a * b is recorded as torch.mul(b, a): same product, but the node saves and links the operands swapped."""
    original = torch.Tensor.__mul__

    def mul(self, other):
        return torch.mul(other, self) if isinstance(other, torch.Tensor) else original(self, other)

    torch.Tensor.__mul__ = mul


@fault("autograd.example-002-forward-value")
def int_pow_squares():
    """x ** n for an integer n > 2 takes the square fast path: y ** 3 returns y ** 2."""
    original = torch.Tensor.__pow__

    def pow_(self, exponent):
        return original(self, 2 if isinstance(exponent, int) and exponent > 2 else exponent)

    torch.Tensor.__pow__ = pow_


@fault("autograd.leaf-definition")
def retain_grad_noop():
    """Tensor.retain_grad() does nothing: a non-leaf never keeps its .grad."""
    torch.Tensor.retain_grad = lambda self: None


@fault("autograd.grad-none-diagnosis", "autograd.nonleaf-grad-is-none")
def nonleaf_results_retain_grad():
    """Arithmetic operators call retain_grad() on every result that requires grad: non-leaves get a .grad."""
    for name in ("__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__pow__"):
        original = getattr(torch.Tensor, name)

        def op(self, other, _original=original):
            out = _original(self, other)
            if isinstance(out, torch.Tensor) and out.requires_grad and out.grad_fn is not None:
                out.retain_grad()
            return out
        setattr(torch.Tensor, name, op)


@fault("autograd.requires-grad-propagates")
def cat_requires_grad_from_first():
    """torch.cat takes requires_grad from its first tensor only: cat([c, w]) with w requiring grad has no graph."""
    original = torch.cat

    @functools.wraps(original)
    def cat(tensors, *args, **kwargs):
        tensors = list(tensors)
        if tensors and not tensors[0].requires_grad:
            tensors = [t.detach() for t in tensors]
        return original(tensors, *args, **kwargs)

    torch.cat = cat


@fault("autograd.graph-lifetime-refcount")
def unary_results_cached():
    """Tensor.sin/cos/exp/tanh/sigmoid/log keep every result in a module cache: graphs outlive their outputs."""
    cache = []
    for name in ("sin", "cos", "exp", "tanh", "sigmoid", "log"):
        original = getattr(torch.Tensor, name)

        def op(self, *args, _original=original, **kwargs):
            out = _original(self, *args, **kwargs)
            cache.append(out)
            return out
        setattr(torch.Tensor, name, op)


@fault("autograd.inference-without-no-grad-exponential")
def module_keeps_outputs():
    """Every nn.Module call keeps its output (and so its graph) alive, like a feature-map hook that never detaches."""
    original = torch.nn.Module.__call__
    kept = []

    def call(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        if isinstance(out, torch.Tensor) and out.requires_grad:
            kept.append(out)
        return out

    torch.nn.Module.__call__ = call


# --- .grad: allocation and zeroing ---------------------------------------------------------


@fault("autograd.grad-allocated-lazily", "autograd.zero-fresh-grad-before-backward")
def grad_preallocated_zero():
    """Factories given requires_grad=True allocate a zero .grad up front (the material's picture)."""
    for name in ("tensor", "ones", "zeros", "randn", "rand", "full", "empty", "arange"):
        original = getattr(torch, name)

        def make(*args, _original=original, **kwargs):
            out = _original(*args, **kwargs)
            if out.requires_grad and out.is_leaf:
                out.grad = torch.zeros_like(out)
            return out
        setattr(torch, name, make)


@fault("autograd.zero-grad-order-004")
def optimizer_zero_grad_keeps_grads():
    """Optimizer.zero_grad() does nothing: gradients survive it and step() still applies them."""
    torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: None


@fault("autograd.zero-grad-sets-none")
def zero_grad_fills_zeros():
    """Optimizer.zero_grad() defaults to set_to_none=False (torch 1.x): grads become zero tensors, not None."""
    original = torch.optim.Optimizer.zero_grad
    torch.optim.Optimizer.zero_grad = lambda self, set_to_none=False: original(self, set_to_none)


# --- in-place ops ---------------------------------------------------------------------------


@fault("autograd.inplace-any-requires-grad-raises", "autograd.inplace-backward-guarantee",
       "autograd.relu-inplace-leaf-error-at-backward", "autograd.relu-inplace-in-models")
def relu_inplace_bypasses_autograd():
    """torch.relu_ and Tensor.relu_ write through .data: no leaf check, no ReluBackward0, backward sees identity."""
    for owner in (torch, torch.Tensor):
        original = owner.relu_

        def relu_(t, _original=original):
            _original(t.data)
            return t
        owner.relu_ = relu_


@fault("autograd.relu-inplace-reuses-storage")
def relu_inplace_flag_ignored():
    """F.relu ignores inplace=True and always allocates a new output."""
    import torch.nn.functional as F
    original = F.relu
    F.relu = lambda input, inplace=False: original(input, inplace=False)


@fault("autograd.inplace-on-nonleaf-blamed-as-leaf")
def iadd_on_nonleaf_through_data():
    """y += 1 on a non-leaf writes through .data: the value changes but autograd never records the add."""
    original = torch.Tensor.__iadd__

    def iadd(self, other):
        if self.requires_grad and not self.is_leaf:
            original(self.data, other)
            return self
        return original(self, other)

    torch.Tensor.__iadd__ = iadd


@fault("autograd.inplace-underscore-enforced")
def iadd_rebinds():
    """t += 1 builds a new tensor and rebinds the name (as for Python ints): t's own storage is never written."""
    torch.Tensor.__iadd__ = lambda self, other: self + other


# --- hooks and anomaly mode -----------------------------------------------------------------


@fault("autograd.no-grad-silences-hooks")
def no_grad_skips_module_hooks():
    """A module called under no_grad runs forward() alone and skips its hooks (the material's belief)."""
    original = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        if not torch.is_grad_enabled():
            return self.forward(*args, **kwargs)
        return original(self, *args, **kwargs)

    torch.nn.Module.__call__ = call


@fault("autograd.full-backward-hook")
def full_backward_hook_swapped():
    """register_full_backward_hook calls the hook with grad_output and grad_input swapped."""
    original = torch.nn.Module.register_full_backward_hook

    def register(self, hook, prepend=False):
        return original(self, lambda module, grad_input, grad_output: hook(module, grad_output, grad_input),
                        prepend=prepend)

    torch.nn.Module.register_full_backward_hook = register


@fault("autograd.anomaly-locates-nan")
def anomaly_mode_never_on():
    """torch.autograd.set_detect_anomaly / detect_anomaly are context managers that never enable anomaly mode."""
    class Off:
        def __init__(self, mode=True, check_nan=True):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    torch.autograd.set_detect_anomaly = Off
    torch.autograd.detect_anomaly = Off


@fault("autograd.custom-activation-needs-function")
def sigmoid_grad_forgets_one_minus():
    """torch.sigmoid's backward returns grad * s instead of grad * s * (1 - s)."""
    original = torch.sigmoid

    class Sigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = original(x)
            ctx.save_for_backward(s)
            return s

        @staticmethod
        def backward(ctx, grad):
            s, = ctx.saved_tensors
            return grad * s

    torch.sigmoid = lambda x, *, out=None: Sigmoid.apply(x) if out is None else original(x, out=out)


# --- the material's figures: no_grad and checkpointing --------------------------------------


@fault("autograd.no-grad-inference-faster", "autograd.no-grad-memory-figure")
def module_forward_enables_grad():
    """Every nn.Module call runs under enable_grad (like a forward decorated @torch.enable_grad): an enclosing
    no_grad or set_grad_enabled(False) no longer stops it recording a graph and saving activations."""
    original = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        with torch.enable_grad():
            return original(self, *args, **kwargs)

    torch.nn.Module.__call__ = call


@fault("autograd.checkpoint-figures")
def checkpoint_saves_everything():
    """torch.utils.checkpoint.checkpoint runs the function plainly: its activations are saved, nothing is recomputed."""
    import torch.utils.checkpoint as ckpt

    def checkpoint(function, *args, use_reentrant=None, **kwargs):
        for key in ("context_fn", "determinism_check", "debug", "preserve_rng_state"):
            kwargs.pop(key, None)
        return function(*args, **kwargs)

    ckpt.checkpoint = checkpoint


# --- the edges of grad modes, hooks and zero_grad: each fault keeps the common path intact ------


@fault("autograd.no-grad-stops-recording")
def no_grad_exit_turns_grad_on():
    """Leaving a torch.no_grad() block switches grad mode on instead of back to the mode it found: a no_grad
    block nested in another ends the outer one early (a single block behaves)."""
    def exit_on(self, *exc):
        torch._C._set_grad_enabled(True)

    torch.no_grad.__exit__ = exit_on


@fault("autograd.no-grad-stops-recording")
def no_grad_decorator_shares_one_context():
    """@torch.no_grad() enters one shared context object on every call, not a fresh one: a decorated function
    that calls itself overwrites the saved mode, and its outermost call leaves grad mode off for the caller."""
    def decorate(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper

    torch.no_grad.__call__ = decorate


@fault("autograd.no-grad-stops-recording")
def no_grad_decorator_ignores_generators():
    """@torch.no_grad() wraps a generator function like a plain one: grad mode is off only while the generator
    object is made, and every step of its body runs with grad mode on."""
    def decorate(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    torch.no_grad.__call__ = decorate


@fault("autograd.no-grad-stops-recording")
def inference_mode_false_ignored():
    """torch.inference_mode(False) turns inference mode on like inference_mode(): a block meant to make normal
    tensors inside an inference region makes inference tensors too."""
    original = torch.inference_mode.__init__

    def init(self, mode=True):
        original(self, True)

    torch.inference_mode.__init__ = init


@fault("autograd.set-grad-enabled-default")
def enable_grad_decorator_noop():
    """@torch.enable_grad() returns the function undecorated: called inside no_grad it records nothing
    (the with-statement form still works)."""
    torch.enable_grad.__call__ = lambda self, func: func


@fault("autograd.set-grad-enabled-default")
def set_grad_enabled_block_cannot_reenable():
    """A with torch.set_grad_enabled(True) block inside no_grad keeps grad mode off: the block form only ever
    narrows the mode (the call form, and every block outside no_grad, behave)."""
    def enter(self):
        torch._C._set_grad_enabled(self.mode and self.prev)

    torch.set_grad_enabled.__enter__ = enter


@fault("autograd.set-grad-enabled-default")
def set_grad_enabled_decorator_keeps_mode_off():
    """@torch.set_grad_enabled(False) leaves grad mode off from the line that decorates the function on (the
    constructor switches the mode and decorating no longer switches it back)."""
    base = torch.set_grad_enabled.__mro__[1]   # the decorator-context base class, whose __call__ wraps without restoring

    def decorate(self, func):
        return base.__call__(self, func)

    torch.set_grad_enabled.__call__ = decorate


@fault("autograd.inplace-on-leaf-raises")
def leaf_inplace_allowed_inside_any_no_grad_block():
    """x.add_() on a leaf that requires grad is allowed while any torch.no_grad() block is open, even where
    enable_grad switched recording back on inside it (the block, not the current grad mode, grants it)."""
    depth = [0]
    enter, leave = torch.no_grad.__enter__, torch.no_grad.__exit__

    def counted_enter(self):
        depth[0] += 1
        return enter(self)

    def counted_exit(self, *exc):
        depth[0] -= 1
        return leave(self, *exc)

    torch.no_grad.__enter__, torch.no_grad.__exit__ = counted_enter, counted_exit
    original = torch.Tensor.add_

    def add_(self, *args, **kwargs):
        if depth[0] and self.is_leaf and self.requires_grad and torch.is_grad_enabled():
            original(self.data, *args, **kwargs)
            return self
        return original(self, *args, **kwargs)

    torch.Tensor.add_ = add_


@fault("autograd.partial-no-grad-leaves-none")
def no_grad_module_freezes_only_its_parameters():
    """A module called under no_grad on an input that is part of a graph keeps that graph: only its own
    parameters are left out (no_grad as 'freeze these weights'), so the layers before it still get gradients."""
    original = torch.nn.Module.__call__

    def call(self, *args, **kwargs):
        if torch.is_grad_enabled() or not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            return original(self, *args, **kwargs)
        frozen = {name: p.detach() for name, p in self.named_parameters()}
        with torch.enable_grad():
            return torch.func.functional_call(self, frozen, args, kwargs)

    torch.nn.Module.__call__ = call


@fault("autograd.full-backward-hook")
def full_backward_hook_needs_input_grad():
    """A full backward hook is skipped when no input of its module requires grad (grad_input all None): it
    never fires for the first layer of a network fed plain data."""
    original = torch.nn.Module.register_full_backward_hook

    def register(self, hook, prepend=False):
        def only_with_input_grad(module, grad_input, grad_output):
            if any(g is not None for g in grad_input):
                return hook(module, grad_input, grad_output)
            return None
        return original(self, only_with_input_grad, prepend=prepend)

    torch.nn.Module.register_full_backward_hook = register


@fault("autograd.full-backward-hook")
def full_backward_hook_zero_fills_grad_input():
    """A full backward hook gets a zero (a 0-dim tensor), not None, in grad_input for an input that needs no
    grad (as if torch computed a gradient nobody asked for)."""
    original = torch.nn.Module.register_full_backward_hook

    def register(self, hook, prepend=False):
        def zero_filled(module, grad_input, grad_output):
            if any(g is None for g in grad_input) and grad_output and grad_output[0] is not None:
                grad_input = tuple(grad_output[0].new_zeros(()) if g is None else g for g in grad_input)
            return hook(module, grad_input, grad_output)
        return original(self, zero_filled, prepend=prepend)

    torch.nn.Module.register_full_backward_hook = register


@fault("autograd.full-backward-hook")
def full_backward_hook_once_per_backward():
    """A full backward hook fires at most once per backward pass: of a module called twice in one forward
    (shared weights, a recurrent cell) it reports one use only."""
    original = torch.nn.Module.register_full_backward_hook

    def register(self, hook, prepend=False):
        fired = set()

        def once(module, grad_input, grad_output):
            task = torch._C._current_graph_task_id()
            if task in fired:
                return None
            fired.add(task)
            return hook(module, grad_input, grad_output)
        return original(self, once, prepend=prepend)

    torch.nn.Module.register_full_backward_hook = register


@fault("autograd.full-backward-hook")
def full_backward_hook_result_ignored():
    """What a full backward hook returns is dropped: a hook returning a new grad_input changes nothing."""
    original = torch.nn.Module.register_full_backward_hook

    def register(self, hook, prepend=False):
        def observe(module, grad_input, grad_output):
            hook(module, grad_input, grad_output)
        return original(self, observe, prepend=prepend)

    torch.nn.Module.register_full_backward_hook = register


@fault("autograd.no-grad-silences-hooks")
def tensor_hook_result_ignored():
    """What a tensor hook (Tensor.register_hook) returns is dropped: it fires, but cannot change the gradient."""
    original = torch.Tensor.register_hook

    def register_hook(self, hook):
        def observe(grad):
            hook(grad)
        return original(self, observe)

    torch.Tensor.register_hook = register_hook


@fault("autograd.no-grad-silences-hooks")
def forward_pre_hook_result_ignored_under_no_grad():
    """Under no_grad a forward-pre hook fires but what it returns is dropped: forward() gets the original input
    (no_grad silencing hooks half way; with grad mode on the returned input is used)."""
    original = torch.nn.Module.register_forward_pre_hook

    def register(self, hook, *, prepend=False, with_kwargs=False):
        def pre_hook(*args):
            result = hook(*args)
            return result if torch.is_grad_enabled() else None
        return original(self, pre_hook, prepend=prepend, with_kwargs=with_kwargs)

    torch.nn.Module.register_forward_pre_hook = register


@fault("autograd.grad-accumulates")
def zero_grad_to_zeros_fills_missing_grads():
    """Optimizer.zero_grad(set_to_none=False) also gives a zero .grad to a parameter that never had a gradient
    (a frozen or unused head), as if zeroing meant allocating."""
    original = torch.optim.Optimizer.zero_grad

    def zero_grad(self, set_to_none=True):
        original(self, set_to_none)
        if not set_to_none:
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        p.grad = torch.zeros_like(p)

    torch.optim.Optimizer.zero_grad = zero_grad


@fault("autograd.grad-accumulates")
def zero_grad_to_zeros_replaces_tensors():
    """Optimizer.zero_grad(set_to_none=False) replaces each existing .grad by a new zero tensor instead of zeroing
    it in place: the values are right, but a reference to the old .grad keeps the stale gradient."""
    original = torch.optim.Optimizer.zero_grad

    def zero_grad(self, set_to_none=True):
        if set_to_none:
            return original(self, set_to_none)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad = torch.zeros_like(p)

    torch.optim.Optimizer.zero_grad = zero_grad


@fault("autograd.zero-grad-sets-none")
def module_zero_grad_fills_zeros():
    """nn.Module.zero_grad() defaults to set_to_none=False (torch 1.x): model.zero_grad() leaves zero tensors,
    while Optimizer.zero_grad() keeps the 2.x default."""
    original = torch.nn.Module.zero_grad
    torch.nn.Module.zero_grad = lambda self, set_to_none=False: original(self, set_to_none)


# --- the clause audit: faults for what the extended specs now assert ---------------------------


@fault("autograd.no-grad-silences-hooks")
def backward_skipped_under_no_grad():
    """backward() called while grad mode is off returns at once: no gradient, no backward hook."""
    original = torch.autograd.backward

    @functools.wraps(original)
    def backward(*args, **kwargs):
        if not torch.is_grad_enabled():
            return None
        return original(*args, **kwargs)

    torch.autograd.backward = backward


@fault("autograd.grad-allocated-lazily")
def autograd_grad_fills_leaf_grads():
    """torch.autograd.grad also stores its results in the inputs' empty .grad, as backward would."""
    original = torch.autograd.grad

    @functools.wraps(original)
    def grad(outputs, inputs, *args, **kwargs):
        results = original(outputs, inputs, *args, **kwargs)
        leaves = (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)
        for leaf, value in zip(leaves, results):
            if leaf.is_leaf and leaf.grad is None and value is not None:
                leaf.grad = value.detach().clone()
        return results

    torch.autograd.grad = grad


@fault("autograd.inplace-any-requires-grad-raises")
def unbind_returns_copies():
    """Tensor.unbind returns copies instead of views, so writing into one output is allowed."""
    original = torch.Tensor.unbind
    torch.Tensor.unbind = lambda self, dim=0: tuple(t.clone() for t in original(self, dim))


"""Planted faults for the compile topic: each breaks behaviour a compile spec guards.

Most compile specs are marked ``compile``; select them with ``-m compile``:
``pytest specs/ -m compile --mutant compile_identity``.
"""
import builtins
import copy
import functools
import inspect
import warnings

import torch
import torch.nn.functional as F

from torchclaims.mutants import fault


@fault("compile.returns-same-module-forward-rewritten", "compile.dynamo-captures-ast",
       "compile.dynamo-patches-builtins-exec", "compile.dynamo-emits-fx-graph",
       "compile.shape-branch-both-graphs", "compile.aot-is-ahead-of-first-run",
       "compile.not-a-static-graph", "compile.compile-submodule-only",
       "compile.compile-proves-model-clean", "compile.inductor-fuses-elementwise",
       "compile.bn-eval-inductor-fails", "compile.max-autotune-every-later-call-fast",
       "compile.eager-python-overhead")
def compile_identity():
    """torch.compile returns its argument unchanged (nothing is ever captured or compiled)."""
    def identity(model=None, *args, **kwargs):
        if model is None:  # used as @torch.compile(...)
            return lambda fn: fn
        return model
    torch.compile = identity


@fault("compile.returns-same-module-forward-rewritten")
def compile_copies_module():
    """torch.compile wraps a deep copy of the module, so parameters are no longer shared."""
    original = torch.compile

    @functools.wraps(original)
    def compile_copy(model=None, *args, **kwargs):
        if isinstance(model, torch.nn.Module):
            model = copy.deepcopy(model)
        return original(model, *args, **kwargs)
    torch.compile = compile_copy


@fault("compile.dynamo-patches-builtins-exec")
def compile_patches_exec():
    """torch.compile swaps builtins.exec for a wrapper, as the material describes."""
    original = torch.compile
    # A partial adds no Python frame, so exec() without explicit globals still sees its caller's.
    intercepting_exec = functools.partial(builtins.exec)

    @functools.wraps(original)
    def compile_and_patch(*args, **kwargs):
        builtins.exec = intercepting_exec
        return original(*args, **kwargs)
    torch.compile = compile_and_patch


@fault("compile.shape-branch-both-graphs", "compile.dynamo-ignores-tensor-values",
       "compile.compile-proves-model-clean", "compile.max-autotune-every-later-call-fast")
def dynamo_never_recompiles():
    """Dynamo keeps one compiled variant per function: a failed guard falls back to eager."""
    import torch._dynamo
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 1)


@fault("compile.jit-trace-needs-no-control-flow", "compile.jit-trace-graph-reveals-branches")
def jit_trace_scripts():
    """torch.jit.trace scripts the module instead, keeping its control flow and dead code."""
    script = torch.jit.script

    def trace(func, example_inputs=None, *args, **kwargs):
        return script(func)
    torch.jit.trace = trace


@fault("compile.jit-trace-needs-no-control-flow")
def jit_trace_refuses_control_flow():
    """torch.jit.trace refuses a forward whose if depends on a tensor: the TracerWarning at the conversion to a
    Python boolean becomes a RuntimeError, as the material expects."""
    trace = torch.jit.trace

    @functools.wraps(trace)
    def strict_trace(*args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            traced = trace(*args, **kwargs)
        for warning in caught:
            if issubclass(warning.category, torch.jit.TracerWarning) and "boolean" in str(warning.message):
                raise RuntimeError(str(warning.message))
        return traced
    torch.jit.trace = strict_trace


@fault("compile.jit-script-rejects-list-append")
def jit_script_rejects_append():
    """torch.jit.script refuses any forward that calls .append, as the material says."""
    script = torch.jit.script

    @functools.wraps(script)
    def strict_script(obj, *args, **kwargs):
        source = inspect.getsource(type(obj).forward if isinstance(obj, torch.nn.Module) else obj)
        if ".append(" in source:
            raise torch.jit.Error("list.append is not supported")   # NotSupportedError needs a real source range
        return script(obj, *args, **kwargs)
    torch.jit.script = strict_script


@fault("compile.torchscript-is-the-export-path")
def torchscript_not_deprecated():
    """torch.jit.script and torch.jit.trace stop warning that TorchScript is deprecated."""
    def silenced(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*deprecated.*")
                return fn(*args, **kwargs)
        return wrapper
    torch.jit.script = silenced(torch.jit.script)
    torch.jit.trace = silenced(torch.jit.trace)


@fault("compile.bn-train-mode-uses-running-stats")
def batchnorm_train_uses_running_stats():
    """F.batch_norm always normalises with the running statistics, even in train mode."""
    original = F.batch_norm

    @functools.wraps(original)
    def running_only(input, running_mean, running_var, weight=None, bias=None,
                     training=False, momentum=0.1, eps=1e-5):
        return original(input, running_mean, running_var, weight, bias, False, momentum, eps)
    F.batch_norm = running_only


@fault("autograd.shape-errors-at-backward")
def linear_defers_shape_errors():
    """F.linear swallows a shape mismatch in forward and returns zeros of the output size."""
    original = F.linear

    @functools.wraps(original)
    def lenient(input, weight, bias=None):
        if input.shape[-1] != weight.shape[-1]:
            return input.new_zeros(*input.shape[:-1], weight.shape[0])
        return original(input, weight, bias)
    F.linear = lenient


@fault("compile.eager-error-at-own-line")
def module_call_reraises_from_wrapper():
    """nn.Module.__call__ re-raises a RuntimeError of forward as a fresh exception from the
    wrapper (as a deferred graph executor reports it), so the traceback no longer reaches
    the forward line that failed."""
    original = torch.nn.Module._call_impl

    def call(self, *args, **kwargs):
        try:
            return original(self, *args, **kwargs)
        except RuntimeError as exc:
            raise RuntimeError(str(exc)) from None

    torch.nn.Module.__call__ = call


@fault("compile.introduced-in-2-0", "compile.version-table-compile-in-1-12")
def torch_compile_missing():
    """torch.compile is absent from the torch namespace (a build whose Dynamo front end did not load)."""
    del torch.compile


@fault("compile.jit-ir-loses-python-dynamism", "compile.version-table-compile-in-1-12",
       "compile.jit-script-rejects-list-append")
def jit_script_falls_back_to_python():
    """torch.jit.script returns the module unchanged when its code cannot be scripted, instead
    of raising (so TorchScript would seem to keep all of Python)."""
    script = torch.jit.script

    @functools.wraps(script)
    def lenient_script(obj, *args, **kwargs):
        try:
            return script(obj, *args, **kwargs)
        except torch.jit.frontend.NotSupportedError:
            return obj
    torch.jit.script = lenient_script


@fault("compile.jit-trace-save-load")
def jit_load_resets_buffers():
    """torch.jit.load restores the parameters but gives every buffer its initial value
    (running_mean 0, running_var 1, num_batches_tracked 0): state beyond parameters is lost."""
    load = torch.jit.load

    @functools.wraps(load)
    def load_without_buffers(*args, **kwargs):
        module = load(*args, **kwargs)
        with torch.no_grad():
            for name, buf in module.named_buffers():
                buf.fill_(1 if name.endswith("running_var") else 0)
        return module
    torch.jit.load = load_without_buffers


@fault("compile.mode-names")
def compile_mode_names_underscored():
    """Inductor's mode table spells the modes with underscores ('max_autotune'), so
    mode='max-autotune' is unknown to torch.compile."""
    import torch._inductor
    original = torch._inductor.list_mode_options

    def list_mode_options(mode=None, dynamic=None):
        table = {name.replace("-", "_"): options for name, options in original(None, dynamic).items()}
        if not mode:
            return table
        if mode not in table:
            raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(table)}")
        return table[mode]
    torch._inductor.list_mode_options = list_mode_options


@fault("compile.compile-proves-model-clean")
def compile_refuses_globals():
    """torch.compile(fullgraph=True) refuses a function that reads a module-level tensor or number
    (Unsupported), as if compiling proved a model free of global state."""
    original = torch.compile

    @functools.wraps(original)
    def strict_compile(model=None, *args, **kwargs):
        code = getattr(getattr(model, "forward", model), "__code__", None)
        if kwargs.get("fullgraph") and code is not None:
            namespace = getattr(getattr(model, "forward", model), "__globals__", {})
            state = [n for n in code.co_names if isinstance(namespace.get(n), (int, float, torch.Tensor))]
            if state:
                from torch._dynamo.exc import Unsupported
                raise Unsupported(f"{code.co_name} reads the global state {', '.join(state)}")
        return original(model, *args, **kwargs)
    torch.compile = strict_compile


@fault("compile.mode-names")
def compile_drops_mode():
    """torch.compile accepts mode= but drops it: every mode compiles with the default options, so
    mode='max-autotune' is a name only."""
    original = torch.compile

    @functools.wraps(original)
    def compile_default(model=None, *args, mode=None, **kwargs):
        return original(model, *args, **kwargs)
    torch.compile = compile_default


@fault("compile.modulelist-loop-not-compilable", "compile.sequential-best-pattern")
def modulelist_iteration_breaks_graph():
    """Iterating an nn.ModuleList inside a compiled forward breaks the graph at every layer,
    as the material expects of a Python loop."""
    import torch._dynamo

    def iterate(self):
        for module in self._modules.values():
            torch._dynamo.graph_break()
            yield module
    torch.nn.ModuleList.__iter__ = iterate


@fault("compile.dynamo-captures-ast")
def compile_reads_source():
    """torch.compile reads the function's source and parses its AST before compiling it, as an
    'AST interceptor' would: code without source (made by exec) can no longer be compiled."""
    import ast
    import textwrap
    original = torch.compile

    @functools.wraps(original)
    def compile_from_ast(model=None, *args, **kwargs):
        if model is not None:
            function = getattr(model, "forward", model)
            ast.parse(textwrap.dedent(inspect.getsource(function)))
        return original(model, *args, **kwargs)
    torch.compile = compile_from_ast


@fault("compile.dynamo-ignores-tensor-values", "compile.max-autotune-every-later-call-fast")
def dynamo_never_dynamic():
    """Dynamo keeps every size and integer static: each new size recompiles, however often it changes."""
    import torch._dynamo
    torch._dynamo.config.automatic_dynamic_shapes = False

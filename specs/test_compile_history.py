"""Compile: the material's version table and its fallback for torch.compile.

Source: 003 §2.3 (PyTorch 1.12.1 lists torch.compile as experimental; where torch.compile(model)
is missing, as in 1.8, use torch.jit.script(model) instead).  Release dates come from the
release notes; what a spec can check is that torch.compile exists exactly on 2.x (run on every
release of the claim matrix) and whether torch.jit.script stands in for it on this torch.
"""
import warnings

import pytest
import torch
from torch import nn

from torchclaims.versions import torch_in


class _Summing(nn.Module):
    """An ordinary eager module whose forward takes any number of tensors."""

    def forward(self, *xs):
        return sum(xs) * 2


def _script(module):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # TorchScript is deprecated on recent torch
        return torch.jit.script(module)


@pytest.mark.claim("compile.version-table-compile-in-1-12")
def test_torch_compile_exists_exactly_from_2_0():
    """Material: 1.12.1 already has torch.compile (experimental).
    True: torch.compile first shipped in 2.0; no 1.x release has it (checked on each release run)."""
    assert hasattr(torch, "compile") is torch_in(">=2.0"), (
        f"torch {torch.__version__}: hasattr(torch, 'compile') is {hasattr(torch, 'compile')}")


@pytest.mark.claim("compile.version-table-compile-in-1-12")
def test_jit_script_refuses_an_ordinary_module_that_eager_runs():
    """Material: where torch.compile(model) is missing, torch.jit.script(model) replaces it.
    True: script compiles only the TorchScript subset of Python; a forward taking *args runs in
    eager (and under torch.compile) but script refuses it."""
    model, a, b = _Summing(), torch.ones(2), torch.arange(2.0)
    torch.testing.assert_close(model(a, b), (a + b) * 2)
    with pytest.raises(torch.jit.frontend.NotSupportedError, match="variable number of arguments"):
        _script(model)


@pytest.mark.compile
@pytest.mark.slow
@pytest.mark.claim("compile.version-table-compile-in-1-12")
def test_torch_compile_accepts_the_module_script_refuses():
    """True: torch.compile traces the same *args forward and matches eager."""
    import torch._dynamo
    torch._dynamo.reset()
    try:
        model, a, b = _Summing(), torch.ones(2), torch.arange(2.0)
        torch.testing.assert_close(torch.compile(model)(a, b), model(a, b))
    finally:
        torch._dynamo.reset()


@pytest.mark.claim("compile.version-table-compile-in-1-12", as_written=True,
                   raises=torch.jit.frontend.NotSupportedError, match="variable number of arguments")
def test_as_written_jit_script_stands_in_for_torch_compile():
    """Material: torch.jit.script(model) is the fallback for torch.compile(model)."""
    model, a, b = _Summing(), torch.ones(2), torch.arange(2.0)
    torch.testing.assert_close(_script(model)(a, b), model(a, b))

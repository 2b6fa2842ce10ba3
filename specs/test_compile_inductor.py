"""Compile topic, torch.compile's default back end (Inductor): fusion of element-wise ops,
BatchNorm in eval mode, and recompilation under mode='max-autotune'.

Sources: 000_9a03721c87560f23.txt §5.1, §5.3; 003_cc3cb04f54b5f923.txt §5.2;
004_9d58428a819b84da.txt §6.
These specs generate and build C++ code: the first one in a fresh process takes ~15-40 s
while the compile workers start.  Marked ``compile`` (run with ``-m compile``).
"""
import re
import sys

import pytest
import torch

from torchclaims.versions import require_measurable, require_torch

require_torch(">=2.0", "torch.compile appeared in 2.0")
if sys.version_info >= (3, 11):
    require_measurable(">=2.1", "torch.compile exists on 2.0 but refuses Python 3.11; it runs there from 2.1")

# torch._dynamo is imported by the fixture, when a spec runs: at collection it costs the quick run
# a second, and the quick run skips every spec of this module (compile specs).
from torch import nn

from dispatch import RecordOps

pytestmark = [pytest.mark.compile, pytest.mark.usefixtures("fresh_dynamo")]   # fresh_dynamo: conftest.py


def _unique_graphs() -> int:
    from torch._dynamo.utils import counters
    return counters["stats"]["unique_graphs"]


def _relu_plus_sigmoid(x, y):
    return torch.relu(x) + torch.sigmoid(y)


@pytest.mark.claim("compile.inductor-fuses-elementwise")
@pytest.mark.claim("compile.eager-python-overhead")
def test_inductor_fuses_relu_plus_sigmoid_into_one_kernel():
    """Material: Inductor fuses relu(x) + sigmoid(y) into one kernel without intermediates,
    where eager pays per-op overhead.  True: eager dispatches 3 ops; Inductor emits 1 kernel."""
    x, y = torch.randn(64), torch.randn(64)
    with RecordOps() as eager_ops:
        expected = _relu_plus_sigmoid(x, y)
    assert len(eager_ops.ops) == 3, f"eager dispatched {eager_ops.ops}, expected relu, sigmoid, add"
    from torch._inductor.utils import run_and_get_code
    out, codes = run_and_get_code(torch.compile(_relu_plus_sigmoid), x, y)
    torch.testing.assert_close(out, expected)
    assert len(codes) == 1, f"{len(codes)} generated modules, expected 1 [run_and_get_code(torch.compile(f))]"
    code = codes[0]
    kernels = set(re.findall(r"\b(cpp_fused_\w+|triton_\w+_fused_\w+)\s*\(", code))
    assert len(kernels) == 1, f"generated kernels {kernels}, but relu + sigmoid + add should fuse into one"
    name = next(iter(kernels))
    assert all(op in name for op in ("add", "relu", "sigmoid")), (
        f"the fused kernel is named {name}, but should name the three ops it fuses (add, relu, sigmoid)")
    # the allocation helper's name differs by release: empty_strided, empty, empty_strided_cpu
    buffers = re.findall(r"\bbuf\d+\s*=\s*(?:empty_strided\w*|empty)\s*\(", code)
    assert len(buffers) == 1, f"{len(buffers)} buffers allocated, but only the output should be: no intermediates"


class _ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def _eval_conv_bn():
    model = _ConvBN()
    with torch.no_grad():  # non-trivial running statistics, as after training
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    return model.eval()


@pytest.mark.claim("compile.bn-eval-inductor-fails")
def test_batchnorm_in_eval_mode_compiles_with_inductor():
    """Material: after model.eval() Inductor fails on _native_batch_norm_legit_no_training.
    True: it compiles with the default backend and matches eager; the op is an ordinary one."""
    assert hasattr(torch.ops.aten, "_native_batch_norm_legit_no_training"), "the aten op should exist"
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.lowering import lowerings
    op = torch.ops.aten._native_batch_norm_legit_no_training.default
    assert op in select_decomp_table() or op in lowerings, (
        "Inductor has neither a decomposition nor a lowering for aten._native_batch_norm_legit_no_training")
    model = _eval_conv_bn()
    x = torch.randn(2, 3, 8, 8)
    before = _unique_graphs()
    with torch.no_grad():
        out = torch.compile(model)(x)
        expected = model(x)
    assert _unique_graphs() == before + 1, "torch.compile(model)(x) compiled no graph"
    torch.testing.assert_close(out, expected, msg="compiled eval-mode Conv+BN differs from eager")


@pytest.mark.claim("compile.bn-eval-inductor-fails", as_written=True)
def test_as_written_batchnorm_eval_mode_fails_in_inductor():
    """Material: BackendCompilerFailed for eval-mode BatchNorm.  True: it compiles (this spec fails)."""
    model = _eval_conv_bn()
    with torch.no_grad(), pytest.raises(torch._dynamo.exc.BackendCompilerFailed):
        torch.compile(model)(torch.randn(2, 3, 8, 8))


@pytest.mark.claim("compile.max-autotune-every-later-call-fast")
def test_max_autotune_recompiles_for_a_new_shape():
    """Material: after max-autotune's slow start every later call is fast.
    True: same-shape calls reuse the code; a new shape compiles again."""
    compiled = torch.compile(lambda x: torch.relu(x) * 2, mode="max-autotune")
    before = _unique_graphs()
    for _ in range(2):
        compiled(torch.randn(8))
    assert _unique_graphs() == before + 1, f"{_unique_graphs() - before} graphs after two same-shape calls"
    x = torch.randn(12)
    torch.testing.assert_close(compiled(x), torch.relu(x) * 2)
    assert _unique_graphs() == before + 2, (
        f"{_unique_graphs() - before} graphs after a new shape, but the shape guard should force a recompile")

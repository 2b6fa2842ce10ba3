"""Compile topic, eager (dynamic) graphs versus static graphs: where errors surface, and
how the autograd graph follows the Python control flow actually executed.

Sources: 000_9a03721c87560f23.txt §1; 002_015987172f286748.txt §2.1;
003_cc3cb04f54b5f923.txt §2.1, §5.2; 004_9d58428a819b84da.txt §1, §3.1.
Quick specs: no torch.compile here.
"""
import inspect
import traceback

import pytest
import torch
from torch import nn

from torchclaims.versions import torch_in


class _MatmulNet(nn.Module):
    """A forward whose second line multiplies by a weight of the wrong size."""

    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(4, 3))
        self.w2 = nn.Parameter(torch.randn(5, 2))  # should be (3, 2)

    def forward(self, x):
        h = x @ self.w1
        return h @ self.w2  # FAILING LINE


def _failing_line_number() -> int:
    lines, start = inspect.getsourcelines(_MatmulNet.forward)
    return start + next(i for i, line in enumerate(lines) if "FAILING LINE" in line)


@pytest.mark.claim("compile.eager-error-at-own-line")
def test_eager_error_is_raised_by_the_failing_line_of_forward():
    """Material: eager errors come from the line of user code that ran the failing op.
    True: the RuntimeError is raised during the call, from the forward line that ran it."""
    net = _MatmulNet()
    with pytest.raises(RuntimeError, match="cannot be multiplied|size mismatch|shapes") as info:
        net(torch.randn(2, 4))
    user_frames = [(frame.f_code.co_name, lineno) for frame, lineno in
                   traceback.walk_tb(info.tb) if frame.f_code.co_filename == __file__]
    assert user_frames and user_frames[-1] == ("forward", _failing_line_number()), (
        f"innermost frames of this file in the traceback are {user_frames}, but should end at "
        f"('forward', {_failing_line_number()}) [net(torch.randn(2, 4))]")


def _shape_mismatch_model():
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(5, 2))  # 3 != 5


@pytest.mark.claim("autograd.shape-errors-at-backward")
def test_shape_mismatch_raises_in_forward_before_any_backward():
    """Material: PyTorch reports a shape mismatch only when loss.backward() runs.
    True: the forward call itself raises, at the Linear that receives the wrong shape."""
    model = _shape_mismatch_model()
    reached_loss = False
    with pytest.raises(RuntimeError, match="cannot be multiplied|size mismatch|shapes"):
        out = model(torch.randn(2, 4))
        reached_loss = True
        out.sum().backward()
    assert not reached_loss, "model(x) returned although Linear(5, 2) got 3 features [nn.Sequential forward]"


@pytest.mark.claim("autograd.shape-errors-at-backward", as_written=True, raises=RuntimeError, match=r"shapes cannot be multiplied")
def test_as_written_shape_mismatch_surfaces_only_at_backward():
    """Material: forward runs through; the shape error appears at loss.backward().
    True: forward already raises (this spec fails)."""
    model = _shape_mismatch_model()
    out = model(torch.randn(2, 4))
    with pytest.raises(RuntimeError):
        out.sum().backward()


class _Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


@pytest.mark.claim("autograd.graph-built-during-forward")
def test_each_eager_forward_records_the_branch_it_took():
    """Material: every forward re-runs Python control flow; the backward graph follows it.
    True: the same module gives MulBackward0 on one input and SubBackward0 on another."""
    model = _Branchy()
    pos = torch.ones(3, requires_grad=True)
    neg = torch.full((3,), -1.0, requires_grad=True)
    kinds = [type(model(t).grad_fn).__name__ for t in (pos, neg, pos)]
    assert kinds == ["MulBackward0", "SubBackward0", "MulBackward0"], (
        f"grad_fn types are {kinds}, but should follow the branch taken each call "
        "[_Branchy()(x).grad_fn for x > 0, x < 0, x > 0]")
    model(neg).sum().backward()
    torch.testing.assert_close(neg.grad, torch.ones(3), msg="d(x - 1)/dx should be 1 on the x < 0 branch")


@pytest.mark.gpu
@pytest.mark.claim("devices.mixed-device-error-at-backward")
def test_cat_of_cuda_and_cpu_tensors_raises_at_the_cat_call():
    """Material: a CPU tensor mixed in by torch.cat shows up only at loss.backward().
    Expected: torch.cat itself raises during forward (needs CUDA)."""
    gpu = torch.randn(2, 3, device="cuda", requires_grad=True)
    cpu = torch.randn(2, 3)
    with pytest.raises(RuntimeError, match="device"):
        torch.cat([gpu, cpu])


@pytest.mark.claim("compile.bn-train-mode-uses-running-stats")
def test_batchnorm_in_train_mode_normalises_with_batch_statistics():
    """Material: in model.train() mode BatchNorm uses its running statistics.
    True: train mode uses the batch mean and biased variance; eval mode uses running stats."""
    bn = nn.BatchNorm1d(3)
    x = torch.randn(8, 3) * 3 + 1
    batch_normalised = (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + bn.eps)
    torch.testing.assert_close(bn(x), batch_normalised,
                               msg="BatchNorm1d in train mode should normalise with batch statistics")
    assert not torch.equal(bn.running_mean, torch.zeros(3)), (
        f"running_mean={bn.running_mean} was not updated by a train-mode forward [BatchNorm1d(3).train()(x)]")
    bn.eval()
    running_normalised = (x - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
    torch.testing.assert_close(bn(x), running_normalised,
                               msg="BatchNorm1d in eval mode should normalise with running statistics")


@pytest.mark.claim("compile.bn-train-mode-uses-running-stats", as_written=True)
def test_as_written_batchnorm_train_mode_uses_running_statistics():
    """Material: train-mode BatchNorm normalises with running statistics.
    True: it uses batch statistics (this spec fails)."""
    bn = nn.BatchNorm1d(3)
    x = torch.randn(8, 3) * 3 + 1
    running_normalised = (x - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
    torch.testing.assert_close(bn(x), running_normalised)


@pytest.mark.claim("compile.introduced-in-2-0")
def test_torch_compile_exists_exactly_from_2_0():
    """Material: PyTorch 2.0 introduced torch.compile.
    True: the installed torch has torch.compile if and only if it is 2.0 or later."""
    assert callable(getattr(torch, "compile", None)) == torch_in(">=2.0"), (
        f"hasattr(torch, 'compile')={hasattr(torch, 'compile')} on torch {torch.__version__}, "
        "but torch.compile should exist exactly from 2.0 on")

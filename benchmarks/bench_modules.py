"""Measurements of the modules topic's quantitative claims (002 §5.1, 003 §5.3, 000 §4.4).

Run alone, never under xdist:  pytest benchmarks/bench_modules.py -p no:xdist
Each benchmark times one side with pytest-benchmark and records the comparison the
material makes in ``benchmark.extra_info``; nothing is asserted about wall-clock time.
"""
import io

import pytest
import torch
from torch import nn
from torch.utils import benchmark as tbench

from torchclaims.measure import saved_tensor_bytes




@pytest.mark.benchmark
def test_checkpoint_memory_and_time(benchmark, ref):
    """003 §5.3: checkpointing saves about 40% memory for about 20% more training time.

    Measured on the SmallCNN (002 §4.3) with its feature extractor wrapped in
    CheckpointedBlock, batch 32 of 3x32x32, one thread: bytes saved for backward over the
    whole model, and forward+backward time with / without the checkpoint.
    """
    torch.manual_seed(0)
    plain = ref.models.SmallCNN()
    ckpt = ref.models.SmallCNN()
    ckpt.load_state_dict(plain.state_dict())
    ckpt.features = ref.models.CheckpointedBlock(ckpt.features)
    plain.eval()  # no dropout randomness: both sides compute the same thing
    ckpt.eval()
    x = torch.randn(32, 3, 32, 32)

    plain_bytes, _ = saved_tensor_bytes(lambda: plain(x))
    ckpt_bytes, _ = saved_tensor_bytes(lambda: ckpt(x))
    memory_saving = 1 - ckpt_bytes / plain_bytes

    def step(model):
        model.zero_grad(set_to_none=True)
        model(x).sum().backward()

    before = torch.get_num_threads()
    try:
        t_plain = tbench.Timer("step(m)", globals={"step": step, "m": plain}, num_threads=1
                               ).blocked_autorange(min_run_time=0.5).median
        t_ckpt = tbench.Timer("step(m)", globals={"step": step, "m": ckpt}, num_threads=1
                              ).blocked_autorange(min_run_time=0.5).median
    finally:
        torch.set_num_threads(before)
    benchmark(step, ckpt)
    benchmark.extra_info.update(
        claim="modules.activation-checkpoint-saves-memory",
        quantity="activation memory saved by checkpointing the feature extractor",
        measured=round(100 * memory_saving, 1), material=40.0, unit="%",
        method=("saved_tensors_hooks byte count, SmallCNN, batch 32x3x32x32; "
                f"{plain_bytes} -> {ckpt_bytes} bytes"),
        time_overhead_percent=round(100 * (t_ckpt / t_plain - 1), 1), time_overhead_material=20.0)


@pytest.mark.benchmark
def test_state_dict_vs_whole_model_file_size(benchmark, ref):
    """000 §4.4: a state_dict file is small (<10 MB); torch.save(model) pickles extra attributes.

    SmallCNN's state_dict against the whole module carrying a cached list attribute.
    """
    model = ref.models.SmallCNN()

    def size_of(obj):
        buf = io.BytesIO()
        torch.save(obj, buf)
        return buf.getbuffer().nbytes

    weights = benchmark(size_of, model.state_dict())
    model.cache = list(range(1_000_000))  # what a whole-model save drags along
    whole = size_of(model)
    benchmark.extra_info.update(
        claim="modules.save-whole-model-pickles-attributes",
        quantity="SmallCNN state_dict file size", measured=round(weights / 2**20, 2),
        material=10.0, unit="MiB",
        method=f"torch.save to BytesIO; whole module with a 1e6-int list attribute: {whole / 2**20:.2f} MiB")

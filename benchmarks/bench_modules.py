"""Measurements of the modules topic's quantitative claims (002 §5.1, 003 §5.3, 000 §4.4).

Run alone, never under xdist:  pytest benchmarks/bench_modules.py --benchmark-only -p no:xdist
Times are interleaved torch.utils.benchmark rounds (one thread); byte counts are exact.
The raw rounds and the material's figure go to ``benchmark.extra_info``; nothing is
asserted about wall-clock time.
"""
import io

import pytest
import torch

from torchclaims.measure import saved_tensor_bytes

from benchkit import ROUNDS, exact_row, interleaved_timer_rounds, median, pair_row, record

SCALE = "the material names no model; the SmallCNN of 002 §4.3, feature extractor checkpointed, batch 32 of 3x32x32"


@pytest.mark.benchmark
@pytest.mark.claim("modules.activation-checkpoint-saves-memory")
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

    def step(model):
        model.zero_grad(set_to_none=True)
        model(x).sum().backward()

    times = interleaved_timer_rounds({"plain": lambda: step(plain), "checkpoint": lambda: step(ckpt)})
    benchmark(step, ckpt)
    record(benchmark, [
        exact_row("modules.activation-checkpoint-saves-memory",
                  "activation memory saved by checkpointing the feature extractor",
                  measured=round(100 * (1 - ckpt_bytes / plain_bytes), 2), stat="saving", material=40.0, unit="%",
                  scale=SCALE, method=f"saved_tensors_hooks byte count, {plain_bytes} -> {ckpt_bytes} bytes"),
        pair_row("modules.activation-checkpoint-saves-memory", "extra forward+backward time with the checkpoint",
                 baseline=times["plain"], candidate=times["checkpoint"], stat="overhead", material=20.0, unit="%",
                 scale=SCALE,
                 method=(f"torch.utils.benchmark.Timer, 1 thread, {ROUNDS} interleaved rounds; medians "
                         f"{median(times['plain']) * 1e3:.2f} ms plain, {median(times['checkpoint']) * 1e3:.2f} ms "
                         "checkpointed")),
    ])


@pytest.mark.benchmark
@pytest.mark.claim("modules.save-whole-model-pickles-attributes")
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
    scale = "the material's SmallCNN; the whole module carries a 1e6-int list attribute (a cached dataset)"
    record(benchmark, [
        exact_row("modules.save-whole-model-pickles-attributes", "whole-module file / state_dict file size",
                  measured=round(whole / weights, 3), stat="ratio", material="> 1", unit="x", scale=scale,
                  method=f"torch.save to BytesIO: {whole} B whole module, {weights} B state_dict"),
        exact_row("modules.save-whole-model-pickles-attributes", "SmallCNN state_dict file size",
                  measured=round(weights / 2**20, 3), material="< 10", unit="MiB", scale=scale,
                  method=f"torch.save(model.state_dict()) to BytesIO: {weights} B"),
    ])

"""Data: DataLoader options as tutorials list them — the defaults, sampler against shuffle,
DistributedSampler with shuffle, the loader as an iterable, batch_size=None, what collate_fn gets.

Sources: the tutorials of claims/survey/data.toml (issue #41).  Small in-memory datasets only.
"""
import inspect

import numpy as np
import pytest
import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
)
from torch.utils.data.distributed import DistributedSampler


def _dataset(n=10):
    return TensorDataset(torch.arange(float(n)), torch.arange(n))


# --- defaults --------------------------------------------------------------------------------

@pytest.mark.claim("data.loader-default-arguments")
def test_loader_defaults_are_batch_one_in_order_main_process_unpinned_keeping_the_tail():
    """Tutorials: batch_size=1, shuffle=False, num_workers=0, pin_memory=False, drop_last=False.
    True: those are the signature defaults (shuffle's is None, read as False: a SequentialSampler)."""
    params = inspect.signature(DataLoader.__init__).parameters
    defaults = {name: params[name].default for name in
                ("batch_size", "shuffle", "num_workers", "pin_memory", "drop_last", "collate_fn", "sampler")}
    assert defaults == {"batch_size": 1, "shuffle": None, "num_workers": 0, "pin_memory": False,
                        "drop_last": False, "collate_fn": None, "sampler": None}, f"DataLoader defaults are {defaults}"
    loader = DataLoader(_dataset(5))
    assert loader.batch_size == 1 and loader.num_workers == 0, f"batch_size={loader.batch_size}, num_workers={loader.num_workers}"
    assert loader.drop_last is False and loader.pin_memory is False
    assert isinstance(loader.sampler, SequentialSampler), f"default sampler is {type(loader.sampler).__name__}"


@pytest.mark.claim("data.loader-default-arguments")
def test_default_loader_yields_every_sample_in_order_one_per_batch():
    """Tutorials: by default one sample per batch, in dataset order, short tail kept.
    True: five samples give five batches of one, x = 0, 1, 2, 3, 4."""
    loader = DataLoader(_dataset(5))
    batches = list(loader)
    assert len(batches) == len(loader) == 5, f"{len(batches)} batches from 5 samples with the defaults"
    assert [tuple(x.shape) for x, _ in batches] == [(1,)] * 5
    assert [x.item() for x, _ in batches] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert loader.collate_fn is torch.utils.data.default_collate, f"collate_fn is {loader.collate_fn}"


# --- sampler against shuffle -------------------------------------------------------------------

@pytest.mark.claim("data.sampler-excludes-shuffle")
@pytest.mark.parametrize("sampler_kind", ["sequential", "subset-random"])
def test_shuffle_true_with_a_sampler_raises_value_error(sampler_kind):
    """Tutorials: with a sampler, shuffle must be False.
    True: shuffle=True together with any sampler raises ValueError at construction."""
    ds = _dataset()
    sampler = SequentialSampler(ds) if sampler_kind == "sequential" else SubsetRandomSampler(range(5))
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(ds, sampler=sampler, shuffle=True)
    order = [x.item() for x, _ in DataLoader(ds, sampler=sampler, shuffle=False)]
    assert len(order) == len(sampler), f"the sampler drives the order: {order}"


@pytest.mark.claim("data.sampler-excludes-shuffle")
def test_shuffle_is_itself_a_random_sampler():
    """Tutorials: shuffle=True randomises the order.
    True: it installs a RandomSampler; shuffle=False a SequentialSampler."""
    ds = _dataset()
    assert isinstance(DataLoader(ds, shuffle=True).sampler, RandomSampler)
    assert isinstance(DataLoader(ds, shuffle=False).sampler, SequentialSampler)


@pytest.mark.claim("data.sampler-excludes-shuffle")
@pytest.mark.parametrize("extra", [{"batch_size": 2}, {"shuffle": True}, {"drop_last": True}])
def test_batch_sampler_excludes_batch_size_shuffle_and_drop_last(extra):
    """Tutorials: batch_sampler is mutually exclusive with batch_size, shuffle, sampler, drop_last.
    True: passing any of them besides batch_sampler raises ValueError."""
    ds = _dataset()
    batch_sampler = BatchSampler(range(10), 3, drop_last=False)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=batch_sampler, **extra)
    sizes = [len(x) for x, _ in DataLoader(ds, batch_sampler=batch_sampler)]
    assert sizes == [3, 3, 3, 1], f"the batch sampler's batches: {sizes}"


@pytest.mark.claim("data.distributed-sampler-shuffle-duplicates")
def test_distributed_sampler_with_shuffle_true_is_refused_not_duplicated():
    """Tutorials: shuffle=True with a DistributedSampler causes duplicates and missed samples.
    True: the DataLoader refuses the pair with ValueError; the sampler shuffles by itself."""
    ds = _dataset(8)
    sampler = DistributedSampler(ds, num_replicas=2, rank=0, shuffle=True, seed=0)
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(ds, sampler=sampler, shuffle=True)
    assert DistributedSampler(ds, num_replicas=2, rank=0).shuffle is True, "DistributedSampler's shuffle default"
    seen = []
    for rank in (0, 1):
        rank_sampler = DistributedSampler(ds, num_replicas=2, rank=rank, shuffle=True, seed=0)
        seen += [int(y) for _, ys in DataLoader(ds, sampler=rank_sampler, batch_size=2) for y in ys]
    assert sorted(seen) == list(range(8)), f"two ranks together saw {sorted(seen)}, expected each index once"


@pytest.mark.claim("data.distributed-sampler-shuffle-duplicates", as_written=True,
                   raises=ValueError, match="mutually exclusive with shuffle")
def test_as_written_distributed_sampler_and_shuffle_give_duplicates():
    """Tutorials: shuffle=True with DistributedSampler makes the ranks see duplicate samples."""
    ds = _dataset(8)
    seen = []
    for rank in (0, 1):
        sampler = DistributedSampler(ds, num_replicas=2, rank=rank, seed=0)
        seen += [int(y) for _, ys in DataLoader(ds, sampler=sampler, shuffle=True) for y in ys]
    assert len(set(seen)) < len(seen), "no sample was duplicated across the ranks"


# --- the loader is an iterable, not an iterator ---------------------------------------------

@pytest.mark.claim("data.loader-not-an-iterator")
def test_next_on_a_loader_raises_type_error_but_next_of_iter_works():
    """Tutorials: a DataLoader is iterable, reach it with iter(); next() on it directly fails.
    True: next(loader) raises TypeError; next(iter(loader)) gives the first batch."""
    loader = DataLoader(_dataset(6), batch_size=3)
    with pytest.raises(TypeError, match="not an iterator"):
        next(loader)
    x, _ = next(iter(loader))
    assert x.tolist() == [0.0, 1.0, 2.0], f"first batch {x.tolist()}"


@pytest.mark.claim("data.loader-not-an-iterator")
def test_each_iter_starts_a_fresh_pass():
    """Tutorials: iterate the loader with iter()/for.
    True: every iter() starts again at the first batch; one iterator runs out after len(loader) batches."""
    loader = DataLoader(_dataset(6), batch_size=3)
    first, second = iter(loader), iter(loader)
    next(first)
    assert next(second)[0].tolist() == [0.0, 1.0, 2.0], "a second iter() should start at the beginning"
    next(first)
    with pytest.raises(StopIteration):
        next(first)


# --- batch_size=None ----------------------------------------------------------------------------

@pytest.mark.claim("data.batch-size-none-unbatched")
def test_batch_size_none_yields_single_samples_converted_to_tensors():
    """Tutorials: batch_size=None turns automatic batching off; collate_fn is applied per sample.
    True: each item comes out alone, without a batch dimension, numpy converted to a tensor."""

    class Numpy(torch.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return np.full(3, i, dtype=np.float32)

    items = list(DataLoader(Numpy(), batch_size=None))
    assert len(items) == 4, f"{len(items)} items from 4 samples"
    assert all(isinstance(t, torch.Tensor) and tuple(t.shape) == (3,) for t in items), \
        f"shapes {[getattr(t, 'shape', type(t)) for t in items]}, expected tensors of (3,)"
    batched = next(iter(DataLoader(Numpy(), batch_size=1)))
    assert tuple(batched.shape) == (1, 3), f"batch_size=1 gives {tuple(batched.shape)}, expected (1, 3)"


# --- collate_fn -----------------------------------------------------------------------------

@pytest.mark.claim("data.collate-fn-gets-sample-list")
def test_collate_fn_receives_the_list_of_batch_size_samples():
    """Tutorials: collate_fn merges a list of samples into a mini-batch.
    True: it is called once per batch with a list of the dataset's items (tuples here)."""
    received = []

    def collate(samples):
        received.append(samples)
        return len(samples)

    sizes = list(DataLoader(_dataset(7), batch_size=3, collate_fn=collate))
    assert sizes == [3, 3, 1], f"collate_fn saw batches of {sizes}"
    assert all(isinstance(s, list) for s in received), f"collate_fn got {[type(s).__name__ for s in received]}"
    assert received[0][0][0].item() == 0.0 and isinstance(received[0][0], tuple), \
        f"first sample {received[0][0]!r}, expected the dataset's (x, y) tuple"


@pytest.mark.claim("data.collate-fn-gets-sample-list")
def test_a_padding_collate_fn_handles_variable_lengths_default_collate_cannot():
    """Tutorials: write a collate_fn for samples that do not stack.
    True: default_collate raises on unequal lengths; a padding collate_fn makes the batch."""
    seqs = [torch.ones(n) for n in (2, 4, 3)]
    with pytest.raises(RuntimeError, match="equal size"):
        next(iter(DataLoader(seqs, batch_size=3)))
    batch = next(iter(DataLoader(seqs, batch_size=3,
                                 collate_fn=lambda s: torch.nn.utils.rnn.pad_sequence(s, batch_first=True))))
    assert tuple(batch.shape) == (3, 4), f"padded batch {tuple(batch.shape)}, expected (3, 4)"

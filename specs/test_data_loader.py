"""Data: Dataset and DataLoader semantics — batching, shuffling, the last batch, samplers,
collate, and what happens to an exception raised in ``__getitem__``.

Sources: 004 §4.3, 002 §4.2, 003 §2.2, §4.2, §5.2.  Worker processes (and an exception
raised inside one) are covered in ``test_data_workers.py``.
"""

import numpy as np
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, RandomSampler, SequentialSampler, SubsetRandomSampler, TensorDataset

from torchclaims.optional import need


def _indices(loader):
    return torch.cat([batch[0] for batch in loader]).tolist()


class FailingAt(Dataset):
    """Returns its index, except at ``bad`` where ``__getitem__`` raises IndexError."""

    def __init__(self, length, bad):
        self.length, self.bad = length, bad

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if index == self.bad:
            raise IndexError(f"index {index} is out of bounds")
        return index


# --- batching and collate --------------------------------------------------------------

@pytest.mark.claim("data.dataset-index-dataloader-batches")
def test_loader_stacks_samples_into_batches_of_the_material_shapes():
    """Material: 1000x784 TensorDataset, batch_size=64 -> xb (64, 784), yb (64,).
    True: every full batch has those shapes; the 16th batch holds the remaining 40 rows."""
    ds = TensorDataset(torch.randn(1000, 784), torch.randint(0, 10, (1000,)))
    batches = list(DataLoader(ds, batch_size=64, shuffle=True))
    shapes = {(tuple(xb.shape), tuple(yb.shape)) for xb, yb in batches[:-1]}
    assert shapes == {((64, 784), (64,))}, f"full batch shapes {shapes}, expected only ((64, 784), (64,))"
    assert (batches[-1][0].shape, batches[-1][1].shape) == (torch.Size([40, 784]), torch.Size([40])), (
        f"last batch shapes {batches[-1][0].shape}, {batches[-1][1].shape}, expected 40 rows")
    assert {(xb.dtype, yb.dtype) for xb, yb in batches} == {(torch.float32, torch.int64)}
    dropped = [xb.shape[0] for xb, _ in DataLoader(ds, batch_size=64, shuffle=True, drop_last=True)]
    assert dropped == [64] * 15, f"drop_last=True batch sizes {dropped}, expected fifteen batches of 64"


@pytest.mark.claim("data.dataset-index-dataloader-batches")
def test_dataset_answers_one_index_and_collate_stacks_along_dim0():
    """Material: Dataset gives one sample per index, DataLoader builds the batch.
    True: batch i of an unshuffled loader is torch.stack of dataset[i*b ... i*b+b-1]."""
    ds = TensorDataset(torch.arange(20.0).view(10, 2), torch.arange(10))
    xb, yb = next(iter(DataLoader(ds, batch_size=4)))
    torch.testing.assert_close(xb, torch.stack([ds[i][0] for i in range(4)]))
    torch.testing.assert_close(yb, torch.tensor([0, 1, 2, 3]))


@pytest.mark.claim("data.getitem-need-not-return-tensor")
def test_collate_turns_numpy_arrays_and_ints_into_tensors():
    """Material: __getitem__ must return tensors.
    True: default_collate converts ndarray, int and float samples (and dicts of them)."""

    class NumpySamples(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return {"image": np.full((2, 3), i, dtype=np.uint8), "label": i, "weight": 0.5 * i}

    batch = next(iter(DataLoader(NumpySamples(), batch_size=3)))
    assert isinstance(batch["image"], torch.Tensor) and batch["image"].shape == (3, 2, 3), (
        f"image batch {type(batch['image'])} {getattr(batch['image'], 'shape', None)}, expected a (3, 2, 3) tensor")
    assert batch["image"].dtype == torch.uint8
    torch.testing.assert_close(batch["label"], torch.tensor([0, 1, 2]))
    torch.testing.assert_close(batch["weight"], torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64))
    pairs = [(np.full(2, i, dtype=np.float32), i) for i in range(4)]   # a tuple (ndarray, int) per index
    xb, yb = next(iter(DataLoader(pairs, batch_size=4)))
    assert isinstance(xb, torch.Tensor) and xb.shape == (4, 2) and yb.tolist() == [0, 1, 2, 3], (
        f"tuple samples collated to {type(xb).__name__} {tuple(getattr(xb, 'shape', ()))}, {yb}")
    nested = next(iter(DataLoader([[np.zeros(2), 1.5], [np.ones(2), 2.5]], batch_size=2)))
    assert isinstance(nested, list) and [type(t) for t in nested] == [torch.Tensor, torch.Tensor], (
        f"list samples collated to {nested!r}, expected a list of two tensors")


@pytest.mark.claim("data.getitem-need-not-return-tensor")
def test_collate_refuses_what_it_has_no_rule_for():
    """Material: __getitem__ must return tensors.
    True: what fails is a sample collate cannot convert, such as a PIL image or an object of its own class."""
    image = need("PIL.Image")

    class Opaque:
        pass

    for samples in ([image.new("RGB", (2, 2))] * 2, [Opaque(), Opaque()]):
        with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers, dicts or lists"):
            next(iter(DataLoader(samples, batch_size=2)))


@pytest.mark.claim("data.getitem-need-not-return-tensor", as_written=True)
def test_as_written_collate_rejects_non_tensor_samples():
    """Material: __getitem__ has to return tensors, so numpy samples cannot be batched."""
    ds = [(np.zeros(3, dtype=np.float32), 1)] * 4
    with pytest.raises(TypeError):
        next(iter(DataLoader(ds, batch_size=2)))


# --- shuffle ---------------------------------------------------------------------------

@pytest.mark.claim("data.shuffle-reorders-each-epoch")
def test_shuffle_draws_a_new_permutation_every_epoch():
    """Material: shuffle=True reorders the indices at each epoch start.
    True: two epochs give two different permutations of all indices."""
    ds = TensorDataset(torch.arange(50))
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    assert isinstance(loader.sampler, RandomSampler), f"shuffle=True gave a {type(loader.sampler).__name__}"
    first, second = _indices(loader), _indices(loader)
    assert sorted(first) == sorted(second) == list(range(50)), "an epoch did not cover each index exactly once"
    assert first != list(range(50)), f"shuffle=True returned the identity order {first[:10]}..."
    assert first != second, "shuffle=True gave the same order in two epochs"


@pytest.mark.claim("data.shuffle-reorders-each-epoch")
def test_shuffle_with_a_seeded_generator_repeats_the_epoch_sequence():
    """Material: shuffle reorders every epoch.
    True: and with generator=torch.Generator().manual_seed(s) the sequence of epochs is reproducible."""
    ds = TensorDataset(torch.arange(30))

    def two_epochs(seed):
        loader = DataLoader(ds, batch_size=7, shuffle=True, generator=torch.Generator().manual_seed(seed))
        return _indices(loader), _indices(loader)

    assert two_epochs(3) == two_epochs(3), "the same generator seed gave different epoch orders"
    assert two_epochs(3) != two_epochs(4), "different seeds gave identical epoch orders"


@pytest.mark.claim("data.shuffle-reorders-each-epoch")
def test_shuffle_without_a_generator_seeds_from_torchs_global_rng():
    """Material: shuffle reorders every epoch.
    True: without a generator each epoch's permutation is seeded from torch's global RNG, so
    torch.manual_seed(s) repeats the epoch sequence."""
    ds = TensorDataset(torch.arange(30))

    def two_epochs(seed):
        torch.manual_seed(seed)
        loader = DataLoader(ds, batch_size=7, shuffle=True)
        return _indices(loader), _indices(loader)

    first = two_epochs(5)
    assert first[0] != first[1], "two epochs without a generator gave the same order"
    assert two_epochs(5) == first, "torch.manual_seed(5) did not repeat the epoch orders of a loader without generator"
    assert two_epochs(6) != first, "another global seed gave the same epoch orders"


@pytest.mark.claim("data.shuffle-train-only")
def test_unshuffled_loader_returns_dataset_order_every_time():
    """Material: validation loaders use shuffle=False.
    True: shuffle=False means a SequentialSampler, index order on every pass."""
    ds = TensorDataset(torch.arange(25))
    loader = DataLoader(ds, batch_size=4, shuffle=False)
    assert isinstance(loader.sampler, SequentialSampler), f"sampler {type(loader.sampler).__name__}"
    assert _indices(loader) == _indices(loader) == list(range(25)), "shuffle=False did not keep index order"
    assert isinstance(DataLoader(ds, shuffle=True).sampler, RandomSampler)
    tails = [list(DataLoader(ds, batch_size=4, shuffle=False))[-1][0].tolist() for _ in range(2)]
    assert tails == [[24], [24]], f"the last partial batch of two passes: {tails}, expected [24] both times"


@pytest.mark.claim("data.shuffle-train-only")
def test_full_pass_accuracy_does_not_depend_on_the_order():
    """Material: the validation loader uses shuffle=False.
    True: the number of correct predictions over a full pass is the same in any order."""
    ds = TensorDataset(torch.randn(50, 4), torch.randint(0, 3, (50,)))
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 3)).eval()

    def correct(loader):
        with torch.no_grad():
            return sum(model(xb).argmax(1).eq(yb).sum().item() for xb, yb in loader)

    plain = correct(DataLoader(ds, batch_size=8))
    shuffled = [correct(DataLoader(ds, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(s)))
                for s in range(3)]
    assert shuffled == [plain] * 3, f"correct predictions shuffled {shuffled}, unshuffled {plain}"


@pytest.mark.claim("data.subset-random-sampler-generator")
def test_subset_random_sampler_seeded_by_epoch_is_reproducible_and_varies():
    """Material: SubsetRandomSampler + Generator().manual_seed(epoch): differs per epoch, reproducible.
    True: same epoch seed -> same order; other epochs -> other orders; only the subset is drawn."""
    subset = list(range(0, 40, 2))

    def order(epoch):
        sampler = SubsetRandomSampler(subset, generator=torch.Generator().manual_seed(epoch))
        return list(sampler)

    assert order(0) == order(0) and order(5) == order(5), "a fixed epoch seed did not reproduce the order"
    assert len({tuple(order(e)) for e in range(5)}) == 5, "epochs 0..4 did not give 5 distinct orders"
    assert sorted(order(1)) == subset, "the sampler drew indices outside the subset"
    ds = TensorDataset(torch.arange(40))
    loader = DataLoader(ds, batch_size=5, sampler=SubsetRandomSampler(
        subset, generator=torch.Generator().manual_seed(1)))
    assert _indices(loader) == order(1), "the loader did not follow its sampler's order"

    def reused(seed):  # one generator, seeded once, drawn from epoch after epoch
        sampler = SubsetRandomSampler(subset, generator=torch.Generator().manual_seed(seed))
        return [list(sampler) for _ in range(3)]

    epochs = reused(7)
    assert len({tuple(e) for e in epochs}) == 3, "a reused generator repeated an epoch's order"
    assert reused(7) == epochs, "seeding one generator once did not reproduce the epoch sequence"


# --- the last batch --------------------------------------------------------------------

@pytest.mark.claim("data.drop-last-drops-tail")
@pytest.mark.parametrize("n, batch, drop_last, expected", [
    (1000, 64, False, 16), (1000, 64, True, 15), (128, 64, True, 2), (63, 64, True, 0), (1, 64, False, 1),
    (0, 4, False, 0),
])
def test_drop_last_drops_only_the_incomplete_final_batch(n, batch, drop_last, expected):
    """Material: drop_last=True throws away the short final batch.
    True: 1000 samples / 64 -> 16 batches, 15 with drop_last; len(loader) agrees."""
    # RandomSampler refuses an empty dataset, so the zero-size case runs unshuffled.
    loader = DataLoader(TensorDataset(torch.arange(n)), batch_size=batch, shuffle=n > 0, drop_last=drop_last)
    sizes = [len(b[0]) for b in loader]
    assert len(sizes) == len(loader) == expected, (
        f"{len(sizes)} batches (len(loader)={len(loader)}), expected {expected} "
        f"[DataLoader(n={n}, batch_size={batch}, drop_last={drop_last})]")
    if drop_last:
        assert all(s == batch for s in sizes), f"drop_last=True still yielded a batch of size {min(sizes)}"
    elif sizes:
        assert sizes[-1] == n - batch * (expected - 1), f"last batch {sizes[-1]}, expected the {n % batch or batch} left"


@pytest.mark.claim("data.drop-last-drops-tail")
def test_the_dropped_samples_change_with_each_shuffle():
    """Material: drop_last=True throws away the short final batch.
    True: with shuffle the 40 samples left out differ from epoch to epoch."""
    loader = DataLoader(TensorDataset(torch.arange(1000)), batch_size=64, shuffle=True, drop_last=True)
    left_out = [set(range(1000)) - set(_indices(loader)) for _ in range(2)]
    assert [len(s) for s in left_out] == [40, 40], f"left out {[len(s) for s in left_out]} samples, expected 40"
    assert left_out[0] != left_out[1], "two shuffled epochs dropped the same 40 samples"


@pytest.mark.claim("data.drop-last-batchnorm-small-batch")
def test_batchnorm_in_training_rejects_a_one_sample_tail_that_drop_last_removes():
    """Material: drop the short tail because BatchNorm statistics go wrong on tiny batches.
    True: a 1-sample tail is an error in training mode; drop_last=True never yields it."""
    ds = TensorDataset(torch.randn(65, 3))
    bn = nn.BatchNorm1d(3).train()
    tail = list(DataLoader(ds, batch_size=64))[-1][0]
    assert tail.shape[0] == 1
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        bn(tail)
    sizes = [b[0].shape[0] for b in DataLoader(ds, batch_size=64, drop_last=True)]
    assert sizes == [64], f"drop_last=True yielded batch sizes {sizes}, expected [64]"
    for (xb,) in DataLoader(ds, batch_size=64, drop_last=True):
        bn(xb)


@pytest.mark.claim("data.drop-last-shape-mismatch")
def test_a_short_last_batch_runs_through_a_standard_model():
    """Material: drop_last=True prevents a shape mismatch from the short last batch.
    True: Linear/Conv/pool/loss take any batch size; only hard-coded batch sizes break."""
    ds = TensorDataset(torch.randn(70, 3, 8, 8), torch.randint(0, 4, (70,)))
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 4))
    sizes = []
    for xb, yb in DataLoader(ds, batch_size=32):
        loss = nn.functional.cross_entropy(model(xb), yb)
        sizes.append((xb.shape[0], loss.dim()))
    assert sizes == [(32, 0), (32, 0), (6, 0)], f"(batch size, loss dims) per batch {sizes}"
    assert model(torch.randn(1, 3, 8, 8)).shape == (1, 4), "a one-sample batch did not run through the model"
    tail = list(DataLoader(ds, batch_size=32))[-1][0]
    with pytest.raises(RuntimeError):
        tail.view(32, 3 * 8 * 8)  # a hard-coded batch size is what the short tail breaks
    buffer = torch.empty(32, 3 * 8 * 8)
    with pytest.raises(RuntimeError):
        buffer.copy_(tail.flatten(1))  # so is a buffer allocated for a full batch
    for xb, _ in DataLoader(ds, batch_size=32, drop_last=True):
        buffer.copy_(xb.view(32, 3 * 8 * 8))  # without the tail both work on every batch


@pytest.mark.claim("data.drop-last-shape-mismatch")
def test_batchnorm_fails_on_one_value_per_channel_not_on_one_sample():
    """Material: drop_last=True keeps a short final batch from breaking the model.
    True: BatchNorm2d trains on a (1, C, 8, 8) tail; only one value per channel is refused."""
    nn.BatchNorm2d(4).train()(torch.randn(1, 4, 8, 8))  # one sample, 64 values per channel: trains
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(4).train()(torch.randn(1, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm2d(4).train()(torch.randn(1, 4, 1, 1))


@pytest.mark.claim("data.drop-last-shape-mismatch", as_written=True)
def test_as_written_the_short_last_batch_breaks_a_standard_model():
    """Material: without drop_last the smaller final batch causes a shape mismatch."""
    ds = TensorDataset(torch.randn(70, 16), torch.randint(0, 4, (70,)))
    model = nn.Linear(16, 4)
    with pytest.raises(RuntimeError):
        for xb, yb in DataLoader(ds, batch_size=32):
            nn.functional.cross_entropy(model(xb), yb)


# --- exceptions in __getitem__ -----------------------------------------------------------

@pytest.mark.claim("data.getitem-exception-skipped")
def test_getitem_exception_propagates_without_workers():
    """Material: the loader silently skips a batch whose __getitem__ raises.
    True: with num_workers=0 the original IndexError leaves the for loop."""
    loader = DataLoader(FailingAt(10, bad=9), batch_size=4)
    seen = []
    with pytest.raises(IndexError, match="index 9 is out of bounds") as caught:
        for (batch) in loader:
            seen.append(batch)
    assert len(seen) == 2, f"{len(seen)} batches before the error, expected the 2 good ones"
    assert type(caught.value) is IndexError and "worker" not in str(caught.value), (
        f"num_workers=0 raised {type(caught.value).__name__}: {caught.value}, expected the dataset's own IndexError")


@pytest.mark.claim("data.getitem-exception-skipped", as_written=True, raises=IndexError, match=r"out of bounds")
def test_as_written_a_failing_batch_is_skipped_and_the_epoch_ends_early():
    """Material: the failing batch is skipped quietly; the loop just yields fewer batches."""
    batches = list(DataLoader(FailingAt(10, bad=9), batch_size=4))
    assert len(batches) == 2


@pytest.mark.claim("data.len-must-match-data")
def test_over_long_len_makes_the_loader_request_a_missing_row(ref, tmp_path):
    """Material: __len__ = 1001 over a 1000-row memmap -> IndexError at the last index.
    True: the sampler asks for index len-1; an exact __len__ never does."""
    path = tmp_path / "rows.dat"
    np.arange(1000 * 4, dtype=np.uint32).astype(np.uint8).reshape(1000, 4).tofile(path)
    data = np.memmap(path, dtype=np.uint8, mode="r", shape=(1000, 4))
    requested = []

    class OneTooMany(Dataset):
        def __len__(self):
            return data.shape[0] + 1

        def __getitem__(self, index):
            requested.append(index)
            return torch.from_numpy(np.array(data[index]))

    for sampler in (SequentialSampler(OneTooMany()), RandomSampler(OneTooMany())):
        assert sorted(sampler) == list(range(1001)), f"{type(sampler).__name__} did not draw from range(len)"
    with pytest.raises(IndexError):
        list(DataLoader(OneTooMany(), batch_size=4))
    assert requested[-1] == 1000, f"the loader failed at index {requested[-1]}, expected 1000"
    with pytest.raises(IndexError):
        data[1000]
    exact = ref.data.MemmapDataset(path, (1000, 4), np.uint8)
    assert len(exact) == 1000
    rows = torch.cat(list(DataLoader(exact, batch_size=4)))
    torch.testing.assert_close(rows, torch.from_numpy(np.array(data)))

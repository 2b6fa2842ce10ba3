"""Data: a custom Dataset's __len__ and __getitem__, and random_split's sizes and seeding.

Sources: the tutorials of claims/survey/data.toml (issue #41).  Small in-memory datasets only.
"""
import pytest
import torch
from torch.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split


class _NoLen(Dataset):
    def __getitem__(self, i):
        if i >= 4:
            raise IndexError(i)
        return torch.tensor(float(i))


class _NoGetitem(Dataset):
    def __len__(self):
        return 4


class _Both(_NoLen):
    def __len__(self):
        return 4


@pytest.mark.claim("data.dataset-needs-len-getitem")
def test_a_dataset_with_both_methods_loads_in_batches():
    """Tutorials: a map-style Dataset implements __len__ and __getitem__.
    True: with both, DataLoader batches it and len(loader) counts the batches."""
    loader = DataLoader(_Both(), batch_size=2)
    assert len(loader) == 2, f"len(loader) = {len(loader)}, expected 2"
    assert [b.tolist() for b in loader] == [[0.0, 1.0], [2.0, 3.0]]


@pytest.mark.claim("data.dataset-needs-len-getitem")
def test_without_len_the_default_loader_raises_type_error():
    """Tutorials: __len__ is required.
    True: Dataset defines no __len__; the default sampler needs it, so iterating or len() raises TypeError."""
    assert not hasattr(Dataset, "__len__"), "torch.utils.data.Dataset defines __len__"
    loader = DataLoader(_NoLen(), batch_size=2)
    with pytest.raises(TypeError, match="has no len"):
        list(loader)
    with pytest.raises(TypeError, match="has no len"):
        len(loader)


@pytest.mark.claim("data.dataset-needs-len-getitem")
def test_without_getitem_indexing_raises_not_implemented_error():
    """Tutorials: __getitem__ is required.
    True: the base class's __getitem__ raises NotImplementedError; the subclass still instantiates."""
    ds = _NoGetitem()
    with pytest.raises(NotImplementedError):
        ds[0]
    with pytest.raises(NotImplementedError):
        next(iter(DataLoader(ds)))


@pytest.mark.claim("data.random-split-generator-reproducible")
def test_random_split_with_a_seeded_generator_repeats_whatever_the_global_rng():
    """Tutorials: pass generator=torch.Generator().manual_seed(s) to make the split reproducible.
    True: the same seed gives the same indices even after the global RNG moved on."""
    first = random_split(range(20), [15, 5], generator=torch.Generator().manual_seed(42))
    torch.rand(7)
    second = random_split(range(20), [15, 5], generator=torch.Generator().manual_seed(42))
    assert [s.indices for s in first] == [s.indices for s in second], "same seed, different split"
    third = random_split(range(20), [15, 5], generator=torch.Generator().manual_seed(43))
    assert first[0].indices != third[0].indices, "another seed gave the same split"


@pytest.mark.claim("data.random-split-generator-reproducible")
def test_random_split_without_a_generator_follows_the_global_rng():
    """Tutorials: without a generator the split changes from run to run.
    True: it draws from torch's default generator: different calls differ, manual_seed repeats them."""
    a = random_split(range(20), [15, 5])[0].indices
    b = random_split(range(20), [15, 5])[0].indices
    assert a != b, "two unseeded splits agreed"
    torch.manual_seed(5)
    c = random_split(range(20), [15, 5])[0].indices
    torch.manual_seed(5)
    d = random_split(range(20), [15, 5])[0].indices
    assert c == d, "manual_seed did not make the unseeded split repeat"


@pytest.mark.claim("data.random-split-generator-reproducible")
def test_random_split_gives_disjoint_subsets_covering_the_dataset():
    """Tutorials: random_split makes non-overlapping train/val subsets.
    True: Subset views over the same dataset, disjoint, together every index once."""
    ds = TensorDataset(torch.arange(20.0))
    train, val = random_split(ds, [15, 5], generator=torch.Generator().manual_seed(0))
    assert isinstance(train, Subset) and train.dataset is ds, "the parts should be Subsets of the dataset"
    assert sorted(train.indices + val.indices) == list(range(20)), "the parts overlap or miss indices"


@pytest.mark.claim("data.random-split-generator-reproducible")
def test_random_split_lengths_must_sum_or_be_fractions():
    """Tutorials: lengths must add up to len(dataset) (or be fractions).
    True: a wrong integer sum raises ValueError; fractions summing to 1 are accepted, remainders go round-robin."""
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(10), [3, 3])
    parts = random_split(range(10), [0.33, 0.33, 0.34], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [4, 3, 3], f"fractional split sizes {[len(p) for p in parts]}"

"""Devices, DistributedSampler: how the ranks of a job split one dataset (issue #41, tutorials).

Each spec builds the sampler with an explicit ``num_replicas`` and ``rank``, which is what every
process of a job does once its group exists, so the shards of all ranks can be compared in one
process; the defaults spec uses a one-rank gloo group (``single_process_group``).
"""
import math
from collections import Counter

import pytest
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def shards(n, replicas, **kwargs):
    """Every rank's list of indices for a dataset of ``n`` samples."""
    return [list(DistributedSampler(range(n), num_replicas=replicas, rank=rank, **kwargs))
            for rank in range(replicas)]


# ---------------------------------------------------------------- padding and drop_last

@pytest.mark.claim("devices.distributed-sampler-pads-evenly")
@pytest.mark.parametrize("shuffle", [False, True], ids=["ordered", "shuffled"])
def test_uneven_dataset_is_padded_so_every_rank_gets_ceil_n_over_replicas(shuffle):
    """Tutorials: when len(dataset) does not divide by num_replicas, extra samples are added.
    True: each rank gets ceil(10/4) = 3; the 2 extra indices repeat the first ones of the order."""
    parts = shards(10, 4, shuffle=shuffle)
    assert [len(p) for p in parts] == [3, 3, 3, 3], f"shard sizes {[len(p) for p in parts]}, expected 3 each"
    assert all(len(DistributedSampler(range(10), num_replicas=4, rank=r)) == 3 for r in range(4))
    seen = Counter(i for p in parts for i in p)
    assert set(seen) == set(range(10)), f"indices covered: {sorted(seen)}"
    repeated = sorted(i for i, c in seen.items() if c == 2)
    order = torch.randperm(10, generator=torch.Generator().manual_seed(0)).tolist() if shuffle else list(range(10))
    assert repeated == sorted(order[:2]), f"repeated indices {repeated}, expected the order's first two {order[:2]}"


@pytest.mark.claim("devices.distributed-sampler-drop-last-tail")
def test_drop_last_cuts_the_tail_so_every_rank_gets_floor_n_over_replicas():
    """Tutorials: drop_last=True drops the tail so the data divides evenly among the replicas.
    True: 10 samples over 4 ranks give 2 each; indices 8 and 9 are never seen; nothing repeats."""
    parts = shards(10, 4, shuffle=False, drop_last=True)
    assert parts == [[0, 4], [1, 5], [2, 6], [3, 7]], f"drop_last shards {parts}"
    assert all(len(DistributedSampler(range(10), num_replicas=4, rank=r, drop_last=True)) == 2 for r in range(4))
    shuffled = [i for p in shards(10, 4, drop_last=True) for i in p]
    assert len(shuffled) == len(set(shuffled)) == 8, f"shuffled drop_last shards repeat or lose too many: {shuffled}"


@pytest.mark.claim("devices.distributed-sampler-no-duplicates")
def test_ranks_share_no_index_only_when_the_length_divides():
    """Tutorials: the sampler never repeats a sample and never leaves one out.
    True: with 12 samples over 4 ranks each index appears once; with 10, padding repeats two
    indices, and with drop_last two are left out."""
    even = [i for p in shards(12, 4) for i in p]
    assert sorted(even) == list(range(12)), f"12 over 4 ranks: {sorted(even)}"
    padded = Counter(i for p in shards(10, 4) for i in p)
    assert sum(padded.values()) == 12 and max(padded.values()) == 2, f"10 over 4 ranks: {padded}"
    dropped = {i for p in shards(10, 4, drop_last=True) for i in p}
    assert len(set(range(10)) - dropped) == 2, f"10 over 4 ranks with drop_last keeps {sorted(dropped)}"


@pytest.mark.claim("devices.distributed-sampler-no-duplicates", as_written=True)
def test_as_written_distributed_sampler_never_repeats_a_sample():
    """Tutorials: no sample is repeated across ranks.  True: 10 over 4 ranks repeats two (strict xfail)."""
    everything = [i for p in shards(10, 4) for i in p]
    assert len(everything) == len(set(everything)), f"indices handed out twice: {Counter(everything)}"


@pytest.mark.claim("devices.distributed-sampler-len-by-rank")
def test_every_rank_gets_the_same_number_of_samples():
    """Tutorials: without drop_last rank r gets ceil((N - r) / R) samples, fewer for later ranks.
    True: every rank gets ceil(N / R); the shortfall is padded, so no rank has fewer."""
    for n, replicas in [(10, 4), (7, 3), (5, 2)]:
        lengths = [len(p) for p in shards(n, replicas)]
        assert lengths == [math.ceil(n / replicas)] * replicas, f"N={n}, R={replicas}: shard sizes {lengths}"


@pytest.mark.claim("devices.distributed-sampler-len-by-rank", as_written=True)
def test_as_written_later_ranks_get_fewer_samples():
    """Tutorials: rank r gets ceil((N - r) / R).  True: all get ceil(N / R) (strict xfail)."""
    lengths = [len(p) for p in shards(10, 4)]
    assert lengths == [math.ceil((10 - r) / 4) for r in range(4)], f"shard sizes are {lengths}"


# ---------------------------------------------------------------- which indices a rank gets

@pytest.mark.claim("devices.distributed-sampler-strided-shards")
def test_rank_takes_every_num_replicas_th_index_from_its_rank():
    """Tutorials: a rank subsamples indices[rank:total_size:num_replicas].
    True: 12 samples, 3 ranks, no shuffle: rank 1 gets 1, 4, 7, 10 (not a contiguous block)."""
    assert shards(12, 3, shuffle=False) == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
    order = torch.randperm(12, generator=torch.Generator().manual_seed(0)).tolist()
    assert shards(12, 3) == [order[r::3] for r in range(3)], "shuffled shards are not strided slices of one order"


@pytest.mark.claim("devices.distributed-sampler-seed-plus-epoch")
def test_order_is_randperm_seeded_with_seed_plus_epoch_on_every_rank():
    """Tutorials: the shuffle uses seed + epoch, the same on every rank, seed defaulting to 0.
    True: the order is randperm(N) from a generator seeded seed + epoch; the seed must match."""
    assert DistributedSampler(range(8), num_replicas=2, rank=0).seed == 0
    for seed, epoch in [(0, 0), (0, 3), (5, 2)]:
        order = torch.randperm(20, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
        for rank in range(2):
            sampler = DistributedSampler(range(20), num_replicas=2, rank=rank, seed=seed)
            sampler.set_epoch(epoch)
            assert list(sampler) == order[rank::2], f"seed={seed}, epoch={epoch}, rank={rank}"
    mismatched = [set(DistributedSampler(range(20), num_replicas=2, rank=r, seed=r)) for r in range(2)]
    assert mismatched[0] & mismatched[1], "ranks with different seeds still split the data disjointly"


@pytest.mark.claim("devices.distributed-sampler-set-epoch")
def test_without_set_epoch_every_epoch_repeats_the_same_order():
    """Tutorials: without set_epoch each epoch uses the same order; set_epoch reshuffles.
    True: iterating again gives the same list; set_epoch(1) another; set_epoch(0) the first again."""
    sampler = DistributedSampler(range(20), num_replicas=2, rank=0)
    first = list(sampler)
    assert list(sampler) == first, "a second pass without set_epoch changed the order"
    sampler.set_epoch(1)
    second = list(sampler)
    assert second != first, "set_epoch(1) kept the order"
    sampler.set_epoch(0)
    assert list(sampler) == first, "set_epoch(0) did not bring back the first epoch's order"


@pytest.mark.claim("devices.set-epoch-before-loader-iter")
def test_set_epoch_after_iter_does_not_change_the_running_epoch():
    """Tutorials: call set_epoch at the start of each epoch, before the DataLoader iterator is made.
    True: iter(loader) draws the sampler's order at once; a later set_epoch only acts on the next iter."""
    sampler = DistributedSampler(range(20), num_replicas=2, rank=0)
    loader = DataLoader(list(range(20)), sampler=sampler, batch_size=None)
    epoch0 = [int(x) for x in loader]
    running = iter(loader)
    sampler.set_epoch(1)
    assert [int(x) for x in running] == epoch0, "set_epoch after iter() changed the epoch already running"
    assert [int(x) for x in loader] != epoch0, "the next iter() after set_epoch(1) kept epoch 0's order"


# ---------------------------------------------------------------- defaults

@pytest.mark.claim("devices.distributed-sampler-defaults-from-group")
def test_num_replicas_and_rank_come_from_the_default_group(single_process_group):
    """Tutorials: num_replicas and rank default to the group's world size and rank.
    True: with a group they are get_world_size() and get_rank(); shuffle=True, seed=0, drop_last=False."""
    import torch.distributed as dist
    sampler = DistributedSampler(range(6))
    assert (sampler.num_replicas, sampler.rank) == (dist.get_world_size(), dist.get_rank()) == (1, 0)
    assert (sampler.shuffle, sampler.seed, sampler.drop_last) == (True, 0, False)
    assert sorted(sampler) == list(range(6))


@pytest.mark.claim("devices.distributed-sampler-defaults-from-group")
def test_without_a_group_the_sampler_needs_explicit_replicas_and_rank():
    """True: with no process group and no num_replicas, construction raises ValueError; a rank
    outside [0, num_replicas) is refused as well."""
    import torch.distributed as dist
    assert not dist.is_initialized()
    with pytest.raises((ValueError, RuntimeError), match="Default process group has not been initialized"):
        DistributedSampler(range(6))   # RuntimeError on older releases
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(6), num_replicas=2, rank=2)

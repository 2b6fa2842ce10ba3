"""Tensors, shapes: squeeze/unsqueeze, cat/stack, expand/repeat, view(-1), size and chunk.

What beginner tutorials say about reshaping tensors (issue #41), checked on small tensors.
"""
import numpy as np
import pytest
import torch

from aliasing import shares_storage

# ---------------------------------------------------------------- unsqueeze / squeeze

@pytest.mark.claim("tensors.unsqueeze-inserts-size-one-view")
def test_unsqueeze_inserts_a_size_one_dim_as_a_view_and_unsqueeze__changes_the_tensor():
    """Tutorials: unsqueeze(d) adds a size-1 dim at d, leaves the tensor alone; unsqueeze_ is in place.
    True: (3,) -> (1, 3), (3, 1), (3, 1) for d = 0, 1, -1; the result is a view; unsqueeze_ reshapes x."""
    x = torch.arange(3)
    shapes = {d: tuple(x.unsqueeze(d).shape) for d in (0, 1, -1)}
    assert shapes == {0: (1, 3), 1: (3, 1), -1: (3, 1)}, f"unsqueeze shapes {shapes}"
    assert x.shape == (3,), f"x.unsqueeze changed x to {tuple(x.shape)}"
    row = x.unsqueeze(0)
    assert shares_storage(row, x), "x.unsqueeze(0) got its own storage, but should be a view of x"
    row[0, 1] = 7
    assert x[1].item() == 7, f"writing through unsqueeze(0) left x = {x.tolist()}"
    assert torch.equal(x[None], row), "x[None] differs from x.unsqueeze(0)"
    same = x.unsqueeze_(0)
    assert same is x and x.shape == (1, 3), f"unsqueeze_ returned {same is x}, x.shape = {tuple(x.shape)}"


@pytest.mark.claim("tensors.squeeze-drops-size-one-dims")
@pytest.mark.claim("tensors.squeeze-default-dim-zero")
def test_squeeze_without_dim_drops_every_size_one_dim():
    """Tutorials: squeeze() removes every size-1 dim; squeeze(d) only d, if its size is 1.
    True: (1, 3, 1, 5) -> (3, 5); squeeze(0) -> (3, 1, 5); squeeze(1) on size 3 is a no-op, no error."""
    y = torch.zeros(1, 3, 1, 5)
    assert tuple(y.squeeze().shape) == (3, 5), f"squeeze() gave {tuple(y.squeeze().shape)}"
    assert tuple(y.squeeze(0).shape) == (3, 1, 5), f"squeeze(0) gave {tuple(y.squeeze(0).shape)}"
    assert tuple(y.squeeze(1).shape) == (1, 3, 1, 5), f"squeeze(1) of a size-3 dim gave {tuple(y.squeeze(1).shape)}"
    assert shares_storage(y.squeeze(), y), "squeeze() should return a view"
    column = torch.zeros(3, 1)
    assert tuple(column.squeeze().shape) == (3,), f"(3, 1).squeeze() gave {tuple(column.squeeze().shape)}"


@pytest.mark.needs_torch(">=2.0", reason="squeeze with a tuple of dims appeared in 2.0")
@pytest.mark.claim("tensors.squeeze-drops-size-one-dims")
def test_squeeze_with_a_tuple_of_dims_drops_those_of_size_one():
    """Tutorials: squeeze also takes several dims.  True: (1, 3, 1, 5).squeeze((0, 2)) is (3, 5)."""
    y = torch.zeros(1, 3, 1, 5)
    assert tuple(y.squeeze((0, 2)).shape) == (3, 5), f"squeeze((0, 2)) gave {tuple(y.squeeze((0, 2)).shape)}"


@pytest.mark.claim("tensors.squeeze-default-dim-zero", as_written=True)
def test_as_written_squeeze_without_argument_removes_dim_zero():
    """Tutorial: squeeze(k) removes dim k, and by default k is 0.  True: squeeze() removes every size-1 dim."""
    y = torch.zeros(1, 3, 1, 5)
    assert tuple(y.squeeze().shape) == tuple(y.squeeze(0).shape), (
        f"squeeze() gave {tuple(y.squeeze().shape)}, squeeze(0) gave {tuple(y.squeeze(0).shape)}")


# ---------------------------------------------------------------- cat / stack

@pytest.mark.claim("tensors.cat-vs-stack")
def test_cat_joins_along_an_existing_dim_and_stack_adds_one():
    """Tutorials: cat joins along an existing dim (others must match); stack adds a new dim (same shapes).
    True: two (2, 3) give cat (4, 3)/(2, 6) and stack (2, 2, 3)/(2, 2, 3)/(2, 3, 2); mismatches raise."""
    a, b = torch.arange(6).view(2, 3), torch.arange(6, 12).view(2, 3)
    assert tuple(torch.cat((a, b), 0).shape) == (4, 3) and tuple(torch.cat((a, b), 1).shape) == (2, 6)
    assert torch.cat((a, b), 0).dim() == 2, "cat should not add a dimension"
    shapes = [tuple(torch.stack((a, b), d).shape) for d in (0, 1, 2)]
    assert shapes == [(2, 2, 3), (2, 2, 3), (2, 3, 2)], f"stack shapes {shapes}"
    assert torch.equal(torch.stack((a, b), 1)[:, 0], a), "stack(dim=1)[:, 0] should be the first input"
    assert tuple(torch.cat((torch.ones(2, 3), torch.ones(4, 3))).shape) == (6, 3), "cat allows a different dim-0 size"
    with pytest.raises(RuntimeError, match="must match except in dimension 0"):
        torch.cat((torch.ones(2, 3), torch.ones(2, 4)))
    with pytest.raises(RuntimeError, match="equal size"):
        torch.stack((torch.ones(2, 3), torch.ones(4, 3)))


# ---------------------------------------------------------------- expand / repeat

@pytest.mark.claim("tensors.expand-is-a-view")
def test_expand_is_a_stride_zero_view_of_size_one_dims_only():
    """Tutorials: expand allocates nothing, shares memory, grows only size-1 dims; -1 keeps a size.
    True: (3, 1) -> (3, 4) with stride 0, writes to the base show; (2, 3) -> (4, 3) raises."""
    x = torch.tensor([[1], [2], [3]])
    wide = x.expand(3, 4)
    assert tuple(wide.shape) == (3, 4) and wide.stride() == (1, 0), f"shape {tuple(wide.shape)}, stride {wide.stride()}"
    assert shares_storage(wide, x), "expand got its own storage"
    x[0, 0] = 100
    assert wide[0].tolist() == [100] * 4, f"after x[0, 0] = 100 the expanded row is {wide[0].tolist()}"
    assert tuple(x.expand(-1, 2).shape) == (3, 2), "-1 should keep the size of dim 0"
    v = torch.arange(4)
    assert torch.equal(v.expand(1, -1), v.unsqueeze(0)), "expand(1, -1) of a (4,) tensor should equal unsqueeze(0)"
    assert tuple(v.expand(3, -1).shape) == (3, 4)
    with pytest.raises(RuntimeError, match="non-singleton dimension"):
        torch.ones(2, 3).expand(4, 3)


@pytest.mark.claim("tensors.repeat-copies")
def test_repeat_copies_the_data_and_takes_counts():
    """Tutorial: repeat allocates new memory; its arguments are counts, and any dim can repeat.
    True: (3, 1).repeat(1, 3) is (3, 3) in its own storage; (2, 3).repeat(2, 1) is (4, 3)."""
    x = torch.tensor([[1], [2], [3]])
    tiled = x.repeat(1, 3)
    assert tuple(tiled.shape) == (3, 3) and tiled.is_contiguous(), f"shape {tuple(tiled.shape)}, stride {tiled.stride()}"
    assert not shares_storage(tiled, x), "repeat shares x's storage"
    x[0, 0] = 100
    assert tiled[0].tolist() == [1, 1, 1], f"after x[0, 0] = 100 the repeated row is {tiled[0].tolist()}"
    m = torch.arange(6).view(2, 3)
    assert torch.equal(m.repeat(2, 1), torch.cat((m, m))), f"(2, 3).repeat(2, 1) = {m.repeat(2, 1).tolist()}"
    assert tuple(m.repeat(2, 1, 1).shape) == (2, 2, 3), "extra counts should add leading dims"


# ---------------------------------------------------------------- view(-1)

@pytest.mark.claim("tensors.view-minus-one-infers")
def test_view_infers_one_minus_one_dimension():
    """Tutorials: one size may be -1 and view/reshape work it out from the element count.
    True: (2, 4).view(-1) is (8,), view(4, -1) is (4, 2); two -1 or a count that does not divide raise."""
    x = torch.arange(8).view(2, 4)
    assert tuple(x.view(-1).shape) == (8,) and x.view(-1).tolist() == list(range(8))
    assert tuple(x.view(4, -1).shape) == (4, 2) and tuple(x.reshape(-1, 1).shape) == (8, 1)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(RuntimeError, match="invalid for input of size 8"):
        x.view(3, -1)


# ---------------------------------------------------------------- size arguments, size() and shape

@pytest.mark.claim("tensors.size-varargs-or-tuple")
def test_sizes_as_arguments_or_as_a_tuple_give_the_same_tensor():
    """Tutorial: torch.ones(2, 3) and torch.ones((2, 3)) are identical; NumPy takes only the tuple.
    True: the same for zeros/rand/empty; np.ones(2, 3) reads 3 as a dtype and raises TypeError."""
    for make in (torch.ones, torch.zeros, torch.empty):
        assert make(2, 3).shape == make((2, 3)).shape == make([2, 3]).shape == (2, 3), f"{make.__name__}"
    assert torch.equal(torch.ones(1, 2, 3, dtype=torch.long), torch.ones((1, 2, 3), dtype=torch.long))
    torch.manual_seed(0)
    first = torch.rand(2, 3)
    torch.manual_seed(0)
    assert torch.equal(first, torch.rand((2, 3))), "rand(2, 3) and rand((2, 3)) drew different numbers"
    with pytest.raises(TypeError):
        np.ones(2, 3)


@pytest.mark.claim("tensors.size-method-equals-shape")
def test_size_method_and_shape_attribute_are_the_same_torch_size():
    """Tutorial: .size() (a method) and .shape (an attribute) give the same thing; size(0) == shape[0].
    True: both are an equal torch.Size (a tuple subclass); size(-1) and shape[-1] too."""
    m = torch.ones(2, 3)
    assert isinstance(m.size(), torch.Size) and isinstance(m.shape, torch.Size) and isinstance(m.shape, tuple)
    assert m.size() == m.shape == (2, 3), f"size() {m.size()}, shape {m.shape}"
    assert (m.size(0), m.size(-1)) == (m.shape[0], m.shape[-1]) == (2, 3)
    assert m.dim() == m.ndim == len(m.shape) == 2


# ---------------------------------------------------------------- chunk / split

@pytest.mark.claim("tensors.chunk-split-sizes")
def test_chunk_uses_ceil_sized_pieces_and_split_takes_sizes():
    """Tutorial: chunk(p, 4, dim=1) of 162 gives 41, 41, 41, 39; split with a list gives those sizes.
    True: chunk pieces have ceil(n/k) elements, the last fewer, so chunk(4) of 6 gives only 3 pieces."""
    p = torch.zeros(5, 162, 7)
    assert [c.shape[1] for c in torch.chunk(p, 4, dim=1)] == [41, 41, 41, 39]
    assert [c.shape[1] for c in torch.split(p, [10, 50, 40, 62], dim=1)] == [10, 50, 40, 62]
    assert [c.numel() for c in torch.arange(6).chunk(4)] == [2, 2, 2], "chunk(4) of 6 elements"
    assert [c.numel() for c in torch.arange(10).chunk(4)] == [3, 3, 3, 1], "chunk(4) of 10 elements"
    assert [c.numel() for c in torch.arange(10).split(3)] == [3, 3, 3, 1], "split(3) of 10 elements"
    assert shares_storage(torch.chunk(p, 4, dim=1)[1], p), "chunk pieces should be views"

"""Tensors, chapter 5: the stride and broadcasting helpers, checked against torch.

reference_impl/strides.py and reference_impl/broadcasting.py re-derive in Python what
torch computes in ATen (computeStride, inferExpandGeometry, infer_size).  Each helper is
compared with torch on a table of awkward layouts (zero-size, size-1, non-contiguous,
0-dim) and, as a property, on drawn layouts.  Sources: 004 §2.1, §2.2; 000 §2.1.
"""
import math

import pytest
import torch
from hypothesis import example, given, strategies as st


def strided(shape, strides):
    """A tensor with exactly this layout (over a storage just big enough)."""
    return torch.empty_strided(shape, strides)


def torch_view_strides(shape, strides, new_shape):
    try:
        return strided(shape, strides).view(new_shape).stride()
    except RuntimeError:
        return None


def repro(call: str) -> str:
    return f"[{call}]"


# (shape, strides, new_shape) tables: every row is a layout torch can build.
VIEW_CASES = [
    ((2, 3, 4), (12, 4, 1), (6, 4)),          # contiguous merge
    ((2, 3, 4), (12, 4, 1), (24,)),           # flatten
    ((2, 3, 4), (12, 4, 1), (2, 3, 2, 2)),    # split the last dim
    ((3, 2, 4), (4, 12, 1), (6, 4)),          # transposed: cannot merge
    ((3, 2, 4), (4, 12, 1), (3, 2, 2, 2)),    # transposed: split the tail
    ((4, 3), (1, 4), (12,)),                  # t(): cannot flatten
    ((4, 3), (1, 4), (4, 3, 1)),              # t(): add a size-1 dim
    ((4, 3), (1, 4), (2, 2, 3)),              # t(): split the first dim
    ((3, 2), (4, 1), (6,)),                   # column slice: cannot flatten
    ((3, 2), (4, 1), (3, 2, 1)),              # column slice: unsqueeze
    ((3, 1, 2), (4, 99, 1), (3, 2)),          # size-1 dim with a junk stride
    ((2, 1, 3), (3, 99, 1), (6,)),            # ... inside a run: the run goes on past its junk stride
    ((2, 1, 1, 3), (3, 7, 99, 1), (2, 3)),    # two of them inside a run
    ((1, 1), (7, 3), (1,)),                   # only size-1 dims
    ((1,), (5,), (1, 1, 1)),
    ((2, 1, 3), (3, 3, 1), (6,)),
    ((2, 1, 3), (1, 2, 2), (2, 3)),
    ((2, 0, 3), (3, 3, 1), (0, 6)),           # zero-size: strides are arbitrary
    ((2, 0, 3), (1, 9, 5), (2, 0, 3)),        # zero-size, same shape: strides kept
    ((0,), (1,), (3, 0, 2)),
    ((), (), (1, 1)),                         # 0-dim
    ((), (), ()),
    ((4,), (2,), (2, 2)),                     # strided 1-d: split is fine
    ((2, 2), (4, 2), (4,)),                   # every other element: chains
    ((2, 2), (8, 2), (4,)),                   # gap between rows: does not chain
    ((6,), (0,), (2, 3)),                     # expanded (stride 0): split ok
    ((2, 3), (0, 1), (6,)),                   # expanded rows: cannot merge
]


@pytest.mark.claim("tensors.layout-decides-zero-copy")
@pytest.mark.claim("tensors.view-needs-contiguous")
@pytest.mark.parametrize("shape, strides, new_shape", VIEW_CASES, ids=str)
def test_view_strides_matches_torch_view(ref, shape, strides, new_shape):
    """Material: zero copy depends on whether strides can express the target layout.
    True: view_strides gives torch.view's strides, or None exactly when view raises."""
    expected = torch_view_strides(shape, strides, new_shape)
    got = ref.strides.view_strides(shape, strides, new_shape)
    assert got == expected, (
        f"view_strides={got}, but torch gives {expected} "
        + repro(f"torch.empty_strided({shape}, {strides}).view({new_shape})"))


@pytest.mark.claim("tensors.view-needs-contiguous")
def test_view_strides_rejects_a_different_element_count(ref):
    """Material: view needs an unchanged element count.
    True: the helper raises ValueError, as torch raises RuntimeError."""
    with pytest.raises(ValueError, match="elements"):
        ref.strides.view_strides((2, 3), (3, 1), (4, 2))


CONTIGUOUS_CASES = [(), (0,), (1,), (5,), (2, 3), (2, 0, 3), (1, 1, 4), (3, 1), (2, 3, 4, 5)]


@pytest.mark.claim("tensors.contiguous-makes-copy")
@pytest.mark.parametrize("shape", CONTIGUOUS_CASES, ids=str)
def test_contiguous_strides_match_a_fresh_tensor(ref, shape):
    """Material: contiguous() gives row-major memory.
    True: contiguous_strides is torch.empty(shape).stride() (zero sizes count as 1)."""
    expected = torch.empty(shape).stride()
    got = ref.strides.contiguous_strides(shape)
    assert got == expected, f"contiguous_strides({shape})={got}, but torch gives {expected}"


IS_CONTIGUOUS_CASES = [
    ((2, 3), (3, 1)), ((2, 3), (1, 2)), ((3, 2), (4, 1)), ((1, 4), (99, 1)),
    ((4, 1), (1, 7)), ((2, 0, 3), (5, 7, 11)), ((), ()), ((1,), (3,)), ((2,), (2,)),
    ((3, 1, 2), (2, 5, 1)), ((2, 2), (0, 1)),
]


@pytest.mark.claim("tensors.contiguous-makes-copy")
@pytest.mark.parametrize("shape, strides", IS_CONTIGUOUS_CASES, ids=str)
def test_is_contiguous_matches_torch(ref, shape, strides):
    """Material: contiguous() is what view needs.
    True: is_contiguous follows Tensor.is_contiguous (size-1 dims and empty tensors ignored)."""
    expected = strided(shape, strides).is_contiguous()
    got = ref.strides.is_contiguous(shape, strides)
    assert got == expected, (
        f"is_contiguous({shape}, {strides})={got}, but torch gives {expected} "
        + repro(f"torch.empty_strided({shape}, {strides}).is_contiguous()"))


BROADCAST_CASES = [
    [(3, 1), (4,)], [(5, 1, 4), (3, 1)], [(1,), (0,)], [(2, 0), (1, 1)], [(), (3, 2)],
    [(), ()], [(4,), (4,)], [(2, 1, 1), (1, 3, 1), (1, 1, 4)], [(1, 0), (3, 1)],
    [3, (2, 1)], [(8, 1, 6, 1), (7, 1, 5)],
]
BAD_BROADCAST_CASES = [[(3,), (4,)], [(2, 3), (3, 2)], [(0,), (2,)], [(4, 3), (4,)], [(1, 2), (3, 1), (1, 3)]]


@pytest.mark.claim("tensors.broadcast-rule")
@pytest.mark.parametrize("shapes", BROADCAST_CASES, ids=str)
def test_broadcast_shapes_matches_torch(ref, shapes):
    """Material: align from the last dim; sizes broadcast when equal or one is 1.
    True: broadcast_shapes equals torch.broadcast_shapes, zero sizes included."""
    expected = tuple(torch.broadcast_shapes(*shapes))
    got = ref.broadcasting.broadcast_shapes(*shapes)
    assert got == expected, f"broadcast_shapes(*{shapes})={got}, but torch gives {expected}"


@pytest.mark.claim("tensors.broadcast-rule")
@pytest.mark.parametrize("shapes", BAD_BROADCAST_CASES, ids=str)
def test_broadcast_shapes_rejects_what_torch_rejects(ref, shapes):
    """Material: other size pairs do not broadcast.
    True: torch raises RuntimeError, the helper a ValueError naming the sizes."""
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes(*shapes)
    with pytest.raises(ValueError, match="broadcast"):
        ref.broadcasting.broadcast_shapes(*shapes)


EXPAND_CASES = [
    ((3, 1), (3, 1), (3, 4)), ((4,), (1,), (3, 4)), ((1,), (1,), (0,)), ((2, 1), (1, 2), (2, 5)),
    ((4, 3), (1, 4), (2, 4, 3)), ((), (), (2, 3)), ((1, 1), (1, 1), (1, 1)), ((3,), (1,), (1, 3)),
    ((2, 1, 1), (1, 1, 1), (1, 1, 2, 2, 0)), ((1, 0), (1, 1), (1, 1, 0)), ((3, 2), (4, 1), (5, 3, 2)),
    # a new leading size-1 dim before a stretched one: size * stride of the *expanded* dim after it, 0
    ((1,), (1,), (1, 4)), ((1, 3), (3, 1), (1, 2, 3)), ((1,), (5,), (1, 1, 4)),
]


@pytest.mark.claim("tensors.broadcast-stride-zero")
@pytest.mark.parametrize("shape, strides, target", EXPAND_CASES, ids=str)
def test_broadcast_strides_match_expand(ref, shape, strides, target):
    """Material: a broadcast dimension has stride 0; nothing is copied.
    True: broadcast_strides equals Tensor.expand(...).stride(), non-contiguous inputs too."""
    expected = strided(shape, strides).expand(target).stride()
    got = ref.broadcasting.broadcast_strides(shape, strides, target)
    assert got == expected, (
        f"broadcast_strides={got}, but torch gives {expected} "
        + repro(f"torch.empty_strided({shape}, {strides}).expand({target}).stride()"))


@pytest.mark.claim("tensors.broadcast-stride-zero")
@pytest.mark.parametrize("shape, target", [((3,), (4,)), ((2, 3), (3,)), ((2,), (2, 3))], ids=str)
def test_broadcast_strides_rejects_what_expand_rejects(ref, shape, target):
    """Material: only size-1 (or missing) dims stretch.
    True: expand raises RuntimeError and the helper ValueError."""
    with pytest.raises(RuntimeError):
        torch.empty(shape).expand(target)
    with pytest.raises(ValueError):
        ref.broadcasting.broadcast_strides(shape, torch.empty(shape).stride(), target)


# --- properties over drawn layouts ----------------------------------------------------


@st.composite
def layouts(draw):
    """A tensor with a possibly non-contiguous layout: sliced, strided, permuted, expanded."""
    ndim = draw(st.integers(0, 4), label="ndim")
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 4]), min_size=ndim, max_size=ndim),
                       label="shape"))
    steps = tuple(draw(st.lists(st.integers(1, 2), min_size=ndim, max_size=ndim), label="steps"))
    base = torch.empty(tuple(s * k + 1 for s, k in zip(shape, steps)))
    t = base[tuple(slice(0, s * k, k) for s, k in zip(shape, steps))] if ndim else base
    order = draw(st.permutations(range(ndim)), label="permutation")
    t = t.permute(*order) if ndim else t
    if ndim and draw(st.booleans(), label="expand a size-1 dim"):
        ones = [d for d, s in enumerate(t.shape) if s == 1]
        if ones:
            size = list(t.shape)
            size[ones[0]] = 3
            t = t.expand(size)
    return t


@st.composite
def regroupings(draw, numel):
    """A shape with ``numel`` elements (zero-size shapes for numel 0)."""
    if numel == 0:
        dims = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4), label="new_shape")
        return tuple(dims) if 0 in dims else tuple(dims) + (0,)
    factors = []
    rest = numel
    for _ in range(draw(st.integers(0, 4), label="ndim")):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divisors), label="size")
        factors.append(d)
        rest //= d
    if rest != 1:
        factors.append(rest)
    ones = draw(st.integers(0, 2), label="extra size-1 dims")
    at = draw(st.integers(0, len(factors)), label="where")
    return tuple(factors[:at] + [1] * ones + factors[at:])


@pytest.mark.property
@pytest.mark.claim("tensors.layout-decides-zero-copy")
def test_view_strides_agree_with_torch_on_drawn_layouts(ref):
    """Material: zero copy exactly when strides express the new layout.
    True: view_strides agrees with Tensor.view on sliced, permuted, expanded tensors."""
    strides_mod = ref.strides

    @given(data=st.data())
    def check(data):
        t = data.draw(layouts(), label="tensor")
        shape, strides = tuple(t.shape), t.stride()
        new_shape = data.draw(regroupings(math.prod(shape)), label="new_shape")
        expected = torch_view_strides(shape, strides, new_shape)
        got = strides_mod.view_strides(shape, strides, new_shape)
        assert got == expected, (
            f"view_strides={got}, but torch gives {expected} "
            + repro(f"torch.empty_strided({shape}, {strides}).view({new_shape})"))
        assert strides_mod.is_contiguous(shape, strides) == t.is_contiguous(), (
            f"is_contiguous({shape}, {strides}) disagrees with torch ({t.is_contiguous()})")

    check()


@pytest.mark.property
@pytest.mark.claim("tensors.broadcast-rule")
@pytest.mark.claim("tensors.broadcast-stride-zero")
def test_broadcasting_helpers_agree_with_torch_on_drawn_shapes(ref):
    """Material: trailing alignment, sizes equal or 1, stride 0 where stretched.
    True: broadcast_shapes/broadcast_strides agree with torch on drawn shapes."""
    bc = ref.broadcasting
    sizes = st.sampled_from([0, 1, 1, 2, 3])

    @given(shapes=st.lists(st.lists(sizes, max_size=4).map(tuple), min_size=1, max_size=3))
    @example(shapes=[(3, 1), (4,)])        # padded on the left, size 1 stretches, stride 0
    @example(shapes=[(1,), (0,)])          # the size that is not 1 wins, even 0
    @example(shapes=[(1,), (1, 2)])        # a new leading size-1 dim before a stretched one
    @example(shapes=[(2,), (3,)])          # a clash
    def check(shapes):
        try:
            expected = tuple(torch.broadcast_shapes(*shapes))
        except RuntimeError:
            expected = None
        try:
            got = bc.broadcast_shapes(*shapes)
        except ValueError:
            got = None
        assert got == expected, f"broadcast_shapes(*{shapes})={got}, but torch gives {expected}"
        if expected is not None:
            for shape in shapes:
                t = torch.empty(shape)
                want = t.expand(expected).stride()
                have = bc.broadcast_strides(shape, t.stride(), expected)
                assert have == want, (
                    f"broadcast_strides({shape}, {t.stride()}, {expected})={have}, "
                    f"but expand gives {want}")

    check()

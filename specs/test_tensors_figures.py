"""Tensors: the material's figure for torch.empty against torch.zeros.

Source: 003 §3.1 (empty allocates without initialising and is 3 times faster than zeros).
Times are measured by benchmarks/bench_tensors.py, never asserted here.  What the figure rests
on is counted instead: the memory each call writes, read as the pages of the new tensor's own
memory that are resident (mincore(2)) right after the call.
"""
import ctypes
import os
import sys

import pytest
import torch

N = 10_000_000  # 40 MB of float32: above glibc's largest mmap threshold, so a fresh mapping


def _resident_bytes(make) -> int:
    """Bytes of the tensor ``make()`` returns that are resident in memory (written) right after it.

    Read per page of the tensor's own memory with mincore(2), not as the process's resident set:
    statm's count is the whole process's (another thread, the allocator reusing memory an earlier
    test wrote, the kernel's per-CPU counting all move it; once a zeros call read as 0 bytes grown).
    glibc's malloc_trim first returns the free memory an earlier test left in the heap, so a reused
    block starts out not resident, as a fresh mapping does."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads which pages are resident with mincore(2) (Linux)")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]
    if hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
    page = os.sysconf("SC_PAGE_SIZE")
    t = make()
    start = t.data_ptr() - t.data_ptr() % page
    pages = -(-(t.data_ptr() + t.nbytes - start) // page)
    vector = (ctypes.c_ubyte * pages)()
    if libc.mincore(start, pages * page, vector) != 0:
        raise OSError(ctypes.get_errno(), f"mincore: {os.strerror(ctypes.get_errno())}")
    del t
    return sum(v & 1 for v in vector) * page


@pytest.mark.claim("tensors.empty-faster-than-zeros")
def test_empty_touches_no_page_while_zeros_writes_every_byte():
    """Material: torch.empty() is 3 times faster than torch.zeros().
    True: empty only maps the memory and writes nothing, zeros writes all of it; the gap is the
    cost of writing N elements, so it grows with N (no fixed factor: bench_tensors.py)."""
    nbytes = N * 4
    empty = _resident_bytes(lambda: torch.empty(N))
    zeros = _resident_bytes(lambda: torch.zeros(N))
    assert empty < nbytes // 10, f"torch.empty({N}) made {empty} bytes resident of its {nbytes}"
    assert zeros > nbytes * 9 // 10, f"torch.zeros({N}) made only {zeros} of its {nbytes} bytes resident"
    z = torch.zeros(N)
    assert int(z.count_nonzero()) == 0, "torch.zeros gave non-zero values"


@pytest.mark.claim("tensors.empty-faster-than-zeros", as_written=True)
def test_as_written_zeros_does_three_times_the_work_of_empty():
    """Material: torch.empty() is 3 times faster than torch.zeros(): read as the memory work each
    call does, zeros would write about three times what empty writes."""
    empty = max(_resident_bytes(lambda: torch.empty(N)), os.sysconf("SC_PAGE_SIZE"))
    zeros = _resident_bytes(lambda: torch.zeros(N))
    assert 2 <= zeros / empty <= 4.5, (
        f"torch.zeros({N}) made {zeros} bytes resident, torch.empty({N}) {empty}: "
        f"a ratio of {zeros / empty:.0f}, not about 3")

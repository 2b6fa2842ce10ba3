"""Tensors: the material's figure for torch.empty against torch.zeros.

Source: 003 §3.1 (empty allocates without initialising and is 3 times faster than zeros).
Times are measured by benchmarks/bench_tensors.py, never asserted here.  What the figure rests
on is counted instead: the memory each call writes, read as the resident pages it touches.
"""
import os
import sys

import pytest
import torch

N = 10_000_000  # 40 MB of float32: above glibc's largest mmap threshold, so a fresh mapping


def _resident_growth(make) -> int:
    """Bytes by which the process's resident set grows while ``make()`` builds its tensor."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads the resident set size from /proc/self/statm (Linux only)")
    page = os.sysconf("SC_PAGE_SIZE")

    def resident():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    before = resident()
    t = make()
    grown = resident() - before
    del t
    return grown


@pytest.mark.claim("tensors.empty-faster-than-zeros")
def test_empty_touches_no_page_while_zeros_writes_every_byte():
    """Material: torch.empty() is 3 times faster than torch.zeros().
    True: empty only maps the memory and writes nothing, zeros writes all of it; the gap is the
    cost of writing N elements, so it grows with N (no fixed factor: bench_tensors.py)."""
    nbytes = N * 4
    # Three tries each, the least growth for empty and the most for zeros: the resident set is the
    # whole process's, and another thread freeing or touching memory meanwhile shifts one reading.
    empty = min(_resident_growth(lambda: torch.empty(N)) for _ in range(3))
    zeros = max(_resident_growth(lambda: torch.zeros(N)) for _ in range(3))
    assert empty < nbytes // 10, f"torch.empty({N}) made {empty} bytes resident of its {nbytes}"
    assert zeros > nbytes * 9 // 10, f"torch.zeros({N}) made only {zeros} of its {nbytes} bytes resident"
    z = torch.zeros(N)
    assert int(z.count_nonzero()) == 0, "torch.zeros gave non-zero values"


@pytest.mark.claim("tensors.empty-faster-than-zeros", as_written=True)
def test_as_written_zeros_does_three_times_the_work_of_empty():
    """Material: torch.empty() is 3 times faster than torch.zeros(): read as the memory work each
    call does, zeros would write about three times what empty writes."""
    empty = max(_resident_growth(lambda: torch.empty(N)), os.sysconf("SC_PAGE_SIZE"))
    zeros = _resident_growth(lambda: torch.zeros(N))
    assert 2 <= zeros / empty <= 4.5, (
        f"torch.zeros({N}) made {zeros} bytes resident, torch.empty({N}) {empty}: "
        f"a ratio of {zeros / empty:.0f}, not about 3")

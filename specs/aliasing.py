"""Which storage a tensor lives in, the same way on every torch the matrix runs.

Specs prove aliasing (a view) or its absence (a copy) by comparing the address of the
whole storage, not ``data_ptr()`` (which moves with the storage offset).  The API for it
changed: ``Tensor.untyped_storage()`` appeared in torch 2.0; 1.13 only has
``Tensor.storage()``, a TypedStorage whose ``untyped()`` is the same byte buffer (and on
2.x ``Tensor.storage()`` warns that TypedStorage is deprecated).  This module picks the
API that exists, so a spec measures the same thing on 1.13.1 and on today's torch; every
spec uses it instead of calling either API itself.  specs/test_tensors_views.py checks it
against torch (a view shares, a clone does not, nbytes is the buffer's size).
"""
from __future__ import annotations

import torch


def storage(t: torch.Tensor):
    """The untyped storage (a byte buffer) ``t`` is a view of."""
    untyped = getattr(t, "untyped_storage", None)
    if untyped is not None:
        return untyped()
    return t.storage().untyped()   # torch < 2.0: TypedStorage over the same bytes


def storage_ptr(t: torch.Tensor) -> int:
    """Address of the whole storage: equal for every view of one buffer, whatever the offset."""
    return storage(t).data_ptr()


def storage_nbytes(t: torch.Tensor) -> int:
    """Size in bytes of the whole buffer behind ``t`` (not only the elements ``t`` shows)."""
    return storage(t).nbytes()


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether ``a`` and ``b`` live in the same buffer (zero-size storages compare trivially)."""
    return storage_ptr(a) == storage_ptr(b)

"""Data-pipeline helpers from the material (003 §4.2, §5.2; 002 §4.2), written out.

- :class:`MemmapDataset`: the ``np.memmap``-backed image dataset of 003 §4.2, over a file
  the caller writes;
- :func:`denormalize`: the inverse of ``transforms.Normalize`` (003 §5.2, fault three);
- ``CIFAR10_MEAN`` / ``CIFAR10_STD``: the constants the material calls "official";
- :func:`make_synthetic_classification`: a small, easily learnable task for training-loop
  specs (nothing is downloaded).
"""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import Dataset, TensorDataset

# The constants 002 §4.2 and 003 §4.2 give for CIFAR-10.  The means agree with the training
# set's per-channel means; the stds are NOT the training set's per-channel stds
# (0.2470, 0.2435, 0.2616): see claims/data.toml, data.cifar10-constants-official.
CIFAR10_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR10_STD = (0.2023, 0.1994, 0.2010)


class MemmapDataset(Dataset):
    """Samples read lazily from a raw binary file through ``np.memmap``.

    ``path`` holds ``shape[0]`` records of ``shape[1:]`` items of ``dtype``, C order.
    ``__getitem__`` copies the record out of the mapping as a NumPy array (so a batch never
    aliases the file and the memmap stays read-only).  With ``transform``, that array is
    what the transform receives (the material's torchvision pipeline takes an array or an
    image, not a tensor) and its result is the sample; without one, the sample is the array
    as a ``torch.Tensor`` (``torch.from_numpy``).  ``targets`` (a sequence, optional) makes
    it return ``(x, int(target))``.
    ``__len__`` is exactly ``shape[0]``, so an index past the end is never produced by a
    sampler, and a direct out-of-range index raises IndexError.
    """

    def __init__(self, path, shape, dtype=np.uint8, targets=None, transform=None):
        self.path = str(path)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.targets = None if targets is None else list(targets)
        self.transform = transform
        if self.targets is not None and len(self.targets) != self.shape[0]:
            raise ValueError(f"{len(self.targets)} targets for {self.shape[0]} records")
        # Opened lazily: a memmap opened in the parent is inherited by forked workers, but
        # opening per process keeps the dataset picklable for spawn as well.
        self._data = None

    @property
    def data(self) -> np.memmap:
        if self._data is None:
            self._data = np.memmap(self.path, dtype=self.dtype, mode="r", shape=self.shape)
        return self._data

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_data"] = None
        return state

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index):
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} is out of range for a dataset of {len(self)} records")
        record = np.array(self.data[index])  # copy out of the mapping
        sample = self.transform(record) if self.transform is not None else torch.from_numpy(record)
        if self.targets is None:
            return sample
        return sample, int(self.targets[index])


def denormalize(tensor: torch.Tensor, mean, std) -> torch.Tensor:
    """Undo ``transforms.Normalize(mean, std)``: ``x * std + mean`` per channel.

    ``tensor`` is ``(..., C, H, W)`` (one image or a batch); the result has the same shape
    and dtype, and is a new tensor.  No clamping: ``denormalize(normalize(x)) == x`` up to
    rounding for every x, in range or not (clamp to [0, 1] yourself before displaying).
    """
    mean = torch.as_tensor(mean, dtype=tensor.dtype, device=tensor.device).view(-1, 1, 1)
    std = torch.as_tensor(std, dtype=tensor.dtype, device=tensor.device).view(-1, 1, 1)
    return tensor * std + mean


def make_synthetic_classification(n: int = 512, num_classes: int = 4, dim: int = 8,
                                  seed: int = 0) -> TensorDataset:
    """An easily learnable classification task: Gaussian blobs around well-separated centres.

    Returns ``TensorDataset(x, y)`` with ``x`` float32 ``(n, dim)`` and ``y`` int64 ``(n,)``
    in ``range(num_classes)``.  The centres are ``3 * e_k``-style one-hot directions (cycled
    when ``num_classes > dim``) plus unit noise, so a linear model reaches high accuracy in
    a few epochs.  Deterministic in ``seed``; does not touch the global RNG.
    """
    generator = torch.Generator().manual_seed(seed)
    y = torch.randint(0, num_classes, (n,), generator=generator)
    centres = torch.zeros(num_classes, dim)
    for k in range(num_classes):
        centres[k, k % dim] = 4.0 * (1 + k // dim)
    x = centres[y] + torch.randn(n, dim, generator=generator)
    return TensorDataset(x.float(), y.long())

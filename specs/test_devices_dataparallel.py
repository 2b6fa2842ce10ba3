"""Devices, DataParallel: what its scatter does with arguments that are not tensors (issue #41).

DataParallel's forward scatters its inputs over ``device_ids``: tensors are cut into chunks along
the batch dimension (that needs GPUs), everything else goes to each device as it is.  The second
half is torch.nn.parallel.scatter_gather.scatter's own Python, which runs on the CPU.
"""
import pytest
from torch.nn.parallel.scatter_gather import scatter, scatter_kwargs


class _Settings:
    """A plain object, as a model might take next to its input tensor."""


@pytest.mark.claim("devices.dataparallel-scatter-non-tensors")
def test_scatter_hands_every_device_the_same_non_tensor_object():
    """Tutorials: tensors are chunked across the GPUs, other objects go to every device.
    True: every device gets the very same object (a reference, not a copy); tuples, lists and
    dicts are rebuilt per device around those same objects."""
    settings, flag = _Settings(), object()
    parts = scatter((settings, flag, 3), target_gpus=[0, 1])
    assert len(parts) == 2, f"scatter to 2 devices gave {len(parts)} parts"
    for part in parts:
        assert part[0] is settings and part[1] is flag and part[2] == 3, f"device part {part} is not the same objects"
    nested = scatter(([flag, "tag"], {"opt": settings}), target_gpus=[0, 1])
    assert nested[0] == nested[1] == ([flag, "tag"], {"opt": settings}), f"nested parts {nested}"
    assert nested[0][0] is not nested[1][0] and nested[0][1] is not nested[1][1], "containers not rebuilt per device"
    assert nested[0][0][0] is nested[1][0][0] is flag and nested[0][1]["opt"] is nested[1][1]["opt"] is settings


@pytest.mark.claim("devices.dataparallel-scatter-non-tensors")
def test_keyword_arguments_are_repeated_for_each_device():
    """True: scatter_kwargs gives each device its own kwargs dict holding the same values."""
    inputs, kwargs = scatter_kwargs((), {"mask": None, "mode": "train"}, target_gpus=[0, 1, 2])
    assert len(kwargs) == 3 and all(k == {"mask": None, "mode": "train"} for k in kwargs), f"kwargs: {kwargs}"
    assert len(inputs) == 3 and all(i == () for i in inputs), f"inputs: {inputs}"

"""Tensors, the NumPy bridge: requires_grad and numpy(), rebinding versus in-place writes.

What beginner tutorials say about converting between tensors and arrays (issue #41).
"""
import numpy as np
import pytest
import torch


@pytest.mark.claim("tensors.numpy-requires-grad-needs-detach")
def test_numpy_refuses_a_tensor_that_requires_grad_until_detached():
    """Tutorials: numpy() on a tensor that requires grad raises; detach().numpy() works.
    True: RuntimeError naming detach().numpy(); the detached array still shares the tensor's memory;
    numpy(force=True) also converts."""
    a = torch.ones(1, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        a.numpy()
    na = a.detach().numpy()
    na[0, 0] = 10
    assert a[0, 0].item() == 10.0, f"writing the detached array left a = {a.tolist()}"
    assert np.shares_memory(na, a.detach().numpy())
    assert a.numpy(force=True).tolist() == [[10.0, 1.0]]
    assert torch.ones(2).numpy().dtype == np.float32, "a tensor without grad converts directly"


@pytest.mark.claim("tensors.from-numpy-rebinding")
def test_rebinding_the_array_name_leaves_the_tensor_but_in_place_writes_reach_it():
    """Tutorial: after from_numpy, np_a = np_a + np_b leaves the tensor alone, np_a += np_b changes it.
    True: + makes a new array and only rebinds the name; += writes into the shared buffer."""
    np_a = np.array([[1.0, 3.0], [10.0, 30.0]])
    t = torch.from_numpy(np_a)
    np_a = np_a + np.ones((2, 2))
    assert t.tolist() == [[1.0, 3.0], [10.0, 30.0]], f"rebinding np_a changed the tensor to {t.tolist()}"
    np_b = np.array([[1.0, 3.0], [10.0, 30.0]])
    u = torch.from_numpy(np_b)
    np_b += np.ones((2, 2))
    assert u.tolist() == [[2.0, 4.0], [11.0, 31.0]], f"np_b += 1 left the tensor at {u.tolist()}"
    np_b[0, 0] = -1.0
    assert u[0, 0].item() == -1.0

"""The ATen operators a piece of eager code dispatches, for specs that count them.

``with RecordOps() as seen: ...`` then ``seen.ops`` lists each operator by name
(``aten.add.Tensor``). Nothing can run on a device, and so nothing can wait for one, without an
operator: a block that dispatches none does no tensor work at all. ``TorchDispatchMode`` exists on
every torch the matrix runs (1.13 on); specs/test_tensors_creation.py checks the recorder against
a call whose operators are known.
"""
from torch.utils._python_dispatch import TorchDispatchMode


class RecordOps(TorchDispatchMode):
    """Records the ATen operators dispatched while it is active, in order."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))

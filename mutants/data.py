"""Planted faults for the data topic: each breaks behaviour a data spec guards.

``pytest specs/ -p no:randomly --mutant NAME -q`` applies one before collection (add
``--full`` for the slow worker specs); the process ends after the run, so nothing is
undone.  Worker processes are forked from the patched process and inherit the fault.
"""
import functools

import torch
import torch.utils.data
import torch.utils.data._utils.worker as worker_utils
from torch.utils.data import DataLoader

from torchclaims.impl import Impl
from torchclaims.mutants import fault


def _patch_loader_init(**forced):
    """Make every DataLoader ignore the given keyword arguments' values."""
    original = DataLoader.__init__

    @functools.wraps(original)
    def init(self, *args, **kwargs):
        kwargs.update(forced)
        original(self, *args, **kwargs)

    DataLoader.__init__ = init


@fault("data.shuffle-reorders-each-epoch")
def shuffle_ignored():
    """DataLoader(shuffle=True) keeps the dataset order: shuffle is forced to False."""
    _patch_loader_init(shuffle=False)


@fault("data.drop-last-drops-tail", "data.drop-last-batchnorm-small-batch")
def drop_last_ignored():
    """DataLoader(drop_last=True) still yields the short final batch."""
    _patch_loader_init(drop_last=False)


@fault("data.persistent-workers-reuse", "data.shutdown-workers-private")
def persistent_workers_ignored():
    """persistent_workers=True is dropped: workers are restarted every epoch."""
    _patch_loader_init(persistent_workers=False)


@fault("data.getitem-exception-skipped")
def getitem_errors_swallowed():
    """Iterating a DataLoader skips batches whose loading raised, as the material says."""
    base = torch.utils.data.dataloader._BaseDataLoaderIter
    original = base.__next__

    def next_skipping(self):
        while True:
            try:
                return original(self)
            except StopIteration:
                raise
            except Exception:  # noqa: BLE001 - the fault is to swallow everything
                continue

    base.__next__ = next_skipping


@fault("data.num-workers-affects-results")
def worker_numpy_seed_shared():
    """Every worker seeds numpy (and torch/random) alike: the classic duplicated-RNG bug."""
    original_loop = worker_utils._worker_loop

    @functools.wraps(original_loop)
    def loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn,
             drop_last, base_seed, init_fn, worker_id, *args, **kwargs):
        def same_seed_init(wid):
            import random

            import numpy as np
            np.random.seed(base_seed % 2**32)
            torch.manual_seed(base_seed)
            random.seed(base_seed)
            if init_fn is not None:
                init_fn(wid)
        return original_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                             collate_fn, drop_last, base_seed, same_seed_init, worker_id, *args, **kwargs)

    worker_utils._worker_loop = loop


@fault("data.prefetch-factor-default", "data.prefetch-factor-one-less-memory")
def prefetch_factor_doubled():
    """Workers prefetch twice as many batches as prefetch_factor says (4 by default)."""
    original = DataLoader.__init__

    @functools.wraps(original)
    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if self.prefetch_factor is not None:
            self.__dict__["prefetch_factor"] = self.prefetch_factor * 2

    DataLoader.__init__ = init


@fault("data.totensor-range-dtype-layout", "data.totensor-divides-uint8-only", "data.cifar10-returns-pil")
def totensor_unscaled():
    """ToTensor keeps 0..255 values (converted to float32 but not divided by 255)."""
    import torchvision.transforms.functional as F
    original = F.to_tensor

    def to_tensor(pic):
        out = original(pic)
        return out * 255 if out.is_floating_point() and out.dtype == torch.float32 else out

    F.to_tensor = to_tensor


@fault("data.normalize-zero-mean-unit-variance", "data.denormalize-inverts", "data.normalize-output-range",
       "data.normalize-needs-float-chw")
def normalize_multiplies_by_std():
    """Normalize computes (x - mean) * std instead of dividing."""
    import torchvision.transforms.functional as F

    def normalize(tensor, mean, std, inplace=False):
        if not tensor.is_floating_point():
            raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
        mean = torch.as_tensor(mean, dtype=tensor.dtype).view(-1, 1, 1)
        std = torch.as_tensor(std, dtype=tensor.dtype).view(-1, 1, 1)
        return (tensor - mean) * std

    F.normalize = normalize


@fault("data.denormalize-inverts")
def denormalize_divides():
    """The reference denormalize applies Normalize again instead of inverting it."""
    data = Impl().data
    data.denormalize = lambda tensor, mean, std: (
        tensor - torch.as_tensor(mean, dtype=tensor.dtype).view(-1, 1, 1)) / torch.as_tensor(
        std, dtype=tensor.dtype).view(-1, 1, 1)


@fault("data.train-eval-mode-switch")
def train_loop_no_eval():
    """The reference evaluate forgets model.eval(): validation runs in training mode."""
    training = Impl().training
    original = training.evaluate

    def evaluate(model, loader, loss_fn, device="cpu"):
        model.eval = lambda: model  # the call inside evaluate does nothing
        try:
            return original(model, loader, loss_fn, device)
        finally:
            del model.eval

    training.evaluate = evaluate


@fault("data.no-grad-validation")
def evaluate_builds_graphs():
    """The reference evaluate runs the model with grad enabled (no torch.no_grad)."""
    training = Impl().training
    original = training.evaluate

    class NoOp:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def evaluate(model, loader, loss_fn, device="cpu"):
        saved = training.torch.no_grad
        training.torch.no_grad = NoOp
        try:
            return original(model, loader, loss_fn, device)
        finally:
            training.torch.no_grad = saved

    training.evaluate = evaluate


@fault("modules.zero-grad-each-step")
def zero_grad_noop():
    """Optimizer.zero_grad does nothing: gradients add up over the whole run."""
    torch.optim.Optimizer.zero_grad = lambda self, set_to_none=True: None
    torch.nn.Module.zero_grad = lambda self, set_to_none=True: None


@fault("data.item-no-graph-leak")
def reference_keeps_loss_tensors():
    """The reference train_one_epoch accumulates loss tensors instead of loss.item()."""
    training = Impl().training

    def train_one_epoch(model, loader, optimizer, loss_fn, device="cpu"):
        model.train()
        total, correct, seen = 0.0, 0, 0
        for data, target in loader:
            optimizer.zero_grad()
            output = model(data)
            loss = loss_fn(output, target)
            loss.backward()
            optimizer.step()
            total = total + loss * target.size(0)
            correct += int(output.argmax(1).eq(target).sum())
            seen += target.size(0)
        return {"loss": total / seen, "accuracy": correct / seen}

    training.train_one_epoch = train_one_epoch


@fault("data.memmap-lazy-loading", "data.len-must-match-data")
def memmap_dataset_off_by_one():
    """The reference MemmapDataset reports one record more than the file holds."""
    data = Impl().data
    data.MemmapDataset.__len__ = lambda self: self.shape[0] + 1


@fault("data.training-loop-learns")
def reference_loop_skips_step():
    """The reference train_one_epoch computes gradients but never calls optimizer.step()."""
    training = Impl().training
    original = training.train_one_epoch

    def train_one_epoch(model, loader, optimizer, loss_fn, device="cpu"):
        class NoStep:
            def zero_grad(self, set_to_none=True):
                optimizer.zero_grad(set_to_none)

            def step(self, closure=None):
                return None

        return original(model, loader, NoStep(), loss_fn, device)

    training.train_one_epoch = train_one_epoch


@fault("modules.train-eval-same-epoch-harms-bn", "data.train-eval-mode-switch")
def batchnorm_updates_in_eval():
    """BatchNorm keeps using and updating batch statistics in eval mode."""
    from torch.nn.modules.batchnorm import _BatchNorm
    original = _BatchNorm.forward

    def forward(self, input):
        was_training = self.training
        self.training = True
        try:
            return original(self, input)
        finally:
            self.training = was_training

    _BatchNorm.forward = forward

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
            except Exception:  # the fault is to swallow everything
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


@fault("data.prefetch-factor-default", "data.prefetch-factor-one-less-memory", "data.prefetch-throughput-figure")
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


# --- batching, samplers, collate --------------------------------------------------------------


@fault("data.dataset-index-dataloader-batches")
def collate_concatenates():
    """default_collate joins the samples' tensors with torch.cat instead of stacking them along
    a new batch dimension: 64 samples of (784,) become one (50176,) tensor."""
    from torch.utils.data._utils import collate
    collate.default_collate_fn_map[torch.Tensor] = lambda batch, *, collate_fn_map=None: torch.cat(batch, 0)


@fault("data.getitem-need-not-return-tensor")
def collate_accepts_tensors_only():
    """default_collate refuses samples that are not tensors (numpy arrays, ints, floats), as
    the material says __getitem__ must return tensors."""
    from torch.utils.data._utils import collate
    original = collate.default_collate

    def default_collate(batch):
        def check(sample):
            if isinstance(sample, dict):
                for value in sample.values():
                    check(value)
            elif isinstance(sample, (tuple, list)):
                for value in sample:
                    check(value)
            elif not isinstance(sample, torch.Tensor):
                raise TypeError(f"default_collate: batch must contain tensors; found {type(sample)}")
        for sample in batch:
            check(sample)
        return original(batch)

    collate.default_collate = default_collate
    torch.utils.data.dataloader.default_collate = default_collate


@fault("data.shuffle-train-only")
def sequential_sampler_fixed_permutation():
    """shuffle=False still shuffles, only with the same fixed permutation every epoch (the
    'shuffle=False means no reshuffling' model)."""
    sampler = torch.utils.data.SequentialSampler

    def iterate(self):
        n = len(self.data_source)
        return iter(torch.randperm(n, generator=torch.Generator().manual_seed(0)).tolist())

    sampler.__iter__ = iterate


@fault("data.subset-random-sampler-generator")
def subset_sampler_ignores_generator():
    """SubsetRandomSampler draws from the global RNG and ignores its generator=."""
    sampler = torch.utils.data.SubsetRandomSampler

    def iterate(self):
        for i in torch.randperm(len(self.indices)):
            yield self.indices[i]

    sampler.__iter__ = iterate


@fault("data.drop-last-shape-mismatch")
def batch_sampler_pads_last_batch():
    """Without drop_last the short final batch is padded to batch_size by repeating its own
    samples, so every batch has the same size."""
    batch_sampler = torch.utils.data.BatchSampler
    original = batch_sampler.__iter__

    def iterate(self):
        for batch in original(self):
            if len(batch) < self.batch_size:
                batch = (batch * self.batch_size)[:self.batch_size]
            yield batch

    batch_sampler.__iter__ = iterate


@fault("data.drop-last-shape-mismatch")
def batchnorm_takes_one_value_per_channel():
    """Batch norm in training mode no longer refuses a batch with one value per channel."""
    torch.nn.functional._verify_batch_size = lambda size: None


# --- workers ---------------------------------------------------------------------------------


@fault("data.num-workers-default-zero")
def default_two_workers():
    """DataLoader defaults to two worker processes instead of loading in the main process."""
    original = DataLoader.__init__

    @functools.wraps(original)
    def init(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=2,
             *args, **kwargs):
        original(self, dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, *args, **kwargs)

    DataLoader.__init__ = init


@fault("data.num-workers-subprocesses")
def worker_init_fn_dropped():
    """DataLoader never calls worker_init_fn in its worker processes."""
    _patch_loader_init(worker_init_fn=None)


@fault("data.num-workers-needs-pin-memory")
def workers_require_pin_memory():
    """DataLoader refuses num_workers > 0 without pin_memory=True, as the material pairs them."""
    original = DataLoader.__init__

    @functools.wraps(original)
    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if self.num_workers > 0 and not self.pin_memory:
            raise ValueError("num_workers > 0 needs pin_memory=True")

    DataLoader.__init__ = init


@fault("data.max-workers-argument")
def max_workers_accepted():
    """DataLoader accepts a max_workers= argument (capping num_workers), as the material uses it."""
    original = DataLoader.__init__

    def init(self, *args, max_workers=None, **kwargs):
        if max_workers is not None and kwargs.get("num_workers", 0) > max_workers:
            kwargs["num_workers"] = max_workers
        original(self, *args, **kwargs)

    DataLoader.__init__ = init


# --- datasets and transforms ------------------------------------------------------------------


@fault("data.cifar10-manual-download-folder")
def cifar10_reads_root_directly():
    """CIFAR10 looks for its batch files directly under root, without the cifar-10-batches-py folder."""
    from torchvision.datasets import CIFAR10
    CIFAR10.base_folder = ""


@fault("data.cifar10-constants-official")
def reference_uses_published_cifar10_std():
    """The reference data module carries the published pooled CIFAR-10 std
    (0.2470, 0.2435, 0.2616) instead of the material's constants."""
    Impl().data.CIFAR10_STD = (0.2470, 0.2435, 0.2616)


@fault("data.normalize-no-default-constants")
def normalize_imagenet_defaults():
    """transforms.Normalize() defaults to the ImageNet mean and std."""
    from torchvision import transforms
    original = transforms.Normalize.__init__

    def init(self, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), inplace=False):
        original(self, mean, std, inplace)

    transforms.Normalize.__init__ = init


@fault("data.flip-before-totensor")
def hflip_tensor_flips_rows():
    """The tensor branch of hflip flips the height axis (dim -2) instead of the width (dim -1)."""
    import torchvision.transforms.functional as F
    original = F.hflip

    def hflip(img):
        if isinstance(img, torch.Tensor):
            return img.flip(-2)
        return original(img)

    F.hflip = hflip


@fault("data.memmap-pipeline-example", "data.flip-before-totensor")
def hflip_accepts_numpy():
    """hflip also flips numpy HWC arrays, so RandomHorizontalFlip works on memmap rows."""
    import numpy as np
    import torchvision.transforms.functional as F
    original = F.hflip

    def hflip(img):
        if isinstance(img, np.ndarray):
            return np.ascontiguousarray(img[:, ::-1])
        return original(img)

    F.hflip = hflip


@fault("data.augment-separate-val-transform")
def random_flip_decides_once():
    """RandomHorizontalFlip draws its coin once per transform object and reuses it on every call."""
    import torchvision.transforms.functional as F
    from torchvision import transforms

    def forward(self, img):
        if "_decision" not in self.__dict__:
            self.__dict__["_decision"] = bool(torch.rand(1) < self.p)
        return F.hflip(img) if self.__dict__["_decision"] else img

    transforms.RandomHorizontalFlip.forward = forward


@fault("data.max-dim1-values-indices")
def max_dim_returns_indices_first():
    """Tensor.max(dim) returns (indices, values) instead of (values, indices)."""
    original = torch.Tensor.max

    def tensor_max(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if isinstance(result, tuple):
            return result[1], result[0]
        return result

    torch.Tensor.max = tensor_max


@fault("data.num-workers-not-more-better", "data.num-workers-memory-throughput-figures")
def workers_outlive_the_epoch():
    """Worker processes stay alive from one epoch to the next even without persistent_workers
    (the 'workers keep running and pile up memory' model)."""
    original = DataLoader.__init__

    @functools.wraps(original)
    def init(self, *args, **kwargs):
        if kwargs.get("num_workers", 0) > 0:
            kwargs["persistent_workers"] = True
        original(self, *args, **kwargs)

    DataLoader.__init__ = init


@fault("data.memmap-memory-figures", "data.totensor-range-dtype-layout")
def totensor_float64():
    """ToTensor divides uint8 images by 255 in float64 (numpy's default) and returns float64,
    doubling the memory of every converted image."""
    import torchvision.transforms.functional as F
    original = F.to_tensor

    def to_tensor(pic):
        out = original(pic)
        return out.double() if out.dtype == torch.float32 else out

    F.to_tensor = to_tensor


@fault("data.imshow-normalized-black")
def imshow_zeroes_out_of_range():
    """matplotlib's imshow sets float RGB values outside [0, 1] to 0 instead of clipping them
    (so a normalized image would come out mostly black, as the material says)."""
    import numpy as np
    from matplotlib.axes import Axes
    original = Axes.imshow

    def imshow(self, X, *args, **kwargs):
        X = np.asarray(X)
        if X.ndim == 3 and np.issubdtype(X.dtype, np.floating):
            X = np.where((X < 0) | (X > 1), 0.0, X)
        return original(self, X, *args, **kwargs)

    Axes.imshow = imshow


@fault("data.too-many-open-files")
def sharing_strategy_always_file_system():
    """torch.multiprocessing.set_sharing_strategy ignores its argument and shares by file name
    ('file_system'), so batches from workers hold no descriptor and no limit is ever reached."""
    original = torch.multiprocessing.set_sharing_strategy
    torch.multiprocessing.set_sharing_strategy = lambda strategy: original("file_system")


@fault("data.shuffle-reorders-each-epoch")
def random_sampler_seeds_from_the_os():
    """Without a generator, RandomSampler seeds each epoch from the OS instead of torch's global RNG."""
    import os

    sampler = torch.utils.data.RandomSampler
    original = sampler.__iter__

    def iterate(self):
        if self.generator is None:
            self.generator = torch.Generator().manual_seed(int.from_bytes(os.urandom(8), "little") >> 1)
            try:
                yield from original(self)
            finally:
                self.generator = None
        else:
            yield from original(self)

    sampler.__iter__ = iterate


@fault("data.totensor-divides-uint8-only")
def totensor_divides_every_integer_input():
    """ToTensor divides every integer input by 255 (int16/int32 arrays and PIL modes I, I;16 too)."""
    import torchvision.transforms.functional as F
    original = F.to_tensor

    def to_tensor(pic):
        out = original(pic)
        return out.float().div(255) if not out.is_floating_point() else out

    F.to_tensor = to_tensor


@fault("data.subset-random-sampler-generator")
def subset_sampler_reseeds_every_epoch():
    """SubsetRandomSampler re-seeds its generator to one fixed state at each epoch: a reused one repeats."""
    sampler = torch.utils.data.SubsetRandomSampler
    original = sampler.__iter__

    def iterate(self):
        if self.generator is not None:
            if not hasattr(self, "_first_state"):
                self._first_state = self.generator.get_state()
            self.generator.set_state(self._first_state)
        return original(self)

    sampler.__iter__ = iterate


@fault("data.drop-last-drops-tail")
def drop_last_drops_a_fixed_tail():
    """drop_last=True always drops the same samples: shuffling leaves the tail's indices out of it."""
    sampler = torch.utils.data.RandomSampler
    original = sampler.__iter__

    def iterate(self):
        order = list(original(self))
        n = len(order)
        tail = [i for i in order if i >= n - n % 64] if n % 64 else []
        yield from [i for i in order if i not in set(tail)] + tail

    sampler.__iter__ = iterate


# --- found in tutorials (issue #41) ---

def _loader_init_rewriting(rewrite):
    """Make every DataLoader pass its keyword arguments through ``rewrite(kwargs)`` first."""
    original = DataLoader.__init__

    @functools.wraps(original)
    def init(self, *args, **kwargs):
        original(self, *args, **rewrite(dict(kwargs)))

    DataLoader.__init__ = init


@fault("data.loader-default-arguments")
def loader_default_batch_of_two():
    """A DataLoader built without batch_size batches samples in twos instead of ones."""
    _loader_init_rewriting(lambda kw: {"batch_size": 2, **kw})


@fault("data.sampler-excludes-shuffle", "data.distributed-sampler-shuffle-duplicates")
def loader_accepts_shuffle_with_a_sampler():
    """shuffle=True next to a sampler (or batch_sampler) is silently dropped instead of raising ValueError."""
    def rewrite(kw):
        if kw.get("sampler") is not None or kw.get("batch_sampler") is not None:
            kw.pop("shuffle", None)
        if kw.get("batch_sampler") is not None:
            kw.pop("batch_size", None)
            kw.pop("drop_last", None)
        return kw

    _loader_init_rewriting(rewrite)


@fault("data.loader-not-an-iterator")
def loader_is_its_own_iterator():
    """DataLoader gains __next__, so next(loader) hands out a batch instead of raising TypeError."""
    DataLoader.__next__ = lambda self: next(iter(self))


@fault("data.batch-size-none-unbatched")
def batch_size_none_batches_anyway():
    """batch_size=None is read as batch_size=1: automatic batching stays on."""
    _loader_init_rewriting(lambda kw: {**kw, "batch_size": 1} if "batch_size" in kw and kw["batch_size"] is None else kw)


@fault("data.collate-fn-gets-sample-list")
def collate_fn_gets_a_tuple():
    """The map-style fetcher hands collate_fn a tuple of samples instead of a list."""
    fetcher = torch.utils.data._utils.fetch._MapDatasetFetcher

    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            return self.collate_fn(tuple(self.dataset[i] for i in possibly_batched_index))
        return self.collate_fn(self.dataset[possibly_batched_index])

    fetcher.fetch = fetch


@fault("data.dataset-needs-len-getitem")
def dataset_reports_length_zero():
    """torch.utils.data.Dataset gets a default __len__ of 0: a dataset without __len__ loads as empty."""
    torch.utils.data.Dataset.__len__ = lambda self: 0


@fault("data.random-split-generator-reproducible")
def random_split_ignores_its_generator():
    """random_split always draws from torch's default generator, whatever generator it is given."""
    import torch.utils.data.dataset as dataset_module
    original = dataset_module.random_split

    def random_split(dataset, lengths, generator=None):
        return original(dataset, lengths, generator=torch.default_generator)

    dataset_module.random_split = random_split
    torch.utils.data.random_split = random_split


@fault("data.resize-int-matches-shorter-edge")
def resize_int_makes_a_square():
    """transforms.Resize(n) resizes to an n x n square instead of matching the shorter edge."""
    from torchvision import transforms
    original = transforms.Resize.__init__

    def init(self, size, *args, **kwargs):
        original(self, (size, size) if isinstance(size, int) else size, *args, **kwargs)

    transforms.Resize.__init__ = init


def _default_p_always(name):
    """torchvision's transforms.NAME gets a default p of 1.0 instead of 0.5 (or 0.1)."""
    from torchvision import transforms
    cls = getattr(transforms, name)
    original = cls.__init__

    def init(self, p=1.0):
        original(self, p)

    cls.__init__ = init


@fault("data.random-horizontal-flip-half")
def horizontal_flip_defaults_to_always():
    """RandomHorizontalFlip's default p is 1.0: every image is mirrored."""
    _default_p_always("RandomHorizontalFlip")


@fault("data.random-crop-padding-position")
def random_crop_takes_the_top_left_corner():
    """RandomCrop's parameters always pick the top-left window."""
    from torchvision import transforms

    def get_params(img, output_size):
        return 0, 0, output_size[0], output_size[1]

    transforms.RandomCrop.get_params = staticmethod(get_params)


@fault("data.colorjitter-factor-range")
def colorjitter_uses_the_upper_bound():
    """ColorJitter always applies the upper end of each factor range instead of drawing in it."""
    from torchvision import transforms
    original = transforms.ColorJitter.get_params

    def get_params(brightness, contrast, saturation, hue):
        order = original(brightness, contrast, saturation, hue)[0]
        return (order,) + tuple(None if r is None else float(r[1]) for r in (brightness, contrast, saturation, hue))

    transforms.ColorJitter.get_params = staticmethod(get_params)


@fault("data.normalize-half-to-minus-one-one")
def normalize_ignores_std():
    """Normalize subtracts the mean but never divides by the std."""
    import torchvision.transforms.functional as F
    original = F.normalize

    def normalize(tensor, mean, std, inplace=False):
        return original(tensor, mean, [1.0] * len(std), inplace)

    F.normalize = normalize


@fault("data.normalize-not-inplace")
def normalize_always_in_place():
    """Normalize writes into its input even with the default inplace=False."""
    import torchvision.transforms.functional as F
    original = F.normalize

    def normalize(tensor, mean, std, inplace=False):
        return original(tensor, mean, std, True)

    F.normalize = normalize


@fault("data.v2-todtype-scale")
def todtype_scales_by_default():
    """v2.ToDtype's scale defaults to True: a bare ToDtype(float32) divides uint8 images by 255."""
    from torchvision.transforms import v2
    original = v2.ToDtype.__init__

    def init(self, dtype, scale=True):
        original(self, dtype, scale)

    v2.ToDtype.__init__ = init


@fault("data.grad-accum-divide-loss", "data.grad-accum-batchnorm-differs", "data.grad-accum-leftover-batch")
def backward_overwrites_grad():
    """Tensor.backward replaces the leaves' .grad instead of adding to it: nothing accumulates."""
    original = torch.Tensor.backward

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        stack, seen = [self.grad_fn], set()
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if hasattr(node, "variable"):
                node.variable.grad = None
            stack.extend(next_node for next_node, _ in node.next_functions)
        original(self, gradient, retain_graph, create_graph, inputs)

    torch.Tensor.backward = backward


@fault("data.compose-applies-in-order")
def compose_runs_last_to_first():
    """transforms.Compose applies its list back to front."""
    from torchvision import transforms

    def call(self, img):
        for t in reversed(self.transforms):
            img = t(img)
        return img

    transforms.Compose.__call__ = call


@fault("data.random-resized-crop-scale-ratio")
def random_resized_crop_takes_the_whole_image():
    """RandomResizedCrop's parameters always select the whole image: it only resizes."""
    from torchvision import transforms

    def get_params(img, scale, ratio):
        height, width = img.shape[-2:] if isinstance(img, torch.Tensor) else (img.height, img.width)
        return 0, 0, height, width

    transforms.RandomResizedCrop.get_params = staticmethod(get_params)


@fault("data.random-grayscale-keeps-channels")
def random_grayscale_defaults_to_always():
    """RandomGrayscale's default p is 1.0: every image goes grey."""
    _default_p_always("RandomGrayscale")


@fault("data.fivecrop-corners-and-center")
def fivecrop_swaps_the_bottom_corners():
    """FiveCrop returns bottom-right before bottom-left."""
    import torchvision.transforms.functional as F
    original = F.five_crop

    def five_crop(img, size):
        tl, tr, bl, br, center = original(img, size)
        return tl, tr, br, bl, center

    F.five_crop = five_crop


@fault("data.transforms-are-callables")
def normalize_forward_is_identity():
    """Calling a Normalize instance returns its input: forward does nothing."""
    from torchvision import transforms
    transforms.Normalize.forward = lambda self, tensor: tensor

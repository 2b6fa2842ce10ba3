"""One literal misreading of each workbook lesson's hint (lessons.toml), planted in tests.

Each entry is what a learner who follows the hint's words literally, or skips the edge the
hint glosses over, would plausibly write: a whole ``def`` (written at module level; a method
is indented into its class when planted) that replaces the lesson's function of the same
name in a workbook where every other function holds the reference body.  The names it uses
(``math``, ``np``, ``torch``, ``nn``, ``F``, the module's own helpers) are those of the
workbook module it lands in.  tests/test_lesson_misreadings.py proves that the lesson's
specs, run as the learner runs them, fail every one of them.
"""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Misreading:
    lesson: str                  # the lesson's name in lessons.toml
    replaces: dict[str, str]     # qualified function ("module.func" / "module.Class.method") -> wrong def
    misreads: str                # which part of the hint it misreads, in one line


DATA = [
    Misreading("contiguous-strides", {"strides.contiguous_strides": '''
def contiguous_strides(shape):
    shape = _check_shape(shape)
    strides = [1]  # "the last stride is 1"
    for size in reversed(shape[1:]):
        strides.insert(0, strides[0] * max(size, 1))
    return tuple(strides)
'''}, "'the last stride is 1' taken literally: a 0-dim shape, which has no last dimension, gets (1,)"),

    Misreading("is-contiguous", {"strides.is_contiguous": '''
def is_contiguous(shape, strides):
    shape = _check_shape(shape)
    strides = tuple(int(s) for s in strides)
    if len(shape) == 0:  # "zero elements" read as "no dimensions"
        return True
    fresh = contiguous_strides(shape)
    return all(s == f for size, s, f in zip(shape, strides, fresh) if size != 1)
'''}, "'any tensor with zero elements counts as contiguous' read as 'a tensor with no dimensions'"),

    Misreading("view-strides", {"strides.view_strides": '''
def view_strides(shape, strides, new_shape):
    shape, new_shape = _check_shape(shape), _check_shape(new_shape, "new_shape")
    strides = tuple(int(s) for s in strides)
    if math.prod(shape) != math.prod(new_shape):
        raise ValueError("different numbers of elements")
    if not shape:
        return (1,) * len(new_shape)
    if math.prod(shape) == 0:
        return strides if shape == new_shape else contiguous_strides(new_shape)
    runs = []  # (elements, innermost stride), from the right
    numel, base = shape[-1], strides[-1]
    for i in range(len(shape) - 2, -1, -1):
        # rule (4) word for word: a size-1 dimension joins the run, and the next comparison
        # uses its (junk) stride
        if shape[i] == 1 or strides[i] == strides[i + 1] * shape[i + 1]:
            numel *= shape[i]
        else:
            runs.append((numel, base))
            numel, base = shape[i], strides[i]
    runs.append((numel, base))
    out = [0] * len(new_shape)
    d = len(new_shape) - 1
    for numel, base in runs:
        acc = 1
        while d >= 0 and (acc < numel or new_shape[d] == 1):
            out[d] = acc * base
            acc *= new_shape[d]
            d -= 1
        if acc != numel:
            return None
    return tuple(out) if d == -1 else None
'''}, "rule (4): a size-1 dimension joins the run, but its junk stride is then compared with the next one"),

    Misreading("broadcast-shapes", {"broadcasting.broadcast_shapes": '''
def broadcast_shapes(*shapes):
    shapes = [_as_shape(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    result = []
    for column in zip(*padded):
        if any(size not in (1, max(column)) for size in column):
            raise ValueError(f"shapes {shapes} do not broadcast")
        result.append(max(column))  # "the size that is not 1", taken as the larger one
    return tuple(result)
'''}, "'the result takes the size that is not 1' computed as the larger size: 1 against 0 gives 1"),

    Misreading("broadcast-strides", {"broadcasting.broadcast_strides": '''
def broadcast_strides(shape, strides, target_shape):
    shape, target = _as_shape(shape), _as_shape(target_shape)
    strides = tuple(int(s) for s in strides)
    if len(target) < len(shape):
        raise ValueError(f"cannot broadcast {shape} to {target}")
    if not shape:
        return (0,) * len(target)
    lead = len(target) - len(shape)
    out = []
    for i, want in enumerate(target):
        d = i - lead
        if d < 0:
            # "size * stride of the dimension after it", read off the input's first dimension
            out.append(shape[0] * strides[0] if want == 1 else 0)
        elif shape[d] == want:
            out.append(strides[d])
        elif shape[d] == 1:
            out.append(0)
        else:
            raise ValueError(f"cannot broadcast {shape} to {target}")
    return tuple(out)
'''}, "'size * stride of the dimension after it' taken from the input's dimension, not the expanded one"),

    Misreading("logsumexp", {"stable.logsumexp": '''
def logsumexp(x, dim=-1):
    work = _upcast(x)
    if work.shape[dim] == 0:
        return torch.full_like(work.sum(dim), float("-inf")).to(x.dtype)
    shift = work.amax(dim, keepdim=True).detach()
    # "guard the case where the maximum is infinite": only +inf is thought of
    shift = torch.where(shift == float("inf"), torch.zeros_like(shift), shift)
    out = (work - shift).exp().sum(dim, keepdim=True).log() + shift
    return out.squeeze(dim).to(x.dtype)
'''}, "'guard the case where the maximum is infinite' read as +inf only: a row of -inf gives nan"),

    Misreading("log-softmax", {"stable.log_softmax": '''
def log_softmax(x, dim=-1):
    work = _upcast(x)
    # the lesson's title word for word: x minus logsumexp (which special-cases inf)
    return (work - logsumexp(work, dim).unsqueeze(dim)).to(x.dtype)
'''}, "'log_softmax is x minus logsumexp' taken literally, inf special case included"),

    Misreading("cross-entropy", {"stable._nll": '''
def _nll(logp, target, weight, ignore_index, reduction):
    dim = _class_dim(logp)
    if dim == 0:
        logp, target = logp.unsqueeze(0), target.unsqueeze(0)
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    picked = -logp.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = weight.to(logp.dtype)[safe] if weight is not None else torch.ones_like(picked)
    losses = torch.where(keep, picked * w, torch.zeros_like(picked))  # "zero out ignore_index": the loss only
    if reduction == "none":
        return losses.squeeze(0) if dim == 0 else losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / w.sum()  # the ignored targets' weights stay in the sum
'''}, "'zero out ignore_index' applied to the losses only: 'mean' still divides by the ignored targets' weights"),

    Misreading("naive-numerics", {"stable.naive_log_softmax": '''
def naive_log_softmax(x, dim=-1):
    return torch.softmax(x, dim).log()  # "log(softmax(x))", with torch's (max-shifted) softmax
'''}, "'log(softmax(x))' written with torch.softmax, which shifts by the max and never overflows"),

    Misreading("central-differences", {"finite_diff.central_difference_jacobian": '''
def central_difference_jacobian(fn, inputs, eps=1e-6):
    inputs = tuple(inputs)
    base = [x.detach().to(torch.float64).clone() for x in inputs]  # "a float64 copy" (keeps the strides)
    with torch.no_grad():
        out_numel = _flat_output(fn(*base)).numel()
        columns = []
        for x in base:
            flat = x.reshape(-1)  # a copy, not a view, when the input is not contiguous
            for j in range(flat.numel()):
                saved = flat[j].item()
                flat[j] = saved + eps
                plus = _flat_output(fn(*base)).to(torch.float64)
                flat[j] = saved - eps
                minus = _flat_output(fn(*base)).to(torch.float64)
                flat[j] = saved
                columns.append((plus - minus) / (2 * eps))
    if not columns:
        return torch.zeros(out_numel, 0, dtype=torch.float64)
    return torch.stack(columns, dim=1)
'''}, "'on a float64 copy' made with clone(), which keeps a transposed layout: the nudges land in a reshape's copy"),

    Misreading("jacobian-blocks", {"finite_diff.per_input": '''
def per_input(jacobian, inputs):
    sizes = [len(x) for x in inputs]  # "each input's number of elements", as len()
    return list(torch.split(jacobian, sizes, dim=1)) if sizes else []
'''}, "'each input's number of elements' taken as len(x), the size of its first dimension"),

    Misreading("vector-jacobian", {"finite_diff.vjp": '''
def vjp(jacobian, v):
    return v.reshape(1, -1).to(jacobian.dtype) @ jacobian  # "flatten v to one row"
'''}, "'flatten v to one row' kept as a (1, n) matrix: the product is a row, not the flat gradient"),

    Misreading("engine-graph", {"autograd_engine.Tensor._make": '''
def _make(self, data, inputs, name, backward_fn):
    out = Tensor(data)
    if any(t.requires_grad for t in inputs):  # "records a Node only when some input requires grad"
        out.grad_fn = Node(name, inputs, backward_fn)
    return out
'''}, "records the Node but never marks the output as requiring grad, so the next op reaches it as None"),

    Misreading("engine-backward", {"autograd_engine._topological_order": '''
def _topological_order(root):
    post = []

    def visit(node):  # "post-order DFS, reversed", with no record of the nodes already visited
        for child, _ in node.next_functions:
            if child is not None:
                visit(child)
        post.append(node)

    visit(root)
    return post[::-1]
'''}, "'post-order DFS, reversed' without a visited set: a node reached twice (a diamond) is listed twice"),

    Misreading("engine-unbroadcast", {"autograd_engine._unbroadcast": '''
def _unbroadcast(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] > 1:  # "the gradient does not [have size 1]" as "is larger"
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)
'''}, "'where the input had size 1 but the gradient does not' read as 'the gradient is larger': 1 stretched to 0"),

    Misreading("engine-unary", {"autograd_engine.Tensor.log": '''
def log(self):
    y = np.log(self.data)
    return self._make(y, (self,), "LogBackward", lambda g: (g / y,))  # "reuse the forward result"
'''}, "'reuse the forward result where you can' applied to log too: 1/log(x) instead of 1/x"),

    Misreading("engine-matmul", {"autograd_engine.Tensor.__matmul__": '''
def __matmul__(self, other):
    a, b = self, self._wrap(other)

    def backward(g):
        A = a.data if a.data.ndim == 2 else a.data[None, :]  # a 1-D left operand as a row
        B = b.data if b.data.ndim == 2 else b.data[:, None]  # a 1-D right operand as a column
        return (g @ B.T).reshape(a.shape), (A.T @ g).reshape(b.shape)  # G itself left 1-D

    return self._make(a.data @ b.data, (a, b), "MmBackward", backward)
'''}, "treats the 1-D operands as a row and a column but not the incoming gradient G, which stays 1-D"),

    Misreading("engine-mean-div", {"autograd_engine.Tensor.mean": '''
def mean(self, axis=None, keepdims=False):
    return self.sum(axis=axis, keepdims=keepdims) / float(self.data.size)  # "the number of elements"
'''}, "'divided by the number of elements reduced' as divided by all the elements, whatever the axis"),

    Misreading("small-cnn", {"models.SmallCNN.forward": '''
def forward(self, x):
    x = self.features(x)
    x = x.view(x.size(0), -1)  # the usual flatten: -1 cannot be inferred for a batch of 0 images
    return self.classifier(x)
'''}, "flattens with the common x.view(x.size(0), -1) for 'torch.flatten(x, 1)': a batch of 0 breaks it"),

    Misreading("init-weights", {"models.init_weights": '''
def init_weights(module):
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.constant_(m.bias, 0)  # "both get bias 0", without asking whether they have one
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.constant_(m.bias, 0)
    return module
'''}, "'both get bias 0 where they have one' without the check: a Conv2d(bias=False) breaks it"),

    Misreading("swappable-head", {"models.SwappableHeadNet.forward": '''
def forward(self, x):
    return self.classifier(torch.flatten(self.features(x)))  # "features, flatten, classifier"
'''}, "'features, flatten, classifier' with torch.flatten(x), which flattens the batch dimension too"),

    Misreading("basic-block", {"models.BasicBlock.__init__": '''
def __init__(self, in_channels, out_channels, stride=1):
    super().__init__()
    self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
    self.bn1 = nn.BatchNorm2d(out_channels)
    self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
    self.bn2 = nn.BatchNorm2d(out_channels)
    self.shortcut = nn.Sequential()
    if stride != 1 or in_channels != out_channels:
        self.shortcut = nn.Sequential(  # "a 1x1 conv + batch-norm projection", without the stride
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
        )
'''}, "'a 1x1 conv + batch-norm projection' with a stride-1 conv: the shortcut keeps the input's size"),

    Misreading("resnet18", {"models.ResNet18._make_layer": '''
def _make_layer(self, channels, num_blocks, stride):
    layers = [BasicBlock(self.in_channels, channels, stride)]
    layers += [BasicBlock(self.in_channels, channels, 1) for _ in range(num_blocks - 1)]
    self.in_channels = channels  # "keep self.in_channels up to date": once per stage
    return nn.Sequential(*layers)
'''}, "'keep self.in_channels up to date' done once per stage, after its blocks were built"),

    Misreading("checkpointed-block", {"models.CheckpointedBlock.forward": '''
def forward(self, x):
    # "the gradients stay the same": use_reentrant taken for a detail, the reentrant variant kept
    return checkpoint(self.block, x, use_reentrant=True)
'''}, "'use_reentrant=False' taken for a detail ('the gradients stay the same'): reentrant checkpoint"),

    Misreading("strip-prefix", {"checkpoint.strip_module_prefix": '''
def strip_module_prefix(state_dict, prefix="module."):
    stripped = collections.OrderedDict(
        (key[len(prefix):] if key.startswith(prefix) else key, value) for key, value in state_dict.items())
    if hasattr(state_dict, "_metadata"):
        stripped._metadata = state_dict._metadata  # "keep the _metadata attribute", keys unchanged
    return stripped
'''}, "'keep the _metadata attribute' taken literally: its keys keep the 'module.' prefix"),

    Misreading("save-resume", {"checkpoint.save_checkpoint": '''
def save_checkpoint(path, model, optimizer, epoch, scaler=None, scheduler=None):
    state = {  # exactly the hint's list: the scheduler it does not name is left out
        "epoch": int(epoch),
        "model_state_dict": unwrap_model(model).state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
    }
    if scaler is not None:
        state["scaler_state_dict"] = scaler.state_dict()
    torch.save(state, path)
    return state
'''}, "saves exactly the parts the hint lists: the scheduler's state, which it glosses over, is dropped"),

    Misreading("optimizer-to", {"checkpoint.optimizer_to": '''
def optimizer_to(optimizer, device):
    for param, param_state in optimizer.state.items():
        # "leave the 'step' counter" read as leaving it out
        optimizer.state[param] = {key: value.to(device) for key, value in param_state.items() if key != "step"}
    return optimizer
'''}, "'leave the step counter where it is' read as leaving it out of the moved state"),

    Misreading("memmap-dataset", {"data.MemmapDataset.__len__": '''
def __len__(self):
    return self.data.shape[0]  # "__len__ is shape[0]", of the mapped array
'''}, "'__len__ is shape[0]' taken from the memmap itself, which opens the file (and fails for an empty one)"),

    Misreading("denormalize", {"data.denormalize": '''
def denormalize(tensor, mean, std):
    channels = tensor.shape[0]  # "(C, 1, 1)", C read off the input's first dimension
    mean = torch.as_tensor(mean, dtype=tensor.dtype).view(channels, 1, 1)
    std = torch.as_tensor(std, dtype=tensor.dtype).view(channels, 1, 1)
    return tensor * std + mean
'''}, "'reshape to (C, 1, 1)' with C taken as the input's first dimension, which is the batch for a batch"),

    Misreading("synthetic-data", {"data.make_synthetic_classification": '''
def make_synthetic_classification(n=512, num_classes=4, dim=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    y = torch.randint(0, num_classes, (n,))  # the generator passed to the noise, not to the labels
    centres = torch.zeros(num_classes, dim)
    for k in range(num_classes):
        centres[k, k % dim] = 4.0 * (1 + k // dim)
    x = centres[y] + torch.randn(n, dim, generator=generator)
    return TensorDataset(x.float(), y.long())
'''}, "seeds its own generator but draws the labels from the global RNG: 'never the global RNG' for one call"),

    Misreading("evaluate", {"training.evaluate": '''
def evaluate(model, loader, loss_fn, device="cpu"):
    model.eval()
    torch.set_grad_enabled(False)  # "under torch.no_grad()", switched off and never back on
    total_loss, correct, seen = 0.0, 0, 0
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        output = model(data)
        batch = target.size(0)
        total_loss += loss_fn(output, target).item() * batch
        correct += _batch_counts(output, target)
        seen += batch
    return {"loss": total_loss / seen, "accuracy": correct / seen}
'''}, "'run the loader under torch.no_grad()' as switching grad off for good: the caller's grad mode is lost"),

    Misreading("train-one-epoch", {"training.train_one_epoch": '''
def train_one_epoch(model, loader, optimizer, loss_fn, device="cpu"):
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = loss_fn(output, target)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * target.size(0)  # .item() for the loss, as the hint says...
        correct += (output.argmax(1) == target).sum()  # ...but the count stays a tensor
        seen += target.size(0)
    return {"loss": total_loss / seen, "accuracy": correct / seen}
'''}, "'accumulate loss.item()' applied to the loss only: the correct count accumulates as a tensor"),

    Misreading("fit", {"training.fit": '''
def fit(model, train_loader, val_loader, optimizer, loss_fn, epochs, device="cpu"):
    history = []
    for _ in range(epochs):
        train = train_one_epoch(model, train_loader, optimizer, loss_fn, device)
        val = evaluate(model, val_loader, loss_fn, device)
        history.append({**train, **val})  # "a dict with" both results: val's "loss" overwrites train's
    return history
'''}, "'append a dict with train_loss, ... val_accuracy' built by merging the two results, whose keys clash"),
]

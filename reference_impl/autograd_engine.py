"""A small reverse-mode autograd engine over numpy arrays, readable in one sitting.

It mirrors the parts of torch.autograd the material talks about:

- every operation on a tensor that requires grad records a ``Node`` as the output's
  ``grad_fn``; ``node.next_functions`` is a tuple of ``(node, 0)`` pairs, one per input,
  holding ``None`` for inputs that need no gradient;
- a leaf that requires grad is reached through an ``AccumulateGrad`` node whose
  ``variable`` is the leaf, and ``backward`` *adds* into ``leaf.grad``;
- ``Tensor.backward`` without ``gradient`` is only allowed for one-element outputs;
  with ``gradient=v`` it computes the vector-Jacobian product ``v^T J``;
- nodes run in reverse topological order, each exactly once, after every gradient
  contribution reaching it has been summed;
- binary operations broadcast like numpy, and a gradient is summed back to the shape of
  the input it belongs to (``_unbroadcast``).

Data are float64 numpy arrays; there is no device, no in-place operation and no saved-tensor
freeing (a graph can be walked any number of times).  The specs compare every operation with
torch.autograd on the same expression in float64.
"""
from __future__ import annotations

import numpy as np


def _unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added or stretched, giving ``shape``."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)


class Node:
    """One recorded operation: knows its inputs' nodes and how to map dL/d(out) to dL/d(inputs).

    ``backward_fn(grad_out)`` returns one gradient per input (``None`` where an input needs
    none).  ``name`` follows torch's spelling (``MulBackward``) so graphs read alike.
    """

    def __init__(self, name: str, inputs: tuple["Tensor", ...], backward_fn):
        self.name = name
        self.backward_fn = backward_fn
        self.next_functions = tuple((_grad_node(t), 0) for t in inputs)

    def __call__(self, grad_out: np.ndarray) -> tuple[np.ndarray | None, ...]:
        return self.backward_fn(grad_out)

    def __repr__(self) -> str:
        return f"<{self.name}>"


class AccumulateGrad(Node):
    """The end of the graph for a leaf: adds the incoming gradient into ``variable.grad``."""

    def __init__(self, variable: "Tensor"):
        self.name = "AccumulateGrad"
        self.variable = variable
        self.next_functions = ()

    def __call__(self, grad_out: np.ndarray) -> tuple:
        leaf = self.variable
        leaf.grad = grad_out.copy() if leaf.grad is None else leaf.grad + grad_out
        return ()


def _grad_node(t: "Tensor") -> Node | None:
    """The node an input contributes through: its grad_fn, its accumulator, or None."""
    if not t.requires_grad:
        return None
    if t.grad_fn is not None:
        return t.grad_fn
    if t._accumulator is None:  # one accumulator per leaf, like torch
        t._accumulator = AccumulateGrad(t)
    return t._accumulator


class Tensor:
    """A float64 numpy array with ``requires_grad``, ``grad``, ``grad_fn`` and ``backward``."""

    def __init__(self, data, requires_grad: bool = False):
        self.data = np.array(data, dtype=np.float64)
        self.requires_grad = requires_grad
        self.grad: np.ndarray | None = None
        self.grad_fn: Node | None = None
        self._accumulator: AccumulateGrad | None = None

    # ------------------------------------------------------------------ basics
    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def is_leaf(self) -> bool:
        """True for every tensor without a grad_fn, as in torch."""
        return self.grad_fn is None

    def numpy(self) -> np.ndarray:
        return self.data

    def __repr__(self) -> str:
        suffix = f", grad_fn={self.grad_fn!r}" if self.grad_fn else (
            ", requires_grad=True" if self.requires_grad else "")
        return f"Tensor({self.data!r}{suffix})"

    @staticmethod
    def _wrap(x) -> "Tensor":
        return x if isinstance(x, Tensor) else Tensor(x)

    def _make(self, data: np.ndarray, inputs: tuple["Tensor", ...], name: str, backward_fn) -> "Tensor":
        """The result of an op: records a Node only if some input requires grad."""
        out = Tensor(data)
        if any(t.requires_grad for t in inputs):
            out.requires_grad = True
            out.grad_fn = Node(name, inputs, backward_fn)
        return out

    # ------------------------------------------------------------------ binary ops (broadcasting)
    def __add__(self, other):
        a, b = self, self._wrap(other)
        return self._make(a.data + b.data, (a, b), "AddBackward",
                          lambda g: (_unbroadcast(g, a.shape), _unbroadcast(g, b.shape)))

    __radd__ = __add__

    def __sub__(self, other):
        a, b = self, self._wrap(other)
        return self._make(a.data - b.data, (a, b), "SubBackward",
                          lambda g: (_unbroadcast(g, a.shape), _unbroadcast(-g, b.shape)))

    def __rsub__(self, other):
        return self._wrap(other) - self

    def __mul__(self, other):
        a, b = self, self._wrap(other)
        return self._make(a.data * b.data, (a, b), "MulBackward",
                          lambda g: (_unbroadcast(g * b.data, a.shape), _unbroadcast(g * a.data, b.shape)))

    __rmul__ = __mul__

    def __truediv__(self, other):
        a, b = self, self._wrap(other)
        return self._make(a.data / b.data, (a, b), "DivBackward",
                          lambda g: (_unbroadcast(g / b.data, a.shape),
                                     _unbroadcast(-g * a.data / b.data ** 2, b.shape)))

    def __rtruediv__(self, other):
        return self._wrap(other) / self

    def __matmul__(self, other):
        """Matrix product for 1-D and 2-D operands (numpy's rules for vectors)."""
        a, b = self, self._wrap(other)
        if a.data.ndim not in (1, 2) or b.data.ndim not in (1, 2):
            raise ValueError("matmul supports 1-D and 2-D operands only")

        def backward(g):
            A = a.data if a.data.ndim == 2 else a.data[None, :]
            B = b.data if b.data.ndim == 2 else b.data[:, None]
            G = np.asarray(g).reshape(A.shape[0], B.shape[1])
            return (
                (G @ B.T).reshape(a.shape),
                (A.T @ G).reshape(b.shape),
            )

        return self._make(a.data @ b.data, (a, b), "MmBackward", backward)

    # ------------------------------------------------------------------ unary ops
    def __neg__(self):
        return self._make(-self.data, (self,), "NegBackward", lambda g: (-g,))

    def __pow__(self, exponent: float):
        if isinstance(exponent, Tensor):
            raise TypeError("only a Python number is supported as exponent")
        x = self.data
        return self._make(x ** exponent, (self,), "PowBackward",
                          lambda g: (g * exponent * x ** (exponent - 1),))

    def exp(self):
        y = np.exp(self.data)
        return self._make(y, (self,), "ExpBackward", lambda g: (g * y,))

    def log(self):
        x = self.data
        return self._make(np.log(x), (self,), "LogBackward", lambda g: (g / x,))

    def tanh(self):
        y = np.tanh(self.data)
        return self._make(y, (self,), "TanhBackward", lambda g: (g * (1.0 - y ** 2),))

    def relu(self):
        x = self.data
        # torch's convention: the derivative at exactly 0 is 0
        return self._make(np.maximum(x, 0.0), (self,), "ReluBackward", lambda g: (g * (x > 0),))

    # ------------------------------------------------------------------ reductions
    def sum(self, axis=None, keepdims: bool = False):
        shape = self.shape
        axes = _normalise_axes(axis, len(shape))

        def backward(g):
            if not keepdims:
                for ax in sorted(axes):
                    g = np.expand_dims(g, ax)
            return (np.broadcast_to(g, shape).copy(),)

        return self._make(self.data.sum(axis=axis, keepdims=keepdims), (self,), "SumBackward", backward)

    def mean(self, axis=None, keepdims: bool = False):
        axes = _normalise_axes(axis, len(self.shape))
        count = int(np.prod([self.shape[a] for a in axes])) if axes else 1
        return self.sum(axis=axis, keepdims=keepdims) / float(count)

    # ------------------------------------------------------------------ backward
    def backward(self, gradient=None) -> None:
        """Accumulate d(self)/d(leaf), weighted by ``gradient``, into every leaf's ``.grad``.

        Without ``gradient`` the output must hold exactly one element (the seed is 1);
        otherwise ``gradient`` must have this tensor's shape: the result is ``v^T J``.
        """
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if gradient is None:
            if self.data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seed = np.ones_like(self.data)
        else:
            seed = np.array(gradient.data if isinstance(gradient, Tensor) else gradient, dtype=np.float64)
            if seed.shape != self.shape:
                raise RuntimeError(f"Mismatch in shape: gradient {seed.shape} vs output {self.shape}")
        root = _grad_node(self)
        order = _topological_order(root)
        pending: dict[int, np.ndarray] = {id(root): seed}
        for node in order:  # outputs first: every producer runs after all its consumers
            grad_out = pending.pop(id(node))
            grads = node(grad_out)
            for (child, _), grad in zip(node.next_functions, grads):
                if child is None or grad is None:
                    continue
                key = id(child)
                pending[key] = grad if key not in pending else pending[key] + grad


def _normalise_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(a % ndim for a in axes)


def _topological_order(root: Node) -> list[Node]:
    """Nodes reachable from ``root``, each listed after every node that feeds it a gradient."""
    post: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:  # iterative post-order DFS, so deep graphs do not hit the recursion limit
        node, expanded = stack.pop()
        if expanded:
            post.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                stack.append((child, False))
    return post[::-1]


def tensor(data, requires_grad: bool = False) -> Tensor:
    """Create a Tensor, like ``torch.tensor``."""
    return Tensor(data, requires_grad=requires_grad)

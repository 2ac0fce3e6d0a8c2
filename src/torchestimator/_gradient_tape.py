"""`tf.GradientTape` on autograd: `tape.gradient(loss, variables)` differentiates what was
computed (torch records every operation; the tape marks the scope).

Inside a tape, autograd is on (even under an outer `torch.no_grad()`), and the
tape is visible to the rest of the package through `recording()`: a Keras
layer called on numpy inputs at top level runs without autograd (TF's
semantics: only a tape records), except while a tape is active. The count of
active tapes is per thread.

After a non-persistent tape's `gradient()` the graph behind its target is
freed, as in TF; the target is then detached in place (where torch allows it),
so TF code that reads `loss.numpy()` after taking the gradient works.
"""

from __future__ import annotations

import enum
import threading
from typing import Any

import torch

_LOCAL = threading.local()


def recording() -> bool:
    """True while a `GradientTape` is active (and not paused by `stop_recording`) in this
    thread."""
    return getattr(_LOCAL, "depth", 0) > 0


def _add_depth(delta: int) -> None:
    _LOCAL.depth = getattr(_LOCAL, "depth", 0) + delta


class UnconnectedGradients(enum.Enum):
    """What `gradient()` returns for a source the target does not depend on: None or zeros."""

    NONE = "none"
    ZERO = "zero"


def _flatten(structure: Any) -> list:
    if isinstance(structure, dict):
        return [leaf for key in structure for leaf in _flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack(structure: Any, flat: list, start: int = 0) -> tuple[Any, int]:
    if isinstance(structure, dict):
        out = {}
        for key in structure:
            out[key], start = _pack(structure[key], flat, start)
        return out, start
    if isinstance(structure, (list, tuple)):
        items = []
        for item in structure:
            value, start = _pack(item, flat, start)
            items.append(value)
        return (items if isinstance(structure, list) else tuple(items)), start
    return flat[start], start + 1


def _differentiable(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and t.requires_grad and (t.is_floating_point() or t.is_complex())


class _StopRecording:
    def __init__(self, tape: GradientTape):
        self._tape = tape

    def __enter__(self) -> None:
        if not self._tape._recording:
            raise ValueError("Tape.stop_recording() was called while the tape is not recording.")
        self._grad_mode = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        self._tape._recording = False
        _add_depth(-1)

    def __exit__(self, *exc: Any) -> None:
        _add_depth(1)
        self._tape._recording = True
        torch.set_grad_enabled(self._grad_mode)


class GradientTape:
    """Records operations for automatic differentiation, as TF's `GradientTape(persistent=False,
    watch_accessed_variables=True)`.

    `gradient(target, sources)` returns d(target)/d(sources) in the structure
    of `sources` (None where a source is unused, or is not a floating tensor
    that records gradients). A non-persistent tape can be asked once.
    Trainable `tf.Variable`s (and Keras weights) are watched automatically;
    `watch(tensor)` makes a plain tensor a source. With
    `watch_accessed_variables=False`, only watched tensors and variables get
    gradients (others get None).
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._used = False
        self._recording = False
        self._watched: list[torch.Tensor] = []
        self._switched_on: list[torch.Tensor] = []  # tensors watch() made record gradients

    def __enter__(self) -> GradientTape:
        self._grad_mode = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
        self._recording = True
        _add_depth(1)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            _add_depth(-1)
            self._recording = False
        torch.set_grad_enabled(self._grad_mode)

    def watch(self, tensor: Any) -> None:
        """Ensures `tensor` (a tensor, a variable, or a structure of them) is traced by the tape:
        a floating tensor that does not record gradients starts recording them."""
        for t in _flatten(tensor):
            if not isinstance(t, torch.Tensor):
                raise ValueError(f"GradientTape.watch: passed in {t!r:.80} which is not a Tensor.")
            if not t.requires_grad and (t.is_floating_point() or t.is_complex()):
                t.requires_grad_(True)
                self._switched_on.append(t)
            if not any(t is w for w in self._watched):
                self._watched.append(t)

    def watched_variables(self) -> tuple:
        """The tensors and variables explicitly watched with `watch()`, in order (the variables
        a tape accessed are not tracked: autograd records them without the tape)."""
        return tuple(self._watched)

    def stop_recording(self) -> _StopRecording:
        """A context in which operations are not recorded (autograd is off)."""
        return _StopRecording(self)

    def reset(self) -> None:
        """Forgets the watched tensors and lets a non-persistent tape be asked again."""
        self._release()
        self._watched = []
        self._used = False

    def _release(self) -> None:
        """Watched constants stop recording gradients once the tape is done with them (unless
        another tape is still recording)."""
        if self._switched_on and not recording():
            for t in self._switched_on:
                t.requires_grad_(False)
            self._switched_on = []

    def _finish(self, targets: list, nested: bool) -> None:
        if self._persistent or nested:
            return
        for t in targets:  # the graph is gone: let TF code read t.numpy()
            if t.grad_fn is None:  # a leaf (a variable) keeps recording
                continue
            try:
                t.detach_()
            except RuntimeError:  # views cannot be detached in place
                pass
        self._release()

    def __del__(self) -> None:
        try:
            self._release()
        except Exception:
            pass

    def _use(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients "
                "(or jacobians); use GradientTape(persistent=True)."
            )
        self._used = True

    def _is_source(self, t: Any) -> bool:
        if not _differentiable(t):
            return False
        return self._watch_accessed or any(t is w for w in self._watched)

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """Returns the gradients of `target` (a tensor or a structure of tensors, summed) with
        respect to `sources` (a tensor, variable, or a list/tuple/dict structure of them)."""
        self._use()
        zero = UnconnectedGradients(getattr(unconnected_gradients, "value", unconnected_gradients))
        flat = _flatten(sources)
        targets = [t for t in _flatten(target) if isinstance(t, torch.Tensor)]
        live_targets, live_outputs = [], []
        extra = _flatten(output_gradients) if output_gradients is not None else [None] * len(targets)
        for t, g in zip(targets, extra):
            if t.requires_grad:
                live_targets.append(t)
                live_outputs.append(torch.ones_like(t) if g is None else torch.as_tensor(g).to(t))
        index = [i for i, s in enumerate(flat) if self._is_source(s)]
        grads: list = [None] * len(flat)
        nested = recording()  # an outer tape records this gradient computation (higher order)
        if live_targets and index:
            found = torch.autograd.grad(
                live_targets, [flat[i] for i in index], grad_outputs=live_outputs,
                retain_graph=self._persistent or nested, create_graph=nested, allow_unused=True,
            )
            for i, g in zip(index, found):
                grads[i] = g
        if zero is UnconnectedGradients.ZERO:
            grads = [torch.zeros_like(s) if g is None and isinstance(s, torch.Tensor) else g
                     for g, s in zip(grads, flat)]
        self._finish(live_targets, nested)
        return _pack(sources, grads)[0]

    def jacobian(self, target: torch.Tensor, sources: Any,
                 unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """Returns the jacobian of `target` with respect to each source: for a source of shape
        S, a tensor of shape `target.shape + S`."""
        self._use()
        zero = UnconnectedGradients(getattr(unconnected_gradients, "value", unconnected_gradients))
        flat = _flatten(sources)
        out: list = [None] * len(flat)
        index = [i for i, s in enumerate(flat) if self._is_source(s)]
        if target.requires_grad and index and target.numel():
            n = target.numel()
            eye = torch.eye(n, dtype=target.dtype, device=target.device).reshape((n,) + target.shape)
            found = _batched_grad(target, [flat[i] for i in index], eye)
            for i, g in zip(index, found):
                if g is not None:
                    out[i] = g.reshape(tuple(target.shape) + tuple(flat[i].shape))
        self._finish([], recording())
        for i, s in enumerate(flat):
            if out[i] is None and (zero is UnconnectedGradients.ZERO or not target.numel()):
                out[i] = torch.zeros(tuple(target.shape) + tuple(s.shape), dtype=s.dtype, device=s.device)
        return _pack(sources, out)[0]

    def batch_jacobian(self, target: torch.Tensor, source: torch.Tensor,
                       unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """Returns `d target[i, ...] / d source[i, ...]` for each batch row i: a tensor of shape
        `[batch] + target.shape[1:] + source.shape[1:]` (rows are assumed independent)."""
        self._use()
        zero = UnconnectedGradients(getattr(unconnected_gradients, "value", unconnected_gradients))
        if target.shape[:1] != source.shape[:1]:
            raise ValueError(
                f"batch_jacobian: the first dimension of target {list(target.shape)} and source "
                f"{list(source.shape)} must match."
            )
        batch = target.shape[0]
        inner = target.shape[1:]
        shape = (batch,) + tuple(inner) + tuple(source.shape[1:])
        m = 1
        for d in inner:
            m *= d
        result = None
        if target.requires_grad and self._is_source(source) and m and batch:
            eye = torch.eye(m, dtype=target.dtype, device=target.device)
            grad_outputs = eye.unsqueeze(1).expand(m, batch, m).reshape((m, batch) + tuple(inner))
            (g,) = _batched_grad(target, [source], grad_outputs)
            if g is not None:  # [m, batch, *source_inner] -> [batch, *inner, *source_inner]
                result = g.movedim(0, 1).reshape(shape)
        self._finish([], recording())
        if result is None and (zero is UnconnectedGradients.ZERO or not (m and batch)):
            result = torch.zeros(shape, dtype=source.dtype, device=source.device)
        return result


def _batched_grad(target: torch.Tensor, sources: list, grad_outputs: torch.Tensor) -> tuple:
    """Vector-jacobian products for each row of `grad_outputs` (vmapped; a loop where an op has
    no batching rule)."""
    nested = recording()
    try:
        return torch.autograd.grad(target, sources, grad_outputs=grad_outputs, retain_graph=True,
                                   create_graph=nested, allow_unused=True, is_grads_batched=True)
    except RuntimeError:
        rows = [torch.autograd.grad(target, sources, grad_outputs=g, retain_graph=True,
                                    create_graph=nested, allow_unused=True) for g in grad_outputs]
        return tuple(None if rows[0][j] is None else torch.stack([r[j] for r in rows])
                     for j in range(len(sources)))

"""`tf.autodiff.ForwardAccumulator` on torch's forward-mode AD (`torch.autograd.forward_ad`).

Entering the accumulator opens a dual level and gives each primal its tangent (in place, so
the primal objects the program uses, variables included, carry it); every op run inside the
block computes its output's Jacobian-vector product alongside. `jvp(y)` reads it, inside the
block or after it. torch keeps one forward-AD level at a time: entering another accumulator
closes the previous one's level (its `jvp` then raises); nesting accumulators, TF's way to
higher-order forward derivatives, is refused with the alternative (torch.func.jvp nested).
After the block the primals carry a zero tangent (torch cannot drop a tensor's tangent), so
`jvp` of a value computed after the block is zeros where TF gives None."""

from __future__ import annotations

from typing import Any

import torch
import torch.autograd.forward_ad as fwAD

from torchestimator._ops import nest
from torchestimator._ops.convert import convert_to_tensor

_OPEN: dict[str, Any] = {"accumulator": None}


class ForwardAccumulator:
    """Computes Jacobian-vector products ("JVP"s) using forward-mode autodiff (TF's
    `tf.autodiff.ForwardAccumulator(primals, tangents)`): `primals` (a tensor or variable, or a
    structure of them) are watched with `tangents` (same structure) while the block runs."""

    def __init__(self, primals: Any, tangents: Any):
        self._primals = nest.flatten(primals)
        self._tangents = nest.flatten(tangents)
        if len(self._primals) != len(self._tangents):
            raise ValueError(f"primals and tangents must have the same structure; got {len(self._primals)} "
                             f"primals and {len(self._tangents)} tangents.")

        self._tangents = [convert_to_tensor(t, dtype=p.dtype) if not isinstance(t, torch.Tensor) else t
                          for p, t in zip(self._primals, self._tangents)]
        for p, t in zip(self._primals, self._tangents):
            if not isinstance(p, torch.Tensor):
                raise TypeError(f"ForwardAccumulator primals must be tensors or variables; got {p!r:.80}.")
            if tuple(p.shape) != tuple(t.shape):
                raise ValueError(f"Tangent shape {list(t.shape)} does not match its primal's {list(p.shape)}.")
        self._level: int | None = None
        self._recording = False

    def __enter__(self) -> ForwardAccumulator:
        current = _OPEN["accumulator"]
        if current is not None and current._recording:
            raise ValueError("Nested ForwardAccumulators are not supported here (torch keeps one forward-AD "
                             "level): compute higher-order JVPs with nested torch.func.jvp calls.")
        if current is not None:
            current._close()
        self._level = fwAD.enter_dual_level()
        _OPEN["accumulator"] = self
        self._recording = True
        self._watch(self._primals, self._tangents)
        return self

    def _watch(self, primals: list, tangents: list) -> None:
        with torch.no_grad():
            for p, t in zip(primals, tangents):
                p.copy_(fwAD.make_dual(p.detach().clone(), t.to(p.device, p.dtype), level=self._level))

    def __exit__(self, *exc: Any) -> None:
        self._recording = False
        with torch.no_grad():  # the primals stop carrying tangents; results computed keep theirs
            for p in self._primals:
                p.copy_(fwAD.unpack_dual(p, level=self._level).primal.detach().clone())

    def _close(self) -> None:
        if self._level is not None:
            fwAD.exit_dual_level(level=self._level)
            self._level = None
        if _OPEN["accumulator"] is self:
            _OPEN["accumulator"] = None

    def __del__(self) -> None:
        try:
            if _OPEN["accumulator"] is self and not self._recording:
                self._close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def watch(self, primals: Any, tangents: Any) -> None:
        """Ensures that `primals` are being traced by this accumulator, with `tangents`."""
        if not self._recording:
            raise ValueError("ForwardAccumulator.watch is called outside the accumulator's `with` block.")
        ps, ts = nest.flatten(primals), nest.flatten(tangents)
        self._primals += ps
        self._tangents += ts
        self._watch(ps, ts)

    def jvp(self, primals: Any, unconnected_gradients: Any = "none") -> Any:
        """Fetches the Jacobian-vector product computed for `primals` (a tensor or a structure
        of them): None (or zeros with `unconnected_gradients=ZERO`) where a tensor does not
        depend on the watched primals."""
        if self._level is None:
            raise ValueError("This ForwardAccumulator's results are gone: another ForwardAccumulator was "
                             "entered since (torch keeps one forward-AD level). Read jvp() before entering "
                             "the next one.")
        zero = str(getattr(unconnected_gradients, "value", unconnected_gradients)).lower() == "zero"

        def one(tensor: Any) -> Any:
            tangent = fwAD.unpack_dual(tensor, level=self._level).tangent
            if tangent is None:
                return torch.zeros_like(tensor) if zero else None
            return tangent.detach().clone()
        return nest.map_structure(one, primals)

"""`StackedRNNCells`: several RNN cells run one after the other at each time step, so an
`RNN` layer over them is a stacked (deep) recurrent network in one loop."""

from __future__ import annotations

import inspect
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator.keras._registry import (
    deserialize_keras_object,
    serialize_keras_object,
)
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.layers.rnn import _utils


class StackedRNNCells(Layer):
    """Wrapper allowing a stack of RNN cells to behave as a single cell.

    Args:
        cells: a list of RNN cells; the output of each is the input of the next.

    `state_size` is the flat list of the cells' state sizes, in order, and the
    states passed to and returned by `call` follow that order.
    """

    def __init__(self, cells: list, **kwargs: Any):
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(
                f"StackedRNNCells expects a non-empty list of RNN cells; received cells={cells!r}"
            )
        for cell in cells:
            if not callable(getattr(cell, "call", None)) or not hasattr(cell, "state_size"):
                raise ValueError(
                    "All cells of StackedRNNCells must have a `call` method and a `state_size` "
                    f"attribute. Received cell={cell!r}"
                )
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self) -> list[int]:
        """The flat list of the cells' state sizes."""
        out: list[int] = []
        for cell in self.cells:
            out.extend(_utils.flat_state_sizes(cell.state_size))
        return out

    @property
    def output_size(self) -> int:
        """The output size of the last cell."""
        last = self.cells[-1]
        size = getattr(last, "output_size", None)
        return int(size) if size is not None else _utils.flat_state_sizes(last.state_size)[0]

    def build(self, input_shape: Any) -> None:
        """Builds each cell for the output size of the cell before it."""
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer):
                _utils.build_sublayer(cell, shape, self._build_device)
            size = getattr(cell, "output_size", None)
            if size is None:
                size = _utils.flat_state_sizes(cell.state_size)[0]
            shape = shape[:-1] + (int(size),)
        self.built = True

    def call(self, inputs: torch.Tensor, states: list, constants: Any = None,
             training: bool | None = None, **kwargs: Any) -> tuple:
        """Runs every cell on one step; returns (last output, new flat states). As TF's, a
        cell whose `call` takes `constants` gets `constants`, one that takes `training` gets
        `training`, and every cell gets the other keyword arguments."""
        new_states: list = []
        position = 0
        x = inputs
        for cell in self.cells:
            n = len(_utils.flat_state_sizes(cell.state_size))
            cell_states = list(states[position:position + n])
            position += n
            cell_kwargs = dict(kwargs)
            if getattr(cell, "_call_accepts_training", False):
                cell_kwargs["training"] = training
            if _takes_constants(cell):
                cell_kwargs["constants"] = constants
            x, cell_new = cell.call(x, cell_states, **cell_kwargs)
            if isinstance(cell_new, torch.Tensor):
                cell_new = [cell_new]
            new_states.extend(cell_new)
        return x, new_states

    def get_initial_state(
        self, inputs: Any = None, batch_size: int | None = None, dtype: Any = None
    ) -> list[torch.Tensor]:
        """Returns zero states for every cell, flat."""
        if inputs is not None:
            batch_size, dtype = inputs.shape[0], inputs.dtype
        if batch_size is None:
            raise ValueError("StackedRNNCells.get_initial_state: pass `inputs` or `batch_size`; "
                             "received batch_size=None and inputs=None.")
        dtype = _dtypes.as_dtype(dtype or self._compute_dtype)
        return [torch.zeros((int(batch_size), s), dtype=dtype) for s in self.state_size]

    def get_config(self) -> dict:
        """Returns the config: the serialized cells."""
        config = super().get_config()
        config["cells"] = [serialize_keras_object(cell) for cell in self.cells]
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> StackedRNNCells:
        """Creates the stack from `get_config()`'s output (looking the cells' classes up in
        `custom_objects` too)."""
        config = dict(config)
        cells = [deserialize_keras_object(c, custom_objects=custom_objects)
                 for c in config.pop("cells")]
        return cls(cells, **config)


def _takes_constants(cell: Any) -> bool:
    """Whether `cell.call` names a `constants` argument (TF's `has_arg`)."""
    try:
        return "constants" in inspect.signature(cell.call).parameters
    except (TypeError, ValueError):
        return False

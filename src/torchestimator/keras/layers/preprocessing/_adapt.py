"""Keras 2.15 `PreprocessingLayer`'s adapt step function (`make_adapt_function`) and
`compile`, mixed into the layers that `adapt` (Discretization, Normalization, the lookups,
TextVectorization)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchestimator.errors import OutOfRangeError


class AdaptStepFunction:
    """What `make_adapt_function` returns: a callable that takes an iterator of batches and
    feeds the next `steps_per_execution` of them to the layer's `update_state`."""

    def __init__(self, layer: Any) -> None:
        self.layer = layer

    def __call__(self, iterator: Iterator) -> None:
        layer = self.layer
        for step in range(max(1, int(layer.__dict__.get("_adapt_steps_per_execution", 1)))):
            try:
                data = next(iterator)
            except StopIteration:
                if step == 0:  # TF's tf.function raises OutOfRangeError there
                    raise OutOfRangeError(None, None, "End of sequence") from None
                return
            layer.update_state(data)

    def __repr__(self) -> str:
        return f"<adapt_function of layer {self.layer.name!r}>"


class AdaptFunctionMixin:
    """`make_adapt_function` and `compile` of a layer with `update_state(data)`."""

    def compile(self, run_eagerly: bool | None = None, steps_per_execution: int | None = None) -> None:
        """Configures `adapt`, as Keras' `PreprocessingLayer.compile`: `steps_per_execution`
        batches per call of the adapt function (1 by default); `run_eagerly` is accepted (every
        step runs eagerly). Clears the cached adapt function."""
        if steps_per_execution is None:
            steps_per_execution = 1
        if isinstance(steps_per_execution, bool) or not isinstance(steps_per_execution, int) \
                or steps_per_execution < 1:
            raise ValueError(f"steps_per_execution must be a positive integer; received "
                             f"{steps_per_execution!r}")
        self.__dict__["_adapt_steps_per_execution"] = steps_per_execution
        self.__dict__["_adapt_run_eagerly"] = run_eagerly
        self.__dict__.pop("_adapt_function", None)

    def make_adapt_function(self) -> Callable:
        """Creates (once; again after `compile`) and returns the function that runs one adapt
        step: it takes an iterator of batches (`iter(dataset)`) and passes the next batch to
        `update_state`. `adapt` resets the state, runs such steps over the data, then
        `finalize_state()`."""
        function = self.__dict__.get("_adapt_function")
        if function is None:
            function = AdaptStepFunction(self)
            self.__dict__["_adapt_function"] = function
        return function

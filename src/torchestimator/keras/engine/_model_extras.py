"""Keras 2.15 `Model` methods besides the training fronts (`trainer.py`): the step functions
(`make_train_function`, ...: the callables `fit`, `evaluate` and `predict` run, TF's contract of
one call per step on an iterator of batches), the deprecated `*_generator` fronts, `reset_states`,
`save_spec`, `get_weight_paths` and the removed `to_yaml`.

`ModelExtras` is mixed into `Trainer`.
"""

from __future__ import annotations

import collections
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchestimator import _dtypes
from torchestimator._engine import loop
from torchestimator._ops import nest
from torchestimator.errors import OutOfRangeError
from torchestimator.keras.engine._layer_weights import LayerWeightsMixin

_KINDS = ("train", "test", "predict")


class StepFunction:
    """What `make_train_function` (`make_test_function`, `make_predict_function`) returns: a
    callable that takes an iterator of batches (`iter(dataset)`), runs the model's
    `train_step` (`test_step`, `predict_step`) on the next `steps_per_execution` batches and
    returns the last step's logs (the predict steps' outputs, concatenated). The model's
    modules are in train (train) or eval mode while it runs, and left as they were."""

    def __init__(self, model: Any, kind: str) -> None:
        self.model = model
        self.kind = kind

    def __call__(self, iterator: Iterator) -> Any:
        model, kind = self.model, self.kind
        if kind != "predict":
            model._assert_compiled("training" if kind == "train" else "testing")
        device = model._place()
        modes = [(module, module.training) for module in model.modules()]
        model.train(kind == "train")
        outputs: Any = None
        try:
            with torch.set_grad_enabled(kind == "train" and torch.is_grad_enabled()), \
                    model._mixed_precision(device):
                for step in range(max(1, int(model._steps_per_execution))):
                    try:
                        batch = next(iterator)
                    except StopIteration:
                        if step == 0:  # TF's tf.function raises OutOfRangeError there
                            raise OutOfRangeError(None, None, "End of sequence") from None
                        break
                    batch = loop.to_device(batch, device)
                    if kind == "train":
                        outputs = model.train_step(batch)
                    elif kind == "test":
                        outputs = model.test_step(batch)
                    else:
                        out = model.predict_step(batch)
                        outputs = out if outputs is None else nest.map_structure(
                            lambda a, b: torch.cat([a, b]), outputs, out)
        finally:
            for module, mode in modes:
                if module.training is not mode:
                    object.__setattr__(module, "training", mode)
        return outputs

    def __repr__(self) -> str:
        return f"<{self.kind}_function of model {self.model.name!r}>"


class ModelExtras:
    """The `Model` methods of this module (see its docstring)."""

    # ------------------------------------------------------------------ step functions
    def _make_step_function(self, kind: str, force: bool) -> StepFunction:
        attr = f"{kind}_function"
        existing = self.__dict__.get(attr)
        if existing is not None and not force:
            return existing
        function = StepFunction(self, kind)
        self.__dict__[attr] = function
        return function

    def make_train_function(self, force: bool = False) -> Callable:
        """Creates (once; again after `compile` or with `force=True`) and returns the function
        that runs one training execution: it takes an iterator of batches, runs `train_step`
        on the next `steps_per_execution` of them and returns the logs. It is cached as
        `model.train_function`; `fit` sets it, and runs an overriding method's function."""
        return self._make_step_function("train", force)

    def make_test_function(self, force: bool = False) -> Callable:
        """As `make_train_function`, for `test_step` (`model.test_function`, `evaluate`)."""
        return self._make_step_function("test", force)

    def make_predict_function(self, force: bool = False) -> Callable:
        """As `make_train_function`, for `predict_step` (`model.predict_function`, `predict`):
        the function returns the steps' outputs, concatenated along the batch axis."""
        return self._make_step_function("predict", force)

    def _front_step(self, kind: str) -> Callable | None:
        """For a front (`fit`, `evaluate`, `predict`): makes `model.<kind>_function` as TF's
        fronts do, and returns a per-batch step calling it when the model overrides
        `make_<kind>_function` (None: the front runs its own steps)."""
        method = getattr(type(self), f"make_{kind}_function")
        function = method(self)
        if method is getattr(ModelExtras, f"make_{kind}_function"):
            return None
        return lambda batch: function(iter((batch,)))

    @property
    def train_function(self) -> Callable | None:
        """The function `make_train_function` made (None before `fit` or after `compile`)."""
        return self.__dict__.get("train_function")

    @train_function.setter
    def train_function(self, value: Callable | None) -> None:
        self.__dict__["train_function"] = value

    @property
    def test_function(self) -> Callable | None:
        """The function `make_test_function` made (None before `evaluate` or after `compile`)."""
        return self.__dict__.get("test_function")

    @test_function.setter
    def test_function(self, value: Callable | None) -> None:
        self.__dict__["test_function"] = value

    @property
    def predict_function(self) -> Callable | None:
        """The function `make_predict_function` made (None before `predict` or after
        `compile`)."""
        return self.__dict__.get("predict_function")

    @predict_function.setter
    def predict_function(self, value: Callable | None) -> None:
        self.__dict__["predict_function"] = value

    def _reset_compile_cache(self) -> None:
        for kind in _KINDS:
            self.__dict__.pop(f"{kind}_function", None)

    # ------------------------------------------------------------------ deprecated fronts
    def fit_generator(self, generator: Any, steps_per_epoch: int | None = None, epochs: int = 1,
                      verbose: Any = 1, callbacks: Any = None, validation_data: Any = None,
                      validation_steps: int | None = None, validation_freq: Any = 1,
                      class_weight: dict | None = None, max_queue_size: int = 10,
                      workers: int = 1, use_multiprocessing: bool = False, shuffle: bool = True,
                      initial_epoch: int = 0) -> Any:
        """Deprecated: `fit` takes generators. Warns and calls `fit`."""
        warnings.warn(
            "`Model.fit_generator` is deprecated and will be removed in a future version. "
            "Please use `Model.fit`, which supports generators.",
            stacklevel=2,
        )
        return self.fit(
            generator, steps_per_epoch=steps_per_epoch, epochs=epochs, verbose=verbose,
            callbacks=callbacks, validation_data=validation_data,
            validation_steps=validation_steps, validation_freq=validation_freq,
            class_weight=class_weight, max_queue_size=max_queue_size, workers=workers,
            use_multiprocessing=use_multiprocessing, shuffle=shuffle, initial_epoch=initial_epoch,
        )

    def evaluate_generator(self, generator: Any, steps: int | None = None, callbacks: Any = None,
                           max_queue_size: int = 10, workers: int = 1,
                           use_multiprocessing: bool = False, verbose: Any = 0) -> Any:
        """Deprecated: `evaluate` takes generators. Warns and calls `evaluate`."""
        warnings.warn(
            "`Model.evaluate_generator` is deprecated and will be removed in a future version. "
            "Please use `Model.evaluate`, which supports generators.",
            stacklevel=2,
        )
        return self.evaluate(
            generator, steps=steps, max_queue_size=max_queue_size, workers=workers,
            use_multiprocessing=use_multiprocessing, verbose=verbose, callbacks=callbacks,
        )

    def predict_generator(self, generator: Any, steps: int | None = None, callbacks: Any = None,
                          max_queue_size: int = 10, workers: int = 1,
                          use_multiprocessing: bool = False, verbose: Any = 0) -> Any:
        """Deprecated: `predict` takes generators. Warns and calls `predict`."""
        warnings.warn(
            "`Model.predict_generator` is deprecated and will be removed in a future version. "
            "Please use `Model.predict`, which supports generators.",
            stacklevel=2,
        )
        return self.predict(
            generator, steps=steps, max_queue_size=max_queue_size, workers=workers,
            use_multiprocessing=use_multiprocessing, verbose=verbose, callbacks=callbacks,
        )

    # ------------------------------------------------------------------ state
    def reset_states(self) -> None:
        """Resets the states of the model's stateful layers (`stateful=True` RNNs)."""
        for layer in self.layers:
            if hasattr(layer, "reset_states") and getattr(layer, "stateful", False):
                layer.reset_states()

    def _record_save_spec(self, inputs: Any) -> None:
        """Keeps the shapes and dtypes of the inputs of the model's first call (`save_spec`)."""
        if self.__dict__.get("_saved_call_spec") is None:
            self.__dict__["_saved_call_spec"] = nest.map_structure(_InputEntry.of, inputs)

    def save_spec(self, dynamic_batch: bool = True) -> Any:
        """The `tf.TensorSpec`s of the model's call arguments, `(args, kwargs)`: `args` is a list
        holding the inputs' specs (in their structure), `kwargs` is `{}`.

        A functional model's are its `Input`s' (as declared, batch size included); another
        model's are those of its first call (or of `fit`/`evaluate`/`predict`), the batch size
        None with `dynamic_batch`, named by the model's input names (else 'input_1', ..., or
        a dict input's keys). None before the model was called.
        """
        recorded = self.__dict__.get("_saved_call_spec")
        if recorded is not None:
            flat = nest.flatten(recorded)
            names = list(getattr(self, "input_names", None) or [])
            if len(names) != len(flat):
                names = (sorted(recorded) if isinstance(recorded, dict) and len(recorded) == len(flat)
                         else [f"input_{i + 1}" for i in range(len(flat))])
            specs = [entry.spec(name, dynamic_batch) for entry, name in zip(flat, names)]
            return [nest.pack_sequence_as(recorded, specs)], {}
        inputs = getattr(self, "_nested_inputs", None)
        if inputs is None or not getattr(self, "_is_graph_network", False):
            return None
        names = iter(self.input_names or [])
        return [nest.map_structure(
            lambda t: _dtypes.TensorSpec(tuple(t.shape), t.dtype, name=next(names, None)),
            inputs)], {}

    def get_weight_paths(self) -> dict:
        """The model's variables by path: `'<layer>.<weight>'` (`'dense.kernel'`), a
        subclassed model's layers by their attribute names (`'blocks.0.kernel'`), nested
        layers' weights under their layers' paths (`'lstm.cell.kernel'`); each variable once,
        breadth first. Empty for a subclassed model not built yet."""
        result: dict = {}
        seen: set[int] = set()
        visited = {id(self)}
        graph = getattr(self, "_is_graph_network", False)
        queue: collections.deque = collections.deque([(self, "")])
        while queue:
            module, prefix = queue.popleft()
            for name, p in module._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    result[prefix + name] = p
            for name, child in module._modules.items():
                if child is None or id(child) in visited:
                    continue
                visited.add(id(child))
                if module is self and graph and isinstance(child, LayerWeightsMixin):
                    name = child.name
                queue.append((child, f"{prefix}{name}."))
        return result

    def to_yaml(self, **kwargs: Any) -> str:
        """Removed since TF 2.6 (YAML loading can run arbitrary code): raises RuntimeError, as
        TF's. Use `to_json()`."""
        raise RuntimeError(
            "Method `model.to_yaml()` has been removed due to security risk of arbitrary code "
            "execution. Please use `model.to_json()` instead."
        )


class _InputEntry:
    """The shape and dtype of one input of a model's first call (a leaf for `nest`)."""

    __slots__ = ("dtype", "shape")

    def __init__(self, shape: tuple | None, dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype

    @classmethod
    def of(cls, value: Any) -> _InputEntry:
        shape = getattr(value, "shape", None)
        return cls(None if shape is None else tuple(shape), getattr(value, "dtype", None))

    def spec(self, name: str, dynamic_batch: bool) -> Any:
        shape = self.shape
        if dynamic_batch and shape:
            shape = (None,) + shape[1:]
        return _dtypes.TensorSpec(shape, self.dtype, name=name)

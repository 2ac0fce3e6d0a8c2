"""`Estimator.export_saved_model`: the model_fn in PREDICT mode, restored from a checkpoint,
written as a self-contained export (see `saved_model/_builder.py`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

from torchestimator.estimator.export._receivers import receiver_spec
from torchestimator.estimator.mode_keys import ModeKeys
from torchestimator.saved_model import _builder


def export_saved_model(
    estimator: Any,
    export_dir_base: str | bytes | os.PathLike,
    serving_input_receiver_fn: Callable[[], Any],
    assets_extra: Mapping[str, str] | None = None,
    as_text: bool = False,
    checkpoint_path: str | None = None,
    experimental_mode: str = ModeKeys.PREDICT,
) -> bytes:
    """See `Estimator.export_saved_model`."""
    del as_text  # the export's description is always JSON text

    if not serving_input_receiver_fn:
        raise ValueError("An input_receiver_fn must be defined.")
    if experimental_mode != ModeKeys.PREDICT:
        raise ValueError(
            f"experimental_mode={experimental_mode!r}: exports are served models, written in "
            f"PREDICT mode ({ModeKeys.PREDICT!r}); TRAIN and EVAL graphs are not exported."
        )
    base = os.fsdecode(export_dir_base)
    if not base:
        raise ValueError("export_dir_base must be a non-empty path.")
    receiver = serving_input_receiver_fn()
    spec = receiver_spec(receiver)
    runtime = estimator._runtime
    path = checkpoint_path or estimator.latest_checkpoint()
    if path is None and runtime.warm_start_settings is None:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    sample = spec.sample_features(_builder.SAMPLE_BATCH)
    model_sample: Any = next(iter(sample.values())) if spec.single_feature else sample
    # made on the host (an export of a GPU-trained model serves on a CPU-only machine); a model
    # still training (an exporter of train_and_evaluate) is back on its device afterwards
    with runtime.on_device(torch.device("cpu")):
        runtime.prepare(ModeKeys.PREDICT, model_sample, path)
        runtime.set_training(False)

        def run(features: Any) -> Mapping[str, Any]:
            return runtime.call_model_fn(features, None, ModeKeys.PREDICT).export_outputs

        modules: list[torch.nn.Module] = list(runtime.state.layers())
        free = [v for _, v in runtime.state.free_variables() if isinstance(v, torch.nn.Parameter)]
        if free:  # tf.Variables made outside layers become the program's parameters too
            modules.append(torch.nn.ParameterList(free))
        with torch.random.fork_rng(devices=[]), _as_plain_parameters(free):
            directory = _builder.build(base, run, spec, modules, assets_extra, what="model_fn")
    return os.fsencode(directory)


@contextlib.contextmanager
def _as_plain_parameters(variables: list[torch.nn.Parameter]) -> Iterator[None]:
    """torch.export traces a tensor subclass read outside a module attribute (a `tf.Variable`
    model_fn made by itself and closes over) as an unsupported constant: for the export, such
    variables are plain `nn.Parameter`s (arithmetic works; Variable-only methods such as
    `assign` do not, and their error names the line)."""
    classes = [v.__class__ for v in variables]
    try:
        for v in variables:
            v.__class__ = torch.nn.Parameter
        yield
    finally:
        for v, cls in zip(variables, classes):
            v.__class__ = cls

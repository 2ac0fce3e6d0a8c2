"""Keras models as exports: `model.export(path)` and `tf.saved_model.save(model, path)`.

The export has one `serving_default` signature (method `tensorflow/serving/predict`) whose
inputs are the model's inputs (named as its Input layers) and whose outputs are named as
its output layers, as TensorFlow names a saved Keras model's signature. A model without
symbolic inputs (subclassed, or a Sequential starting with `DenseFeatures`) needs an
`input_signature`: a `tf.TensorSpec`, a list of them, or a dict of feature name -> spec.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import torch

from torchestimator._dtypes import TensorSpec
from torchestimator.saved_model import _builder
from torchestimator.saved_model._export_output import PredictOutput
from torchestimator.saved_model._receiver_spec import RAW, ReceiverSpec


def _specs(model: Any, input_signature: Any,
           argument: str = "input_signature") -> tuple[dict[str, TensorSpec], str]:
    """The inputs by name and how the model takes them: 'single', 'list' or 'dict'."""
    if input_signature is not None:
        if isinstance(input_signature, TensorSpec):
            name = input_signature.name or (model.input_names[0] if getattr(model, "input_names", None) else "input_1")
            return {name: input_signature}, "single"
        if isinstance(input_signature, Mapping):
            return dict(input_signature), "dict"
        if isinstance(input_signature, (list, tuple)) and all(isinstance(s, TensorSpec) for s in input_signature):
            if len(input_signature) == 1 and isinstance(input_signature[0], TensorSpec):
                return _specs(model, input_signature[0], argument)
            return {s.name or f"input_{i + 1}": s for i, s in enumerate(input_signature)}, "list"
        raise ValueError(
            f"{argument} must be a tf.TensorSpec, a list of them, or a dict of name -> "
            f"tf.TensorSpec; got {input_signature!r:.200}"
        )
    inputs = list(getattr(model, "inputs", None) or [])
    if not inputs:
        raise ValueError(
            f"Model {getattr(model, 'name', model)!r} has no known inputs (a subclassed model, or one "
            f"never built on tf.keras.Input): pass {argument}=tf.TensorSpec(shape, dtype) (or a "
            "list, or a dict of feature name -> TensorSpec for a feature-column model)."
        )
    names = list(model.input_names)
    specs = {n: TensorSpec(t.shape, t.dtype, n) for n, t in zip(names, inputs)}
    return specs, "single" if len(inputs) == 1 else "list"


def export_keras_model(model: Any, filepath: str | os.PathLike, input_signature: Any = None,
                       argument: str = "input_signature") -> str:
    """Writes `model` as an export at `filepath` (replacing an earlier export there); returns
    the directory. `argument` names `input_signature` in errors (`signatures` for
    `tf.saved_model.save`)."""
    specs, layout = _specs(model, input_signature, argument)
    names = list(specs)
    receiver = ReceiverSpec(RAW, {n: TensorSpec(s.shape, s.dtype, n) for n, s in specs.items()},
                            feature_sources={n: n for n in names})
    output_names = list(getattr(model, "output_names", None) or [])

    def run(features: Any) -> Mapping[str, Any]:
        if layout == "dict":
            args: Any = dict(features)
        elif layout == "single":
            args = features[names[0]]
        else:
            args = [features[n] for n in names]
        outputs = model(args, training=False) if hasattr(model, "_call_accepts_training") else model(args)
        if isinstance(outputs, Mapping):
            named = dict(outputs)
        elif isinstance(outputs, (list, tuple)):
            keys = output_names if len(output_names) == len(outputs) else [f"output_{i}" for i in range(len(outputs))]
            named = dict(zip(keys, outputs))
        else:
            named = {output_names[0] if len(output_names) == 1 else "output_0": outputs}
        return {"serving_default": PredictOutput(named)}

    was_training = model.training
    model.eval()
    try:
        with torch.random.fork_rng(devices=[]):
            return _builder.build(filepath, run, receiver, [model], what="Keras model", exact=True)
    finally:
        model.train(was_training)


def save(obj: Any, export_dir: str | os.PathLike, signatures: Any = None, options: Any = None) -> None:
    """`tf.saved_model.save(obj, export_dir)`: exports a Keras model into `export_dir`.

    `signatures` may be None (the model's inputs), or an input signature (a `tf.TensorSpec`,
    a list, or a dict of name -> spec). `options` is accepted and ignored.
    """
    del options
    if not isinstance(obj, torch.nn.Module) or not callable(obj):
        raise ValueError(
            f"tf.saved_model.save exports Keras models (and other torch modules called on "
            f"tensors); got {type(obj).__name__}. Estimators export with export_saved_model."
        )
    export_keras_model(obj, export_dir, signatures, "signatures")

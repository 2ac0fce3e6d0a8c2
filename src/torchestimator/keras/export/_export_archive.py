"""`tf.keras.export.ExportArchive`: serving endpoints of tracked models written as an export
that `tf.saved_model.load` opens.

The export format here has one set of named inputs per export, shared by its signatures
(TensorFlow's SavedModel lets each endpoint have its own): every endpoint of one archive
must take the same inputs (the same names, shapes and dtypes). Each endpoint is a signature
(method `tensorflow/serving/predict`) named as the endpoint, and the first one is also
`serving_default`, as Keras writes them.
"""

from __future__ import annotations

import inspect
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from safetensors.torch import save_file

import torchestimator
from torchestimator._dtypes import TensorSpec
from torchestimator._variable import Variable
from torchestimator.keras._io_utils import print_msg

VARIABLE_COLLECTIONS_FILE = "keras_variable_collections.safetensors"

_NOT_A_FUNCTION_ERROR = (
    "If the `fn` argument provided is not a `tf.function`, you must provide an `input_signature` "
    "argument to specify the shape and dtype of the function arguments. Example:\n\n"
    "export_archive.add_endpoint(\n"
    "    name='call',\n"
    "    fn=model.call,\n"
    "    input_signature=[\n"
    "        tf.TensorSpec(\n"
    "            shape=(None, 224, 224, 3),\n"
    "            dtype=tf.float32,\n"
    "        )\n"
    "    ],\n"
    ")"
)


def _argument_names(fn: Callable, count: int) -> list[str]:
    """The names of `fn`'s first `count` positional parameters (`args_<i>` where unknown)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:count]]
    return names + [f"args_{i}" for i in range(len(names), count)]


def _flat_specs(input_signature: Sequence[Any], fn: Callable) -> list[tuple[str, TensorSpec]]:
    """`[(input name, spec)]` of an input signature: a spec's name, else its argument's name
    (`<arg>_<j>` for the j-th element of a list argument, the key for a dict argument)."""
    flat: list[tuple[str, TensorSpec]] = []
    for arg_name, spec in zip(_argument_names(fn, len(input_signature)), input_signature):
        if isinstance(spec, TensorSpec):
            flat.append((spec.name or arg_name, spec))
        elif isinstance(spec, Mapping):
            flat.extend((s.name or str(k), s) for k, s in spec.items())
        else:
            flat.extend((s.name or (arg_name if j == 0 else f"{arg_name}_{j}"), s)
                        for j, s in enumerate(spec))
    return flat


def _arguments(input_signature: Sequence[Any], names: list[str], features: Mapping[str, Any]
               ) -> list[Any]:
    """The positional arguments of an endpoint rebuilt from the export's named inputs."""
    values = iter(features[name] for name in names)
    args: list[Any] = []
    for spec in input_signature:
        if isinstance(spec, TensorSpec):
            args.append(next(values))
        elif isinstance(spec, Mapping):
            args.append({k: next(values) for k in spec})
        else:
            args.append(type(spec)(next(values) for _ in spec))
    return args


def _named_outputs(outputs: Any, endpoint: str) -> dict[str, torch.Tensor]:
    """TF's signature outputs: `output_0` for one tensor, `output_<i>` for a list, the keys
    of a dict."""
    if isinstance(outputs, Mapping):
        named = {str(k): v for k, v in outputs.items()}
    elif isinstance(outputs, (list, tuple)):
        named = {f"output_{i}": v for i, v in enumerate(outputs)}
    else:
        named = {"output_0": outputs}
    for key, value in named.items():
        if not isinstance(value, torch.Tensor):
            raise ValueError(
                f"Endpoint {endpoint!r} returned {type(value).__name__} for output {key!r}; an "
                "endpoint returns a tensor, a list of tensors or a dict of name -> tensor."
            )
    return named


def _check_specs(input_signature: Any, name: str) -> None:
    def ok(spec: Any) -> bool:
        if isinstance(spec, TensorSpec):
            return True
        if isinstance(spec, Mapping):
            return all(isinstance(s, TensorSpec) for s in spec.values())
        return isinstance(spec, (list, tuple)) and all(isinstance(s, TensorSpec) for s in spec)

    if not isinstance(input_signature, (list, tuple)) or not all(ok(s) for s in input_signature):
        raise ValueError(
            f"add_endpoint({name!r}): `input_signature` must be a list with one entry per "
            "positional argument of `fn`: a tf.TensorSpec, a list of them or a dict of name -> "
            f"tf.TensorSpec; received {input_signature!r:.200}."
        )


class ExportArchive:
    """Writes serving endpoints of Keras models and layers as an export (Keras'
    `ExportArchive`).

    `track()` the models/layers the endpoints use, `add_endpoint()` each endpoint with
    its `input_signature`, then `write_out(path)`. `tf.saved_model.load(path)` opens
    the result: `signatures[<endpoint name>]` (and `signatures["serving_default"]`,
    the first endpoint) are callable with the named inputs and return a dict of
    outputs (`output_0` for a single tensor)::

        archive = tf.keras.export.ExportArchive()
        archive.track(model)
        archive.add_endpoint("serve", model.call,
                             input_signature=[tf.TensorSpec((None, 3), tf.float32)])
        archive.write_out("path/to/location")
        tf.saved_model.load("path/to/location").signatures["serve"](inputs=x)["output_0"]

    All endpoints of one archive take the same inputs (one receiver per export here);
    name the specs (`tf.TensorSpec(..., name="x")`) to make them agree.
    """

    def __init__(self) -> None:
        self._endpoint_names: list[str] = []
        self._endpoints: dict[str, tuple[Callable, list, list[tuple[str, TensorSpec]]]] = {}
        self._tracked: list[torch.nn.Module] = []
        self._variable_collections: dict[str, list] = {}
        self.tensorflow_version = getattr(torchestimator, "__version__", "")
        self.variables: list = []
        self.trainable_variables: list = []
        self.non_trainable_variables: list = []

    def track(self, resource: Any) -> None:
        """Tracks the weights of a layer or model (a built Keras layer, or a torch module)."""
        if not isinstance(resource, torch.nn.Module):
            raise ValueError(
                "Invalid resource type. Expected an instance of a TensorFlow `Trackable` (such as "
                "a Keras `Layer` or `Model`). Received instead an object of type "
                f"'{type(resource)}'. Object received: {resource}"
            )
        if hasattr(resource, "built") and not resource.built:
            raise ValueError("The layer provided has not yet been built. It must be built before export.")
        self._tracked.append(resource)
        if hasattr(resource, "trainable_variables"):
            self.variables += list(resource.variables)
            self.trainable_variables += list(resource.trainable_variables)
            self.non_trainable_variables += list(resource.non_trainable_variables)
        else:
            params = list(resource.parameters())
            self.variables += params
            self.trainable_variables += [p for p in params if p.requires_grad]
            self.non_trainable_variables += [p for p in params if not p.requires_grad]

    def add_endpoint(self, name: str, fn: Callable, input_signature: Any = None) -> None:
        """Registers serving endpoint `name`: `fn` called with tensors of `input_signature`
        (a list with one `tf.TensorSpec` -- or a list or dict of them -- per positional
        argument of `fn`)."""
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if not input_signature:
            # there is no traced tf.function here whose argument specs could be reused
            raise ValueError(_NOT_A_FUNCTION_ERROR)
        _check_specs(input_signature, name)
        if not callable(fn):
            raise ValueError(f"add_endpoint({name!r}): `fn` must be callable; received {fn!r:.200}.")
        flat = _flat_specs(input_signature, fn)
        names = [n for n, _ in flat]
        if len(set(names)) != len(names):
            raise ValueError(
                f"add_endpoint({name!r}): the inputs of `input_signature` must have distinct "
                f"names; they are {names}. Name the specs: tf.TensorSpec(shape, dtype, name=...)."
            )
        self._endpoints[name] = (fn, list(input_signature), flat)
        self._endpoint_names.append(name)
        setattr(self, name, fn)

    def add_variable_collection(self, name: str, variables: Any) -> None:
        """Registers variables to write with the archive (in
        `assets.extra/keras_variable_collections.safetensors`, keys `<name>/<i>`)."""

        if not isinstance(variables, (list, tuple, set)):
            raise ValueError(
                "Expected `variables` to be a list/tuple/set. "
                f"Received instead object of type '{type(variables)}'."
            )
        if not all(isinstance(v, Variable) for v in variables):
            raise ValueError(
                "Expected all elements in `variables` to be `tf.Variable` instances. Found "
                f"instead the following types: {list({type(v) for v in variables})}"
            )
        self._variable_collections[name] = list(variables)
        setattr(self, name, list(variables))

    def _receiver_specs(self) -> dict[str, TensorSpec]:
        first = self._endpoint_names[0]
        specs = dict(self._endpoints[first][2])
        for name in self._endpoint_names[1:]:
            other = dict(self._endpoints[name][2])
            same = set(other) == set(specs) and all(
                tuple(other[k].shape) == tuple(specs[k].shape) and other[k].dtype == specs[k].dtype
                for k in specs)
            if not same:
                raise ValueError(
                    f"Endpoint {name!r} takes inputs {_describe(other)} but endpoint {first!r} "
                    f"takes {_describe(specs)}: the endpoints of one ExportArchive must take the "
                    "same inputs here (an export has one set of inputs, shared by its "
                    "signatures). Give the specs the same names (tf.TensorSpec(..., name=...)), "
                    "or write one ExportArchive per input signature."
                )
        return specs

    def write_out(self, filepath: str | os.PathLike, options: Any = None) -> None:
        """Writes the export to `filepath` (replacing an export there): one signature per
        endpoint, the first also as `serving_default`."""
        from torchestimator.saved_model import (  # lazy: heavy (torchestimator.saved_model, 84 ms)
            _builder,
        )
        from torchestimator.saved_model._export_output import (  # lazy: heavy (torchestimator.saved_model._export_output, 180 ms)
            PredictOutput,
        )
        from torchestimator.saved_model._receiver_spec import (  # lazy: heavy (torchestimator.saved_model._receiver_spec, 183 ms)
            RAW,
            ReceiverSpec,
        )

        del options
        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        specs = self._receiver_specs()
        input_names = list(specs)
        receiver = ReceiverSpec(RAW, {n: TensorSpec(s.shape, s.dtype, n) for n, s in specs.items()},
                                feature_sources={n: n for n in input_names})
        signature_names = list(self._endpoint_names)
        if "serving_default" not in signature_names:
            signature_names.append("serving_default")

        def run(features: Any) -> dict[str, Any]:
            if not isinstance(features, Mapping):
                features = {input_names[0]: features}
            results: dict[str, Any] = {}
            for name in self._endpoint_names:
                fn, signature, flat = self._endpoints[name]
                outputs = fn(*_arguments(signature, [n for n, _ in flat], features))
                results[name] = PredictOutput(_named_outputs(outputs, name))
            if "serving_default" not in results:
                results["serving_default"] = results[self._endpoint_names[0]]
            return results

        modes = [(m, m.training) for m in self._tracked]
        for module, _ in modes:
            module.eval()
        try:
            with tempfile.TemporaryDirectory() as tmp, torch.random.fork_rng(devices=[]):
                extra = self._write_variable_collections(tmp)
                path = _builder.build(filepath, run, receiver, self._tracked, assets_extra=extra,
                                      what="ExportArchive", exact=True)
        finally:
            for module, training in modes:
                module.train(training)
        endpoints = "\n\n".join(
            f"* Endpoint {name!r}\n  inputs: "
            + ", ".join(f"{n}: {s!r}" for n, s in self._endpoints[name][2])
            for name in self._endpoint_names)
        print_msg(f"Saved artifact at '{path}'. The following endpoints are available:\n\n{endpoints}")

    def _write_variable_collections(self, directory: str) -> dict[str, str] | None:
        if not self._variable_collections:
            return None

        tensors = {f"{name}/{i}": v.detach().cpu().contiguous().clone()
                   for name, variables in self._variable_collections.items()
                   for i, v in enumerate(variables)}
        path = os.path.join(directory, VARIABLE_COLLECTIONS_FILE)
        save_file(tensors, path)
        return {VARIABLE_COLLECTIONS_FILE: path}


def _describe(specs: Mapping[str, TensorSpec]) -> str:
    return "{" + ", ".join(f"{k}: {tuple(s.shape)} {s.dtype}" for k, s in specs.items()) + "}"

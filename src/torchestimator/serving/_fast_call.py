"""The fast path of a signature call: a few serialized Examples, plain float features.

A `:predict` (REST b64 Example, gRPC DT_STRING tensor) of one `tf.train.Example`
for an export whose receiver parses Examples into `FixedLenFeature`s of
float32 with shape [1] or [] (the numeric columns of a canned estimator)
spends more time in the general path's checks than in the model: the
signature's input checks, the batch parser's per-column bookkeeping and
conversions. `fast_call` reads the one Example's values directly into one
[1, k] float32 matrix (one torch call unbinds it into the features), then
runs the export's preprocessing and program as the general path does. So
does a small batch of Examples (up to `MAX_FAST_EXAMPLES`: the batches
`--enable_batching` makes at a short timeout), into an [n, k] matrix; the
program's generated runner takes it where it answers as the program does on
two rows, else the program itself.

The plan (which features, their order and shape) is worked out once per
signature. Anything else — another receiver or dtype, more Examples than
`MAX_FAST_EXAMPLES`, a feature missing, of another list kind or with another number of
values, bytes that are not an Example — returns None, and the caller takes
the general path, which gives the same answer or the error. The fast path
answers only what the general path answers identically (tested in
tests/serving/test_fast_call.py).
"""

from __future__ import annotations

import keyword
import threading
import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from google.protobuf.message import DecodeError
from torch.utils import _pytree as pytree

from torchestimator._torch_private import op_kernel
from torchestimator.io import FixedLenFeature
from torchestimator.saved_model._loaded import signature_parts
from torchestimator.train import Example

_NO_PLAN = object()
_DROPPED = (torch.ops.aten._assert_tensor_metadata.default,)  # (no-ops at serving time)


def program_runner(program: Any) -> Any:
    """A function of the exported `program`'s flat user inputs returning its flat outputs (a
    tuple), as the module torch makes for the program computes them, with less per-op work:
    each op's kernel called directly (not through `OpOverload.__call__`), the weights bound
    once (not read from submodules on each call). None for a graph it does not handle.

    The code is generated from the graph's structure only: its variables are named v0, v1,
    ... and everything else (ops, weights, constants) is bound by reference, so no name or
    value from the export's files becomes code."""
    try:
        graph = program.graph_module.graph
        specs = program.graph_signature.input_specs
        state, constants = program.state_dict, program.constants
    except AttributeError:
        return None
    bound: dict[str, Any] = {}
    names: dict[Any, str] = {}
    lines: list[str] = []
    params: list[str] = []

    def bind(value: Any) -> str:
        name = f"c{len(bound)}"
        bound[name] = value
        return name

    def render(value: Any) -> str:
        if isinstance(value, torch.fx.Node):
            return names[value]
        if isinstance(value, (list, tuple)):
            inner = ", ".join(render(v) for v in value)
            return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if value else ''})"
        if value is None or isinstance(value, (bool, int)):
            return repr(value)  # (Python's own literals, never text from the file)
        return bind(value)

    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(specs):
        return None
    for node, spec in zip(placeholders, specs):
        var = names[node] = f"v{len(names)}"
        kind = spec.kind.name
        if kind == "USER_INPUT":
            params.append(var)
        elif kind in ("PARAMETER", "BUFFER") and spec.target in state:
            lines.append(f"{var} = {bind(state[spec.target])}")
        elif kind in ("CONSTANT_TENSOR", "CUSTOM_OBJ") and spec.target in constants:
            lines.append(f"{var} = {bind(constants[spec.target])}")
        else:
            return None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            (result,) = node.args
            result = tuple(result) if isinstance(result, (list, tuple)) else (result,)
            lines.append(f"return {render(result)}")
            break
        if node.op != "call_function" or node.target in _DROPPED:
            if node.op == "call_function":
                continue
            return None
        var = names[node] = f"v{len(names)}"
        target = node.target
        kernel = op_kernel(target)
        args = [render(a) for a in node.args]
        for key, value in node.kwargs.items():
            if not key.isidentifier() or keyword.iskeyword(key):  # (an argument's name only)
                return None
            args.append(f"{key}={render(value)}")
        lines.append(f"{var} = {bind(kernel)}({', '.join(args)})")
    else:
        return None
    source = f"def run({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)
    namespace = dict(bound)
    try:
        exec(compile(source, "<serving program>", "exec"), namespace)  # noqa: S102 - see docstring
    except SyntaxError:
        return None
    return namespace["run"]


def _runtime_run(runtime: Any) -> Any:
    """A function of the parsed features returning the program's outputs by name, as
    `runtime.run` does (its batch checks aside: the fast path's features come from one
    parse, all of one batch), with
    `program_runner`; None when it does not apply or answers otherwise than `runtime.run`
    on the receiver's sample features."""
    program = getattr(runtime, "program", None)
    feature_names = getattr(runtime, "feature_names", None)
    layers = getattr(runtime, "layers", None)
    if program is None or not isinstance(feature_names, list) or not isinstance(layers, list):
        return None
    runner = program_runner(program)
    names = getattr(runtime, "output_names", None)  # (the program's flat outputs' names)
    if runner is None or not isinstance(names, list):
        return None
    feature_names, layers = tuple(feature_names), tuple(layers)
    leaves = pytree.tree_leaves
    placed = getattr(runtime, "placed", None)  # the features onto the export's device
    device_scope = getattr(runtime, "device_scope", None)
    layer_features = getattr(runtime, "layer_features", None)
    if placed is None or device_scope is None or layer_features is None:
        return None

    def run(features: Mapping[str, Any]) -> dict[str, torch.Tensor]:
        with torch.no_grad(), device_scope():
            flat = [placed(features[name]) for name in feature_names]
            features = layer_features(features)
            for layer in layers:
                output = layer(features)
                if isinstance(output, torch.Tensor):
                    flat.append(output)
                else:
                    flat.extend(leaves(output))
            return dict(zip(names, runner(*flat)))

    return run if _agrees(runtime, run, 1) else None


def _agrees(runtime: Any, run: Any, batch: int) -> bool:
    """True when `run` answers as `runtime.run` does on the receiver's sample features of
    `batch` rows: the same outputs, types, dtypes, shapes, devices and values."""
    try:
        sample = runtime.receiver.sample_features(batch)
        expected, got = runtime.run(sample), run(sample)
    except Exception:  # noqa: BLE001 - any failure: no fast path, the general one answers
        return False
    return list(expected) == list(got) and all(
        type(got[k]) is type(v) and (not isinstance(v, torch.Tensor) or (
            v.dtype == got[k].dtype and v.shape == got[k].shape and v.device == got[k].device
            and torch.equal(v, got[k]))) for k, v in expected.items())


class _Plan:
    """What `fast_call` needs of one signature, worked out once."""

    __slots__ = ("input_name", "keys", "scalar", "run", "run_rows", "finish")

    def __init__(self, input_name: str, keys: tuple[str, ...], scalar: bool, run: Any,
                 run_rows: Any, finish: Any):
        self.input_name = input_name
        self.keys = keys
        self.scalar = scalar  # shape [] features: [batch] tensors, else [batch, 1]
        self.run = run  # of one row's features
        self.run_rows = run_rows  # of several rows' features
        self.finish = finish


_plans: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_plans_lock = threading.Lock()
_local = threading.local()  # one reusable Example message per thread


def _plan_of(signature: Any) -> _Plan | None:
    """The plan of `signature` (a loaded export's `Signature`), or None when the fast path
    does not apply to it."""
    try:
        plan = _plans.get(signature, None)
    except TypeError:  # (not weak-referenceable: no fast path)
        return None
    if plan is None:
        plan = _make_plan(signature)
        with _plans_lock:
            _plans[signature] = plan
    return None if plan is _NO_PLAN else plan


def _make_plan(signature: Any) -> Any:
    parts = signature_parts(signature)
    if parts is None:
        return _NO_PLAN
    runtime, finish = parts
    receiver = getattr(runtime, "receiver", None)
    run = getattr(runtime, "run", None)
    inputs = getattr(signature, "inputs", None)
    spec = getattr(receiver, "feature_spec", None)
    if (receiver is None or getattr(receiver, "kind", None) != "parsing" or not callable(run)
            or not callable(finish) or not isinstance(inputs, Mapping) or len(inputs) != 1
            or not isinstance(spec, Mapping) or not spec):
        return _NO_PLAN
    shapes = set()
    for feature in spec.values():
        if (type(feature) is not FixedLenFeature or feature.dtype is not torch.float32
                or tuple(feature.shape) not in ((1,), ())):
            return _NO_PLAN
        shapes.add(tuple(feature.shape))
    if len(shapes) != 1:
        return _NO_PLAN
    fast = _runtime_run(runtime)
    rows = fast if fast is not None and _agrees(runtime, fast, 2) else run
    return _Plan(next(iter(inputs)), tuple(spec), shapes == {()}, fast or run, rows, finish)


MAX_FAST_EXAMPLES = 8  # past this many Examples the general parser, vectorized, is faster


def fast_call(signature: Any, inputs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The signature's outputs for `inputs` when they are 1 to `MAX_FAST_EXAMPLES` serialized
    Examples (a request, or a small batch of them) and the signature parses plain float
    features (see the module docstring); None otherwise (call the signature: the general
    path)."""
    plan = _plan_of(signature)
    if plan is None or len(inputs) != 1:
        return None
    value = inputs.get(plan.input_name)
    if type(value) is np.ndarray:
        if value.ndim != 1 or value.dtype != object:
            return None
        examples = value.tolist()
    elif type(value) is list:
        examples = value
    else:
        return None
    rows = len(examples)
    if not 1 <= rows <= MAX_FAST_EXAMPLES:
        return None
    example = getattr(_local, "example", None)
    if example is None:
        example = _local.example = Example()
    values = []
    for serialized in examples:
        if type(serialized) is not bytes:
            return None
        try:
            example.ParseFromString(serialized)
        except DecodeError:
            return None
        fmap = example.features.feature
        for key in plan.keys:
            if key not in fmap:
                return None
            floats = fmap[key].float_list.value  # (empty when the feature is another kind)
            if len(floats) != 1:
                return None
            values.append(floats[0])
    matrix = torch.from_numpy(np.array(values, dtype=np.float32))
    if rows == 1:  # (unbind: one C++ call, where Tensor.split goes through Python)
        columns = matrix.reshape(-1, 1) if plan.scalar else matrix.reshape(-1, 1, 1)
        return plan.finish(plan.run(dict(zip(plan.keys, columns.unbind(0)))))
    columns = matrix.reshape(rows, -1).t().contiguous().unbind(0)  # one [rows] per feature
    if not plan.scalar:
        columns = [column.unsqueeze(1) for column in columns]
    return plan.finish(plan.run_rows(dict(zip(plan.keys, columns))))

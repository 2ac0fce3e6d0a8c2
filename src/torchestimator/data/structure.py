"""Element structures: nests of components, their flat order, specs and packing.

An element of a dataset is a nest (dicts, tuples, namedtuples) of components.
Inside the pipeline an element travels *flat*: a list of components in the
order of `flatten` (dict keys sorted, as `tf.nest` does). `make_packer` builds
the function that turns a flat list back into the element's structure.

Components are `torch.Tensor`s, except string data (TF's `tf.string`), which is
a numpy array of `str` (object dtype), or a plain `str` for a scalar.
"""

from __future__ import annotations

import builtins
import operator
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch

from torchestimator._dtypes import TensorSpec, as_dtype, string
from torchestimator._ops.convert import text_or_bytes
from torchestimator._ops.tokens import Tokens
from torchestimator._ragged._spec import RaggedTensorSpec
from torchestimator.data import encoded_strings
from torchestimator.data._sparse_values import sparse_spec

_PY_FLOAT = torch.float32
_PY_INT = torch.int64


def is_namedtuple(value: Any) -> bool:
    """True for instances of `collections.namedtuple` classes."""
    return isinstance(value, tuple) and hasattr(value, "_fields")


def flatten(structure: Any) -> list:
    """Returns the leaves of `structure` in flat order (dict keys sorted, as tf.nest)."""
    out: list = []
    _flatten_into(structure, out)
    return out


def _flatten_into(s: Any, out: list) -> None:
    if isinstance(s, Mapping):
        for k in _sorted_keys(s):
            _flatten_into(s[k], out)
    elif isinstance(s, tuple):
        for v in s:
            _flatten_into(v, out)
    else:
        out.append(s)


def _sorted_keys(mapping: Mapping) -> list:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(
            f"Dictionary keys of a dataset element must be sortable (e.g. all str); "
            f"received keys {list(mapping)!r}"
        ) from None


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    """Applies `fn` to every leaf, keeping dicts (and their key order) and tuples."""
    if isinstance(structure, Mapping):
        return type(structure)((k, map_structure(fn, v)) for k, v in structure.items())
    if is_namedtuple(structure):
        return type(structure)(*(map_structure(fn, v) for v in structure))
    if isinstance(structure, tuple):
        return tuple(map_structure(fn, v) for v in structure)
    return fn(structure)


def make_packer(spec: Any) -> Callable[[list], Any]:
    """Returns a function that rebuilds an element of structure `spec` from its flat list."""
    counter = iter(builtins.range(1 << 62))
    return _packer(spec, counter)


def _packer(s: Any, counter) -> Callable[[list], Any]:
    if isinstance(s, Mapping):
        keys = _sorted_keys(s)
        parts = {k: _packer(s[k], counter) for k in keys}
        cls = type(s)
        items = [(k, parts[k]) for k in s]  # the spec's own key order
        if cls is dict:
            return lambda flat: {k: get(flat) for k, get in items}
        return lambda flat: cls((k, get(flat)) for k, get in items)
    if isinstance(s, tuple):
        parts = [_packer(v, counter) for v in s]
        if is_namedtuple(s):
            cls = type(s)
            return lambda flat: cls(*(get(flat) for get in parts))
        if len(parts) == 2:
            a, b = parts
            return lambda flat: (a(flat), b(flat))
        return lambda flat: tuple(get(flat) for get in parts)
    return operator.itemgetter(next(counter))


def to_component(value: Any, where: str = "element", encode_strings: builtins.bool = False) -> Any:
    """Converts one leaf value to a pipeline component (torch tensor, str array or str).

    numpy arrays keep their dtype; Python floats become float32 and Python ints
    int64 (torch's conventions); bytes and str become strings. `where` names the
    value in error messages. With `encode_strings` (`from_tensor_slices`), a string
    array with few distinct values is dictionary-encoded (`encoded_strings.py`).
    """
    if isinstance(value, torch.Tensor):
        return value.detach()  # input data is constant, as in TF
    if _composite_spec(value) is not None:  # tf.SparseTensor / tf.RaggedTensor: kept whole
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray):
        return _array_component(value, where, encode_strings)
    if isinstance(value, (builtins.bool, np.bool_)):
        return torch.tensor(builtins.bool(value))
    if isinstance(value, np.generic):
        return _array_component(np.asarray(value), where)
    if isinstance(value, builtins.int):
        return torch.tensor(value, dtype=_PY_INT)
    if isinstance(value, builtins.float):
        return torch.tensor(value, dtype=_PY_FLOAT)
    if value is None:
        raise TypeError(f"{where} is None; a dataset component must be a tensor, array or scalar")
    if isinstance(value, list) or hasattr(value, "__array__") or hasattr(value, "to_numpy"):
        return _array_component(_list_to_array(value, where), where, encode_strings)
    raise TypeError(
        f"{where} has type {type(value).__name__}, which cannot be converted to a tensor; "
        "pass a torch.Tensor, numpy array, list or Python scalar"
    )


def _list_to_array(value: Any, where: str) -> np.ndarray:
    if hasattr(value, "to_numpy"):  # pandas Series / Index
        value = value.to_numpy()
    if isinstance(value, list) and value and builtins.all(
        isinstance(v, torch.Tensor) for v in value
    ):
        try:
            return torch.stack(value).numpy()
        except RuntimeError as e:
            raise ValueError(f"{where}: cannot stack a list of tensors of different shapes: {e}") from None
    try:
        arr = np.asarray(value)
    except ValueError as e:
        raise ValueError(
            f"{where} is a ragged nested list ({e}); every row must have the same length"
        ) from None
    if arr.dtype == np.float64 and _all_python_floats(value):
        arr = arr.astype(np.float32)
    return arr


def _all_python_floats(value: Any) -> builtins.bool:
    # Python float lists become float32 (TF's default); float64 numpy data stays float64.
    while isinstance(value, list) and value:
        value = value[0]
    return type(value) is builtins.float


def _array_component(arr: np.ndarray, where: str, encode_strings: builtins.bool = False) -> Any:
    kind = arr.dtype.kind
    if encode_strings and kind in "UO":
        encoded = encoded_strings.encode(arr)
        if encoded is not None:
            return encoded
    if kind in "US":  # bytes that are not UTF-8 text (serialized protos) stay bytes, as in TF
        out = arr.astype(object) if kind == "U" else np.vectorize(text_or_bytes, otypes=[object])(arr)
        return out if out.ndim else out.item()
    if kind == "O":
        flat = arr.reshape(-1)
        if set(map(type, flat)) <= {str}:
            return arr if arr.ndim else arr.item()
        if builtins.all(isinstance(v, (str, bytes)) for v in flat):
            out = np.empty(flat.shape, dtype=object)
            out[:] = [text_or_bytes(v) for v in flat]
            out = out.reshape(arr.shape)
            return out if out.ndim else out.item()
        bad = next(v for v in flat if not isinstance(v, (str, bytes)))
        raise TypeError(
            f"{where} is an object array holding {type(bad).__name__} values (e.g. {bad!r}); "
            "only str/bytes object arrays are supported. Convert it to a numeric dtype, "
            "or fill missing values first"
        )
    if kind == "u" and arr.dtype != np.uint8:
        arr = arr.astype(np.int64)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        # Read-only data (a memory map, an Arrow buffer) is shared, not copied: the
        # pipeline never writes into its sources.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            return torch.from_numpy(arr)
    except TypeError as e:
        raise TypeError(f"{where} has dtype {arr.dtype}, which torch does not support: {e}") from None


def on_host_tensors(tensors: Any) -> Any:
    """`tensors` (a nest of lists, tuples and dicts) with its tensors on an accelerator copied
    to the host, as TF copies a dataset source's tensors (and a reduce's or scan's initial
    state) to the CPU, where `tf.data` runs: a `tf.constant` made on the GPU gives host
    elements, which `iter(dataset)` and the training loop then move to the device a batch at a
    time."""
    if isinstance(tensors, torch.Tensor):
        return tensors if tensors.device.type == "cpu" else tensors.cpu()
    if isinstance(tensors, dict):
        return type(tensors)((k, on_host_tensors(v)) for k, v in tensors.items()) if _any_off_host(tensors) else tensors
    if isinstance(tensors, (list, tuple)) and _any_off_host(tensors):
        moved = [on_host_tensors(v) for v in tensors]
        return type(tensors)(*moved) if hasattr(tensors, "_fields") else type(tensors)(moved)
    return tensors


def _any_off_host(tensors: Any) -> bool:
    values = tensors.values() if isinstance(tensors, dict) else tensors
    return any((isinstance(v, torch.Tensor) and v.device.type != "cpu")
               or (isinstance(v, (dict, list, tuple)) and _any_off_host(v)) for v in values)


def to_structure(value: Any, where: str = "element", list_is_tuple: builtins.bool = False,
                 encode_strings: builtins.bool = False) -> Any:
    """Normalizes a nested element: leaves become components, lists become tensors.

    With `list_is_tuple`, a top-level list is a tuple of components (how TF treats
    a list returned from a `map` function); `encode_strings`: see `to_component`.
    """
    if list_is_tuple and isinstance(value, list):
        value = tuple(value)
    return _to_structure(value, where, encode_strings)


def _to_structure(value: Any, where: str, encode: builtins.bool = False) -> Any:
    if isinstance(value, Mapping):
        return type(value)((k, _to_structure(v, f"{where}[{k!r}]", encode)) for k, v in value.items())
    if is_namedtuple(value):
        return type(value)(*(_to_structure(v, f"{where}.{f}", encode)
                             for f, v in zip(value._fields, value)))
    if isinstance(value, tuple):
        return tuple(_to_structure(v, f"{where}[{i}]", encode) for i, v in enumerate(value))
    return to_component(value, where, encode)


def _composite_spec(value: Any) -> Any:
    """The TypeSpec of a tf.SparseTensor or tf.RaggedTensor component (None for others)."""
    name = type(value).__name__
    if name == "SparseTensor" and type(value).__module__ == "torchestimator._sparse_tensor":
        return sparse_spec(value)
    if name == "RaggedTensor" and type(value).__module__.startswith("torchestimator._ragged"):
        return value._type_spec if hasattr(value, "_type_spec") else \
            _ragged_spec(value)
    return None


def _ragged_spec(value: Any) -> Any:
    return RaggedTensorSpec.from_value(value)


def component_spec(c: Any) -> TensorSpec:
    """Returns the TensorSpec of one component (a SparseTensorSpec / RaggedTensorSpec for a
    sparse or ragged one)."""
    if isinstance(c, torch.Tensor):
        return TensorSpec(tuple(c.shape), c.dtype)
    composite = _composite_spec(c)
    if composite is not None:
        return composite
    if isinstance(c, np.ndarray):
        if isinstance(c, Tokens):  # a split string: its length depends on the data
            return TensorSpec((None,), string)
        return TensorSpec(c.shape, string)
    return TensorSpec((), string)


def spec_of(structure: Any) -> Any:
    """Returns the nest of TensorSpecs describing a normalized element."""
    return map_structure(component_spec, structure)


def flat_specs(spec: Any) -> list[TensorSpec]:
    """The TensorSpecs of `spec` in flat order."""
    return flatten(spec)


def with_flat_specs(spec: Any, specs: list[TensorSpec]) -> Any:
    """Returns `spec`'s structure holding `specs` (in flat order)."""
    return make_packer(spec)(specs)


def batched_spec(spec: TensorSpec, size: int | None) -> TensorSpec:
    """Returns `spec` with a leading batch dimension of `size` (None when unknown)."""
    if type(spec).__name__ == "SparseTensorSpec":  # a batch of tf.SparseTensor elements
        rank = spec.shape.rank
        return type(spec)(None if rank is None else [size, *spec.shape.as_list()], spec.dtype)
    shape = None if spec.shape is None else (size,) + tuple(spec.shape)
    return TensorSpec(shape, spec.dtype)


def unbatched_spec(spec: TensorSpec, what: str = "unbatch") -> TensorSpec:
    """Returns `spec` without its leading dimension; error for scalars."""
    if spec.shape is not None and len(spec.shape) == 0:
        raise ValueError(
            f"{what}: the input has a scalar component ({spec}); every component must have "
            "at least rank 1"
        )
    return TensorSpec(None if spec.shape is None else spec.shape[1:], spec.dtype)


def relaxed_spec(a: TensorSpec, b: TensorSpec) -> TensorSpec:
    """The most specific spec compatible with both (unequal dimensions become None)."""
    if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
        shape = None
    else:
        shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
    return TensorSpec(shape, a.dtype)


def same_structure(a: Any, b: Any) -> builtins.bool:
    """True when two nests have the same dict keys, tuple lengths and nesting."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return (
            isinstance(a, Mapping) and isinstance(b, Mapping) and set(a) == set(b)
            and builtins.all(same_structure(a[k], b[k]) for k in a)
        )
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
            and builtins.all(same_structure(x, y) for x, y in zip(a, b))
        )
    return True


def cast_component(value: Any, spec: TensorSpec, where: str) -> Any:
    """Converts `value` to a component of `spec`'s dtype; checks its shape.

    Raises TypeError/ValueError naming `where`, the expected and the received value.
    """
    dtype = spec.dtype
    if dtype is string:
        comp = to_component(value, where)
        if isinstance(comp, torch.Tensor):
            raise TypeError(
                f"{where}: expected a string value (tf.string); received {value!r}"
            )
    else:
        try:
            if isinstance(value, torch.Tensor):
                comp = value.to(dtype)
            else:
                comp = torch.as_tensor(np.asarray(value), dtype=dtype)
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(
                f"{where} could not be converted to the expected type. The expected type "
                f"was {spec.dtype}, but the yielded element was {value!r}."
            ) from None
    shape = tuple(getattr(comp, "shape", ()))
    if spec.shape is not None and (
        len(shape) != len(spec.shape)
        or builtins.any(e is not None and e != d for e, d in zip(spec.shape, shape))
    ):
        raise ValueError(
            f"{where} has shape {shape} where an element of shape {spec.shape} was expected."
        )
    return comp


def spec_from_types(types: Any, shapes: Any = None) -> Any:
    """Builds a TensorSpec nest from TF1-style `output_types` / `output_shapes`."""
    if shapes is None:
        return map_structure(lambda t: TensorSpec(None, as_dtype(t)), types)
    flat_types = flatten(types)
    if isinstance(types, Mapping) or isinstance(types, tuple):
        flat_shapes = _flatten_shapes(shapes, types)
    else:
        flat_shapes = [shapes]
    if len(flat_shapes) != len(flat_types):
        raise ValueError(
            f"output_shapes {shapes!r} does not match the structure of output_types {types!r}"
        )
    specs = [
        TensorSpec(None if s is None else tuple(s), as_dtype(t))
        for t, s in zip(flat_types, flat_shapes)
    ]
    return with_flat_specs(map_structure(lambda t: TensorSpec(None, as_dtype(t)), types), specs)


def _flatten_shapes(shapes: Any, types: Any) -> list:
    if isinstance(types, Mapping):
        return [x for k in _sorted_keys(types) for x in _flatten_shapes(shapes[k], types[k])]
    if isinstance(types, tuple):
        return [x for s, t in zip(shapes, types) for x in _flatten_shapes(s, t)]
    return [shapes]

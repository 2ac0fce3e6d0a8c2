"""The files of an export directory and how they are written and read.

    saved_model.json        signatures, the receiver, the preprocessing layers (as configs)
    program.json            the torch.export graph (torch's JSON schema)
    variables.safetensors   the program's weights and the preprocessing layers' weights
    assets/                 vocabulary files the preprocessing reads
    assets.extra/           the files given as `assets_extra`

`saved_model.json` records the SHA-256 of the other two files, so a damaged export is an
error naming the file rather than a model that answers wrongly.

The preprocessing layers are Keras layers stored as Keras configs. `saved_model` sits below
`keras` and does not import it: Keras' object registry (`torchestimator.keras._registry`, which
every Keras layer's module loads) registers the functions that turn a layer into its config
and back (`register_layer_codec`) when it loads. Writing an
export that has preprocessing layers holds Keras layers, so Keras is loaded; reading one
imports the layer modules of `_PREPROCESSING_MODULES` (feature-column layers, which import
Keras), so the codec is registered before it is used.
"""

from __future__ import annotations

import gzip
import importlib
import json
import os
import stat
import zlib
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import torch

from torchestimator._engine import state_io

FORMAT = "torchestimator.saved_model"
FORMAT_VERSION = 1
DOCUMENT = "saved_model.json"
PROGRAM = "program.json"
VARIABLES = "variables.safetensors"
ASSETS = "assets"
ASSETS_EXTRA = "assets.extra"
PROGRAM_PREFIX = "program/"
PREPROCESSING_PREFIX = "preprocessing/"
_ASSET_PREFIX = "asset:"
#: The largest asset (a vocabulary file; uncompressed, for gzip files) an export may hold,
#: and its most lines.
MAX_ASSET_BYTES = 512 * 2**20
MAX_ASSET_LINES = 2**25
#: The largest saved_model.json and program.json read.
MAX_DOCUMENT_BYTES = 256 * 2**20
#: The modules whose layers an export may store as preprocessing.
_PREPROCESSING_MODULES = (
    "torchestimator.keras.feature_column._dense_features",
    "torchestimator.keras.feature_column._linear_model",
    "torchestimator.keras.feature_column._sequence_features",
    "torchestimator.estimator.canned._tree_logits",
)


def program_output(signature: str, key: str) -> str:
    """The program's name for output `key` of `signature`."""
    return f"{signature}/{key}"


class LayerCodec(NamedTuple):
    """How an export stores its preprocessing layers: `serialize(layer)` returns the layer's
    config (JSON data), `deserialize(config)` rebuilds a layer from it."""

    serialize: Callable[[Any], Any]
    deserialize: Callable[[Any], Any]


_LAYER_CODEC: LayerCodec | None = None


def register_layer_codec(serialize: Callable[[Any], Any], deserialize: Callable[[Any], Any]) -> None:
    """Registers how preprocessing layers are stored in and rebuilt from `saved_model.json`
    (Keras' object registry, `torchestimator.keras._registry`, registers `serialize_keras_object`
    and `deserialize_keras_object` when it loads). A later registration replaces an earlier
    one. Returns None."""
    global _LAYER_CODEC
    _LAYER_CODEC = LayerCodec(serialize, deserialize)


def _layer_codec(source: str) -> LayerCodec:
    if _LAYER_CODEC is None:
        raise RuntimeError(
            f"{source}: no codec for preprocessing layers is registered (Keras registers it when "
            "its object registry loads, with any Keras layer or tf.keras.saving). Import "
            "torchestimator.keras.saving before writing or reading an export that holds "
            "preprocessing layers."
        )
    return _LAYER_CODEC


def layer_to_json(layer: Any, assets: dict[str, str]) -> dict[str, Any]:
    """The layer's Keras config as JSON data; vocabulary files it names are added to `assets`
    (name -> source path) and referred to as `asset:<name>`."""
    config = _layer_codec(f"preprocessing layer {getattr(layer, 'name', layer)!r}").serialize(layer)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key == "vocabulary_file" and isinstance(item, str) and item:
                    name = os.path.basename(item)
                    while name in assets and os.path.abspath(assets[name]) != os.path.abspath(item):
                        name = "_" + name
                    assets[name] = item
                    out[key] = _ASSET_PREFIX + name
                else:
                    out[key] = walk(item)
            return out
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(config)


def layer_from_json(config: Mapping[str, Any], export_dir: str, stored_elements: int = 0) -> Any:
    """Rebuilds a preprocessing layer from `layer_to_json`'s output. Only the layer classes of
    `_PREPROCESSING_MODULES` are rebuilt, and only from data:

    - every `vocabulary_file` must be an `asset:<name>` that resolves inside
      `export_dir/assets` (`resolve_asset`); a file path anywhere else, or a vocabulary given
      as a file path (`vocabulary`), is refused;
    - `ckpt_to_load_from` (an embedding's initial values, read from a checkpoint when the layer
      is built) is dropped: the export's weights replace them;
    - sizes that allocate weights (buckets, dimensions, units, shapes) are bounded by
      `stored_elements`, the number of values `variables.safetensors` really holds
      (`check_config_sizes`).

    Raises ValueError naming the export's `saved_model.json` and the offending value."""

    source = os.path.join(export_dir, DOCUMENT)
    # the layers register (and, importing Keras, the codec: see the module's docstring)
    modules = [importlib.import_module(m) for m in _PREPROCESSING_MODULES]
    codec = _layer_codec(source)
    name = config.get("registered_name") or config.get("class_name") if isinstance(config, Mapping) else None
    # the class is looked up in those modules, not in Keras' registry, where another class
    # may hold the name (Keras' premade `LinearModel`)
    cls = next((found for m in modules if isinstance(found := getattr(m, name, None), type)),
               None) if isinstance(name, str) else None
    if cls is None or getattr(cls, "__module__", None) not in {m.__name__ for m in modules}:
        raise ValueError(
            f"{source}: preprocessing layer {str(name)[:200]!r} is not one of the feature-column "
            "layers an export holds (DenseFeatures, LinearModel, SequenceFeatures, ...). The file "
            "was altered or not written by torchestimator; export the model again."
        )
    check_config_sizes(config, stored_elements, source)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k == "vocabulary_file" and v:
                    out[k] = resolve_asset(export_dir, v, source, value.get("file_format"))
                elif k == "vocabulary" and isinstance(v, str):
                    raise ValueError(
                        f"{source}: a preprocessing layer's vocabulary is the file path {v[:200]!r}; "
                        "an export holds its vocabularies as lists or as asset files. The file was "
                        "altered or not written by torchestimator; export the model again."
                    )
                elif k in ("ckpt_to_load_from", "tensor_name_in_ckpt"):
                    out[k] = None  # the export's weights replace a checkpoint's initial values
                else:
                    out[k] = walk(v)
            return out
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return codec.deserialize(walk(dict(config)))


def resolve_asset(export_dir: str, reference: Any, source: str, file_format: Any = None) -> str:
    """The path of asset `reference` (`asset:<name>`, as `layer_to_json` writes it) inside
    `export_dir/assets`, after checking that it is a plain file name, that its real path (links
    followed) is a regular file inside the export's assets folder, and that its size (for gzip
    files, its size uncompressed) and line count are within `MAX_ASSET_BYTES` and
    `MAX_ASSET_LINES`. Raises ValueError naming `source` and the reference otherwise."""
    def refuse(why: str) -> ValueError:
        return ValueError(
            f"{source}: asset {str(reference)[:200]!r} is refused: {why}. An export reads only "
            f"files inside its own {ASSETS}/ folder; the file was altered or not written by "
            "torchestimator. Export the model again."
        )

    if not isinstance(reference, str) or not reference.startswith(_ASSET_PREFIX):
        raise refuse(f"it is not an '{_ASSET_PREFIX}<name>' reference to the export's assets")
    name = reference[len(_ASSET_PREFIX):]
    if (not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name
            or os.path.isabs(name) or not name.isprintable()):
        raise refuse("its name is not a plain file name")
    root = os.path.join(os.path.realpath(export_dir), ASSETS)
    real = os.path.realpath(os.path.join(export_dir, ASSETS, name))
    if os.path.dirname(real) != root:
        raise refuse(f"it resolves to {real}, outside {root}")
    if not os.path.isfile(real):
        raise refuse("it is missing or not a regular file")
    size = os.path.getsize(real)
    compressed = file_format == "tfrecord_gzip" or (file_format is None and real.endswith(".gz"))
    if compressed:
        size = _gzip_size(real, MAX_ASSET_BYTES, refuse)
    if size > MAX_ASSET_BYTES:
        raise refuse(f"it holds {size} bytes, more than an asset may ({MAX_ASSET_BYTES})")
    if not compressed and _count_lines(real, MAX_ASSET_LINES) > MAX_ASSET_LINES:
        raise refuse(f"it has more than {MAX_ASSET_LINES} lines")
    return real


def _gzip_size(path: str, limit: int, refuse: Any) -> int:
    """The uncompressed size of gzip file `path`, read in chunks up to just past `limit`."""

    total = 0
    try:
        with gzip.open(path, "rb") as f:
            while total <= limit:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                total += len(chunk)
    except (OSError, EOFError, zlib.error) as e:
        raise refuse(f"it is not a valid gzip file ({e})") from None
    return total


def _count_lines(path: str, limit: int) -> int:
    """Newlines in `path` (counted in chunks, stopping just past `limit`)."""
    count = 0
    with open(path, "rb") as f:
        while count <= limit:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            count += chunk.count(b"\n")
    return count


#: Config fields whose value sizes a weight or an output: buckets, vocabulary sizes, ...
_SIZE_FIELDS = frozenset({
    "hash_bucket_size", "num_buckets", "number_buckets", "vocabulary_size", "num_oov_buckets",
    "id_bound", "max_tokens",
})
#: Config fields that multiply the sizes inside them (an embedding's dimension, a linear
#: model's units).
_WIDTH_FIELDS = frozenset({"dimension", "units"})
#: Sizes always allowed, whatever the export stores (2**27 values: 512 MiB of float32).
_MIN_SIZE_LIMIT = 2**27


def check_config_sizes(config: Any, stored_elements: int, source: str) -> int:
    """Raises ValueError naming `source` when a size in a preprocessing layer's config (a
    bucket count, vocabulary size, shape, or a dimension/units times the sizes inside it) is
    above max(`_MIN_SIZE_LIMIT`, 2 * `stored_elements`): building the layer would allocate
    more than the export's weights hold. Returns the largest size found."""
    limit = max(_MIN_SIZE_LIMIT, 2 * int(stored_elements))

    def largest(value: Any, path: str) -> int:
        if isinstance(value, list):
            return max((largest(v, path) for v in value), default=0)
        if not isinstance(value, dict):
            return 0
        found = 0
        for key, item in value.items():
            if key in _SIZE_FIELDS or key in _WIDTH_FIELDS:
                found = max(found, _size_of(item, key, source))
            elif key == "shape" and isinstance(item, list):
                found = max(found, _shape_size(item, source))
            else:
                found = max(found, largest(item, f"{path}/{key}"))
        for key in _WIDTH_FIELDS & set(value):
            found = max(found, _size_of(value[key], key, source) * max(1, _inner(value, key)))
        if found > limit:
            raise ValueError(
                f"{source}: a preprocessing layer's config at {path or '/'} asks for {found} values "
                f"(buckets, dimensions or shapes), more than {limit}: the export's weights hold "
                f"{stored_elements}. The file was altered or is damaged; export the model again."
            )
        return found

    def _inner(value: dict, width_key: str) -> int:
        return max((largest(v, "") for k, v in value.items() if k != width_key
                    and isinstance(v, (dict, list))), default=0)

    try:
        return largest(config, "")
    except RecursionError:
        raise ValueError(f"{source}: a preprocessing layer's config is nested too deeply. "
                         "Export the model again.") from None


def _size_of(value: Any, key: str, source: str) -> int:
    if value is None:
        return 0
    if type(value) is not int or value < 0:
        raise ValueError(f"{source}: config field {key!r} is {str(value)[:100]!r}, not a size. "
                         "The file was altered or is damaged; export the model again.")
    return value


def _shape_size(shape: list, source: str) -> int:
    size = 1
    for dim in shape:
        size *= max(1, _size_of(dim, "shape", source))
    return size


def write_files(directory: str, document: dict[str, Any], graph: bytes, tensors: dict[str, torch.Tensor]) -> None:
    """Writes the program, the variables and (last, with their checksums) saved_model.json."""
    variables = state_io.tensors_to_bytes(tensors)
    state_io.atomic_write_bytes(os.path.join(directory, PROGRAM), graph)
    state_io.atomic_write_bytes(os.path.join(directory, VARIABLES), variables)
    document = dict(document)
    document["sha256"] = {PROGRAM: state_io.sha256(graph), VARIABLES: state_io.sha256(variables)}
    state_io.atomic_write_bytes(os.path.join(directory, DOCUMENT), state_io.dumps_json(document))


def _read(path: str, limit: int | None = None) -> bytes:
    """The bytes of export file `path`, after checking that it is a regular file inside its
    export directory (a link may not lead out of it) of at most `limit` bytes."""
    real = os.path.realpath(path)
    export = os.path.realpath(os.path.dirname(path))
    if not real.startswith(export + os.sep):
        raise ValueError(
            f"{path} is a link to {real}, outside the export directory: an export reads only its "
            "own files. Export the model again."
        )
    try:
        with open(real, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ValueError(f"{path} is not a regular file: the export is damaged. Export the "
                                 "model again.")
            if limit is not None and info.st_size > limit:
                raise ValueError(
                    f"{path} is {info.st_size} bytes, more than an export's {os.path.basename(path)} "
                    f"may be ({limit}): it is not an export file. Export the model again."
                )
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{path} is missing: the export directory is incomplete. Export the model again."
        ) from None


def _stat_regular(path: str) -> None:
    """Refuses a FIFO, device or folder at `path` before it is opened (opening a FIFO blocks)."""
    try:
        info = os.stat(path)
    except OSError:
        return  # missing: `_read` says so
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a regular file: the export is damaged. Export the model "
                         "again.")


def read_files(directory: str) -> tuple[dict[str, Any], bytes, dict[str, torch.Tensor]]:
    """Reads an export directory; returns (document, program graph bytes, tensors). Raises
    FileNotFoundError (not an export) or ValueError (damaged: names the file)."""
    document_path = os.path.join(directory, DOCUMENT)
    for name in (DOCUMENT, PROGRAM, VARIABLES):
        _stat_regular(os.path.join(directory, name))
    if not os.path.isfile(document_path):
        if os.path.isfile(os.path.join(directory, "saved_model.pb")):
            raise ValueError(
                f"{directory} is a TensorFlow SavedModel (saved_model.pb): torchestimator loads "
                "exports written by torchestimator. Export the model again with torchestimator."
            )
        raise FileNotFoundError(
            f"No export found at {directory}: it has no {DOCUMENT}. Give the directory that "
            "export_saved_model returned (export_dir_base/<timestamp>)."
        )
    raw = _read(document_path, MAX_DOCUMENT_BYTES)
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{document_path} is not valid JSON ({type(e).__name__}: {e}): the export "
                         "is damaged.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"{document_path} is not a torchestimator export description.")
    version = document.get("format_version", 0)
    if type(version) is not int:
        raise ValueError(f"{document_path}: format_version {str(version)[:40]!r} is not a number: "
                         "the export is damaged.")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{directory} was written by a newer torchestimator (format version "
            f"{document.get('format_version')}; this one reads {FORMAT_VERSION}). Upgrade torchestimator."
        )
    graph = _read(os.path.join(directory, PROGRAM), MAX_DOCUMENT_BYTES)
    variables = _read(os.path.join(directory, VARIABLES))
    sums = document.get("sha256", {})
    for name, data in ((PROGRAM, graph), (VARIABLES, variables)):
        if sums.get(name) != state_io.sha256(data):
            raise ValueError(
                f"{os.path.join(directory, name)} does not match the checksum recorded in {DOCUMENT}: "
                "the export is damaged. Export the model again."
            )
    tensors = state_io.tensors_from_bytes(variables, os.path.join(directory, VARIABLES))
    return document, graph, tensors

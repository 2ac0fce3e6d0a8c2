"""The Estimator's checkpoint files: TensorFlow's layout, our formats.

The package is split by concern: `_format` (the files of one checkpoint: metadata,
checksums, verification, atomic writes), `_index` (the `checkpoint` index file and finding
a directory's checkpoints), `_reading` (tensors, `list_variables`, `load_variable`) and
`_manager` (`CheckpointManager`).

A checkpoint is named by its prefix `<dir>/model.ckpt-<step>` (what
`latest_checkpoint` returns, as in TensorFlow) and is two files:

* `<prefix>.safetensors` — every tensor (weights, optimizer state, RNG states)
  as a flat `{name: tensor}` safetensors file; a scalar int64 `global_step`
  tensor is included, as in a TF checkpoint.
* `<prefix>.json` — metadata: `global_step`, the caller's JSON-able `extra`
  dict, the SHA-256 and byte size of the safetensors file, `format_version`,
  `timestamp`, and `metadata_sha256`: the SHA-256 of the canonical JSON of all
  the other fields, so that a changed value in the JSON itself is detected
  (files written before it existed still load).

A checkpoint is complete only when its JSON exists, matches its own checksum,
agrees with the `global_step` of its safetensors file, and the checksum of its
safetensors file matches. Both files are written to temporary names, fsynced,
and renamed (tensors first, then JSON), then the index file `<dir>/checkpoint`
(TensorFlow's `CheckpointState` text format, relative paths) is rewritten
atomically; a crash at any moment leaves the previous complete checkpoint
reachable. Overwriting a checkpoint that exists (a resumed run re-saves the step it
restored, as TensorFlow does) puts the new metadata in place as `<prefix>.json.next`
before the tensors: a reader, or a restart after a kill, that finds the new tensor file
under the old metadata checks it against that file. Loading never unpickles.

A directory may be the URL of an object store (`s3://`, `gs://`, `memory://`; see
`storage.py`). A store has no rename: each file is one upload that appears whole, the
tensors first, then the metadata that completes the checkpoint, then the index, so a
reader never finds an index naming a missing checkpoint; old checkpoints are deleted
metadata first. TensorFlow's own checkpoint format is read from local paths only, through
the registry of foreign formats (`_foreign`: `_tf_formats` registers it when it loads).

`CheckpointManager` (the Estimator's `model.ckpt-<step>` files) and `tf.train.Checkpoint`
(object-based, `train/_checkpoint.py`) both write through `write_checkpoint` and
`write_index`: one format, whatever names the tensors carry.
"""

from torchestimator._engine.checkpoint._foreign import (
    ForeignCheckpointFormat,
    foreign_format,
    register_foreign_format,
)
from torchestimator._engine.checkpoint._format import (
    _TMP_PREFIX,
    _VERIFIED,
    FORMAT_VERSION,
    INDEX_FILENAME,
    MAX_JSON_BYTES,
    METADATA_CHECKSUM,
    METADATA_SUFFIX,
    TENSORS_SUFFIX,
    CorruptCheckpointError,
    checkpoint_exists,
    metadata_checksum,
    write_checkpoint,
)
from torchestimator._engine.checkpoint._index import (
    _read_index,
    _resolve,
    _scan,
    latest_checkpoint,
    write_index,
)
from torchestimator._engine.checkpoint._manager import CheckpointManager
from torchestimator._engine.checkpoint._reading import (
    checkpoint_metadata,
    list_variables,
    load_checkpoint,
    load_variable,
)

__all__ = [
    "CheckpointManager",
    "CorruptCheckpointError",
    "ForeignCheckpointFormat",
    "checkpoint_exists",
    "foreign_format",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "register_foreign_format",
    "write_checkpoint",
    "write_index",
]

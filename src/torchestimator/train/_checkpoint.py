"""`tf.train.Checkpoint` and `tf.train.CheckpointManager`: object-based checkpoints written in
the project's one checkpoint format (`<prefix>.safetensors` + `<prefix>.json`, see
`_engine/checkpoint.py`), keyed by TF's object paths (see `_object_graph.py`).

Restoring matches every value whose object exists now. A value whose object does not
exist yet — the kernel of a Keras layer that is not built, the slots of an optimizer that
has not applied gradients — is kept by the returned status and written into the object
when it is created (when the layer or optimizer builds), as TF's deferred restoration.
"""

from __future__ import annotations

import os
import types
from typing import Any

import torch

from torchestimator._engine import checkpoint as engine
from torchestimator._variable import Variable
from torchestimator.errors import NotFoundError
from torchestimator.train import _object_graph as graph_lib

_WATCHERS = "_tf_restore_watchers"
_MAX_LISTED = 10


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    return f"Showing {min(len(items), _MAX_LISTED)} of {len(items)}: [{shown}]"


# ------------------------------------------------------------------------------------------
# Deferred restoration: a value is written when its layer or optimizer builds.
# ------------------------------------------------------------------------------------------


def _build_and_restore(self: Any, *args: Any, **kwargs: Any) -> Any:
    """`build` of a layer or optimizer with values waiting in a restore status."""
    optimizer = isinstance(self, graph_lib._classes()[2])
    before = len(self._vars) if optimizer else None
    result = type(self).build(self, *args, **kwargs)
    if optimizer and len(self._vars) == before:
        return result  # nothing new was created (build is called again each step)
    for status in list(self.__dict__.get(_WATCHERS, ())):
        status._retry(just_built=None if optimizer else self)
    return result


_build_and_restore.__name__ = "build"


def _watch(obj: Any, status: CheckpointLoadStatus) -> None:
    watchers = obj.__dict__.get(_WATCHERS)
    if watchers is None:
        watchers = []
        object.__setattr__(obj, _WATCHERS, watchers)
        object.__setattr__(obj, "build", types.MethodType(_build_and_restore, obj))
    if not any(w is status for w in watchers):
        watchers.append(status)


def _unwatch(obj: Any, status: CheckpointLoadStatus) -> None:
    watchers = obj.__dict__.get(_WATCHERS)
    if watchers is None:
        return
    watchers[:] = [w for w in watchers if w is not status]
    if not watchers:
        obj.__dict__.pop(_WATCHERS, None)
        obj.__dict__.pop("build", None)


# ------------------------------------------------------------------------------------------
# Restore statuses
# ------------------------------------------------------------------------------------------


class CheckpointLoadStatus:
    """What `Checkpoint.restore(path)` returns: checks on how the checkpoint matched.

    `assert_consumed()` fails while an object of the program has no value in the
    checkpoint, or a value of the checkpoint has not been restored (its object not
    created yet, or absent); `assert_existing_objects_matched()` checks only the
    first; `expect_partial()` marks a partial restore as intended.
    """

    def __init__(self, root: Any, path: str, values: dict[str, torch.Tensor]):
        self._root = root
        self._path = path
        self._keys = frozenset(values)
        self._pending = dict(values)
        self._matched = 0
        self._watched: dict[int, Any] = {}
        self._partial = False

    # -- matching ----------------------------------------------------------------------
    def _retry(self, just_built: Any = None) -> None:
        """Restores every waiting value whose object now exists; watches the rest."""
        if not self._pending:
            self._unwatch_all()
            return
        graph = graph_lib.walk(self._root)
        ready = [(leaf, self._pending[key]) for key, leaf in graph.leaves.items() if key in self._pending]
        for leaf, value in ready:
            leaf.check(value, self._path)
        for leaf, value in ready:
            leaf.restore(value)
            del self._pending[leaf.key]
        self._matched += len(ready)
        if ready:
            _, _, optimizer_cls = graph_lib._classes()
            for optimizer in graph.objects(optimizer_cls):
                if optimizer._kernel is not None:
                    optimizer._kernel.invalidate_cache()
        if self._pending:
            self._watch_graph(graph, just_built)
        else:
            self._unwatch_all()

    def _watch_graph(self, graph: graph_lib.Graph, just_built: Any) -> None:
        layer_cls, _, optimizer_cls = graph_lib._classes()
        wanted: dict[int, Any] = {}
        for _, obj in graph.nodes:
            if isinstance(obj, optimizer_cls) or (
                isinstance(obj, layer_cls) and not obj.built and obj is not just_built
            ):
                wanted[id(obj)] = obj
        for key, obj in self._watched.items():
            if key not in wanted:
                _unwatch(obj, self)
        for obj in wanted.values():
            _watch(obj, self)
        self._watched = wanted
        register = getattr(self._root, "_ckpt_statuses", None)
        if register is not None and not any(s is self for s in register):
            register.append(self)

    def _unwatch_all(self) -> None:
        for obj in self._watched.values():
            _unwatch(obj, self)
        self._watched = {}
        register = getattr(self._root, "_ckpt_statuses", None)
        if register is not None:
            register[:] = [s for s in register if s is not self]

    def _unmatched_objects(self) -> list[str]:
        graph = graph_lib.walk(self._root)
        return [leaf.display for key, leaf in graph.leaves.items() if key not in self._keys]

    # -- TF's checks ----------------------------------------------------------------------
    def assert_consumed(self) -> CheckpointLoadStatus:
        """Asserts that every object of the program was matched to a checkpoint value and
        every checkpoint value was restored. Raises AssertionError naming them."""
        self.assert_existing_objects_matched()
        if self._pending:
            graph_paths = [
                key[: -len(graph_lib.ATTRIBUTE_SUFFIX)].replace("/", ".") for key in sorted(self._pending)
            ]
            raise AssertionError(
                f"Unresolved values in checkpoint {self._path}: no object of the program (yet) for "
                f"{len(self._pending)} value(s). {_listing(['(root).' + p for p in graph_paths])}. "
                "Create or build those objects (call the model, apply gradients) first, or use "
                "expect_partial() / assert_existing_objects_matched() for a partial restore."
            )
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Asserts that every value of the program's existing objects was in the checkpoint.
        Raises AssertionError naming the objects without a value."""
        unmatched = self._unmatched_objects()
        if unmatched:
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed values "
                f"in {self._path}, likely due to changes in the Python program. "
                f"{_listing(unmatched)} unmatched objects."
            )
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Asserts that at least one value of the checkpoint was restored."""
        if not self._matched:
            raise AssertionError(
                f"Nothing was restored from checkpoint {self._path}: none of its "
                f"{len(self._keys)} values matched an object of the program."
            )
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Marks the restore as intentionally partial; returns self (TF then stays silent about
        unrestored values; nothing is logged about them here in any case)."""
        self._partial = True
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: eager restoration already wrote the values (TF1 graph API)."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: values were restored, other objects keep their initial values."""


class InitializationOnlyStatus:
    """What `Checkpoint.restore(None)` returns: nothing is restored, objects keep their
    initial values; every assertion fails, as TF's."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def assert_consumed(self) -> None:
        """Raises AssertionError: there was no checkpoint."""
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self) -> None:
        """Raises AssertionError: there was no checkpoint."""
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self) -> None:
        """Raises AssertionError: there was no checkpoint."""
        raise AssertionError(self._MESSAGE)

    def expect_partial(self) -> InitializationOnlyStatus:
        """Returns self."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: the objects keep their initial values."""


# ------------------------------------------------------------------------------------------
# Checkpoint
# ------------------------------------------------------------------------------------------


class CheckpointOptions:
    """Options for saving and restoring checkpoints (`tf.train.CheckpointOptions`); accepted for
    compatibility: writes are synchronous and go through the host."""

    def __init__(self, experimental_io_device: str | None = None,
                 experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: Any = None, enable_async: bool = False):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async


def load_object_values(save_path: Any) -> tuple[str, dict[str, torch.Tensor]]:
    """Reads a checkpoint (a prefix, or a folder meaning its latest checkpoint); returns
    `(path, {object key: tensor})`. Raises tf.errors.NotFoundError naming a missing path."""

    path = os.fspath(save_path)
    try:
        tensors, _ = engine.load_checkpoint(path)
    except FileNotFoundError as e:
        hint = ""
        if os.path.exists(path + ".index"):
            hint = (" It is a TensorFlow checkpoint (.index/.data files), which this version "
                    "cannot read.")
        raise NotFoundError(
            None, None,
            f"Error when restoring from checkpoint at {path}: {e}{hint} Please double-check that "
            "the path is correct. You may be missing the checkpoint suffix (e.g. the '-1' in "
            "'path/to/ckpt-1')."
        ) from e
    return path, {k: v for k, v in tensors.items() if graph_lib.is_object_key(k)}


class Checkpoint:
    """Manages saving/restoring trackable values to disk, as `tf.train.Checkpoint(root=None,
    **kwargs)`.

    Keyword arguments (and attributes set later) name the objects to track: Keras
    models, layers and optimizers, `tf.Variable`s and torch tensors, torch modules,
    other checkpoints, or objects whose attributes hold those. Values are keyed by
    object path as in TF (`net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE`).
    """

    _is_object_checkpoint = True

    def __init__(self, root: Any = None, **kwargs: Any):
        object.__setattr__(self, "_ckpt_children", {})
        object.__setattr__(self, "_ckpt_root", None)
        object.__setattr__(self, "_ckpt_save_counter", None)
        object.__setattr__(self, "_ckpt_statuses", [])
        if root is not None:
            if not graph_lib.is_trackable_object(root):
                raise ValueError(
                    "`Checkpoint` was expecting root to be a trackable object (a Keras model, layer "
                    f"or optimizer, a tf.Variable, a torch module or tensor), got {root!r}."
                )
            object.__setattr__(self, "_ckpt_root", root)
        for name, value in kwargs.items():
            if not graph_lib.is_trackable_object(value):
                raise ValueError(
                    f"`Checkpoint` was expecting {name} to be a trackable object (a Keras model, "
                    "layer or optimizer, a tf.Variable, a torch module or tensor, or an object "
                    f"holding them), got {value!r}."
                )
            if root is not None and hasattr(root, name):
                raise ValueError(
                    f"Cannot create a Checkpoint with keyword argument {name} if root.{name} "
                    "already exists."
                )
            setattr(self, name, value)

    # -- tracking ------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        tracked = self._ckpt_children
        if not name.startswith("__") and graph_lib.is_trackable_object(value):
            tracked[name] = value
            for status in list(self._ckpt_statuses):  # TF restores on assignment too
                status._retry()
        else:
            tracked.pop(name, None)

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
        self._ckpt_children.pop(name, None)

    def _tracked_children(self) -> Any:
        if self._ckpt_root is not None:
            yield from graph_lib.children(self._ckpt_root)
        yield from self._ckpt_children.items()
        if self._ckpt_save_counter is not None:
            yield "save_counter", self._ckpt_save_counter

    @property
    def save_counter(self) -> Variable:
        """The number of `save()` calls (an int64 variable), used to number checkpoints."""
        counter = self._ckpt_save_counter
        if counter is None:
            counter = Variable.create(torch.tensor(0, dtype=torch.int64), trainable=False,
                                      name="save_counter")
            object.__setattr__(self, "_ckpt_save_counter", counter)
            for status in list(self._ckpt_statuses):  # a value read earlier is restored now
                status._retry()
        return counter

    def _object_tensors(self) -> dict[str, torch.Tensor]:
        """`{key: value}` of every value this checkpoint tracks."""
        return {key: leaf.value() for key, leaf in graph_lib.walk(self).leaves.items()}

    # -- writing -------------------------------------------------------------------------
    def write(self, file_prefix: Any, options: CheckpointOptions | None = None) -> str:
        """Writes a checkpoint at `file_prefix` exactly (no numbering, no index update);
        returns the path (`restore`/`read` take it)."""
        prefix = os.fspath(file_prefix)
        counter = self._ckpt_save_counter
        engine.write_checkpoint(prefix, self._object_tensors(), int(counter) if counter is not None else 0,
                                {"object_graph": True})
        return prefix

    def save(self, file_prefix: Any, options: CheckpointOptions | None = None) -> str:
        """Saves a numbered checkpoint `<file_prefix>-<save_counter>` (the counter is incremented
        first) and names it in the folder's `checkpoint` index, so `tf.train.latest_checkpoint`
        finds it. Returns its path."""
        counter = self.save_counter
        with torch.no_grad():
            counter.add_(1)
        path = f"{os.fspath(file_prefix)}-{int(counter)}"
        engine.write_checkpoint(path, self._object_tensors(), int(counter), {"object_graph": True})
        engine.write_index(os.path.dirname(path) or ".", path, [path])
        return path

    def sync(self) -> None:
        """Waits for pending saves: none, writes are synchronous."""

    # -- reading -------------------------------------------------------------------------
    def read(self, save_path: Any, options: CheckpointOptions | None = None) -> CheckpointLoadStatus:
        """Restores the values of checkpoint `save_path` written by `write` (or `save`);
        returns a `CheckpointLoadStatus`. Raises tf.errors.NotFoundError naming a missing path,
        ValueError naming the object and both shapes when a value does not fit."""
        path, values = load_object_values(save_path)
        status = CheckpointLoadStatus(self, path, values)
        status._retry()
        return status

    def restore(self, save_path: Any, options: CheckpointOptions | None = None) -> Any:
        """Restores checkpoint `save_path` (as `read`, and `save_counter` too). With
        `save_path=None` nothing is restored and an `InitializationOnlyStatus` is returned.

        Values of objects not created yet (an unbuilt layer's kernel, an optimizer's slots)
        are restored when those objects are created."""
        if save_path is None:
            self.save_counter  # noqa: B018 - TF creates it on restore
            return InitializationOnlyStatus()
        status = self.read(save_path, options)
        self.save_counter  # noqa: B018 - created after reading (and restored if saved), as TF
        return status

    def __repr__(self) -> str:
        return f"<tf.train.Checkpoint tracking {sorted(self._ckpt_children)}>"


# ------------------------------------------------------------------------------------------
# CheckpointManager
# ------------------------------------------------------------------------------------------


def _as_int(value: Any, what: str) -> int:
    if isinstance(value, torch.Tensor):
        value = value.item()
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, bool) or number != value:
        raise ValueError(f"CheckpointManager: {what} must be an integer; received {value!r}.")
    return number


class CheckpointManager:
    """Manages multiple checkpoints by keeping some and deleting unneeded ones, as
    `tf.train.CheckpointManager(checkpoint, directory, max_to_keep,
    keep_checkpoint_every_n_hours=None, checkpoint_name='ckpt', step_counter=None,
    checkpoint_interval=None, init_fn=None)`.

    `save()` writes `<directory>/<checkpoint_name>-<n>` (n: the checkpoint's `save_counter`
    after incrementing it, or `checkpoint_number`), deletes the oldest beyond `max_to_keep`
    (None keeps all) and rewrites the `checkpoint` index; construction picks up the
    checkpoints already listed there.
    """

    def __init__(self, checkpoint: Checkpoint, directory: Any, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: int | None = None,
                 init_fn: Any = None):
        if not getattr(checkpoint, "_is_object_checkpoint", False):
            raise TypeError(
                "CheckpointManager: `checkpoint` must be a tf.train.Checkpoint; received "
                f"{type(checkpoint).__name__}: {checkpoint!r:.100}."
            )
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or not isinstance(max_to_keep, int)
                                        or max_to_keep < 0):
            raise ValueError(f"CheckpointManager: `max_to_keep` must be an int >= 0 or None; "
                             f"received {max_to_keep!r}.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step: int | None = None
        self._engine = engine.CheckpointManager(
            self._directory, max_to_keep=max_to_keep,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            checkpoint_basename=checkpoint_name,
        )

    @property
    def checkpoint(self) -> Checkpoint:
        """The managed `tf.train.Checkpoint`."""
        return self._checkpoint

    @property
    def directory(self) -> str:
        """The folder checkpoints are written to."""
        return self._directory

    @property
    def checkpoint_interval(self) -> int | None:
        """The minimum number of steps between two saves (with `step_counter`), or None."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint (None if there is none)."""
        return self._engine.latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The prefixes of the kept checkpoints, oldest first."""
        return self._engine.checkpoints

    def save(self, checkpoint_number: Any = None, check_interval: bool = True,
             options: CheckpointOptions | None = None) -> str | None:
        """Writes a new checkpoint and deletes the old ones beyond `max_to_keep`; returns its
        path, or None when `checkpoint_interval` steps have not passed since the last save."""
        if self._checkpoint_interval is not None:
            current = _as_int(self._step_counter, "step_counter")
            last = self._last_checkpoint_step
            if last is not None:
                if current == last:
                    return None
                if check_interval and current < last + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = current
        counter = self._checkpoint.save_counter
        with torch.no_grad():
            counter.add_(1)
        number = int(counter) if checkpoint_number is None else _as_int(checkpoint_number, "checkpoint_number")
        return self._engine.save(number, self._checkpoint._object_tensors(), {"object_graph": True},
                                 step_tensor=False)

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint and returns its path; without one, calls `init_fn`
        (if given) and returns None."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Waits for pending saves: none, writes are synchronous."""

    def __repr__(self) -> str:
        return f"<tf.train.CheckpointManager directory={self._directory!r} latest={self.latest_checkpoint!r}>"

"""`tf.compat.v1.train.Scaffold`: what a `model_fn` tells the Estimator about initializing and
saving its model.

There is no graph here, so the ops TF's Scaffold held (`init_op`, `ready_op`,
`local_init_op`, `summary_op`) are accepted and kept but nothing runs them. Two
arguments act:

* `saver`: a `tf.train.Checkpoint` makes the Estimator save its checkpoints in the
  object-based format — the values the Checkpoint tracks are stored under their object
  paths (`step/.ATTRIBUTES/VARIABLE_VALUE`, `net/l1/kernel/...`), so that
  `tf.train.Checkpoint(...).restore(tf.train.latest_checkpoint(model_dir))` outside
  the Estimator restores what it trained; the Estimator resumes from them too.
* `init_fn`: called as `init_fn(scaffold, session)` once, when the Estimator creates the
  model without a checkpoint to restore (TF called it after `init_op` in that case).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_FIELDS = ("init_op", "init_feed_dict", "ready_op", "ready_for_local_init_op", "local_init_op",
           "summary_op", "saver", "local_init_feed_dict")


class Scaffold:
    """Structure to create or gather pieces commonly needed to train a model, as TF's
    `tf.compat.v1.train.Scaffold(init_op=None, init_feed_dict=None, init_fn=None,
    ready_op=None, ready_for_local_init_op=None, local_init_op=None, summary_op=None,
    saver=None, copy_from_scaffold=None, local_init_feed_dict=None)`.
    """

    def __init__(self, init_op: Any = None, init_feed_dict: Any = None,
                 init_fn: Callable | None = None, ready_op: Any = None,
                 ready_for_local_init_op: Any = None, local_init_op: Any = None,
                 summary_op: Any = None, saver: Any = None, copy_from_scaffold: Scaffold | None = None,
                 local_init_feed_dict: Any = None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError(
                    f"copy_from_scaffold is not a Scaffold instance; received {copy_from_scaffold!r}."
                )
            init_op = init_op if init_op is not None else copy_from_scaffold.init_op
            init_feed_dict = init_feed_dict if init_feed_dict is not None else copy_from_scaffold.init_feed_dict
            init_fn = init_fn if init_fn is not None else copy_from_scaffold._user_init_fn
            ready_op = ready_op if ready_op is not None else copy_from_scaffold.ready_op
            ready_for_local_init_op = (ready_for_local_init_op if ready_for_local_init_op is not None
                                       else copy_from_scaffold.ready_for_local_init_op)
            local_init_op = local_init_op if local_init_op is not None else copy_from_scaffold.local_init_op
            local_init_feed_dict = (local_init_feed_dict if local_init_feed_dict is not None
                                    else copy_from_scaffold.local_init_feed_dict)
            summary_op = summary_op if summary_op is not None else copy_from_scaffold.summary_op
            saver = saver if saver is not None else copy_from_scaffold.saver
        if init_fn is not None and not callable(init_fn):
            raise TypeError(f"Scaffold: init_fn must be callable as init_fn(scaffold, session); "
                            f"received {init_fn!r}.")
        if saver is not None and not getattr(saver, "_is_object_checkpoint", False):
            raise TypeError(
                "Scaffold: saver must be a tf.train.Checkpoint (object-based checkpoints) or None; "
                f"received {type(saver).__name__}: {saver!r:.100}. The Estimator writes its own "
                "checkpoints; TF1's name-based tf.compat.v1.train.Saver does not exist here."
            )
        self.init_op = init_op
        self.init_feed_dict = init_feed_dict
        self._user_init_fn = init_fn
        self.ready_op = ready_op
        self.ready_for_local_init_op = ready_for_local_init_op
        self.local_init_op = local_init_op
        self.summary_op = summary_op
        self.saver = saver
        self.local_init_feed_dict = local_init_feed_dict
        self._finalized = False

    @property
    def init_fn(self) -> Callable[[Any], Any] | None:
        """`session -> None` calling the `init_fn` given as `init_fn(scaffold, session)`, or None."""
        user = self._user_init_fn
        if user is None:
            return None
        return lambda session: user(self, session)

    def finalize(self) -> Scaffold:
        """Marks the scaffold complete (there is no graph to finalize); returns self."""
        self._finalized = True
        return self

    @staticmethod
    def default_local_init_op() -> None:
        """TF's op initializing local variables and tables: there are none here; returns None."""
        return None

    @staticmethod
    def get_or_default(arg_name: str, collection_key: str, default_constructor: Callable[[], Any]) -> Any:
        """Returns `default_constructor()` (there are no graph collections to look in)."""
        return default_constructor()

    def __repr__(self) -> str:
        set_fields = [f for f in _FIELDS if getattr(self, f) is not None]
        if self._user_init_fn is not None:
            set_fields.append("init_fn")
        return f"<tf.compat.v1.train.Scaffold with {set_fields or 'defaults'}>"

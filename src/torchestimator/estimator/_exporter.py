"""Exporters: what `train_and_evaluate` runs after each evaluation (`EvalSpec.exporters`), as
TF 2.15's `tf.estimator.Exporter`, `LatestExporter`, `BestExporter` and `FinalExporter`.

Each writes `estimator.export_saved_model(export_path, serving_input_receiver_fn, ...)`
under `model_dir/export/<exporter name>/<unix seconds>/`. `LatestExporter` and
`BestExporter` keep the newest `exports_to_keep` export directories; `BestExporter`
exports only when `compare_fn(best_eval_result, current_eval_result)` says the new
evaluation is better, and on first use reads the best result so far back from the
evaluation event files (with the `tensorboard` package's reader), so a restarted job
keeps comparing against the true best.
"""

from __future__ import annotations

import abc
import glob
import inspect
import logging
import os
import shutil
from collections.abc import Callable
from typing import Any

import numpy as np
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader

from torchestimator._engine import storage

logger = logging.getLogger("torchestimator")


class Exporter(abc.ABC):
    """A type of model export: a `name` (the directory under `model_dir/export/`) and
    `export(...)`, called by `train_and_evaluate` after each evaluation."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Directory name under the export base directory; not None nor empty."""

    @abc.abstractmethod
    def export(self, estimator: Any, export_path: str, checkpoint_path: str | None,
               eval_result: dict | None, is_the_final_export: bool) -> Any:
        """Exports `estimator` (at `checkpoint_path`) under `export_path`.

        `eval_result` is what `Estimator.evaluate` returned for that checkpoint;
        `is_the_final_export` is True for the export at the end of training (never
        when `TrainSpec.max_steps` is None). Returns the export's path, or None if
        the export was skipped.
        """


def _check_exports_to_keep(exports_to_keep: Any) -> None:
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError(
            f"`exports_to_keep`, if provided, must be a positive number. Got {exports_to_keep}"
        )


class _SavedModelExporter(Exporter):
    """Exports the serving model with `Estimator.export_saved_model`."""

    def __init__(self, name: str, serving_input_receiver_fn: Callable | None,
                 assets_extra: dict | None = None, as_text: bool = False):
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self) -> str:
        """The exporter's name."""
        return self._name

    def export(self, estimator: Any, export_path: str, checkpoint_path: str | None,
               eval_result: dict | None, is_the_final_export: bool) -> Any:
        """Writes one export under `export_path`; returns its path (bytes, as TF)."""
        if self._serving_input_receiver_fn is None:
            raise ValueError(
                f"Exporter {self._name!r} has no serving_input_receiver_fn; pass one (for example "
                "tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec))."
            )
        return estimator.export_saved_model(
            export_path, self._serving_input_receiver_fn, assets_extra=self._assets_extra,
            as_text=self._as_text, checkpoint_path=checkpoint_path,
        )


def _export_versions(export_dir_base: str) -> list[tuple[int, str]]:
    """`(version, path)` of the export directories named by 10-digit Unix seconds, oldest first
    (`export_dir_base` a path or a URL)."""

    if not storage.isdir(export_dir_base):
        return []
    found = []
    for name in storage.listdir(export_dir_base):
        path = storage.join(export_dir_base, name)
        if len(name) == 10 and name.isdigit() and storage.isdir(path):
            found.append((int(name), path))
    return sorted(found)


def _garbage_collect_exports(export_dir_base: str, exports_to_keep: int | None,
                             newest: Any = None) -> None:
    """Deletes all but the `exports_to_keep` newest export directories (None keeps all).

    `newest` (the export just written) is always kept and counts as the newest: a
    timestamp freed by an earlier deletion can be reused, so numbers alone may not say
    which export came last."""
    if exports_to_keep is None:
        return

    newest_path = storage.abspath(os.fsdecode(newest)) if newest is not None else None
    versions = [(v, p) for v, p in _export_versions(export_dir_base) if storage.abspath(p) != newest_path]
    keep_others = exports_to_keep - (1 if newest_path is not None else 0)
    for _, path in versions[: max(len(versions) - keep_others, 0)]:
        try:
            if storage.is_url(path):
                storage.remove(storage.join(path, "saved_model.json"))  # no longer an export first
                storage.rmtree(path)
                continue
            shutil.rmtree(path)
        except FileNotFoundError as e:
            logger.warning("Can not delete %s recursively: %s", path, e)


class LatestExporter(Exporter):
    """Exports the serving model after every evaluation, keeping the newest `exports_to_keep`
    exports (None keeps all)."""

    def __init__(self, name: str, serving_input_receiver_fn: Callable, assets_extra: dict | None = None,
                 as_text: bool = False, exports_to_keep: int | None = 5):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)
        _check_exports_to_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        """The exporter's name."""
        return self._saved_model_exporter.name

    def export(self, estimator: Any, export_path: str, checkpoint_path: str | None,
               eval_result: dict | None, is_the_final_export: bool) -> Any:
        """Exports, then deletes the oldest exports beyond `exports_to_keep`; returns the path."""
        result = self._saved_model_exporter.export(estimator, export_path, checkpoint_path,
                                                   eval_result, is_the_final_export)
        _garbage_collect_exports(export_path, self._exports_to_keep, result)
        return result


def _loss_smaller(best_eval_result: dict, current_eval_result: dict) -> bool:
    """True if the `loss` of `current_eval_result` is smaller than that of `best_eval_result`."""
    if not best_eval_result or "loss" not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or "loss" not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


def _verify_compare_fn_args(compare_fn: Callable) -> None:
    try:
        args = set(inspect.signature(compare_fn).parameters)
    except (TypeError, ValueError):
        args = set()
    if "best_eval_result" not in args:
        raise ValueError(f"compare_fn ({compare_fn}) must include best_eval_result argument.")
    if "current_eval_result" not in args:
        raise ValueError(f"compare_fn ({compare_fn}) must include current_eval_result argument.")
    extra = sorted(args - {"best_eval_result", "current_eval_result"})
    if extra:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: {extra}")


def _read_simple_value_results(pattern: str) -> list[dict]:
    """The evaluations in the event files matching `pattern`: per file, the `{tag:
    simple_value}` scalars of each global step (an evaluation writes one event per metric)."""

    results = []
    for path in sorted(glob.glob(pattern)):
        by_step: dict[int, dict] = {}
        for event in LegacyEventFileLoader(path).Load():
            if not event.HasField("summary"):
                continue
            values = {v.tag: v.simple_value for v in event.summary.value if v.HasField("simple_value")}
            if values:
                by_step.setdefault(event.step, {}).update(values)
        results.extend(by_step[step] for step in sorted(by_step))
    return results


class BestExporter(Exporter):
    """Exports the serving model whenever an evaluation is better than every earlier one
    (by `compare_fn(best_eval_result, current_eval_result)`, default: smaller `loss`), keeping
    the newest `exports_to_keep` exports.

    On first use it reads the evaluations already in `model_dir/<event_file_pattern>`
    (default `eval/*.tfevents.*`), so after a restart only a model better than the best
    so far is exported. With `event_file_pattern=None` it is not preemption-safe.
    """

    def __init__(self, name: str = "best_exporter", serving_input_receiver_fn: Callable | None = None,
                 event_file_pattern: str | None = "eval/*.tfevents.*",
                 compare_fn: Callable = _loss_smaller, assets_extra: dict | None = None,
                 as_text: bool = False, exports_to_keep: int | None = 5):
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        _verify_compare_fn_args(compare_fn)
        self._compare_fn = compare_fn
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)
        self._event_file_pattern = event_file_pattern
        self._model_dir: str | None = None
        self._best_eval_result: dict | None = None
        self._has_exported = False
        _check_exports_to_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        """The exporter's name."""
        return self._saved_model_exporter.name

    def export(self, estimator: Any, export_path: str, checkpoint_path: str | None,
               eval_result: dict | None, is_the_final_export: bool) -> Any:
        """Exports if `eval_result` is the best so far; returns the path, or None (skipped)."""
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            logger.info("Loading best metric from event files.")
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._get_best_eval_result(
                os.path.join(self._model_dir, self._event_file_pattern))
        if (self._best_eval_result is None
                # The evaluation just written is in the event files: the first export compares
                # equal to it, and must still happen.
                or (not self._has_exported and _same_result(self._best_eval_result, eval_result))
                or self._compare_fn(best_eval_result=self._best_eval_result,
                                    current_eval_result=eval_result)):
            logger.info("Performing best model export.")
            self._best_eval_result = eval_result
            result = self._saved_model_exporter.export(estimator, export_path, checkpoint_path,
                                                       eval_result, is_the_final_export)
            _garbage_collect_exports(export_path, self._exports_to_keep, result)
            self._has_exported = True
            return result
        return None

    def _get_best_eval_result(self, pattern: str) -> dict | None:
        best = None
        for result in _read_simple_value_results(pattern):
            if best is None or self._compare_fn(best_eval_result=best, current_eval_result=result):
                best = result
        return best


def _same_result(a: dict, b: dict | None) -> bool:
    """True if the scalars of `a` (read back from an event file, float32) equal those of `b`."""

    if not b:
        return False
    for key, value in a.items():
        if key not in b:
            return False
        other = np.asarray(b[key])
        if other.size != 1 or np.float32(other.reshape(())) != np.float32(value):
            return False
    return True


class FinalExporter(Exporter):
    """Exports the serving model once, at the end of training (`is_the_final_export`)."""

    def __init__(self, name: str, serving_input_receiver_fn: Callable, assets_extra: dict | None = None,
                 as_text: bool = False):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)

    @property
    def name(self) -> str:
        """The exporter's name."""
        return self._saved_model_exporter.name

    def export(self, estimator: Any, export_path: str, checkpoint_path: str | None,
               eval_result: dict | None, is_the_final_export: bool) -> Any:
        """Exports only when `is_the_final_export`; returns the path or None."""
        if not is_the_final_export:
            return None
        logger.info("Performing the final export in the end of training.")
        return self._saved_model_exporter.export(estimator, export_path, checkpoint_path,
                                                 eval_result, is_the_final_export)

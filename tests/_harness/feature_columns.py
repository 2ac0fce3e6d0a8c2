"""`check_feature_column`: the checks every feature column of the package passes, in one call.

Invariants checked:

1. a dense column gives a `[batch, prod(variable_shape)]` float output through
   `tf.keras.layers.DenseFeatures` and `tf.compat.v1.feature_column.input_layer` (equal when the
   column has no variables of its own); a categorical column gives a `[batch, num_buckets]`
   output through its `indicator_column` and a `[batch, units]` output through
   `tf.compat.v1.feature_column.linear_model`; a sequence column gives a
   `[batch, steps, ...]` output and the sequence lengths through `SequenceFeatures`;
2. `serialize_feature_column` -> JSON -> `deserialize_feature_column` gives the same class,
   name and config, and the revived column gives the same output;
3. a premade Estimator (`DNNClassifier` for a dense column, `LinearClassifier` for a
   categorical one) trains one step into a temporary `model_dir`, exports with a parsing
   serving input receiver built from `make_parse_example_spec`, and the export, fed the same
   rows as serialized `tf.train.Example`s, predicts what `Estimator.predict` predicts.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import torchestimator as tf

fc = tf.feature_column


def _numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _batch_size(features: dict[str, Any]) -> int:
    return len(next(iter(features.values())))


def _example(features: dict[str, Any], row: int) -> bytes:
    """Row `row` of the feature dict as a serialized `tf.train.Example` (missing values -- "" or
    -1 in a string or integer row -- are left out, as a parser would see a ragged feature)."""
    feature = {}
    for key, values in features.items():
        value = np.asarray(values[row]).reshape(-1)
        if value.dtype.kind in "OSU":
            items = [v if isinstance(v, bytes) else str(v).encode() for v in value.tolist()]
            items = [v for v in items if v != b""]
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=items))
        elif value.dtype.kind in "iu":
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=[int(v) for v in value if v >= 0]))
        else:
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=[float(v) for v in value]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _is_sequence(column: Any) -> bool:
    """A sequence column, or an indicator/embedding column over one."""
    inner = getattr(column, "categorical_column", None)
    return isinstance(column, (fc.SequenceNumericColumn, fc.SequenceCategoricalColumn)) or isinstance(
        inner, fc.SequenceCategoricalColumn)


def _dense_output(column: Any, features: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The column's dense view: (output, the columns fed to DenseFeatures)."""
    columns = [column] if isinstance(column, fc.DenseColumn) else [fc.indicator_column(column)]
    layer = tf.keras.layers.DenseFeatures(columns)
    return layer(features), columns


def check_feature_column(
    column: Any,
    features: dict[str, Any],
    *,
    labels: Any = None,
    estimator: bool = True,
    make_estimator: Callable[[list, str, Any], Any] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    tmp_dir: str | os.PathLike | None = None,
) -> Any:
    """Runs the feature-column checks (module docstring) on `column` fed `features` (a dict of
    numpy arrays, one row per example). `labels` (0/1 per row) default to alternating classes;
    `estimator=False` skips the Estimator training and export; `make_estimator(feature_columns,
    model_dir, config)` builds the Estimator to train instead of `LinearClassifier` /
    `DNNClassifier` (a new premade estimator is checked this way). Returns the column's dense
    output (the `SequenceFeatures` output for a sequence column)."""
    tf.keras.backend.clear_session()
    torch.manual_seed(0)
    batch = _batch_size(features)
    name = getattr(column, "name", repr(column))

    # 2. serialization round trip (first: the output check below compares against the revival)
    config = fc.serialize_feature_column(column)
    revived = fc.deserialize_feature_column(json.loads(json.dumps(config)))
    assert type(revived) is type(column) and revived.name == column.name, (
        f"{name}: deserialize gave {type(revived).__name__} {revived.name!r}")
    assert revived.get_config() == column.get_config(), f"{name}: the revived config differs"

    # 1. outputs
    if _is_sequence(column):
        dense = not isinstance(column, fc.SequenceCategoricalColumn)
        layer = tf.keras.experimental.SequenceFeatures([column if dense else fc.indicator_column(column)])
        output, lengths = layer(features)
        assert output.dim() == 3 and output.shape[0] == batch, f"{name}: sequence output {tuple(output.shape)}"
        assert tuple(lengths.shape) == (batch,) and bool((lengths >= 0).all())
        again = tf.keras.experimental.SequenceFeatures([
            revived if dense else fc.indicator_column(revived)])(features)
        assert tuple(again[0].shape) == tuple(output.shape)
        if not getattr(column, "dimension", None):  # an embedding column's table is random
            np.testing.assert_allclose(_numpy(again[0]), _numpy(output), rtol=rtol, atol=atol, err_msg=f"{name} revived")
        return output

    output, columns = _dense_output(column, features)
    assert output.dtype == torch.float32 and output.dim() == 2 and output.shape[0] == batch, (
        f"{name}: DenseFeatures output {output.dtype} {tuple(output.shape)}, expected float32 [{batch}, n]")
    width = int(np.prod(columns[0].variable_shape))
    assert output.shape[1] == width, f"{name}: DenseFeatures width {output.shape[1]}, variable_shape says {width}"
    assert torch.isfinite(output).all()
    has_variables = bool(tf.keras.layers.DenseFeatures(columns).trainable_weights) or "embedding" in type(
        column).__name__.lower()
    revived_output, _ = _dense_output(revived, features)
    via_input_layer = tf.compat.v1.feature_column.input_layer(features, columns)
    assert tuple(via_input_layer.shape) == tuple(output.shape), (
        f"{name}: input_layer gives {tuple(via_input_layer.shape)}, DenseFeatures {tuple(output.shape)}")
    if not has_variables:
        np.testing.assert_allclose(_numpy(revived_output), _numpy(output), rtol=rtol, atol=atol,
                                   err_msg=f"{name}: the revived column")
        np.testing.assert_allclose(_numpy(via_input_layer), _numpy(output), rtol=rtol, atol=atol,
                                   err_msg=f"{name}: input_layer against DenseFeatures")
    if isinstance(column, fc.CategoricalColumn):
        logits = tf.compat.v1.feature_column.linear_model(features, [column], units=2)
        assert tuple(logits.shape) == (batch, 2), f"{name}: linear_model gives {tuple(logits.shape)}"

    # 3. premade Estimator: one step, export, serve
    if estimator:
        _check_estimator(column, features, labels, make_estimator, rtol, atol, tmp_dir)
    return output


def _check_estimator(column: Any, features: dict[str, Any], labels: Any, make_estimator: Any, rtol: float,
                     atol: float, tmp_dir: Any) -> None:
    name = column.name
    batch = _batch_size(features)
    labels = np.arange(batch, dtype=np.int64) % 2 if labels is None else np.asarray(labels)
    columns = [column]

    def train_input_fn() -> Any:
        return tf.data.Dataset.from_tensor_slices((dict(features), labels)).batch(batch).repeat()

    def predict_input_fn() -> Any:
        return tf.data.Dataset.from_tensor_slices(dict(features)).batch(batch)

    with tempfile.TemporaryDirectory(dir=tmp_dir) as folder:
        model_dir = os.path.join(folder, "model")
        config = tf.estimator.RunConfig(tf_random_seed=0)
        if make_estimator is not None:
            est = make_estimator(columns, model_dir, config)
        elif isinstance(column, fc.CategoricalColumn):
            est = tf.estimator.LinearClassifier(feature_columns=columns, model_dir=model_dir, config=config)
        else:
            est = tf.estimator.DNNClassifier(hidden_units=[3], feature_columns=columns, model_dir=model_dir,
                                             config=config)
        est.train(train_input_fn, steps=1)
        assert int(est.get_variable_value("global_step")) == 1, f"{name}: the Estimator did not take one step"
        predicted = list(est.predict(predict_input_fn))
        assert len(predicted) == batch, f"{name}: predict gave {len(predicted)} rows for {batch}"

        spec = fc.make_parse_example_spec(columns)
        receiver_fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
        export = est.export_saved_model(os.path.join(folder, "export"), receiver_fn)
        export = export.decode() if isinstance(export, bytes) else str(export)
        assert tf.saved_model.contains_saved_model(export), f"{name}: no export in {export}"
        loaded = tf.saved_model.load(export)
        examples = np.array([_example(features, row) for row in range(batch)], dtype=object)
        served = loaded.signatures["predict"](examples=examples)
        compared = 0
        for key in served:
            value = _numpy(served[key])
            if key not in predicted[0] or value.dtype.kind not in "fiu":
                continue
            want = np.stack([np.asarray(row[key]) for row in predicted])
            assert np.isfinite(want).all(), f"{name}: predict gave non-finite {key!r}"
            np.testing.assert_allclose(value.reshape(want.shape), want, rtol=rtol, atol=atol,
                                       err_msg=f"{name}: the export's {key!r} differs from Estimator.predict")
            compared += 1
        assert compared, f"{name}: the export shares no numeric output with predict ({sorted(served)})"


__all__ = ["check_feature_column"]

"""The codec that stores an export's preprocessing layers as Keras configs: saved_model (below
keras) does not import Keras; `torchestimator.keras.saving` registers the codec when it loads,
and reading an export in a process that never imported Keras still rebuilds its layers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from _export_testlib import Y_CLASS, input_fn

import torchestimator as tf
from _package_env import package_only_env
from torchestimator.keras import _registry
from torchestimator.saved_model import _layout


def _run(script: str, cwd) -> dict:
    env = package_only_env()
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                            text=True, cwd=str(cwd), env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> str:
    """A DNNClassifier on a numeric column and an embedding of a vocabulary column: its export
    holds a preprocessing layer (DenseFeatures) stored as a Keras config."""
    base = tmp_path_factory.mktemp("codec")
    fc = tf.feature_column
    kind = fc.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])
    columns = [fc.numeric_column("x"), fc.embedding_column(kind, 2)]
    estimator = tf.estimator.DNNClassifier([3], columns, model_dir=str(base / "m"),
                                           config=tf.estimator.RunConfig(tf_random_seed=1))
    estimator.train(input_fn(Y_CLASS), steps=2)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.TensorSpec([None], tf.float32), "kind": tf.TensorSpec([None], tf.string)})
    path = os.fsdecode(estimator.export_saved_model(str(base / "e"), receiver))
    with open(os.path.join(path, _layout.DOCUMENT)) as f:
        assert json.load(f)["preprocessing"], "the export should hold a preprocessing layer"
    return path


def test_keras_saving_registers_the_codec():
    codec = _layout._LAYER_CODEC
    assert codec is not None
    assert codec.serialize is _registry.serialize_keras_object
    assert codec.deserialize is _registry.deserialize_keras_object


def test_saved_model_alone_does_not_import_keras_and_names_what_is_missing(tmp_path):
    report = _run("""
        import json, sys
        from torchestimator.saved_model import _layout
        keras = sorted(m for m in sys.modules if m.startswith("torchestimator.keras"))
        try:
            _layout.layer_to_json(object(), {})
            error = None
        except RuntimeError as e:
            error = str(e)
        print(json.dumps({"keras": keras, "codec": _layout._LAYER_CODEC is not None, "error": error}))
    """, tmp_path)
    assert report["keras"] == [] and not report["codec"]
    assert "torchestimator.keras" in report["error"] and "preprocessing layer" in report["error"]


def test_an_export_with_preprocessing_loads_in_a_process_that_never_imported_keras(export, tmp_path):
    inputs = {"x": np.array([-1.0, 0.5, 2.0], dtype="float32"),
              "kind": np.array(["a", "c", "zz"], dtype=object)}
    expected = tf.saved_model.load(export).signatures["predict"](**inputs)
    np.savez(tmp_path / "x.npz", x=inputs["x"])
    report = _run(f"""
        import json, sys
        import numpy as np
        import torchestimator.saved_model as sm
        keras_before = [m for m in sys.modules if m.startswith("torchestimator.keras")]
        loaded = sm.load({export!r})
        inputs = {{"x": np.load({str(tmp_path / 'x.npz')!r})["x"],
                   "kind": np.array(["a", "c", "zz"], dtype=object)}}
        out = loaded.signatures["predict"](**inputs)
        print(json.dumps({{"keras_before": keras_before,
                           "out": {{k: np.asarray(v).tolist() for k, v in out.items()
                                    if np.asarray(v).dtype.kind in "fiu"}}}}))
    """, tmp_path)
    assert report["keras_before"] == []
    assert report["out"]
    for key, value in report["out"].items():
        np.testing.assert_allclose(value, np.asarray(expected[key]), rtol=1e-6, err_msg=key)

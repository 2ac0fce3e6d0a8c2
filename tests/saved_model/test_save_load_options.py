"""tf.saved_model's SaveOptions, LoadOptions, Asset and layout constants (TF 2.15's values),
accepted by save and load."""

from __future__ import annotations

import numpy as np
import pytest

import torchestimator as tf


def test_constants_are_tfs():
    sm = tf.saved_model
    assert (sm.ASSETS_DIRECTORY, sm.ASSETS_KEY, sm.DEBUG_DIRECTORY, sm.DEBUG_INFO_FILENAME_PB) == (
        "assets", "saved_model_assets", "debug", "saved_model_debug_info.pb")
    assert (sm.SAVED_MODEL_FILENAME_PB, sm.SAVED_MODEL_FILENAME_PBTXT, sm.SAVED_MODEL_SCHEMA_VERSION) == (
        "saved_model.pb", "saved_model.pbtxt", 1)
    assert (sm.VARIABLES_DIRECTORY, sm.VARIABLES_FILENAME, sm.GPU, sm.TPU) == ("variables", "variables", "gpu", "tpu")


def test_options_keep_tfs_defaults_and_check_their_types():
    save = tf.saved_model.SaveOptions()
    assert (save.namespace_whitelist, save.save_debug_info, save.function_aliases,
            save.experimental_custom_gradients, save.experimental_skip_saver) == ([], False, {}, True, False)
    load = tf.saved_model.LoadOptions(allow_partial_checkpoint=True)
    assert load.allow_partial_checkpoint and not load.experimental_skip_checkpoint
    with pytest.raises(TypeError, match="namespace_whitelist"):
        tf.saved_model.SaveOptions(namespace_whitelist="Custom")
    with pytest.raises(ValueError, match="experimental_variable_policy"):
        tf.saved_model.LoadOptions(experimental_variable_policy="everywhere")
    with pytest.raises(AttributeError):
        save.not_an_option = 1  # slots, as TF


def test_save_and_load_accept_the_options(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    x = np.ones((4, 3), np.float32)
    tf.saved_model.save(model, str(tmp_path / "m"), options=tf.saved_model.SaveOptions(save_debug_info=True))
    loaded = tf.saved_model.load(str(tmp_path / "m"), options=tf.saved_model.LoadOptions())
    out = loaded.signatures["serving_default"](tf.constant(x))
    np.testing.assert_allclose(np.asarray(next(iter(out.values()))), model(x).detach().numpy(), rtol=1e-5)


def test_asset_holds_its_path(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\n")
    asset = tf.saved_model.Asset(str(path))
    assert asset.asset_path == str(path).encode()
    with pytest.raises(TypeError, match="path"):
        tf.saved_model.Asset(3)

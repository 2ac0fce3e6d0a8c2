"""A weights file's recorded order decides which weight goes where when layer names differ
(matching by order), and its checksum covers only the tensors: a damaged order must be an
error, not a silent swap of same-shaped weights."""

import json

import numpy as np
import pytest
from safetensors.numpy import load as st_load
from safetensors.numpy import save as st_save

import torchestimator as tf
from torchestimator.keras.saving import saving_lib


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(4,)), tf.keras.layers.Dense(4),
                                 tf.keras.layers.Dense(4)])
    model(np.zeros((1, 4), "float32"))
    return model


def _rewritten(data: bytes, metadata: dict) -> bytes:
    return st_save(st_load(data), metadata=metadata)


def test_a_file_loads_into_a_model_with_other_names_by_its_order(tmp_path):
    source = _model()
    data = saving_lib.weights_to_bytes(source)
    target = _model()  # new layer names: matched by order
    saving_lib.load_weights_from_bytes(target, data, "file")
    for a, b in zip(source.get_weights(), target.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("damage", ["repeat-a-name", "not-json", "missing"])
def test_a_damaged_order_is_an_error(damage):
    data = saving_lib.weights_to_bytes(_model())
    metadata = saving_lib.state_io.safetensors_metadata(data)
    names = json.loads(metadata[saving_lib._ORDER_KEY])
    if damage == "repeat-a-name":
        names[1] = names[3]
        metadata[saving_lib._ORDER_KEY] = json.dumps(names)
    elif damage == "not-json":
        metadata[saving_lib._ORDER_KEY] = metadata[saving_lib._ORDER_KEY][:-1]
    else:
        del metadata[saving_lib._ORDER_KEY]
    with pytest.raises(ValueError, match="file is corrupt"):
        saving_lib.load_weights_from_bytes(_model(), _rewritten(data, metadata), "file")

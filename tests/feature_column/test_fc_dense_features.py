"""DenseFeatures and input_layer: sorted concatenation, errors, config round trip, functional use."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator.keras.feature_column._linear_model import LinearModel

fc = tf.feature_column
DenseFeatures = tf.keras.layers.DenseFeatures
input_layer = tf.compat.v1.feature_column.input_layer


def test_columns_are_concatenated_in_name_order():
    zz = fc.numeric_column("zz")
    age = fc.numeric_column("age")
    color = fc.indicator_column(fc.categorical_column_with_vocabulary_list("color", ["r", "g"]))
    layer = DenseFeatures([zz, color, age])
    assert [c.name for c in layer.feature_columns] == ["age", "color_indicator", "zz"]
    out = layer({"zz": [100.0, 200.0], "age": [1.0, 2.0], "color": np.array(["g", "r"])})
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 1, 100], [2, 1, 0, 200]])
    assert out.dtype == torch.float32 and layer.compute_output_shape({"zz": (None,)}) == (None, 4)


def test_mixed_columns_by_hand():
    b = fc.bucketized_column(fc.numeric_column("age"), [18, 65])
    ident = fc.indicator_column(fc.categorical_column_with_identity("dept", 3))
    out = DenseFeatures([b, ident])({"age": np.array([[10.0], [30.0], [70.0]]), "dept": [[0, 2], [], [1, 1]]})
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 0, 1, 0, 1], [0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 2, 0]])


def test_cols_to_output_tensors_and_input_layer():
    age = fc.numeric_column("age")
    emb = fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2)
    outputs, variables = {}, {}
    out = input_layer({"age": [3.0], "i": [1]}, [age, emb], cols_to_vars=variables, cols_to_output_tensors=outputs)
    assert out.shape == (1, 3)
    assert outputs[age].tolist() == [[3.0]] and outputs[emb].shape == (1, 2)
    assert variables[age] == [] and [tuple(v.shape) for v in variables[emb]] == [(4, 2)]
    assert variables[emb][0]._keras_name == "input_layer/i_embedding/embedding_weights"


def test_missing_feature_names_it_and_lists_the_present_ones():
    layer = DenseFeatures([fc.numeric_column("age"), fc.numeric_column("height")])
    with pytest.raises(ValueError, match=r"Feature 'height' is required by feature column 'height'.*Features present: \['age', 'weight'\]"):
        layer({"age": [1.0], "weight": [2.0]})


def test_layer_argument_errors():
    with pytest.raises(ValueError, match="Items of feature_columns must be a DenseColumn"):
        DenseFeatures([fc.categorical_column_with_identity("i", 3)])
    with pytest.raises(ValueError, match="feature_columns must not be empty"):
        DenseFeatures([])
    with pytest.raises(ValueError, match="Expected feature_columns to be iterable, found dict"):
        DenseFeatures({"a": fc.numeric_column("a")})
    with pytest.raises(ValueError, match="Duplicate feature column name found"):
        DenseFeatures([fc.numeric_column("a"), fc.numeric_column("a", shape=2)])
    seq = fc.sequence_categorical_column_with_identity("s", 3)
    with pytest.raises(ValueError, match="use SequenceFeatures instead of DenseFeatures"):
        DenseFeatures([fc.embedding_column(seq, 2)])
    with pytest.raises(ValueError, match="use SequenceFeatures instead of DenseFeatures"):
        DenseFeatures([fc.indicator_column(seq)])
    layer = DenseFeatures([fc.numeric_column("a")])
    with pytest.raises(ValueError, match="We expected a dictionary here"):
        layer.call([1.0, 2.0])


def test_batch_sizes_must_agree():
    layer = DenseFeatures([fc.numeric_column("a"), fc.numeric_column("b")])
    with pytest.raises(ValueError, match=r"Batch size \(first dimension\) of each feature must be same"):
        layer({"a": [1.0, 2.0], "b": [1.0]})


def test_get_config_round_trip_gives_the_same_outputs():
    cols = [
        fc.numeric_column("age", normalizer_fn=fc.ZScoreNormalizer(40.0, 10.0)),
        fc.embedding_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"], num_oov_buckets=2), 3),
        fc.indicator_column(fc.crossed_column(["c", "d"], 7)),
    ]
    layer = DenseFeatures(cols, name="feats")
    feats = {"age": [30.0, 50.0], "c": np.array(["a", "q"]), "d": np.array([1, 2])}
    out = layer(feats)
    config = layer.get_config()
    assert config["name"] == "feats" and config["feature_columns"][0]["class_name"] == "NumericColumn"
    clone = DenseFeatures.from_config(config)
    clone(feats)
    clone.set_weights(layer.get_weights())
    np.testing.assert_array_equal(clone(feats).detach().numpy(), out.detach().numpy())
    assert clone.feature_columns == layer.feature_columns


def test_functional_model_with_string_inputs():
    from torchestimator.keras.engine.functional import Functional
    from torchestimator.keras.engine.input_layer import Input

    cols = [fc.numeric_column("age"), fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"]))]
    inputs = {"age": Input(shape=(1,), name="age"), "c": Input(shape=(), name="c", dtype="string")}
    x = DenseFeatures(cols)(inputs)
    assert x.shape == (None, 3)
    model = Functional(inputs, x)
    out = model({"age": np.array([[1.0], [2.0]], dtype=np.float32), "c": np.array(["b", "a"])})
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 1], [2, 1, 0]])


def test_output_follows_the_layer_device_and_state_dict_round_trips():
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 5), 2)
    layer = DenseFeatures([col, fc.numeric_column("x")])
    feats = {"i": [[1, 2], [4]], "x": torch.tensor([1.0, 2.0])}
    out = layer(feats)
    state = layer.state_dict()
    assert list(state) == ["i_embedding_embedding_weights"]
    other = DenseFeatures([col, fc.numeric_column("x")])
    other(feats)
    other.load_state_dict(state)
    torch.testing.assert_close(other(feats), out)
    assert out.device == layer.weights[0].device


def test_empty_batch():
    w = fc.categorical_column_with_vocabulary_list("w", ["a", "b"])
    cols = [fc.numeric_column("x"), fc.indicator_column(w), fc.embedding_column(w, 3),
            fc.embedding_column(fc.crossed_column(["w", "z"], 5), 2, combiner="sqrtn")]
    feats = {"x": np.zeros(0, np.float32), "w": np.array([], dtype=str), "z": np.array([], dtype=np.int64)}
    assert DenseFeatures(cols)(feats).shape == (0, 8)
    assert LinearModel([w, fc.numeric_column("x")])(feats).shape == (0, 1)


def test_plain_numeric_columns_take_one_stack_with_the_same_result():
    """All-numeric one-value columns (the premade estimators' usual input) are stacked and cast
    once; the result equals the per-column path, and anything unusual takes that path."""
    import torchestimator as tf

    cols = [tf.feature_column.numeric_column(k) for k in ("b", "a", "c")]
    layer = tf.keras.layers.DenseFeatures(cols)
    rng = np.random.default_rng(0)
    features = {"a": torch.tensor(rng.normal(size=5)),  # float64, [batch]
                "b": torch.tensor(rng.normal(size=(5, 1)), dtype=torch.float32),
                "c": torch.tensor(rng.normal(size=(5, 1)))}
    assert layer._segments == ((("a", "b", "c"), tuple(layer.feature_columns)),)
    fast = layer(features)
    per_column: dict = {}
    general = layer(features, cols_to_output_tensors=per_column)  # forces the per-column path
    assert fast.dtype == torch.float32 and fast.shape == (5, 3)
    torch.testing.assert_close(fast, general, rtol=0, atol=0)
    # integer features, wrong widths and missing keys go the general way (same values, same errors)
    ints = dict(features, a=torch.arange(5))
    torch.testing.assert_close(layer(ints)[:, 0].cpu(), torch.arange(5, dtype=torch.float32))
    with pytest.raises(ValueError, match="'c'"):
        layer(dict(features, c=torch.zeros(5, 2)))
    with pytest.raises((KeyError, ValueError), match="b"):
        layer({"a": features["a"], "c": features["c"]})
    mixed = tf.keras.layers.DenseFeatures(cols + [tf.feature_column.numeric_column("d", shape=(2,))])
    assert [keys for keys, _ in mixed._segments] == [("a", "b", "c"), None]


def test_runs_of_numeric_columns_among_others_are_stacked_with_the_same_result():
    """Wide & deep's deep part: embeddings, then numeric columns (name order). Each run of two or
    more plain numeric columns is stacked by one op; the output equals the per-column path."""
    import torchestimator as tf

    fc = tf.feature_column
    cat = fc.categorical_column_with_vocabulary_list("cat", ["p", "q", "r"])
    cols = [fc.numeric_column("x1"), fc.numeric_column("x0"), fc.embedding_column(cat, 2),
            fc.numeric_column("w", shape=(2,)), fc.numeric_column("y0"), fc.numeric_column("y1")]
    layer = tf.keras.layers.DenseFeatures(cols)
    names = [c.name for c in layer.feature_columns]
    assert names == ["cat_embedding", "w", "x0", "x1", "y0", "y1"]
    assert [keys for keys, _ in layer._segments] == [None, ("x0", "x1", "y0", "y1")]
    rng = np.random.default_rng(1)
    features = {k: torch.tensor(rng.normal(size=4), dtype=torch.float32) for k in ("x0", "x1", "y0", "y1")}
    features["w"] = torch.tensor(rng.normal(size=(4, 2)), dtype=torch.float32)
    features["cat"] = np.array(["p", "r", "q", "p"])
    fast = layer(features)
    general = layer(features, cols_to_output_tensors={})
    assert fast.shape == (4, 2 + 2 + 4)
    torch.testing.assert_close(fast, general, rtol=0, atol=0)
    with pytest.raises(ValueError, match="y1"):  # a batch-size mismatch inside a run is still named
        layer(dict(features, y1=torch.zeros(3)))

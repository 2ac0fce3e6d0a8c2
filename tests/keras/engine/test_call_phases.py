"""`Layer.__call__`'s phases and its fast path, and the caches on that path.

Each cache test changes what the cache assumes stays put between two calls and checks that
the second call sees the change (a hook registered after the first call runs, an input spec
changed after the first call is enforced, a dict written in place is not served stale)."""

import numpy as np
import pytest
import torch

import torchestimator as tf
from torchestimator._engine.object_scope import ObjectScope
from torchestimator.feature_column import FeatureTransformationCache
from torchestimator.keras.engine.base_layer import Layer
from torchestimator.keras.engine.call_context import CONTEXT, WEIGHTS_OFF_HOST


class Outer(tf.keras.layers.Layer):
    """Calls `inner` from inside its own call: the nested calls take the fast path."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def call(self, x, training=None):
        return self.inner(x)


def built_dense(units=3, dim=4):
    dense = tf.keras.layers.Dense(units)
    dense(torch.randn(2, dim))
    return dense


@pytest.fixture(autouse=True)
def _on_the_cpu():
    """The phases and the fast path are the same code on every device; these white-box tests
    pin theirs to the CPU, where their torch inputs are (on a GPU machine a CPU input of a layer
    on the GPU takes the general path, to be moved: `_host_inputs_to_weights`)."""
    weights_off_host = WEIGHTS_OFF_HOST[0]
    WEIGHTS_OFF_HOST[0] = False
    try:
        with tf.device("/CPU:0"):
            yield
    finally:
        WEIGHTS_OFF_HOST[0] = weights_off_host


@pytest.fixture
def count_general_calls(monkeypatch):
    """Counts the calls that leave the fast path (`Layer._call_phases`), per layer."""
    counts: dict = {}
    original = Layer._call_phases

    def counting(self, args, kwargs):
        counts[self.name] = counts.get(self.name, 0) + 1
        return original(self, args, kwargs)

    monkeypatch.setattr(Layer, "_call_phases", counting)
    return counts


# ---------------------------------------------------------------- the fast path
def test_nested_call_of_a_built_layer_takes_the_fast_path(count_general_calls):
    dense = built_dense()
    outer = Outer(dense)
    x = torch.randn(5, 4)
    count_general_calls.clear()
    out = outer(x)
    assert count_general_calls == {outer.name: 1}  # only the top-level call
    torch.testing.assert_close(out, x @ dense.kernel + dense.bias)
    assert CONTEXT.depth == 0


def test_top_level_call_of_a_built_layer_takes_the_fast_path_and_is_recorded(count_general_calls):
    dense = built_dense()
    scope = ObjectScope()
    generation = CONTEXT.generation
    count_general_calls.clear()
    with scope:
        out = dense(torch.randn(5, 4))
    assert count_general_calls == {}  # no phase had work to do
    assert scope.used_layers == {id(dense): dense}  # the model_fn scope knows the layer was used
    assert CONTEXT.generation == generation + 1  # a new generation of activity losses began
    assert out.requires_grad and CONTEXT.depth == 0


def test_top_level_call_on_numpy_keeps_the_numpy_rule(count_general_calls):
    dense = built_dense()
    count_general_calls.clear()
    out = dense(np.random.rand(5, 4).astype("float32"))
    assert count_general_calls == {dense.name: 1}
    assert not out.requires_grad  # TF's eager semantics: nothing records


def test_top_level_fast_path_keeps_activity_losses_of_one_call():
    dense = built_dense()
    dense.activity_regularizer = tf.keras.regularizers.l2(1.0)
    outer = Outer(dense)
    outer(torch.randn(5, 4))  # builds outer (general path)
    outer(torch.randn(5, 4))  # top-level fast path for outer, dense's regularizer runs nested
    out = outer(torch.randn(5, 4))
    assert len(outer.losses) == 1  # only the last call's loss
    torch.testing.assert_close(outer.losses[0], (out ** 2).sum() / 5)


def test_feature_dict_with_encoded_strings_takes_the_fast_path(count_general_calls):
    # from_tensor_slices dictionary-encodes a long string column: its batches are an ndarray
    # subclass, which the feature-dict fast path takes as it takes a plain string array
    from torchestimator.data.encoded_strings import EncodedStrings

    strings = np.array([f"v{k % 5}" for k in range(2000)])
    ds = tf.data.Dataset.from_tensor_slices({"s": strings, "x": np.arange(2000.0)}).batch(8)
    features = next(iter(ds))
    assert type(features["s"]) is EncodedStrings
    column = tf.feature_column.categorical_column_with_vocabulary_list("s", [f"v{k}" for k in range(5)])
    layer = tf.keras.layers.DenseFeatures(
        [tf.feature_column.indicator_column(column), tf.feature_column.numeric_column("x")])
    features = {"s": features["s"], "x": torch.as_tensor(features["x"])}
    layer(features)  # builds
    count_general_calls.clear()
    out = layer(features)
    assert count_general_calls == {}
    assert out[:, :5].argmax(1).tolist() == [k % 5 for k in range(8)]


def _masked():
    x = torch.randn(5, 4)
    x._keras_mask = torch.ones(5, dtype=torch.bool)
    return x


@pytest.mark.parametrize("make_input", [
    lambda: torch.randn(5, 4, dtype=torch.float64),  # cast
    lambda: tf.Variable(np.random.rand(5, 4).astype("float32")),  # not a plain tensor
    _masked,
], ids=["float64", "variable", "masked"])
def test_inputs_that_need_a_phase_leave_the_fast_path(count_general_calls, make_input):
    dense = built_dense()
    outer = Outer(dense, autocast=False, dtype="float64")
    count_general_calls.clear()
    out = outer(make_input())
    assert count_general_calls.get(dense.name) == 1
    assert out.dtype == torch.float32


def test_fast_path_passes_training_and_restores_context():
    dropout = tf.keras.layers.Dropout(0.5)
    outer = Outer(dropout)
    x = torch.ones(200, 10)
    assert (outer(x, training=True) == 0).any()
    assert torch.equal(outer(x, training=False), x)
    assert torch.equal(outer(x), x)  # training=None: inference
    assert CONTEXT.training is None and CONTEXT.depth == 0


def test_an_error_in_a_nested_call_restores_depth_and_training():
    class Failing(tf.keras.layers.Layer):
        def call(self, x):
            CONTEXT.training = "changed"
            raise RuntimeError("boom")

    outer = Outer(Failing())
    with pytest.raises(RuntimeError, match="boom"):
        outer(torch.ones(2, 2), training=True)
    assert CONTEXT.depth == 0 and CONTEXT.training is None


def test_activity_regularizer_set_after_the_first_call_is_applied():
    dense = built_dense()
    outer = Outer(dense)
    outer(torch.randn(5, 4))
    assert outer.losses == []
    dense.activity_regularizer = tf.keras.regularizers.l2(1.0)
    out = outer(torch.randn(5, 4))
    assert len(outer.losses) == 1
    torch.testing.assert_close(outer.losses[0], (out ** 2).sum() / 5)


def test_mask_reaches_nested_layers_and_outputs():
    emb = tf.keras.layers.Embedding(10, 3, mask_zero=True)
    lstm_like = tf.keras.layers.Dense(2)
    model = tf.keras.Sequential([emb, lstm_like])
    out = model(torch.tensor([[1, 2, 0, 0]]))
    assert out._keras_mask.tolist() == [[True, True, False, False]]


# ---------------------------------------------------------------- hooks (read on every call)
@pytest.mark.parametrize("nested", [True, False])
def test_hook_registered_after_the_first_call_is_run(nested):
    dense = built_dense()
    call = Outer(dense) if nested else dense
    x = torch.randn(5, 4)
    call(x)
    seen = []
    pre = dense.register_forward_pre_hook(lambda m, args: seen.append("pre"))
    post = dense.register_forward_hook(lambda m, args, out: out * 0)
    assert torch.equal(call(x), torch.zeros(5, 3))
    assert seen == ["pre"]
    pre.remove()
    post.remove()
    assert not torch.equal(call(x), torch.zeros(5, 3))
    assert seen == ["pre"]


def test_global_hook_registered_after_the_first_call_is_run():
    dense = built_dense()
    outer = Outer(dense)
    outer(torch.randn(5, 4))
    seen = []
    handle = torch.nn.modules.module.register_module_forward_hook(
        lambda m, args, out: seen.append(type(m).__name__)
    )
    try:
        outer(torch.randn(5, 4))
    finally:
        handle.remove()
    assert seen == ["Dense", "Outer"]


# ---------------------------------------------------------------- the input spec's cheap check
@pytest.mark.parametrize("nested", [True, False])
def test_input_spec_changed_after_the_first_call_is_enforced(nested):
    dense = built_dense()
    call = Outer(dense) if nested else dense
    call(torch.randn(5, 4))
    dense.input_spec.axes = {-1: 7}  # an attribute of the spec itself: the cached check resets
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 7"):
        call(torch.randn(5, 4))
    dense.input_spec.axes = {-1: 4}
    dense.input_spec.ndim = 3
    with pytest.raises(ValueError, match="expected ndim=3"):
        call(torch.randn(5, 4))
    dense.input_spec = tf.keras.layers.InputSpec(min_ndim=2, axes={-1: 4})  # a new spec
    call(torch.randn(5, 4))
    with pytest.raises(ValueError, match="expected axis -1"):
        call(torch.randn(5, 5))


def test_input_spec_cheap_check_accepts_only_what_the_full_check_accepts():
    dense = built_dense()
    outer = Outer(dense)
    for shape in [(4,), (5, 3), (2, 5, 3)]:
        with pytest.raises(ValueError, match=dense.name):
            outer(torch.randn(*shape))
    assert outer(torch.randn(2, 6, 4)).shape == (2, 6, 3)


def test_copied_layer_keeps_a_working_spec_check():
    import copy

    dense = copy.deepcopy(built_dense())
    with pytest.raises(ValueError):
        Outer(dense)(torch.randn(5, 5))


# ---------------------------------------------------------------- the .numpy() rule
def test_numpy_rule():
    dense = built_dense()
    x = np.random.rand(5, 4).astype("float32")
    assert not dense(x).requires_grad  # top level, numpy: TF's eager semantics
    assert dense(torch.from_numpy(x)).requires_grad  # torch tensors: torch's
    with tf.GradientTape():
        assert dense(x).requires_grad  # a tape records
    with ObjectScope():
        assert dense(x).requires_grad  # inside fit/model_fn
    assert Outer(dense)(x).requires_grad is False


# ---------------------------------------------------------------- dicts between calls
class Total(tf.keras.layers.Layer):
    def call(self, features):
        return sum(v.sum() for v in features.values())


def test_dict_mutated_between_calls_is_not_served_stale():
    layer = Total()
    a = np.ones((3, 2), dtype=np.float64)  # converted by a copy (float64 -> float32)
    b = np.ones((3, 2), dtype=np.float32)  # converted without a copy
    features = {"a": a, "b": b}
    assert float(layer(features)) == 12
    features["a"] = np.full((3, 2), 2.0)  # a value replaced
    assert float(layer(features)) == 18
    features["a"][:] = 3.0  # arrays written in place
    b[:] = 0.0
    assert float(layer(features)) == 18
    del features["b"]  # a key removed, another added with the same id's chance
    features["c"] = np.zeros((3, 2))
    assert float(layer(features)) == 18


def test_dense_features_on_a_dict_written_in_place_is_not_stale():
    cols = [tf.feature_column.numeric_column("x"),
            tf.feature_column.indicator_column(
                tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b"]))]
    layer = tf.keras.layers.DenseFeatures(cols)
    features = {"x": np.array([[1.0], [2.0]], dtype=np.float32), "c": np.array([["a"], ["b"]])}
    first = layer(features).clone()
    features["x"][:] = 5.0
    features["c"][0, 0] = "b"
    second = layer(features)
    assert second.tolist() != first.tolist()
    assert second[:, 2].tolist() == [5.0, 5.0]
    assert second[:, :2].tolist() == [[0.0, 1.0], [0.0, 1.0]]


def test_transformation_cache_is_shared_within_a_step_and_sees_in_place_edits():
    features = {"x": torch.ones(2, 1), "c": np.array([["a"], ["b"]])}
    assert FeatureTransformationCache.for_batch(features) is not \
        FeatureTransformationCache.for_batch(features)  # outside fit/model_fn: never shared
    with ObjectScope():
        first = FeatureTransformationCache.for_batch(features)
        assert FeatureTransformationCache.for_batch(features) is first  # wide & deep's two parts
        features["x"].add_(1)  # a tensor modified in place
        second = FeatureTransformationCache.for_batch(features)
        assert second is not first
        features["x"] = torch.ones(2, 1)  # a value replaced
        assert FeatureTransformationCache.for_batch(features) is not second
        assert FeatureTransformationCache.for_batch(dict(features)) is not second  # a new dict


def test_numeric_features_are_stacked_once_per_step_for_both_parts_of_wide_and_deep(monkeypatch):
    from torchestimator.feature_column import _layer_utils
    from torchestimator.keras.feature_column._linear_model import LinearModel

    fc = tf.feature_column
    numeric = [fc.numeric_column(k) for k in ("x0", "x1", "x2")]
    color = fc.categorical_column_with_vocabulary_list("c", ["a", "b"])
    deep = tf.keras.layers.DenseFeatures(numeric + [fc.embedding_column(color, 2)])
    wide = LinearModel(numeric + [color])
    features = {"x0": torch.ones(4), "x1": torch.zeros(4), "x2": torch.arange(4.0), "c": np.array(["a", "b"] * 2)}
    stacks = []
    real = _layer_utils._stack
    monkeypatch.setattr(_layer_utils, "_stack", lambda f, k, **kw: stacks.append(k) or real(f, k, **kw))
    with ObjectScope():
        out_deep, out_wide = deep(features), wide(features)
    assert stacks == [("x0", "x1", "x2")]  # once for both layers
    torch.testing.assert_close(out_deep[:, 2:], torch.stack([features[k] for k in ("x0", "x1", "x2")], 1))
    stacks.clear()
    deep(features), wide(features)  # outside a step: nothing is shared
    assert len(stacks) == 2
    assert out_wide.shape == (4, 1)


def test_a_zero_d_numpy_input_keeps_its_shape():
    import numpy as np

    import torchestimator as tf

    double = tf.keras.layers.Lambda(lambda x: x * 2)
    out = double(np.array(3.0, "float32"))
    assert tuple(out.shape) == () and float(out) == 6.0

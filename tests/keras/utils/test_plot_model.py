"""`tf.keras.utils.model_to_dot` / `plot_model`: Keras 2.15's nodes, labels and edges (pydot, the
`plot` extra); drawing a file needs Graphviz's `dot`, which is tested only where installed."""

from __future__ import annotations

import shutil

import pytest

import torchestimator as tf

pydot = pytest.importorskip("pydot")
layers = tf.keras.layers


def _graph(dot):
    labels = {n.get_name(): n.get("label") for n in dot.get_nodes() if n.get("label")}
    edges = {(e.get_source(), e.get_destination()) for e in dot.get_edges()}
    return labels, edges


def test_functional_model_with_a_shared_branch():
    a = tf.keras.Input(shape=(4,), name="a")
    b = tf.keras.Input(shape=(4,), name="b")
    h = layers.Dense(3, activation="relu", name="h")(a)
    merged = layers.Concatenate(name="cat")([h, b])
    out = layers.Dense(1, name="out")(merged)
    model = tf.keras.Model([a, b], out)
    labels, edges = _graph(tf.keras.utils.model_to_dot(model))
    by_name = {label.split("|")[0]: node for node, label in labels.items()}
    assert set(by_name) == {"a", "b", "h", "cat", "out"}
    assert labels[by_name["h"]] == "h|Dense"
    assert edges == {(by_name["a"], by_name["h"]), (by_name["h"], by_name["cat"]),
                     (by_name["b"], by_name["cat"]), (by_name["cat"], by_name["out"])}
    detailed, _ = _graph(tf.keras.utils.model_to_dot(
        model, show_shapes=True, show_dtype=True, show_layer_activations=True, show_trainable=True))
    assert detailed[by_name["h"]] == ("T|{h|{Dense|relu}|float32}|{input:|output:}|"
                                      "{{(None, 4)}|{(None, 3)}}")


def test_sequential_draws_its_input_and_a_chain():
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,), name="d1"), layers.Dense(1, name="d2")])
    dot = tf.keras.utils.model_to_dot(model, rankdir="LR", dpi=72)
    labels, edges = _graph(dot)
    assert sorted(label.split("|")[1] for label in labels.values()) == ["Dense", "Dense", "InputLayer"]
    assert len(edges) == 2
    assert dot.get("rankdir") == "LR" and dot.get("dpi") == 72


def test_nested_model_expands_into_a_cluster_and_layer_range():
    inner_in = tf.keras.Input(shape=(2,))
    inner = tf.keras.Model(inner_in, layers.Dense(2, name="inner_d")(inner_in), name="inner")
    x = tf.keras.Input(shape=(2,), name="x")
    model = tf.keras.Model(x, layers.Dense(1, name="head")(inner(x)))
    collapsed, _ = _graph(tf.keras.utils.model_to_dot(model))
    assert any(label.startswith("inner|") for label in collapsed.values())
    dot = tf.keras.utils.model_to_dot(model, expand_nested=True)
    assert [s.get_name() for s in dot.get_subgraphs()] == ["cluster_inner"]
    ranged, _ = _graph(tf.keras.utils.model_to_dot(model, layer_range=["inner", "head"]))
    assert sorted(label.split("|")[0] for label in ranged.values()) == ["head", "inner"]
    with pytest.raises(ValueError, match="layer_range must be of shape"):
        tf.keras.utils.model_to_dot(model, layer_range=["x"])


def test_errors_and_the_missing_graphviz_program(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="This model has not yet been built"):
        tf.keras.utils.model_to_dot(tf.keras.Sequential([layers.Dense(1)]))
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
    if shutil.which("dot") is None:
        with pytest.raises(ImportError, match="install graphviz"):
            tf.keras.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
    else:
        tf.keras.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
        assert (tmp_path / "m.png").stat().st_size > 0
    import torchestimator.keras.utils._vis_utils as vis

    monkeypatch.setattr(vis, "_pydot", lambda: None)
    with pytest.raises(ImportError, match=r"You must install pydot \(`pip install pydot`\)"):
        tf.keras.utils.model_to_dot(model)

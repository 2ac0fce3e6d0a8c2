"""TensorBoard callback: event files read back with TensorBoard's EventAccumulator."""

import glob
import json
import logging
import os

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.plugins.graph import keras_util
from tensorboard.util import tensor_util

from torchestimator.keras.callbacks import CallbackList, TensorBoard


def read(logdir):
    acc = EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    acc.Reload()
    return {
        tag: [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]
        for tag in acc.Tags()["tensors"]
    }, acc


def test_epoch_scalars_in_train_and_validation(tmp_path, model, data, loop):
    x, y = data
    log_dir = tmp_path / "logs"
    loop.fit(
        model,
        x,
        y,
        epochs=3,
        validation_data=(x[:16], y[:16]),
        callbacks=[TensorBoard(log_dir=str(log_dir), write_graph=False)],
    )
    assert sorted(os.listdir(log_dir)) == ["train", "validation"]
    assert glob.glob(str(log_dir / "train" / "events.out.tfevents.*.v2"))
    train, _ = read(log_dir / "train")
    assert set(train) == {"epoch_loss", "epoch_accuracy"}
    assert [s for s, _ in train["epoch_loss"]] == [0, 1, 2]
    np.testing.assert_allclose(
        [float(v) for _, v in train["epoch_loss"]], model.history.history["loss"], rtol=1e-6
    )
    validation, _ = read(log_dir / "validation")
    assert {"epoch_loss", "epoch_accuracy"} <= set(validation)
    np.testing.assert_allclose(
        [float(v) for _, v in validation["epoch_accuracy"]],
        model.history.history["val_accuracy"],
        rtol=1e-6,
    )
    # after each validation: evaluation_<metric>_vs_iterations at the optimizer's iterations
    assert [s for s, _ in validation["evaluation_loss_vs_iterations"]] == [4, 8, 12]


def test_batch_scalars_with_update_freq(tmp_path, model, data, tensor_loop):
    x, y = data
    cb = TensorBoard(
        log_dir=str(tmp_path), update_freq=3, write_graph=False, write_steps_per_second=True
    )
    assert cb._implements_train_batch_hooks()
    tensor_loop.fit(model, x, y, epochs=2, callbacks=[cb])  # 4 batches per epoch, 8 in all
    train, _ = read(tmp_path / "train")
    assert [s for s, _ in train["batch_loss"]] == [3, 6]
    assert [s for s, _ in train["batch_steps_per_second"]] == [3, 6]
    assert [s for s, _ in train["epoch_steps_per_second"]] == [0, 1]
    assert all(float(v) > 0 for _, v in train["epoch_steps_per_second"])
    assert not TensorBoard(log_dir=str(tmp_path))._implements_train_batch_hooks()
    assert TensorBoard(update_freq="batch").update_freq == 1


def test_histograms_and_images(tmp_path, model, data, loop):
    x, y = data
    loop.fit(
        model,
        x,
        y,
        epochs=3,
        callbacks=[
            TensorBoard(
                log_dir=str(tmp_path), histogram_freq=2, write_images=True, write_graph=False
            )
        ],
    )
    train, acc = read(tmp_path / "train")
    assert [s for s, _ in train["dense/kernel_0/histogram"]] == [0, 2]
    table = train["dense/bias_0/histogram"][-1][1]
    assert table.shape == (30, 3) and table[:, 2].sum() == 3
    assert acc.SummaryMetadata("dense/kernel_0/histogram").plugin_data.plugin_name == "histograms"
    # the kernel (3, 4) as one 3x4 image; the bias as a 3x1 image
    _, kernel_image = train["dense/kernel_0/image"][0]
    assert kernel_image[:2].tolist() == [b"4", b"3"]
    _, bias_image = train["dense/bias_0/image"][0]
    assert bias_image[:2].tolist() == [b"1", b"3"]


def test_histograms_use_torch_names_without_keras_names(tmp_path, make_model):
    model = make_model()
    del model.dense.weight._keras_name
    cbs = CallbackList(
        [TensorBoard(str(tmp_path), histogram_freq=1, write_graph=False)], model=model
    )
    cbs.on_train_begin()
    cbs.on_epoch_end(0, {"loss": 1.0})
    cbs.on_train_end()
    train, _ = read(tmp_path / "train")
    assert {"dense/weight/histogram", "dense/bias_0/histogram"} <= set(train)


def test_write_graph_writes_keras_conceptual_graph(tmp_path, model, data, loop):
    x, y = data
    loop.fit(model, x, y, epochs=1, callbacks=[TensorBoard(log_dir=str(tmp_path))])
    train, acc = read(tmp_path / "train")
    ((step, config),) = train["keras"]
    assert step == 0
    meta = acc.SummaryMetadata("keras").plugin_data
    assert (meta.plugin_name, meta.content) == ("graph_keras_model", b"1")
    graph = keras_util.keras_model_to_graph_def(json.loads(config.item()))
    assert [node.name for node in graph.node] == ["tiny/dense"]  # what the Graphs tab draws


def test_write_graph_skips_models_without_config(tmp_path, model, caplog):
    def broken():
        raise NotImplementedError("subclassed")

    model.to_json = broken
    with caplog.at_level(logging.WARNING):
        CallbackList([TensorBoard(str(tmp_path))], model=model)
    assert "Model failed to serialize as JSON. Ignoring... subclassed" in caplog.text
    model._is_graph_network = False
    CallbackList([TensorBoard(str(tmp_path / "b"))], model=model)
    assert not os.path.exists(tmp_path / "b")


def test_profile_batch_writes_trace(tmp_path, model, data, loop):
    x, y = data
    cb = TensorBoard(log_dir=str(tmp_path), profile_batch=(2, 3), write_graph=False)
    assert cb._implements_train_batch_hooks()
    loop.fit(model, x, y, epochs=1, callbacks=[cb])
    traces = glob.glob(str(tmp_path / "plugins" / "profile" / "*" / "*.pt.trace.json"))
    assert len(traces) == 1
    assert cb._profiler is None


def test_profile_batch_parsing():
    assert TensorBoard(profile_batch="2,4")._start_batch == 2
    assert TensorBoard(profile_batch="5")._stop_batch == 5
    assert not TensorBoard(profile_batch=0)._should_trace
    for bad in (-1, (3, 2), "a,b", 1.5, (1, 2, 3)):
        with pytest.raises(ValueError, match="profile_batch must be a non-negative integer"):
            TensorBoard(profile_batch=bad)


def test_embeddings_projector(tmp_path, make_model):
    model = make_model(with_embedding=True)
    cb = TensorBoard(
        str(tmp_path),
        embeddings_freq=1,
        embeddings_metadata={"embedding": "words.tsv"},
        write_graph=False,
    )
    cbs = CallbackList([cb], model=model)
    cbs.on_train_begin()
    cbs.on_epoch_end(0, {"loss": 1.0})
    cbs.on_train_end()
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert (
        'tensor_name: "embedding/embeddings"' in config and 'metadata_path: "words.tsv"' in config
    )
    matrix = np.loadtxt(tmp_path / "keras_embedding_embedding.tsv", delimiter="\t")
    np.testing.assert_allclose(matrix, model.embedding.embeddings.detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Unrecognized `Embedding` layer names.*'emb2'"):
        CallbackList(
            [TensorBoard(str(tmp_path), embeddings_freq=1, embeddings_metadata={"emb2": "x"})],
            model=model,
        )


def test_argument_errors_and_v1_kwargs(caplog):
    with pytest.raises(
        ValueError, match="Unrecognized arguments in `TensorBoard` Callback: \\['foo'\\]"
    ):
        TensorBoard(foo=1)
    with caplog.at_level(logging.WARNING):
        TensorBoard(write_grads=True, batch_size=32)
    assert (
        "`write_grads` will be ignored" in caplog.text
        and "`batch_size` is no longer needed" in caplog.text
    )
    with pytest.raises(ValueError, match="`update_freq`"):
        TensorBoard(update_freq="step")
    with pytest.raises(ValueError, match="`update_freq`"):
        TensorBoard(update_freq=0)
    with pytest.raises(ValueError, match="`histogram_freq`"):
        TensorBoard(histogram_freq=-1)
    with pytest.raises(ValueError, match="`embeddings_freq`"):
        TensorBoard(embeddings_freq=1.5)


def test_standalone_evaluate_writes_and_closes(tmp_path, model, data, loop):
    x, y = data
    model.optimizer.iterations = 17
    cb = TensorBoard(str(tmp_path), write_graph=False)
    loop.evaluate(model, x, y, callbacks=[cb])
    assert cb._writers == {}
    validation, _ = read(tmp_path / "validation")
    assert [s for s, _ in validation["evaluation_accuracy_vs_iterations"]] == [17]


def test_the_graphs_tab_draws_a_functional_models_edges(tmp_path, loop):
    """TensorBoard's Graphs plugin reads edges in Keras 3's layout (`keras_history`): the config
    written for it has them, and a GraphDef of the same conceptual graph is written for the
    tab's default "op graph" view (it answered 404 without one)."""
    import numpy as np
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    import torchestimator as tf

    inputs = tf.keras.Input((3,), name="x")
    a = tf.keras.layers.Dense(2, name="left")(inputs)
    b = tf.keras.layers.Dense(2, name="right")(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Add(name="sum")([a, b]), name="fork")
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3), "float32"), np.ones((4, 2), "float32"), verbose=0,
              callbacks=[TensorBoard(log_dir=str(tmp_path))])
    train, _ = read(tmp_path / "train")
    ((_, config),) = train["keras"]
    graph = keras_util.keras_model_to_graph_def(json.loads(config.item()))
    edges = {node.name: sorted(node.input) for node in graph.node}
    assert edges["fork/left"] == ["fork/x"] and edges["fork/right"] == ["fork/x"]
    assert edges["fork/sum"] == ["fork/left", "fork/right"]
    events = EventAccumulator(str(tmp_path / "train"))
    events.Reload()
    assert {n.name for n in events.Graph().node} == set(edges)

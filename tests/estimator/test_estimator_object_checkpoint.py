"""Object-based checkpoints from an Estimator: the checkpoint guide's TF2-style model_fn
(`tf.train.Checkpoint` + `GradientTape` + `apply_gradients` + `Scaffold(saver=ckpt)`) run
with only the import changed, the global step as a variable, `apply_gradients` deferred to
the train op, and Scaffold's arguments."""

import os

import numpy as np
import pytest
import torch

import torchestimator as tf

tf_compat = tf.compat.v1

# What TF 2.15's Estimator writes for the guide's model_fn (tf.train.list_variables of
# model.ckpt-10, `_CHECKPOINTABLE_OBJECT_GRAPH` left out), recorded with the TF venv.
TF_GUIDE_KEYS = [
    ("net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE", [5]),
    ("net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE", [1, 5]),
    ("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE", []),
    ("optimizer/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE", []),
    ("optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE", [1, 5]),
    ("optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE", [1, 5]),
    ("optimizer/_variables/3/.ATTRIBUTES/VARIABLE_VALUE", [5]),
    ("optimizer/_variables/4/.ATTRIBUTES/VARIABLE_VALUE", [5]),
    ("step/.ATTRIBUTES/VARIABLE_VALUE", []),
]


# ------------------------------------------------------------------ the guide, verbatim


class Net(tf.keras.Model):
    """A simple linear model."""

    def __init__(self):
        super(Net, self).__init__()  # noqa: UP008 - the guide, verbatim
        self.l1 = tf.keras.layers.Dense(5)

    def call(self, x):
        return self.l1(x)


def toy_dataset():
    inputs = tf.range(10.)[:, None]
    labels = inputs * 5. + tf.range(5.)[None, :]
    return tf.data.Dataset.from_tensor_slices(
        dict(x=inputs, y=labels)).repeat(10).batch(2)


def model_fn(features, labels, mode):
    net = Net()
    opt = tf.keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(step=tf_compat.train.get_global_step(),
                               optimizer=opt, net=net)
    with tf.GradientTape() as tape:
        output = net(features['x'])
        loss = tf.reduce_mean(tf.abs(output - features['y']))
    variables = net.trainable_variables
    gradients = tape.gradient(loss, variables)
    return tf.estimator.EstimatorSpec(
        mode,
        loss=loss,
        train_op=tf.group(opt.apply_gradients(zip(gradients, variables)),
                          ckpt.step.assign_add(1)),
        # Tell the Estimator to save "ckpt" in an object-based format.
        scaffold=tf_compat.train.Scaffold(saver=ckpt))


def restored(path):
    opt = tf.keras.optimizers.Adam(0.1)
    net = Net()
    ckpt = tf.train.Checkpoint(
        step=tf.Variable(1, dtype=tf.int64), optimizer=opt, net=net)
    status = ckpt.restore(path)
    return ckpt, status


@pytest.fixture
def trained(tmp_path):
    model_dir = str(tmp_path / "tf_estimator_example")
    tf.keras.backend.clear_session()
    est = tf.estimator.Estimator(model_fn, model_dir)
    est.train(toy_dataset, steps=10)
    return est, model_dir


def test_guide_object_based_checkpoint(trained):
    est, model_dir = trained
    ckpt, _ = restored(tf.train.latest_checkpoint(model_dir))
    assert ckpt.step.numpy() == 10  # From est.train(..., steps=10)
    latest = tf.train.latest_checkpoint(model_dir)
    assert latest == os.path.join(model_dir, "model.ckpt-10")
    listed = [(n, list(s)) for n, s in tf.train.list_variables(latest) if not n.startswith("_rng/")]
    assert listed == TF_GUIDE_KEYS
    assert est.get_variable_names() == [n for n, _ in TF_GUIDE_KEYS]
    assert est.get_variable_value("step/.ATTRIBUTES/VARIABLE_VALUE") == 10
    assert est.get_variable_value("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == 10


def test_restored_model_and_optimizer_match_and_continue(trained):
    """The deferred values (unbuilt net, unbuilt slots) land when the objects are created."""
    est, model_dir = trained
    ckpt, status = restored(tf.train.latest_checkpoint(model_dir))
    net, opt = ckpt.net, ckpt.optimizer
    assert int(opt.iterations) == 10
    net(tf.constant([[1.0]]))
    np.testing.assert_array_equal(
        net.l1.kernel.numpy(), est.get_variable_value("net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE"))
    opt.build(net.trainable_variables)
    # Everything in the checkpoint was restored; only save_counter (which restore() creates)
    # has no value in an Estimator's checkpoint, exactly as with TF.
    with pytest.raises(AssertionError, match=r"Found 1 Python objects .*\[\(root\)\.save_counter\]"):
        status.assert_consumed()
    assert not status._pending
    np.testing.assert_array_equal(
        opt.variables[1].numpy(), est.get_variable_value("optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE"))


def test_estimator_training_equals_an_eager_loop(trained):
    """Ten Estimator steps from model.ckpt-0 equal ten eager GradientTape steps from the same
    values: apply_gradients ran once per step (not on the build call, not twice)."""
    _, model_dir = trained
    ckpt, status = restored(os.path.join(model_dir, "model.ckpt-0"))
    net, opt = ckpt.net, ckpt.optimizer
    for batch in toy_dataset().take(10):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.abs(net(batch["x"]) - batch["y"]))
        grads = tape.gradient(loss, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))
    assert not status._pending  # the net and the slots were restored on creation
    final, _ = restored(os.path.join(model_dir, "model.ckpt-10"))
    final.net(tf.constant([[1.0]]))
    np.testing.assert_allclose(net.l1.kernel.numpy(), final.net.l1.kernel.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.l1.bias.numpy(), final.net.l1.bias.numpy(), rtol=1e-5, atol=1e-6)
    assert int(opt.iterations) == int(final.optimizer.iterations) == 10


def test_resume_evaluate_and_predict_from_object_checkpoints(trained):
    est, model_dir = trained
    kernel = est.get_variable_value("net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    est.train(toy_dataset, steps=5)  # resumes from the object-based checkpoint
    assert tf.train.latest_checkpoint(model_dir).endswith("model.ckpt-15")
    assert est.get_variable_value("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == 15
    assert not np.array_equal(est.get_variable_value("net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE"), kernel)
    # A new Estimator (fresh objects) resumes from it too.
    again = tf.estimator.Estimator(model_fn, model_dir)
    before = again.get_variable_value("net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    metrics = again.evaluate(toy_dataset, steps=3)  # apply_gradients in EVAL: never applied
    assert metrics["global_step"] == 15
    assert tf.train.latest_checkpoint(model_dir).endswith("model.ckpt-15")
    np.testing.assert_array_equal(again.get_variable_value("net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE"), before)

    def predict_fn(features, mode):
        net = Net()
        ckpt = tf.train.Checkpoint(step=tf_compat.train.get_global_step(), net=net)
        return tf.estimator.EstimatorSpec(mode, predictions={"y": net(features["x"])},
                                          scaffold=tf_compat.train.Scaffold(saver=ckpt))

    predictor = tf.estimator.Estimator(predict_fn, model_dir)
    out = next(predictor.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": [[1.0]]}).batch(1)))
    expected = before[0] + again.get_variable_value("net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE")
    np.testing.assert_allclose(out["y"], expected, rtol=1e-6)


def test_evaluate_mode_never_applies_gradients(tmp_path):
    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    est.evaluate(toy_dataset, steps=2)  # no checkpoint: initializes, evaluates, writes nothing
    assert est.latest_checkpoint() is None
    est.train(toy_dataset, steps=1)
    assert est.get_variable_value("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == 1
    assert est.get_variable_value("step/.ATTRIBUTES/VARIABLE_VALUE") == 1


# ------------------------------------------------------------------------- the global step


def _dense_model_fn(step_update):
    def fn(features, labels, mode):
        dense = tf.keras.layers.Dense(1)
        loss = torch.mean((dense(features["x"]) - labels) ** 2)
        gs = tf_compat.train.get_global_step()
        seen.append((mode, gs))
        ops = [tf.keras.optimizers.SGD(0.1).minimize(loss, var_list=dense.trainable_variables)]
        if step_update is not None:
            ops.append(step_update(gs))
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.group(*ops))

    seen = []
    return fn, seen


def _xy():
    x = np.arange(8, dtype=np.float32).reshape(8, 1)
    return lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).repeat().batch(2)


@pytest.mark.parametrize("update, expected", [
    (None, 4),                                  # no update in the train op: +1 per step
    (lambda gs: gs.assign_add(1), 4),           # the train op's own advance, not a second one
    (lambda gs: gs.assign_add(3), 6),           # what the train op says: steps=4 stops at 6
])
def test_global_step_advance(tmp_path, update, expected):
    fn, seen = _dense_model_fn(update)
    est = tf.estimator.Estimator(fn, str(tmp_path))
    est.train(_xy(), steps=4)
    assert est.get_variable_value("global_step") == expected
    mode, gs = seen[-1]
    assert isinstance(gs, tf.Variable) and gs.dtype == tf.int64 and gs.name == "global_step:0"
    assert not gs.trainable and gs.shape == ()
    assert all(g is gs for _, g in seen)  # one variable across calls
    est.evaluate(_xy(), steps=2)  # EVAL records the update but never applies it
    assert est.get_variable_value("global_step") == expected
    assert int(seen[-1][1]) == expected


def test_max_steps_counts_the_recorded_advance(tmp_path):
    fn, _ = _dense_model_fn(lambda gs: gs.assign_add(2))
    est = tf.estimator.Estimator(fn, str(tmp_path))
    est.train(_xy(), max_steps=6)
    assert est.get_variable_value("global_step") == 6


# ------------------------------------------------------------------------------ Scaffold


def test_scaffold_arguments_and_init_fn_once(tmp_path):
    calls = []

    def init_fn(scaffold, session):
        calls.append((scaffold, session.global_step))

    def fn(features, labels, mode):
        dense = tf.keras.layers.Dense(1)
        loss = torch.mean((dense(features["x"]) - labels) ** 2)
        scaffold = tf_compat.train.Scaffold(init_op=tf.no_op(), init_fn=init_fn, ready_op=None,
                                            local_init_op=tf.no_op(), summary_op=None)
        assert scaffold.finalize() is scaffold
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=tf.keras.optimizers.SGD(0.1).minimize(loss), scaffold=scaffold)

    est = tf.estimator.Estimator(fn, str(tmp_path))
    est.train(_xy(), steps=2)
    assert len(calls) == 1 and isinstance(calls[0][0], tf_compat.train.Scaffold) and calls[0][1] == 0
    est.train(_xy(), steps=2)  # resumes from a checkpoint: not called again
    tf.estimator.Estimator(fn, str(tmp_path)).train(_xy(), steps=1)
    assert len(calls) == 1


def test_scaffold_validation_and_copy():
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    base = tf_compat.train.Scaffold(saver=ckpt, init_fn=lambda scaffold, session: None)
    copy = tf_compat.train.Scaffold(copy_from_scaffold=base, ready_op="ready")
    assert copy.saver is ckpt and copy.ready_op == "ready" and copy.init_fn is not None
    assert tf_compat.train.Scaffold().init_fn is None
    assert tf_compat.train.Scaffold.get_or_default("x", "k", lambda: 3) == 3
    with pytest.raises(TypeError, match="saver must be a tf.train.Checkpoint"):
        tf_compat.train.Scaffold(saver=object())
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold"):
        tf_compat.train.Scaffold(copy_from_scaffold=object())


def test_scaffold_checkpoint_covers_part_of_the_model(tmp_path):
    """Values the scaffold's Checkpoint does not track keep the Estimator's names."""
    def fn(features, labels, mode):
        tracked = tf.keras.layers.Dense(2, name="tracked")
        other = tf.keras.layers.Dense(1, name="other")
        loss = torch.mean((other(tracked(features["x"])) - labels) ** 2)
        opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
        ckpt = tf.train.Checkpoint(step=tf_compat.train.get_global_step(), layer=tracked)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=opt.minimize(loss),
                                          scaffold=tf_compat.train.Scaffold(saver=ckpt))

    est = tf.estimator.Estimator(fn, str(tmp_path))
    est.train(_xy(), steps=3)
    names = est.get_variable_names()
    assert "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE" in names and "step/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "other/kernel" in names and "tracked/kernel" not in names and "global_step" not in names
    assert any(n.startswith("training/SGD/") for n in names)  # its optimizer is not tracked
    est.train(_xy(), steps=2)
    assert est.get_variable_value("step/.ATTRIBUTES/VARIABLE_VALUE") == 5
    ws = tf.estimator.Estimator(fn, str(tmp_path / "ws"), warm_start_from=str(tmp_path))
    ws.train(_xy(), steps=1)
    ckpt0 = os.path.join(str(tmp_path / "ws"), "model.ckpt-0")
    np.testing.assert_array_equal(  # warm-started through the object path
        tf.train.load_variable(ckpt0, "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
        est.get_variable_value("layer/kernel/.ATTRIBUTES/VARIABLE_VALUE"))

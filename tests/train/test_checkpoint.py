"""tf.train.Checkpoint and tf.train.CheckpointManager: TF's object-path keys (compared with a
fixture recorded from TF 2.15), save/write/read/restore, deferred restoration into layers and
optimizers created later, the restore status checks, and the errors."""

import json
import os

import numpy as np
import pytest
import torch

import torchestimator as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "checkpoint_keys.json")


# --------------------------------------------------------------------------------- models


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.l1 = tf.keras.layers.Dense(5)

    def call(self, x):
        return self.l1(x)


class Inner(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(name="weight", shape=(2,))
        self.subs = [tf.keras.layers.Dense(1), tf.keras.layers.Dense(2)]
        self.dd = {"a": tf.keras.layers.Dense(1)}

    def call(self, x):
        return x


class Outer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.seq = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.BatchNormalization()])
        self.inner = Inner()
        self.v = tf.Variable(1.0)

    def call(self, x):
        return self.seq(self.inner(x))


class Holder(tf.Module):
    def __init__(self):
        super().__init__()
        self.a = tf.Variable(1.0)
        self.b = [tf.Variable(2.0)]


def one_step(layer, optimizer, x):
    with tf.GradientTape() as tape:
        loss = torch.sum(layer(x) ** 2)
    grads = tape.gradient(loss, layer.trainable_variables)
    optimizer.apply_gradients(zip(grads, layer.trainable_variables))


def build_guide():
    net, opt = Net(), tf.keras.optimizers.Adam(0.1)
    one_step(net, opt, torch.ones(1, 1))
    return tf.train.Checkpoint(step=tf.Variable(1, dtype=tf.int64), optimizer=opt, net=net)


def build_structures():
    outer = Outer()
    outer(torch.ones(2, 4))
    for sub in outer.inner.subs:
        sub.build((None, 2))
    outer.inner.dd["a"].build((None, 2))
    inputs = tf.keras.Input((2,))
    outputs = tf.keras.layers.Dense(1, name="out")(tf.keras.layers.Dropout(0.1)(inputs))
    functional = tf.keras.Model(inputs, outputs)
    seq = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,)), tf.keras.layers.Dropout(0.1),
                               tf.keras.layers.Dense(1)])
    return tf.train.Checkpoint(m=outer, f=functional, o=Holder(), seq=seq,
                               nested=tf.train.Checkpoint(a=tf.Variable(3.0)), v=tf.Variable([1.0, 2.0]))


OPTIMIZERS = {
    "legacy_adam": lambda: tf.keras.optimizers.legacy.Adam(0.1),
    "legacy_sgd_momentum": lambda: tf.keras.optimizers.legacy.SGD(0.1, momentum=0.9),
    "v1_adam": lambda: tf.compat.v1.train.AdamOptimizer(0.1),
    "v1_momentum": lambda: tf.compat.v1.train.MomentumOptimizer(0.1, 0.9),
    "v1_gradient_descent": lambda: tf.compat.v1.train.GradientDescentOptimizer(0.1),
    "sgd_ema": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, use_ema=True),
    "rmsprop_centered": lambda: tf.keras.optimizers.RMSprop(0.1, momentum=0.5, centered=True),
}


def build_optimizer(name, seed=0):
    torch.manual_seed(seed)
    dense = tf.keras.layers.Dense(2)
    dense.build((None, 3))
    opt = OPTIMIZERS[name]()
    one_step(dense, opt, torch.ones(1, 3))
    return tf.train.Checkpoint(d=dense, opt=opt)


def listed(path):
    return [[name, list(shape)] for name, shape in tf.train.list_variables(path)]


# ------------------------------------------------------------------------ keys (vs TF 2.15)


@pytest.fixture(scope="module")
def tf_keys():
    with open(FIXTURE) as f:
        return json.load(f)["cases"]


def test_guide_keys_match_tensorflow(tmp_path, tf_keys):
    path = build_guide().save(str(tmp_path / "guide"))
    assert path == str(tmp_path / "guide-1")
    assert listed(path) == tf_keys["guide"]


def test_layer_model_module_keys_match_tensorflow(tmp_path, tf_keys):
    assert listed(build_structures().write(str(tmp_path / "s"))) == tf_keys["structures"]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_keys_match_tensorflow(tmp_path, tf_keys, name):
    assert listed(build_optimizer(name).write(str(tmp_path / name))) == tf_keys[name]


# ------------------------------------------------------------------ save / write / restore


def test_save_numbers_checkpoints_and_updates_the_index(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    assert int(ckpt.save_counter) == 0
    first = ckpt.save(str(tmp_path / "a"))
    second = ckpt.save(str(tmp_path / "b"))
    assert (first, second) == (str(tmp_path / "a-1"), str(tmp_path / "b-2"))
    assert tf.train.latest_checkpoint(str(tmp_path)) == second
    with open(tmp_path / "checkpoint") as f:
        assert f.read() == 'model_checkpoint_path: "b-2"\nall_model_checkpoint_paths: "b-2"\n'
    written = ckpt.write(str(tmp_path / "w"))
    assert written == str(tmp_path / "w") and int(ckpt.save_counter) == 2  # write does not count
    assert tf.train.latest_checkpoint(str(tmp_path)) == second  # nor touch the index
    assert sorted(os.listdir(tmp_path)) == [
        "a-1.json", "a-1.safetensors", "b-2.json", "b-2.safetensors", "checkpoint", "w.json",
        "w.safetensors"]


def test_write_without_save_counter_and_read_restore_it(tmp_path):
    plain = tf.train.Checkpoint(v=tf.Variable(5.0))
    path = plain.write(str(tmp_path / "plain"))
    assert [n for n, _ in tf.train.list_variables(path)] == ["v/.ATTRIBUTES/VARIABLE_VALUE"]
    counted = tf.train.Checkpoint(v=tf.Variable(5.0))
    counted.save(str(tmp_path / "c"))
    counted.save(str(tmp_path / "c"))
    written = counted.write(str(tmp_path / "w"))  # save_counter exists now: it is written
    fresh = tf.train.Checkpoint(v=tf.Variable(0.0))
    status = fresh.read(written)  # read() does not create save_counter: its value waits
    with pytest.raises(AssertionError, match=r"Unresolved values .*\(root\)\.save_counter"):
        status.assert_consumed()
    assert int(fresh.save_counter) == 2 and float(fresh.v) == 5.0  # created: restored
    status.assert_consumed()
    # restore() creates save_counter: a checkpoint without it leaves it unmatched, as TF
    other = tf.train.Checkpoint(v=tf.Variable(0.0))
    status = other.restore(path)
    assert float(other.v) == 5.0 and int(other.save_counter) == 0
    with pytest.raises(AssertionError, match=r"1 Python objects .*\(root\)\.save_counter"):
        status.assert_consumed()


def test_round_trip_restores_values_and_continues_identically(tmp_path):
    torch.manual_seed(0)
    ckpt = build_guide()
    ckpt.step.assign(42)
    path = ckpt.save(str(tmp_path / "ckpt"))
    torch.manual_seed(1)
    net, opt = Net(), tf.keras.optimizers.Adam(0.1)
    restored = tf.train.Checkpoint(step=tf.Variable(1, dtype=tf.int64), optimizer=opt, net=net)
    status = restored.restore(path)
    # known now: the step and the optimizer's scalars; the unbuilt layer and slots wait
    assert restored.step.numpy() == 42 and restored.step.dtype == torch.int64
    assert int(opt.iterations) == 1 and float(opt.learning_rate) == pytest.approx(0.1)
    with pytest.raises(AssertionError, match=r"Unresolved values .*\(root\)\.net\.l1\.kernel"):
        status.assert_consumed()
    status.assert_existing_objects_matched()
    net(torch.ones(1, 1))  # builds l1: its kernel and bias are restored on creation
    np.testing.assert_array_equal(net.l1.kernel.numpy(), ckpt.net.l1.kernel.numpy())
    np.testing.assert_array_equal(net.l1.bias.numpy(), ckpt.net.l1.bias.numpy())
    one_step(net, opt, torch.ones(1, 1))  # builds the slots (restored), then steps
    one_step(ckpt.net, ckpt.optimizer, torch.ones(1, 1))
    status.assert_consumed()
    np.testing.assert_allclose(net.l1.kernel.numpy(), ckpt.net.l1.kernel.numpy(), rtol=1e-6)
    for a, b in zip(opt.variables, ckpt.optimizer.variables):
        np.testing.assert_allclose(a.numpy() if hasattr(a, "numpy") else a, b.numpy(), rtol=1e-6)
    # the wrappers that waited for the builds are gone once everything was restored
    assert "build" not in vars(net.l1) and "build" not in vars(opt)


def test_unbuilt_sequential_restores_on_build(tmp_path):
    torch.manual_seed(0)
    seq = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dropout(0.5),
                               tf.keras.layers.Dense(1)])
    seq(torch.ones(2, 4))
    path = tf.train.Checkpoint(model=seq).write(str(tmp_path / "seq"))
    fresh = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dropout(0.5),
                                 tf.keras.layers.Dense(1)])
    status = tf.train.Checkpoint(model=fresh).read(path)
    fresh(torch.ones(2, 4))
    status.assert_consumed()
    for a, b in zip(fresh.get_weights(), seq.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["legacy_adam", "v1_adam", "v1_momentum", "sgd_ema", "rmsprop_centered"])
def test_optimizer_state_round_trip(tmp_path, name):
    source = build_optimizer(name, seed=0)
    one_step(source.d, source.opt, torch.ones(1, 3))
    path = source.write(str(tmp_path / "opt"))
    target = build_optimizer(name, seed=1)  # other weights, one step of its own
    target.read(path).assert_consumed()
    if name != "v1_momentum":  # TF1's Momentum keeps no step count (its rule needs none)
        assert int(target.opt.iterations) == int(source.opt.iterations) == 2
    one_step(source.d, source.opt, torch.ones(1, 3))
    one_step(target.d, target.opt, torch.ones(1, 3))
    for a, b in zip(target.d.get_weights(), source.d.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_tensors_modules_nested_and_plain_objects(tmp_path):
    class Plain:
        def __init__(self):
            self.w = tf.Variable([1.0, 2.0])
            self.items = {"t": torch.zeros(2)}
            self.note = "not tracked"

    module = torch.nn.Linear(2, 3)
    buffer_module = torch.nn.BatchNorm1d(3)
    tensor = torch.arange(4.0)
    ckpt = tf.train.Checkpoint(t=tensor, mod=module, bn=buffer_module, plain=Plain(),
                               inner=tf.train.Checkpoint(x=tf.Variable(7)))
    ckpt.later = tf.Variable(3.0)  # attributes set after construction are tracked too
    path = ckpt.write(str(tmp_path / "mixed"))
    names = [n for n, _ in tf.train.list_variables(path)]
    assert names == sorted([
        "t/.ATTRIBUTES/VARIABLE_VALUE", "mod/weight/.ATTRIBUTES/VARIABLE_VALUE",
        "mod/bias/.ATTRIBUTES/VARIABLE_VALUE", "bn/weight/.ATTRIBUTES/VARIABLE_VALUE",
        "bn/bias/.ATTRIBUTES/VARIABLE_VALUE", "bn/running_mean/.ATTRIBUTES/VARIABLE_VALUE",
        "bn/running_var/.ATTRIBUTES/VARIABLE_VALUE", "bn/num_batches_tracked/.ATTRIBUTES/VARIABLE_VALUE",
        "plain/w/.ATTRIBUTES/VARIABLE_VALUE", "plain/items/t/.ATTRIBUTES/VARIABLE_VALUE",
        "inner/x/.ATTRIBUTES/VARIABLE_VALUE", "later/.ATTRIBUTES/VARIABLE_VALUE",
    ])
    fresh_tensor = torch.zeros(4)
    fresh_module = torch.nn.Linear(2, 3)
    target = tf.train.Checkpoint(t=fresh_tensor, mod=fresh_module)
    status = target.read(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Unresolved values"):
        status.assert_consumed()
    status.expect_partial()
    assert torch.equal(fresh_tensor, tensor)  # restored in place
    assert torch.equal(fresh_module.weight, module.weight)
    later = tf.Variable(0.0)
    target.later = later  # restored on assignment, as TF
    assert float(later) == 3.0


def test_restore_none_and_status_checks(tmp_path):
    status = tf.train.Checkpoint(v=tf.Variable(1.0)).restore(None)
    assert status.run_restore_ops() is None and status.expect_partial() is status
    for check in (status.assert_consumed, status.assert_existing_objects_matched,
                  status.assert_nontrivial_match):
        with pytest.raises(AssertionError, match="No checkpoint specified"):
            check()
    path = tf.train.Checkpoint(a=tf.Variable(1.0)).write(str(tmp_path / "a"))
    unrelated = tf.train.Checkpoint(b=tf.Variable(1.0)).read(path)
    with pytest.raises(AssertionError, match=r"\(root\)\.b"):
        unrelated.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Nothing was restored"):
        unrelated.assert_nontrivial_match()


# ------------------------------------------------------------------------------ errors


def test_restore_missing_path_names_it(tmp_path):
    missing = str(tmp_path / "nope-3")
    with pytest.raises(tf.errors.NotFoundError, match=f"{missing}.*checkpoint suffix"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(missing)
    with pytest.raises(tf.errors.NotFoundError, match="No complete checkpoint in directory"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path))


def test_restore_shape_mismatch_names_object_and_both_shapes(tmp_path):
    path = tf.train.Checkpoint(net=tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])).write(
        str(tmp_path / "x"))
    other = tf.train.Checkpoint(net=tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(5,))]))
    with pytest.raises(ValueError, match=r"\(root\)\.net\.layer_with_weights-0\.kernel.*shape \[4, 3\].*shape \[5, 3\]"):
        other.read(path)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\(root\)\.v.*dtype float32, but the object has dtype int64"):
        tf.train.Checkpoint(v=tf.Variable(1, dtype=tf.int64)).read(
            tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "f")))


def test_unwritable_directory_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    target = str(blocker / "sub" / "ckpt")
    with pytest.raises(tf.errors.NotFoundError, match=str(blocker / "sub")):
        tf.train.Checkpoint(v=tf.Variable(1.0)).save(target)
    with pytest.raises(OSError, match=str(blocker / "sub")):
        tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(blocker / "sub"), 2)


def test_non_trackable_arguments_are_refused():
    with pytest.raises(ValueError, match="expecting x to be a trackable object.*got 3"):
        tf.train.Checkpoint(x=3)
    with pytest.raises(ValueError, match="expecting x to be a trackable object"):
        tf.train.Checkpoint(x="text")
    with pytest.raises(TypeError, match="must be a tf.train.Checkpoint"):
        tf.train.CheckpointManager(object(), "/tmp/unused", 1)
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        tf.train.CheckpointManager(tf.train.Checkpoint(), "/tmp/unused", 1, checkpoint_interval=5)


# ------------------------------------------------------------------------ CheckpointManager


def test_manager_keeps_max_to_keep_and_recovers(tmp_path):
    directory = str(tmp_path / "mgr")
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = [manager.save() for _ in range(4)]
    assert paths == [os.path.join(directory, f"ckpt-{i}") for i in range(1, 5)]
    assert manager.save(checkpoint_number=100) == os.path.join(directory, "ckpt-100")
    assert manager.checkpoints == [os.path.join(directory, "ckpt-4"), os.path.join(directory, "ckpt-100")]
    assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-100.json", "ckpt-100.safetensors",
                                             "ckpt-4.json", "ckpt-4.safetensors"]
    assert tf.train.latest_checkpoint(directory) == manager.latest_checkpoint
    assert int(ckpt.save_counter) == 5
    assert "save_counter/.ATTRIBUTES/VARIABLE_VALUE" in dict(tf.train.list_variables(manager.latest_checkpoint))
    again = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    assert again.checkpoints == manager.checkpoints
    ckpt.v.assign(9.0)
    assert again.restore_or_initialize() == os.path.join(directory, "ckpt-100")
    assert float(ckpt.v) == 1.0
    called = []
    empty = tf.train.CheckpointManager(ckpt, str(tmp_path / "empty"), 1, init_fn=lambda: called.append(1))
    assert empty.restore_or_initialize() is None and called == [1]


def test_manager_checkpoint_name_and_interval(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    named = tf.train.CheckpointManager(ckpt, str(tmp_path / "n"), 2, checkpoint_name="model")
    assert os.path.basename(named.save()) == "model-1"
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "i"), None, step_counter=step,
                                         checkpoint_interval=5)
    assert manager.checkpoint_interval == 5 and manager.directory == str(tmp_path / "i")
    assert os.path.basename(manager.save()) == "ckpt-2"
    assert manager.save() is None  # same step
    step.assign(3)
    assert manager.save() is None  # fewer than 5 steps since the last save
    assert os.path.basename(manager.save(check_interval=False)) == "ckpt-3"
    step.assign(8)
    assert os.path.basename(manager.save(checkpoint_number=step)) == "ckpt-8"
    assert len(manager.checkpoints) == 3  # max_to_keep=None keeps everything


def test_root_argument_keys_without_prefix(tmp_path):
    dense = tf.keras.layers.Dense(2)
    dense.build((None, 3))
    path = tf.train.Checkpoint(root=dense, extra=tf.Variable(1.0)).save(str(tmp_path / "c"))
    assert [n for n, _ in tf.train.list_variables(path)] == [  # as TF 2.15
        "bias/.ATTRIBUTES/VARIABLE_VALUE", "extra/.ATTRIBUTES/VARIABLE_VALUE",
        "kernel/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    with pytest.raises(ValueError, match="keyword argument kernel if root.kernel already exists"):
        tf.train.Checkpoint(root=dense, kernel=tf.Variable(1.0))


def test_legacy_slots_restored_when_the_optimizer_builds(tmp_path):
    source = build_optimizer("legacy_adam", seed=0)
    path = source.write(str(tmp_path / "legacy"))
    torch.manual_seed(1)
    dense = tf.keras.layers.Dense(2)
    dense.build((None, 3))
    opt = tf.keras.optimizers.legacy.Adam(0.1)
    status = tf.train.Checkpoint(d=dense, opt=opt).read(path)
    assert int(opt.iterations) == 1  # `iter`, at once
    with pytest.raises(AssertionError, match=r"\(root\)\.d\.kernel\.\.OPTIMIZER_SLOT\.opt\.m"):
        status.assert_consumed()
    one_step(dense, opt, torch.ones(1, 3))  # builds the slots: restored first, then updated
    one_step(source.d, source.opt, torch.ones(1, 3))
    status.assert_consumed()
    for a, b in zip(dense.get_weights(), source.d.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_checkpoint_of_plain_variables_never_imports_keras(tmp_path):
    """`train` sits below `keras` (the layers contract): Keras registers its classes with the
    object graph when it loads, so a checkpoint without Keras objects does not load Keras."""
    import subprocess
    import sys

    code = (
        "import sys, torchestimator as tf\n"
        "ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]), step=tf.Variable(3))\n"
        f"path = ckpt.save({str(tmp_path / 'ckpt')!r})\n"
        "restored = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0]), step=tf.Variable(0))\n"
        "restored.restore(path)\n"
        "print(restored.v.numpy().tolist(), int(restored.step),\n"
        "      any(m.startswith('torchestimator.keras') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[1.0,", "2.0]", "3", "False"]

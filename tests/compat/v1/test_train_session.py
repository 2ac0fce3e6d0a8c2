"""tf.compat.v1.train: Saver, MonitoredTrainingSession with hooks, the global step, refusals;
tf.train.checkpoints_iterator over a training run's checkpoints."""

import os

import numpy as np
import pytest

import torchestimator as tf
from torchestimator.compat.v1._refusals import GraphMachineryError

v1 = tf.compat.v1


@pytest.fixture(autouse=True)
def fresh_store():
    v1.reset_default_graph()
    yield
    v1.reset_default_graph()


def test_saver_round_trip_and_max_to_keep(tmp_path):
    var = tf.Variable([1.0, 2.0], name="a")
    saver = v1.train.Saver([var], max_to_keep=2)
    paths = []
    for step in range(4):
        var.assign([float(step), 10.0 * step])
        paths.append(saver.save(None, str(tmp_path / "model.ckpt"), global_step=step))
    assert paths[-1] == str(tmp_path / "model.ckpt-3")
    assert saver.last_checkpoints == paths[2:]
    assert not os.path.exists(paths[0] + ".json") and os.path.exists(paths[2] + ".json")
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[3]
    assert v1.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths == paths[2:]
    var.assign([0.0, 0.0])
    saver.restore(None, paths[2])
    np.testing.assert_array_equal(var.numpy(), [2.0, 20.0])
    assert tf.train.list_variables(paths[3]) == [("a", [2])]


def test_saver_defaults_to_tf1_global_variables(tmp_path):
    w = v1.get_variable("w", shape=[2], initializer=v1.constant_initializer(3.0))
    path = v1.train.Saver().save(None, str(tmp_path / "m"))
    assert path == str(tmp_path / "m")
    np.testing.assert_array_equal(tf.train.load_variable(path, "w"), [3.0, 3.0])
    w.assign([0.0, 0.0])
    v1.train.Saver().restore(None, path)
    np.testing.assert_array_equal(w.numpy(), [3.0, 3.0])


def test_saver_errors(tmp_path):
    with pytest.raises(ValueError, match="save_path is required"):
        v1.train.Saver([tf.Variable(1.0, name="x")]).save(None, None)
    with pytest.raises(ValueError, match="no variables to save"):
        v1.train.Saver().save(None, str(tmp_path / "m"))
    path = v1.train.Saver([tf.Variable(1.0, name="x")]).save(None, str(tmp_path / "m"))
    with pytest.raises(KeyError, match="Key y not found"):
        v1.train.Saver([tf.Variable(1.0, name="y")]).restore(None, path)


def test_global_step_functions():
    assert v1.train.get_global_step() is None
    step = v1.train.create_global_step()
    assert step.name == "global_step:0" and step.dtype == tf.int64
    assert v1.train.get_or_create_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        v1.train.create_global_step()
    step.assign(7)
    assert v1.train.global_step(None, step) == 7
    v1.train.assert_global_step(step)
    with pytest.raises(TypeError, match="integer type"):
        v1.train.assert_global_step(tf.Variable(1.0))


def _train(checkpoint_dir, last_step, save_steps):
    w = v1.get_variable("w", shape=[], initializer=v1.zeros_initializer())
    seen = []

    def step_fn():
        w.assign_add(1.0)
        return {"loss": w * 2.0}

    hooks = [v1.train.StopAtStepHook(last_step=last_step)]
    with v1.train.MonitoredTrainingSession(checkpoint_dir=checkpoint_dir, hooks=hooks,
                                           save_checkpoint_steps=save_steps) as sess:
        while not sess.should_stop():
            seen.append(sess.run(step_fn)["loss"])
    return w, seen


def test_monitored_training_session_stops_and_checkpoints(tmp_path):
    w, seen = _train(str(tmp_path), last_step=5, save_steps=2)
    assert seen == [2.0, 4.0, 6.0, 8.0, 10.0]
    assert int(v1.train.get_global_step().numpy()) == 5
    names = dict(tf.train.list_variables(str(tmp_path)))
    assert names == {"global_step": [], "w": []}  # TF's names
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-5")
    assert tf.train.load_variable(str(tmp_path), "w") == 5.0
    # A new session resumes from the checkpoint: only steps 6..7 run.
    v1.reset_default_graph()
    w, seen = _train(str(tmp_path), last_step=7, save_steps=2)
    assert seen == [12.0, 14.0]


def test_checkpoints_iterator_yields_the_runs_checkpoints(tmp_path):
    _train(str(tmp_path), last_step=3, save_steps=1)
    found = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.05))
    assert found == [str(tmp_path / "model.ckpt-3")]
    calls = []
    assert list(tf.train.checkpoints_iterator(str(tmp_path / "none"), timeout=0.05,
                                              timeout_fn=lambda: calls.append(1) or True)) == []
    assert calls == [1]


def test_hook_sees_session_run_values():
    class Fetch(v1.train.SessionRunHook):
        def __init__(self):
            self.values = []

        def before_run(self, run_context):
            return v1.train.SessionRunArgs({"loss": "loss", "step": "global_step"})

        def after_run(self, run_context, run_values):
            self.values.append(run_values.results)
            if len(self.values) == 2:
                run_context.request_stop()

    hook = Fetch()
    with v1.train.MonitoredSession(hooks=[hook]) as sess:
        while not sess.should_stop():
            sess.run(lambda: {"loss": tf.constant(1.5)})
    assert hook.values == [{"loss": 1.5, "step": 0}, {"loss": 1.5, "step": 1}]
    assert sess.should_stop()


def test_basic_train_loop_and_device_setter():
    calls = []
    with v1.train.SingularMonitoredSession(hooks=[v1.train.StopAtStepHook(num_steps=3)]) as sess:
        v1.train.basic_train_loop(sess, lambda s: calls.append(s.run(lambda: 1)))
    assert calls == [1, 1, 1]
    assert v1.train.replica_device_setter(ps_tasks=2)(None) == ""


@pytest.mark.parametrize("name", ["shuffle_batch", "batch", "start_queue_runners", "QueueRunner",
                                  "add_queue_runner", "input_producer", "string_input_producer"])
def test_queue_machinery_is_refused(name):
    with pytest.raises(GraphMachineryError, match="input queues are replaced by tf.data"):
        getattr(v1.train, name)()


def test_server_is_refused_naming_tf_distribute():
    with pytest.raises(GraphMachineryError, match="tf.distribute"):
        v1.train.Server(None)


def test_remove_checkpoint_and_mtimes(tmp_path):
    path = v1.train.Saver([tf.Variable(1.0, name="x")]).save(None, str(tmp_path / "m"), global_step=1)
    assert len(v1.train.get_checkpoint_mtimes([path, str(tmp_path / "none")])) == 1
    v1.train.remove_checkpoint(path)
    assert v1.train.get_checkpoint_mtimes([path]) == []


def test_cluster_protos_and_checkpoint_reader(tmp_path):
    job = tf.train.JobDef(name="worker", tasks={0: "localhost:2222"})
    cluster = tf.train.ClusterDef(job=[job])
    assert cluster.job[0].tasks[0] == "localhost:2222"
    assert v1.train.SaverDef(max_to_keep=3).max_to_keep == 3
    path = v1.train.Saver([tf.Variable([4.0], name="x")]).save(None, str(tmp_path / "m"))
    reader = v1.train.NewCheckpointReader(path)
    np.testing.assert_array_equal(reader.get_tensor("x"), [4.0])


def test_summary_iterator_reads_events(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tf.summary.scalar("loss", 0.5, step=3)
    writer.flush()
    files = [p for p in tmp_path.iterdir() if "tfevents" in p.name]
    events = list(v1.train.summary_iterator(str(files[0])))
    values = [(e.step, v.tag) for e in events for v in e.summary.value]
    assert values == [(3, "loss")]

"""A finite input used up by train(): the next train() reads input_fn from its start, as TF's,
whether or not the last step was a checkpoint step (so the checkpoint holds the position at
the input's end); a train() interrupted in the middle of its input still resumes there (the
input position saved with the checkpoint)."""

from __future__ import annotations

import logging

import pytest
from _estimator_testlib import X, Y, config, input_fn, linear_model_fn

import torchestimator as tf
from torchestimator._engine import checkpoint as ckpt


def _position(model_dir: str):
    return (ckpt.checkpoint_metadata(tf.train.latest_checkpoint(model_dir)).get("extra") or {}).get(
        "input_position")


def _generator_input_fn(n_batches: int, calls: list):
    """An input_fn over a generator (a Dataset of unknown cardinality); counts its calls."""

    def fn():
        calls.append(1)

        def gen():
            for i in range(n_batches):
                yield {"x": X[i * 8:(i + 1) * 8]}, Y[i * 8:(i + 1) * 8]

        return tf.data.Dataset.from_generator(gen, output_signature=(
            {"x": tf.TensorSpec((8, 3), tf.float32)}, tf.TensorSpec((8, 1), tf.float32)))

    return fn


@pytest.mark.parametrize("save_steps", [1, 2, 4, 3])
def test_second_train_on_a_finite_input_makes_the_same_steps(tmp_path, save_steps, caplog):
    # 4 batches; checkpoints every `save_steps`: 1, 2 and 4 make the last step a checkpoint step.
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=save_steps))
    est.train(input_fn(4))
    assert est.get_variable_value("global_step") == 4
    caplog.set_level(logging.INFO, logger="torchestimator")
    est.train(input_fn(4))
    assert est.get_variable_value("global_step") == 8
    assert "Resuming the input" not in caplog.text  # known cardinality: nothing read to find out
    # A new Estimator on the same model_dir (a restarted program) too.
    again = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                   config=config(save_checkpoints_steps=save_steps))
    again.train(input_fn(4))
    assert again.get_variable_value("global_step") == 12


def test_an_input_of_unknown_length_used_up_at_a_checkpoint_is_read_again(tmp_path):
    calls: list = []
    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=2))
    est.train(_generator_input_fn(4, calls))
    assert _position(str(tmp_path)) == 4  # saved after step 4, before the input was found used up
    est.train(_generator_input_fn(4, calls))
    assert est.get_variable_value("global_step") == 8
    assert len(calls) == 3  # the second train() read 4 batches, found none, and called input_fn again


def test_a_train_stopped_in_the_middle_of_its_input_still_resumes_there(tmp_path):
    class Interrupt(tf.estimator.SessionRunHook):
        def after_run(self, run_context, run_values):
            if run_context.session.global_step == 3:
                raise KeyboardInterrupt

    est = tf.estimator.Estimator(linear_model_fn, model_dir=str(tmp_path),
                                 config=config(save_checkpoints_steps=2))
    with pytest.raises(KeyboardInterrupt):
        est.train(input_fn(5), hooks=[Interrupt()])
    assert _position(str(tmp_path)) == 3  # the checkpoint of Ctrl-C, after 3 of 5 batches
    est.train(input_fn(5))  # the 2 batches left
    assert est.get_variable_value("global_step") == 5
    est.train(input_fn(5))  # used up (at checkpoint step 5): all 5 batches again
    assert est.get_variable_value("global_step") == 10

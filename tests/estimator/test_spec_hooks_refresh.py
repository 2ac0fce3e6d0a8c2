"""The kept spec hooks get each step's model_fn tensors: declared attributes always, found ones
until the hook changes them itself."""

import torch

import torchestimator as tf
from torchestimator.estimator._spec_hooks import SpecHooks


def test_declared_attributes_are_taken_from_each_new_hook():
    first = tf.estimator.LoggingTensorHook({"x": torch.tensor(1.0)}, every_n_iter=1)
    kept = SpecHooks()
    kept.keep(first)
    new = tf.estimator.LoggingTensorHook({"x": torch.tensor(2.0)}, every_n_iter=1)
    stale = first._tensors["x"]
    remap: dict = {}
    kept.refresh(first, new, remap)
    assert first._tensors is new._tensors
    assert remap[id(stale)] is new._tensors["x"]
    assert first._timer is not new._timer  # the hook's own state stays


class _UserHook(tf.estimator.SessionRunHook):
    def __init__(self, value):
        self.value = value  # a tensor of model_fn
        self.total = torch.zeros(())  # the hook's own running state
        self.count = 0

    def after_run(self, run_context, run_values):
        self.total += 1  # changed in place: its own from now on
        self.count += 1


def test_found_attributes_are_refreshed_until_the_hook_changes_them():
    first = _UserHook(torch.tensor(1.0))
    kept = SpecHooks()
    kept.keep(first)
    for step in range(3):
        first.after_run(None, None)
        new = _UserHook(torch.tensor(float(step + 2)))
        kept.refresh(first, new, {})
        assert first.value is new.value  # model_fn's tensor: this step's
        assert float(first.total) == step + 1  # not reset to the new hook's zero
        assert first.count == step + 1


def test_a_found_attribute_the_hook_reassigns_is_left_alone():
    first = _UserHook(torch.tensor(1.0))
    kept = SpecHooks()
    kept.keep(first)
    mine = torch.tensor(42.0)
    first.value = mine  # the hook took the attribute over
    kept.refresh(first, _UserHook(torch.tensor(5.0)), {})
    assert first.value is mine
    kept.refresh(first, _UserHook(torch.tensor(6.0)), {})
    assert first.value is mine


def test_every_built_in_hook_that_holds_model_fn_values_declares_them():
    assert tf.estimator.NanTensorHook._model_fn_attributes == ("_loss",)
    assert tf.estimator.SummarySaverHook._model_fn_attributes == ("_summary_op",)
    assert tf.estimator.FinalOpsHook._model_fn_attributes == ("_final_ops",)
    hook = tf.estimator.NanTensorHook(torch.tensor(1.0))
    assert all(hasattr(hook, name) for name in type(hook)._model_fn_attributes)

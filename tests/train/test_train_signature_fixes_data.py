"""tf.train's checkpoint readers take TF 2.15's argument names: `list_variables(ckpt_dir_or_file)`,
`load_variable(ckpt_dir_or_file, name)` (a prefix or a directory, by keyword or position)."""

from __future__ import annotations

import inspect

import numpy as np

import torchestimator as tf


def _checkpoint(tmp_path):
    ckpt = tf.train.Checkpoint(x=tf.Variable([1.0, 2.0]))
    return ckpt.save(str(tmp_path / "ckpt"))


def test_list_variables_takes_ckpt_dir_or_file(tmp_path):
    path = _checkpoint(tmp_path)
    assert list(inspect.signature(tf.train.list_variables).parameters) == ["ckpt_dir_or_file"]
    want = [("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []), ("x/.ATTRIBUTES/VARIABLE_VALUE", [2])]
    assert tf.train.list_variables(ckpt_dir_or_file=path) == want
    assert tf.train.list_variables(ckpt_dir_or_file=str(tmp_path)) == want  # the latest one
    assert tf.compat.v1.train.list_variables(path) == want


def test_load_variable_takes_ckpt_dir_or_file_and_name(tmp_path):
    path = _checkpoint(tmp_path)
    assert list(inspect.signature(tf.train.load_variable).parameters) == ["ckpt_dir_or_file", "name"]
    np.testing.assert_array_equal(
        tf.train.load_variable(ckpt_dir_or_file=path, name="x/.ATTRIBUTES/VARIABLE_VALUE"), [1.0, 2.0])
    np.testing.assert_array_equal(
        tf.compat.v1.train.load_variable(str(tmp_path), "x/.ATTRIBUTES/VARIABLE_VALUE"), [1.0, 2.0])

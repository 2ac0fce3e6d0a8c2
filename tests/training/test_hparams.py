"""tf.contrib.training.HParams / tf.training.HParams: TF 1.15's construction, typed updates,
parse grammar and its errors, JSON, get/contains, and use as an Estimator's params."""

from __future__ import annotations

import copy
import json

import pytest

import torchestimator as tf

HParams = tf.training.HParams


def test_same_class_in_contrib_and_training():
    assert tf.contrib.training.HParams is tf.training.HParams


def test_construction_and_attribute_access():
    hp = HParams(learning_rate=0.1, num_hidden_units=100, layers=[64, 32], name="abc", flag=True)
    assert hp.learning_rate == 0.1 and hp.num_hidden_units == 100 and hp.layers == [64, 32]
    assert hp.values() == {"learning_rate": 0.1, "num_hidden_units": 100, "layers": [64, 32],
                           "name": "abc", "flag": True}
    assert "layers" in hp and "missing" not in hp
    assert str(hp) == "learning_rate=0.1,num_hidden_units=100,layers=[64, 32],name=abc,flag=True"
    assert repr(hp).startswith("HParams([('flag', True), ('layers', [64, 32])")


def test_parse_grammar():
    hp = HParams(lr=0.1, layers=[64, 32], name="abc", steps=10, on=False, rates=[0.5])
    assert hp.parse("lr=0.3,layers=[128,64, 8],name=xyz_1, steps=-12,on=true") is hp
    assert hp.values() == {"lr": 0.3, "layers": [128, 64, 8], "name": "xyz_1", "steps": -12,
                           "on": True, "rates": [0.5]}
    hp.parse("lr=1,rates=[1, 2e-3],on=0")  # an int becomes a float; bools also from ints
    assert hp.lr == 1.0 and type(hp.lr) is float and hp.rates == [1.0, 0.002] and hp.on is False
    hp.parse("on=True,layers=[]")
    assert hp.on is True and hp.layers == []
    hp.parse("")
    assert hp.name == "xyz_1"


def test_parse_values_reports_index_assignments():
    types = {"x": int, "L": int, "arr": int, "s": str}
    assert tf.training.parse_values("x=5,L=[1,2],arr[1]=3,arr[0]=4, s = hi", types) == {
        "x": 5, "L": [1, 2], "arr": {1: 3, 0: 4}, "s": "hi"}
    assert tf.training.parse_values("x=1,unknown=2", types, ignore_unknown=True) == {"x": 1}


@pytest.mark.parametrize("text, message", [
    ("steps=1.5", "Could not parse hparam 'steps' of type 'int' with value '1.5' in steps=1.5"),
    ("lr=fast", "Could not parse hparam 'lr' of type 'float' with value 'fast' in lr=fast"),
    ("on=maybe", "Could not parse hparam 'on' of type 'bool' with value 'maybe' in on=maybe"),
    ("layers=[1,x]", "Could not parse hparam 'layers' of type 'int' with value '1,x' in layers=\\[1,x\\]"),
    ("lr=0.1,lr=0.2", "Multiple assignments to variable 'lr' in lr=0.1,lr=0.2"),
    ("layers=[1],layers[0]=2", "Multiple assignments to variable 'layers'"),
    ("layers[0]=[1]", "Assignment of a list to a list index."),
    ("nope=1", "Unknown hyperparameter type for nope"),
    ("=1", "Malformed hyperparameter value: =1"),
    ("lr 0.1", "Malformed hyperparameter value: lr 0.1"),
    ("lr=0.1;steps=2", "Could not parse hparam 'lr' of type 'float' with value '0.1;steps=2'"),
    ("layers=3", "Must pass a list for multi-valued parameter: layers."),
    ("steps=[1,2]", "Must not pass a list for single-valued parameter: steps"),
    ("layers[1]=5", "Must pass a list for multi-valued parameter: layers."),
])
def test_parse_errors(text, message):
    hp = HParams(lr=0.1, steps=10, on=False, layers=[64, 32])
    with pytest.raises(ValueError, match=message):
        hp.parse(text)


def test_set_hparam_keeps_types():
    hp = HParams(n=1, x=0.5, s="a", b=False, ints=[1, 2])
    hp.set_hparam("x", 3)
    assert hp.x == 3.0 and type(hp.x) is float
    hp.set_hparam("ints", [5, 6, 7])
    assert hp.ints == [5, 6, 7]
    for name, value, kind in [("n", 1.5, "int"), ("n", "1", "int"), ("s", 1, "str"),
                              ("b", 1, "bool"), ("n", True, "int"), ("x", "0.5", "float")]:
        with pytest.raises(ValueError, match=f"Could not cast hparam '{name}' of type '<class '{kind}'>'"):
            hp.set_hparam(name, value)
    with pytest.raises(ValueError, match="Could not cast hparam 'ints'"):
        hp.set_hparam("ints", [1, 2.5])
    with pytest.raises(ValueError, match="Must not pass a list for single-valued parameter: n"):
        hp.set_hparam("n", [1])
    with pytest.raises(KeyError):
        hp.set_hparam("missing", 1)


def test_add_and_del_hparam():
    hp = HParams(a=1)
    hp.add_hparam("b", [0.5])
    assert hp.values() == {"a": 1, "b": [0.5]}
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: a"):
        hp.add_hparam("a", 2)
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: values"):
        hp.add_hparam("values", 2)
    with pytest.raises(ValueError, match="Multi-valued hyperparameters cannot be empty: c"):
        hp.add_hparam("c", [])
    hp.del_hparam("b")
    hp.del_hparam("never")
    assert hp.values() == {"a": 1} and "b" not in hp and not hasattr(hp, "b")


def test_json_round_trip_and_override_from_dict():
    hp = HParams(lr=0.1, layers=[64, 32], name="abc")
    text = hp.to_json(sort_keys=True)
    assert json.loads(text) == {"layers": [64, 32], "lr": 0.1, "name": "abc"}
    assert hp.to_json(indent=2, sort_keys=True).startswith('{\n  "layers"')
    other = HParams(lr=0.0, layers=[1], name="")
    other.parse_json(text)
    assert other.values() == hp.values()
    assert other.override_from_dict({"lr": 2, "name": "z"}) is other
    assert other.lr == 2.0 and other.name == "z"
    with pytest.raises(KeyError):
        other.parse_json('{"nope": 1}')


def test_get_with_defaults():
    hp = HParams(n=1, ints=[1, 2], s="x")
    assert hp.get("n") == 1 and hp.get("n", 5) == 1 and hp.get("missing", 7) == 7
    assert hp.get("missing") is None and hp.get("ints", [3]) == [1, 2]
    with pytest.raises(ValueError, match="Hparam 'n' of type '<class 'int'>' is incompatible with default=0.5"):
        hp.get("n", 0.5)
    with pytest.raises(ValueError, match="Hparam 'ints' of type 'list<<class 'int'>>' is incompatible"):
        hp.get("ints", 3)
    with pytest.raises(ValueError, match="incompatible with default=3"):
        hp.get("s", 3)


def test_model_structure_and_deepcopy():
    hp = HParams(model_structure={"kind": "dnn"}, lr=0.1)
    assert hp.get_model_structure() == {"kind": "dnn"}
    hp.set_model_structure("other")
    assert hp.get_model_structure() == "other"
    clone = copy.deepcopy(hp)
    clone.set_hparam("lr", 0.5)
    assert hp.lr == 0.1 and clone.lr == 0.5 and clone.values() == {"lr": 0.5}
    with pytest.raises(TypeError, match="HParamDef"):
        HParams(hparam_def=object())


def test_hparams_as_estimator_params(tmp_path):
    import torch

    seen = []

    def model_fn(features, labels, mode, params):
        seen.append((type(params).__name__, params.learning_rate, params.hidden_units))
        net = features["x"]
        for units in params.hidden_units:
            net = tf.keras.layers.Dense(units, activation="relu")(net)
        logits = tf.keras.layers.Dense(1)(net)
        loss = torch.nn.functional.mse_loss(logits, labels)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(params.learning_rate).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    hparams = tf.contrib.training.HParams(learning_rate=0.01, hidden_units=[4, 3])
    hparams.parse("hidden_units=[5]")

    def input_fn():
        x = torch.arange(8, dtype=torch.float32).reshape(4, 2)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(2)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), params=hparams)
    est.train(input_fn, steps=2)
    assert seen[0] == ("HParams", 0.01, [5])
    assert est.params.values() == {"learning_rate": 0.01, "hidden_units": [5]}
    assert [n for n in est.get_variable_names() if n.endswith("kernel")] == [
        "dense/kernel", "dense_1/kernel"]

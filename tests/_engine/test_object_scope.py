"""ObjectScope: objects constructed in a function run every step are made once and reused."""

import numpy as np
import pytest
import torch

from torchestimator._engine.object_scope import ObjectScope, ReusableMeta, current_scope


class Thing(metaclass=ReusableMeta):
    def __init__(self, units=1, activation=None, name=None):
        self.units = units
        self.activation = activation
        self.name = name


class Other(metaclass=ReusableMeta):
    def __init__(self, name=None):
        self.name = name


class Outer(metaclass=ReusableMeta):
    """Constructs Things in its constructor (as a Sequential its Dense layers)."""

    def __init__(self, n=2, name=None):
        self.parts = [Thing(units=i) for i in range(n)]
        self.name = name


def _call(scope, fn):
    with scope:
        return fn()


def test_outside_a_scope_every_construction_is_new():
    assert current_scope() is None
    assert Thing() is not Thing()


def test_reuse_by_order_of_construction():
    scope = ObjectScope()

    def model_fn():
        return Thing(2), Thing(3), Other()

    first = _call(scope, model_fn)
    second = _call(scope, model_fn)
    assert all(a is b for a, b in zip(first, second))
    assert first[0] is not first[1]
    assert (first[0].units, first[1].units) == (2, 3)
    # the order is counted per class: an Other between the Things does not shift them
    third = _call(scope, lambda: (Thing(2), Other(), Thing(3)))
    assert third[0] is first[0] and third[2] is first[1] and third[1] is first[2]


def test_reuse_by_name_ignores_order():
    scope = ObjectScope()
    a, b = _call(scope, lambda: (Thing(1, name="a"), Thing(2, name="b")))
    b2, a2 = _call(scope, lambda: (Thing(2, name="b"), Thing(1, name="a")))
    assert a2 is a and b2 is b
    # named objects do not take a position among the unnamed ones
    unnamed = _call(scope, lambda: Thing(5))
    assert _call(scope, lambda: (Thing(1, name="a"), Thing(5))[1]) is unnamed


def test_same_name_different_class_are_different_objects():
    scope = ObjectScope()
    t, o = _call(scope, lambda: (Thing(name="x"), Other(name="x")))
    assert isinstance(t, Thing) and isinstance(o, Other)


def test_configuration_mismatch_is_an_error():
    scope = ObjectScope()
    _call(scope, lambda: (Thing(2, name="dense"), Thing(4)))
    with pytest.raises(ValueError, match=r"name 'dense' again, but with a different configuration"):
        _call(scope, lambda: Thing(3, name="dense"))
    with pytest.raises(ValueError, match=r"position 0 among Things"):
        _call(scope, lambda: Thing(5))


def test_equal_configurations_are_not_a_mismatch():
    scope = ObjectScope()

    def model_fn(value, activation):
        return Thing(value, activation=activation)

    a = _call(scope, lambda: model_fn(torch.zeros(2, 3), torch.relu))
    # tensors compare by shape and dtype, functions by name, NaN equals NaN
    assert _call(scope, lambda: model_fn(torch.ones(2, 3), torch.relu)) is a
    with pytest.raises(ValueError):
        _call(scope, lambda: model_fn(torch.ones(3, 2), torch.relu))
    scope = ObjectScope()
    b = _call(scope, lambda: Thing([1, {"k": float("nan")}], activation=np.zeros(3)))
    assert _call(scope, lambda: Thing([1, {"k": float("nan")}], activation=np.ones(3))) is b


def test_nested_construction_belongs_to_the_outer_object():
    scope = ObjectScope()
    outer, top = _call(scope, lambda: (Outer(2), Thing(7)))
    assert len(outer.parts) == 2 and all(isinstance(p, Thing) for p in outer.parts)
    # the inner Things are not matched separately: the top-level Thing is position 0
    assert scope.created(Thing) == [top]
    assert scope.created(Outer) == [outer]
    outer2, top2 = _call(scope, lambda: (Outer(2), Thing(7)))
    assert outer2 is outer and top2 is top and outer2.parts is outer.parts


def test_scopes_nest_and_restore_the_previous_one():
    outer_scope, inner_scope = ObjectScope(), ObjectScope()
    with outer_scope:
        assert current_scope() is outer_scope
        a = Thing()
        with inner_scope:
            assert current_scope() is inner_scope
            b = Thing()
        assert current_scope() is outer_scope
    assert current_scope() is None
    assert a is not b
    assert (outer_scope.call_index, inner_scope.call_index) == (1, 1)


def test_call_index_counts_calls_and_order_restarts_each_call():
    scope = ObjectScope()
    for i in range(3):
        with scope:
            assert scope.call_index == i
            Thing()
    assert scope.call_index == 3
    assert len(scope.created(Thing)) == 1


def test_unique_name():
    scope = ObjectScope()
    assert [scope.unique_name("dense") for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert scope.unique_name("conv2d") == "conv2d"
    assert [scope.unique_name("input", zero_based=False) for _ in range(2)] == ["input_1", "input_2"]
    # the counts are per scope
    assert ObjectScope().unique_name("dense") == "dense"


def test_record_layer_call_keeps_each_layer_once_in_order():
    scope = ObjectScope()
    a, b = torch.nn.Linear(1, 1), torch.nn.Linear(1, 1)
    for layer in (a, b, a, b, a):
        scope.record_layer_call(layer)
    assert list(scope.used_layers.values()) == [a, b]


def test_created_filters_by_type_in_creation_order():
    scope = ObjectScope()
    t1, o, t2 = _call(scope, lambda: (Thing(1), Other(), Thing(2, name="n")))
    assert scope.created(Thing) == [t1, t2]
    assert scope.created((Thing, Other)) == [t1, o, t2]


def test_plain_argument_fast_check_agrees_with_the_full_comparison():
    from torchestimator._engine.object_scope import _plainly_equal, _same_value

    def relu(x):
        return x

    cases = [
        ((), {"units": 3, "activation": relu, "name": "dnn/hiddenlayer_0"}),
        ((4, (10, 10)), {"rate": None, "flag": True}),
    ]
    for args, kwargs in cases:
        copy_args, copy_kwargs = tuple(args), {k: (f"{v}" if isinstance(v, str) else v)
                                              for k, v in kwargs.items()}
        assert _plainly_equal(args, copy_args, kwargs, copy_kwargs)
        assert _same_value(args, copy_args) and _same_value(kwargs, copy_kwargs)
    assert not _plainly_equal((), (), {"units": 3}, {"units": 4})
    # tensors, arrays and other objects are never decided by the fast check
    t = torch.zeros(2)
    assert not _plainly_equal((t,), (t,), {}, {})
    assert not _plainly_equal((), (), {"x": t}, {"x": 1.0})

"""`GradientSync`: the gradient reduction of a data-parallel run is an object passed down (or
found in a per-thread scoped context), never process-wide module state."""

from __future__ import annotations

import ast
import contextvars
import threading
import types
from pathlib import Path

import pytest
import torch

import torchestimator as tf
from torchestimator._engine import gradient_sync
from torchestimator._engine.gradient_sync import NONE, GradientSync
from torchestimator.distribute._data_parallel import DataParallel

SRC = Path(gradient_sync.__file__).resolve().parents[1]


def test_no_module_level_mutable_gradient_sync_state():
    assert not hasattr(gradient_sync, "reducer")
    assert not hasattr(gradient_sync, "shards")
    allowed = (types.ModuleType, type, types.FunctionType, types.BuiltinMethodType, contextvars.ContextVar)
    for name, value in vars(gradient_sync).items():
        if name.startswith("__") or name == "annotations":
            continue
        if isinstance(value, GradientSync):
            assert value is NONE, name
            continue
        if isinstance(value, allowed) or getattr(value, "__module__", None) in ("typing", "collections.abc"):
            continue
        pytest.fail(f"gradient_sync.{name} = {value!r}: module-level state; pass a GradientSync instead.")
    with pytest.raises(AttributeError, match="immutable"):
        NONE.reduces = True
    with pytest.raises(AttributeError, match="immutable"):
        NONE._reduce = lambda g, v: g


def test_no_code_assigns_attributes_of_the_gradient_sync_module():
    offenders = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "gradient_sync"):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_none_is_identity_and_the_default():
    g, v = [torch.ones(2)], [torch.zeros(2)]
    assert gradient_sync.current() is NONE
    assert NONE.reduce(g, v) is g and NONE.shards_of(v) is v
    assert not NONE.reduces and not NONE.shards


def test_reduce_and_shards_of_call_the_given_functions():
    seen = []
    sync = GradientSync(reduce=lambda g, v: seen.append(v) or [x * 2 for x in g], shards_of=lambda v: v[::-1])
    assert sync.reduces and sync.shards
    a, b = torch.zeros(1), torch.ones(1)
    assert torch.equal(sync.reduce([torch.ones(1)], [a])[0], torch.full((1,), 2.0))
    assert seen == [[a]]
    assert sync.shards_of([a, b])[0] is b


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="reduce"):
        GradientSync(reduce=3)
    with pytest.raises(TypeError, match="shards_of"):
        GradientSync(shards_of="x")
    with pytest.raises(TypeError, match="GradientSync"):
        with gradient_sync.using(lambda g, v: g):
            pass


def test_using_nests_and_restores():
    a, b = GradientSync(reduce=lambda g, v: g), GradientSync(reduce=lambda g, v: g)
    with gradient_sync.using(a):
        assert gradient_sync.current() is a
        with gradient_sync.using(b):
            assert gradient_sync.current() is b
        assert gradient_sync.current() is a
    assert gradient_sync.current() is NONE


def test_apply_gradients_uses_the_current_sync_only_inside_its_scope():
    v = torch.nn.Parameter(torch.tensor([1.0]))
    opt = tf.keras.optimizers.SGD(learning_rate=1.0)
    halve = GradientSync(reduce=lambda g, variables: [x / 2 for x in g])
    with gradient_sync.using(halve):
        opt.apply_gradients([(torch.tensor([1.0]), v)])
    assert v.item() == pytest.approx(0.5)
    opt.apply_gradients([(torch.tensor([1.0]), v)])  # outside: the gradient as it is
    assert v.item() == pytest.approx(-0.5)


def test_two_threads_apply_gradients_each_with_its_own_sync():
    """Both threads are inside their scope at once (the barrier in reduce): each update sees its
    own sync, as each TF replica context belongs to its thread."""
    barrier = threading.Barrier(2, timeout=10)
    results: dict = {}

    def worker(name: str, factor: float) -> None:
        def reduce(g, variables):
            barrier.wait()
            return [x * factor for x in g]

        v = torch.nn.Parameter(torch.tensor([0.0]))
        opt = tf.keras.optimizers.SGD(learning_rate=1.0)
        with gradient_sync.using(GradientSync(reduce=reduce)) as sync:
            opt.apply_gradients([(torch.tensor([1.0]), v)])
            results[name] = (v.item(), gradient_sync.current() is sync)

    threads = [threading.Thread(target=worker, args=("a", 2.0)), threading.Thread(target=worker, args=("b", 10.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert results == {"a": (-2.0, True), "b": (-10.0, True)}
    assert gradient_sync.current() is NONE  # the main thread never saw either


def test_two_strategies_in_two_threads_do_not_see_each_others_sync():
    barrier = threading.Barrier(2, timeout=10)
    parallels = [DataParallel(tf.distribute.MirroredStrategy()), DataParallel(tf.distribute.MirroredStrategy())]
    seen: dict = {}

    def worker(index: int) -> None:
        with parallels[index].averaging_gradients() as sync:
            barrier.wait()  # both scopes open now
            seen[index] = (sync, gradient_sync.current())
            barrier.wait()
        seen[index] += (gradient_sync.current(),)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    (sync0, current0, after0), (sync1, current1, after1) = seen[0], seen[1]
    assert current0 is sync0 and current1 is sync1 and sync0 is not sync1
    assert sync0.reduces and not sync0.shards
    assert after0 is NONE and after1 is NONE
    assert gradient_sync.current() is NONE


def test_single_replica_strategy_run_keeps_the_plain_update():
    strategy = tf.distribute.MirroredStrategy()
    v = torch.nn.Parameter(torch.tensor([1.0]))
    opt = tf.keras.optimizers.SGD(learning_rate=1.0)

    def step():
        assert gradient_sync.current() is NONE  # one replica: nothing to average
        opt.apply_gradients([(torch.tensor([3.0]), v)])

    strategy.run(step)
    assert v.item() == pytest.approx(-2.0)

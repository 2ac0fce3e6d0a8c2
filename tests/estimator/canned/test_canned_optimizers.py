"""How canned estimators resolve `optimizer` (string, instance, callable) with TF's defaults."""

import pytest

import torchestimator as tf
from torchestimator.compat.v1._canned_optimizers import get_optimizer_instance  # TF1's resolver
from torchestimator.estimator.canned import get_optimizer_instance_v2
from torchestimator.keras.optimizers import legacy


@pytest.mark.parametrize("name,cls", [("Adagrad", legacy.Adagrad), ("Adam", legacy.Adam), ("Ftrl", legacy.Ftrl),
                                      ("RMSProp", legacy.RMSprop), ("SGD", legacy.SGD)])
def test_v2_names(name, cls):
    opt = get_optimizer_instance_v2(name)
    assert type(opt) is cls
    keras_default = 0.01 if name == "SGD" else 0.001
    assert opt.learning_rate == pytest.approx(keras_default)
    assert get_optimizer_instance_v2(name, learning_rate=0.3).learning_rate == pytest.approx(0.3)


def test_v1_names_need_a_learning_rate():
    opt = get_optimizer_instance("Adagrad", learning_rate=0.05)
    assert type(opt) is tf.compat.v1.train.AdagradOptimizer
    assert opt.learning_rate == pytest.approx(0.05)
    assert type(get_optimizer_instance("SGD", 0.1)) is tf.compat.v1.train.GradientDescentOptimizer
    with pytest.raises(ValueError, match="learning_rate must be specified when opt is string"):
        get_optimizer_instance("Adagrad")


def test_instances_callables_and_conversion():
    mine = legacy.Adam(learning_rate=0.02)
    assert get_optimizer_instance_v2(mine) is mine
    assert get_optimizer_instance_v2(lambda: mine) is mine
    converted = get_optimizer_instance_v2(tf.keras.optimizers.Adagrad(learning_rate=0.2))
    assert type(converted) is legacy.Adagrad and converted.learning_rate == pytest.approx(0.2)


def test_errors():
    with pytest.raises(ValueError, match=r"Unsupported optimizer name: adam\. Supported names are"):
        get_optimizer_instance_v2("adam")
    with pytest.raises(ValueError, match="not a tf.keras.optimizers.Optimizer instance"):
        get_optimizer_instance_v2(lambda: "sgd")
    with pytest.raises(ValueError, match="not an Optimizer instance"):
        get_optimizer_instance(3)


def test_user_instance_is_copied_per_estimator(tmp_path):
    import numpy as np

    from torchestimator.estimator.canned import LinearRegressor

    shared = legacy.SGD(learning_rate=0.1)
    column = tf.feature_column.numeric_column("x")
    x = np.arange(8, dtype=np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).batch(4)

    for i in range(2):
        est = LinearRegressor([column], optimizer=shared, model_dir=str(tmp_path / str(i)))
        est.train(input_fn, steps=2)
        (opt,) = est._state.optimizers()
        assert opt is not shared and opt.learning_rate == pytest.approx(0.1)
        assert opt.iterations == 2
    assert shared.iterations == 0

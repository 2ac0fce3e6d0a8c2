"""Every optimizer of `tf.keras.optimizers` (and `tf.keras.optimizers.legacy`) through
`check_optimizer` (tests/_harness/optimizers.py): it lowers a quadratic, its config round-trips,
its slots survive a `.keras` file and a `tf.train.Checkpoint`, and its flat (elementwise)
update equals the per-tensor one. `test_every_optimizer_is_checked` keeps the table complete."""

import inspect

import pytest

import torchestimator as tf
from _harness import check_optimizer

opt = tf.keras.optimizers
legacy = tf.keras.optimizers.legacy


def case(cls, kwargs=None, *, id=None, **options):
    name = id or f"{'legacy.' if cls.__module__.split('.')[-2] == 'legacy' else ''}{cls.__name__}"
    return pytest.param(cls, {"learning_rate": 0.1, **(kwargs or {})}, options, id=name)


CASES = [
    case(opt.SGD),
    case(opt.SGD, {"momentum": 0.9, "nesterov": True}, id="SGD-nesterov"),
    case(opt.Adam),
    case(opt.Adam, {"amsgrad": True, "clipnorm": 1.0}, id="Adam-amsgrad-clipnorm"),
    case(opt.AdamW, {"weight_decay": 0.01}),
    case(opt.Adagrad),
    case(opt.RMSprop),
    case(opt.RMSprop, {"momentum": 0.9, "centered": True}, id="RMSprop-centered-momentum"),
    case(opt.Adadelta, {"learning_rate": 1.0}, min_decrease=0.02),  # Adadelta starts slowly
    case(opt.Adamax),
    case(opt.Nadam),
    case(opt.Ftrl),
    case(opt.Ftrl, {"l1_regularization_strength": 0.01, "l2_regularization_strength": 0.01,
                    "l2_shrinkage_regularization_strength": 0.01, "beta": 0.1}, id="Ftrl-regularized"),
    case(opt.Lion, {"learning_rate": 0.05}),
    case(opt.Adafactor),
    case(opt.Adam, {"use_ema": True, "ema_momentum": 0.9, "global_clipnorm": 5.0}, id="Adam-ema-global_clipnorm"),
    case(legacy.SGD, {"momentum": 0.9}),
    case(legacy.Adam),
    case(legacy.Adagrad),
    case(legacy.RMSprop),
    case(legacy.Adadelta, {"learning_rate": 1.0}, min_decrease=0.02),
    case(legacy.Adamax),
    case(legacy.Nadam),
    case(legacy.Ftrl),
]


@pytest.mark.parametrize("cls,kwargs,options", CASES)
def test_check_optimizer(cls, kwargs, options, tmp_path):
    check_optimizer(cls, kwargs, tmp_dir=tmp_path, **options)


@pytest.mark.parametrize("module", [opt, opt.experimental, legacy], ids=["optimizers", "experimental", "legacy"])
def test_every_optimizer_is_checked(module):
    checked = {param.values[0] for param in CASES}
    classes = {obj for name in dir(module) if inspect.isclass(obj := getattr(module, name))
               and name != "Optimizer" and hasattr(obj, "get_config")}
    missing = sorted(c.__name__ for c in classes - checked)
    assert not missing, f"optimizers of {module.__name__} without a check_optimizer case: {missing}"

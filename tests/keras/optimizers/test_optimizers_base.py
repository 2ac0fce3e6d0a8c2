"""The shared optimizer machinery: clipping, weight decay, EMA, constraints, learning rate,
iterations, build/step/apply_gradients/minimize, errors, and the Keras 2.15 defaults."""

import warnings

import numpy as np
import pytest
import torch

import torchestimator.keras.optimizers as optimizers
from torchestimator.keras.optimizers.adagrad import AdagradKernel


def param(values):
    return torch.nn.Parameter(torch.tensor(values, dtype=torch.float32))


# --- Keras 2.15 names and defaults -------------------------------------------------------------

DEFAULTS = [
    (optimizers.SGD, "SGD", 0.01, {"momentum": 0.0, "nesterov": False}),
    (optimizers.Adam, "Adam", 0.001, {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}),
    (optimizers.AdamW, "AdamW", 0.001, {"weight_decay": 0.004, "epsilon": 1e-7}),
    (optimizers.Adagrad, "Adagrad", 0.001, {"initial_accumulator_value": 0.1, "epsilon": 1e-7}),
    (optimizers.RMSprop, "RMSprop", 0.001, {"rho": 0.9, "momentum": 0.0, "centered": False, "ema_overwrite_frequency": 100}),
    (optimizers.Adadelta, "Adadelta", 0.001, {"rho": 0.95, "epsilon": 1e-7}),
    (optimizers.Adamax, "Adamax", 0.001, {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}),
    (optimizers.Nadam, "Nadam", 0.001, {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}),
    (
        optimizers.Ftrl,
        "Ftrl",
        0.001,
        {
            "learning_rate_power": -0.5,
            "initial_accumulator_value": 0.1,
            "l1_regularization_strength": 0.0,
            "l2_regularization_strength": 0.0,
            "l2_shrinkage_regularization_strength": 0.0,
            "beta": 0.0,
        },
    ),
]


@pytest.mark.parametrize("cls,name,lr,hyper", DEFAULTS)
def test_keras_names_and_defaults(cls, name, lr, hyper):
    optimizer = cls()
    config = optimizer.get_config()
    assert optimizer.name == name and config["name"] == name
    assert config["learning_rate"] == pytest.approx(lr)
    assert float(optimizer.learning_rate) == pytest.approx(lr)
    for key, value in hyper.items():
        assert config[key] == value, key
    for key in ("weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema", "ema_momentum"):
        assert key in config
    assert config["is_legacy_optimizer"] is False
    assert int(optimizer.iterations) == 0


def test_adam_config_has_exactly_keras_keys():
    assert set(optimizers.Adam().get_config()) == {
        "name", "weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema", "ema_momentum",
        "ema_overwrite_frequency", "jit_compile", "is_legacy_optimizer", "learning_rate", "beta_1",
        "beta_2", "epsilon", "amsgrad",
    }


# The config round trip of every optimizer: test_optimizers_harness.py (check_optimizer).


# --- clipping ----------------------------------------------------------------------------------


def test_clipnorm_clips_each_gradient_to_the_norm():
    w = param([0.0, 0.0])
    g = torch.tensor([100.0, 100.0])
    optimizers.SGD(learning_rate=1.0, clipnorm=1.0).apply_gradients([(g, w)])
    np.testing.assert_allclose(w.detach().numpy(), [-(2**0.5) / 2] * 2, rtol=1e-6)
    assert g.tolist() == [100.0, 100.0]  # the caller's gradient is not modified


def test_clipnorm_leaves_small_gradients():
    w = param([0.0, 0.0])
    optimizers.SGD(learning_rate=1.0, clipnorm=10.0).apply_gradients([(torch.tensor([3.0, 4.0]), w)])
    np.testing.assert_allclose(w.detach().numpy(), [-3.0, -4.0])


def test_clipvalue_keras_docstring_example():
    var1, var2 = param(2.0), param(2.0)
    optimizers.SGD(learning_rate=1, clipvalue=1).apply_gradients(
        zip([torch.tensor(2.0), torch.tensor(2.0)], [var1, var2])
    )
    assert [var1.item(), var2.item()] == [1.0, 1.0]


def test_global_clipnorm_scales_all_gradients_together():
    a, b = param([0.0, 0.0]), param([0.0, 0.0])
    optimizers.SGD(learning_rate=1.0, global_clipnorm=1.0).apply_gradients(
        [(torch.tensor([3.0, 0.0]), a), (torch.tensor([0.0, 4.0]), b)]
    )
    np.testing.assert_allclose(a.detach().numpy(), [-0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(b.detach().numpy(), [0.0, -0.8], rtol=1e-6)


def test_clipnorm_wins_over_clipvalue_as_in_keras():
    w = param([0.0, 0.0])
    optimizers.SGD(learning_rate=1.0, clipnorm=1.0, clipvalue=0.1).apply_gradients([(torch.tensor([3.0, 4.0]), w)])
    np.testing.assert_allclose(w.detach().numpy(), [-0.6, -0.8], rtol=1e-6)


def test_clipping_in_the_step_path():
    w = param([0.0, 0.0])
    optimizer = optimizers.SGD(learning_rate=1.0, clipvalue=0.5)
    optimizer.build([w])
    (w * torch.tensor([3.0, -0.25])).sum().backward()
    optimizer.step()
    np.testing.assert_allclose(w.detach().numpy(), [-0.5, 0.25])


def test_clipnorm_and_global_clipnorm_together_is_an_error():
    with pytest.raises(ValueError, match="At most one of `clipnorm` and `global_clipnorm`"):
        optimizers.Adam(clipnorm=1.0, global_clipnorm=1.0)


def test_negative_clipnorm_is_an_error():
    with pytest.raises(ValueError, match="clipnorm"):
        optimizers.SGD(clipnorm=-1.0)


# --- weight decay ------------------------------------------------------------------------------


def test_weight_decay_keras_docstring_example():
    optimizer = optimizers.SGD(1, weight_decay=0.004)
    var1, var2 = param(2.0), param(2.0)
    optimizer.exclude_from_weight_decay(var_list=[var2])
    optimizer.apply_gradients(zip([torch.tensor(0.0), torch.tensor(0.0)], [var1, var2]))
    assert var1.item() == pytest.approx(1.992)
    assert var2.item() == 2.0


def test_weight_decay_excluded_by_name_pattern():
    kernel, bias = param([2.0]), param([2.0])
    kernel._keras_name, bias._keras_name = "dense/kernel", "dense/bias"
    optimizer = optimizers.Adagrad(learning_rate=1.0, weight_decay=0.004)
    optimizer.exclude_from_weight_decay(var_names=["bias"])
    optimizer.apply_gradients(zip([torch.zeros(1), torch.zeros(1)], [kernel, bias]))
    assert kernel.item() == pytest.approx(1.992) and bias.item() == 2.0


def test_weight_decay_uses_the_scheduled_learning_rate():
    schedule = optimizers.schedules.PiecewiseConstantDecay([0], [1.0, 0.5])
    w = param([2.0])
    optimizer = optimizers.SGD(schedule, weight_decay=0.1)
    optimizer.apply_gradients([(torch.zeros(1), w)])  # lr 1.0 at step 0
    optimizer.apply_gradients([(torch.zeros(1), w)])  # lr 0.5 at step 1
    assert w.item() == pytest.approx(2.0 * 0.9 * 0.95)


def test_exclude_from_weight_decay_after_build_is_an_error():
    optimizer = optimizers.SGD(weight_decay=0.1)
    optimizer.build([param([1.0])])
    with pytest.raises(ValueError, match="before the optimizer is built"):
        optimizer.exclude_from_weight_decay(var_names=["bias"])


# --- EMA -------------------------------------------------------------------------------------


def test_ema_overwrite_keras_docstring_example():
    optimizer = optimizers.SGD(learning_rate=1, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=3)
    var1, var2 = param(2.0), param(2.0)
    grads = [torch.tensor(1.0), torch.tensor(1.0)]
    optimizer.apply_gradients(zip(grads, [var1, var2]))
    assert [var1.item(), var2.item()] == [1.0, 1.0]
    optimizer.apply_gradients(zip(grads, [var1, var2]))
    assert [var1.item(), var2.item()] == [0.0, 0.0]
    optimizer.apply_gradients(zip(grads, [var1, var2]))
    # average = 2*0.5^3 + 1*0.5*0.5^2 + 0*0.5*0.5 + (-1)*0.5 = -0.125
    assert [var1.item(), var2.item()] == [-0.125, -0.125]


def test_ema_finalize_variable_values():
    optimizer = optimizers.SGD(learning_rate=1, use_ema=True, ema_momentum=0.5)
    w = param([2.0])
    for _ in range(2):
        optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    assert w.item() == 0.0
    optimizer.finalize_variable_values([w])
    assert w.item() == pytest.approx(0.5 * (0.5 * 2 + 0.5 * 1) + 0.5 * 0)
    assert "average" in optimizer.state_dict()["variables"]["0"]


def test_ema_argument_errors():
    with pytest.raises(ValueError, match="ema_momentum"):
        optimizers.Adam(use_ema=True, ema_momentum=1.5)
    with pytest.raises(ValueError, match="ema_overwrite_frequency"):
        optimizers.Adam(use_ema=True, ema_overwrite_frequency=2.5)


# --- constraints ---------------------------------------------------------------------------------


def test_constraint_applied_after_the_update():
    w = param([0.5, 2.0])
    w._keras_constraint = lambda x: x.clamp(min=0.0)
    optimizer = optimizers.SGD(learning_rate=1.0)
    optimizer.build([w])
    (w * torch.tensor([1.0, 1.0])).sum().backward()
    optimizer.step()
    assert w.detach().tolist() == [0.0, 1.0]


def test_constraint_only_for_updated_variables():
    a, b = param([-1.0]), param([-1.0])
    for p in (a, b):
        p._keras_constraint = lambda x: x.clamp(min=0.0)
    optimizer = optimizers.SGD(learning_rate=0.0)
    optimizer.build([a, b])
    optimizer.apply_gradients([(torch.zeros(1), a)])
    assert a.item() == 0.0 and b.item() == -1.0


# --- learning rate and iterations ----------------------------------------------------------------


def test_learning_rate_is_a_float_with_variable_methods():
    optimizer = optimizers.Adam(learning_rate=0.01)
    lr = optimizer.learning_rate
    assert isinstance(lr, float) and lr == pytest.approx(0.01)
    assert lr.numpy().dtype == np.float32
    lr.assign(0.5)
    assert float(optimizer.lr) == 0.5
    optimizer.lr = 0.25
    assert float(optimizer.learning_rate) == 0.25


def test_setting_learning_rate_reaches_the_update():
    w = param([1.0])
    optimizer = optimizers.SGD(learning_rate=0.1)
    optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    optimizer.learning_rate = 0.5
    optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    assert w.item() == pytest.approx(1.0 - 0.1 - 0.5)


def test_schedule_evaluated_at_iterations():
    schedule = optimizers.schedules.PiecewiseConstantDecay([1, 2], [1.0, 0.5, 0.25])
    optimizer = optimizers.SGD(learning_rate=schedule)
    assert float(optimizer.learning_rate) == 1.0
    w = param([0.0])
    seen = []
    for _ in range(4):
        optimizer.apply_gradients([(torch.tensor([1.0]), w)])
        seen.append(float(optimizer.learning_rate))
    assert seen == [1.0, 1.0, 0.5, 0.25]  # the rate used at steps 0, 1, 2, 3
    assert w.item() == pytest.approx(-2.75)


def test_float_learning_rate_replaces_a_schedule():
    optimizer = optimizers.SGD(learning_rate=optimizers.schedules.ExponentialDecay(1.0, 1, 0.5))
    optimizer.learning_rate = 0.1
    w = param([0.0])
    for _ in range(3):
        optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    assert w.item() == pytest.approx(-0.3)
    assert optimizer.get_config()["learning_rate"] == pytest.approx(0.1)


def test_custom_schedule_gets_an_int64_step_tensor():
    steps = []

    class Halving(optimizers.schedules.LearningRateSchedule):
        def __call__(self, step):
            steps.append(step)
            return 1.0 / (step + 1)

        def get_config(self):
            return {}

    w = param([0.0])
    optimizer = optimizers.SGD(learning_rate=Halving())
    for _ in range(2):
        optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    assert w.item() == pytest.approx(-1.5)
    assert all(isinstance(s, torch.Tensor) and s.dtype == torch.int64 for s in steps)


def test_callable_learning_rate():
    value = {"lr": 0.1}
    w = param([0.0])
    optimizer = optimizers.SGD(learning_rate=lambda: value["lr"])
    optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    value["lr"] = 0.2
    optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    assert w.item() == pytest.approx(-0.3)


def test_bad_learning_rate_is_an_error():
    with pytest.raises(TypeError, match="learning_rate"):
        optimizers.Adam(learning_rate="fast")


def test_iterations_int_with_variable_methods():
    optimizer = optimizers.SGD()
    w = param([0.0])
    assert optimizer.apply_gradients([(torch.tensor([1.0]), w)]) == 1
    iterations = optimizer.iterations
    assert isinstance(iterations, int) and iterations == 1
    assert iterations.numpy().dtype == np.int64
    optimizer.iterations = 10
    assert optimizer.iterations == 10
    optimizer.iterations.assign_add(5)
    assert optimizer.iterations == 15
    optimizer.iterations = torch.tensor(3)
    assert optimizer.iterations == 3


@pytest.mark.parametrize("bad", [-1, 1.5, "x", True])
def test_bad_iterations_is_an_error(bad):
    with pytest.raises(ValueError, match="iterations"):
        optimizers.SGD().iterations = bad


def test_iterations_drive_bias_correction():
    # Adam at iterations=N uses t = N + 1.
    w = param([0.0])
    optimizer = optimizers.Adam(learning_rate=0.1, epsilon=0.0)
    optimizer.iterations = 1
    optimizer.apply_gradients([(torch.tensor([1.0]), w)])
    # m = 0.1, v = 0.001; alpha = 0.1 * sqrt(1 - 0.999^2) / (1 - 0.9^2)
    alpha = 0.1 * np.sqrt(1 - 0.999**2) / (1 - 0.9**2)
    assert w.item() == pytest.approx(-alpha * 0.1 / np.sqrt(0.001), rel=1e-5)


# --- build / step / apply_gradients / minimize ---------------------------------------------------


def test_build_is_idempotent_and_appends():
    a, b = param([1.0]), param([2.0])
    optimizer = optimizers.Adam()
    optimizer.build([a])
    optimizer.build([a])
    assert len(optimizer.variables) == 1 + 2
    optimizer.build([a, b])
    assert len(optimizer.variables()) == 1 + 4
    a.grad, b.grad = torch.ones(1), torch.ones(1)
    optimizer.step()
    assert a.item() < 1.0 and b.item() < 2.0


def test_build_errors():
    with pytest.raises(TypeError, match="item 0"):
        optimizers.SGD().build([[1.0, 2.0]])
    with pytest.raises(TypeError, match="floating-point"):
        optimizers.SGD().build([torch.tensor([1, 2])])


def test_step_before_build_is_an_error():
    with pytest.raises(RuntimeError, match="build"):
        optimizers.SGD().step()


def test_step_without_any_gradient_is_an_error():
    optimizer = optimizers.SGD()
    optimizer.build([param([1.0])])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.step()


def test_missing_gradients_warn_and_skip():
    a, b = param([1.0]), param([1.0])
    a._keras_name = "dense/kernel"
    optimizer = optimizers.SGD(learning_rate=1.0)
    with pytest.warns(UserWarning, match="dense/kernel"):
        optimizer.apply_gradients([(None, a), (torch.tensor([1.0]), b)])
    assert a.item() == 1.0 and b.item() == 0.0
    b.grad = torch.tensor([1.0])
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        optimizer.step()
    assert b.item() == -1.0


def test_apply_gradients_errors():
    w = param([1.0, 2.0])
    optimizer = optimizers.SGD()
    assert optimizer.apply_gradients([]) == 0
    with pytest.raises(TypeError, match="pairs"):
        optimizer.apply_gradients([w])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        optimizer.apply_gradients([(torch.ones(3), w)])
    with pytest.raises(ValueError, match="No gradients provided"):
        optimizer.apply_gradients([(None, w)])
    with pytest.raises(TypeError, match="unexpected keyword"):
        optimizer.apply_gradients([(torch.ones(2), w)], bogus=1)


def test_apply_gradients_accepts_numpy_gradients():
    w = param([1.0, 2.0])
    optimizers.SGD(learning_rate=1.0).apply_gradients([(np.array([1.0, 1.0]), w)])
    assert w.detach().tolist() == [0.0, 1.0]


def test_minimize_keras_docstring_examples():
    w = param(1.0)
    optimizers.SGD(learning_rate=0.1).minimize(lambda: (w**2) / 2.0, [w])
    assert w.item() == pytest.approx(0.9)

    optimizer = optimizers.SGD(0.1, momentum=0.9)
    w = param(1.0)
    optimizer.minimize(lambda: (w**2) / 2.0, [w])
    first = 1.0 - w.item()
    before = w.item()
    optimizer.minimize(lambda: (w**2) / 2.0, [w])
    assert first == pytest.approx(0.1) and before - w.item() == pytest.approx(0.18)


def test_minimize_with_tensor_loss_and_callable_var_list():
    created = {}

    def loss():
        created.setdefault("w", param([3.0]))
        return (created["w"] ** 2).sum()

    optimizer = optimizers.SGD(learning_rate=0.5)
    assert optimizer.minimize(loss, var_list=lambda: [created["w"]]) == 1
    assert created["w"].item() == pytest.approx(0.0)
    w = param([1.0, 2.0])
    optimizer.minimize((w * w).sum(), [w], tape=None)  # a tensor loss needs no tape with torch autograd
    np.testing.assert_allclose(w.detach().numpy(), [0.0, 0.0])


def test_minimize_errors():
    with pytest.raises(ValueError, match="var_list"):
        optimizers.SGD().minimize(lambda: torch.tensor(1.0, requires_grad=True))
    w = param([1.0])
    with pytest.raises(ValueError, match="torch tensor"):
        optimizers.SGD().minimize(lambda: 3.0, [w])


def test_minimize_without_var_list_uses_the_built_variables():
    w = param([1.0])
    optimizer = optimizers.SGD(learning_rate=0.5)
    optimizer.build([w])
    optimizer.minimize(lambda: (w * w).sum())
    assert w.item() == 0.0


def test_zero_grad():
    w = param([1.0])
    optimizer = optimizers.SGD()
    optimizer.build([w])
    w.grad = torch.ones(1)
    optimizer.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0]
    optimizer.zero_grad()
    assert w.grad is None


def test_sparse_gradients_are_applied():
    embedding = torch.nn.Embedding(4, 2, sparse=True)
    torch.nn.init.ones_(embedding.weight)
    optimizer = optimizers.Adagrad(learning_rate=0.1)
    optimizer.build(list(embedding.parameters()))
    embedding(torch.tensor([1])).sum().backward()
    assert embedding.weight.grad.is_sparse
    optimizer.step()
    updated = embedding.weight.detach()
    assert updated[1].tolist() == pytest.approx([1 - 0.1 / np.sqrt(1.1 + 1e-7)] * 2)
    assert updated[0].tolist() == [1.0, 1.0]


# --- keyword arguments -------------------------------------------------------------------------


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="bogus is not a valid argument"):
        optimizers.Adam(bogus=1)


def test_decay_points_to_the_legacy_optimizer():
    with pytest.raises(ValueError, match="tf.keras.optimizers.legacy.SGD"):
        optimizers.SGD(decay=1e-6)


def test_lr_keyword_is_deprecated_but_honoured():
    with pytest.warns(UserWarning, match="`lr` is deprecated"):
        optimizer = optimizers.SGD(lr=0.5)
    assert float(optimizer.learning_rate) == 0.5


@pytest.mark.parametrize(
    "factory,match",
    [
        (lambda: optimizers.SGD(momentum=1.5), "momentum"),
        (lambda: optimizers.AdamW(weight_decay=None), "weight_decay"),
        (lambda: optimizers.Adagrad(initial_accumulator_value=-1.0), "initial_accumulator_value"),
        (lambda: optimizers.Ftrl(learning_rate_power=0.5), "learning_rate_power"),
        (lambda: optimizers.Ftrl(initial_accumulator_value=-0.1), "initial_accumulator_value"),
        (lambda: optimizers.Ftrl(l1_regularization_strength=-1.0), "l1_regularization_strength"),
        (lambda: optimizers.Ftrl(l2_shrinkage_regularization_strength=-1.0), "l2_shrinkage"),
        (lambda: optimizers.RMSprop(momentum=-0.5), "momentum"),
    ],
)
def test_argument_errors(factory, match):
    with pytest.raises(ValueError, match=match):
        factory()


def test_non_number_hyperparameter_is_a_type_error():
    with pytest.raises(TypeError, match="beta_1"):
        optimizers.Adam(beta_1="high")


# --- custom optimizers and kernels ---------------------------------------------------------------


class SignSGD(optimizers.Optimizer):
    def __init__(self, learning_rate=0.1, name="SignSGD", **kwargs):
        super().__init__(name=name, **kwargs)
        self._learning_rate = self._build_learning_rate(learning_rate)  # Keras' idiom

    def build(self, var_list):
        super().build(var_list)
        if getattr(self, "_built", False):
            return
        self._built = True
        self.counts = [self.add_variable_from_reference(v, "count") for v in var_list]

    def update_step(self, gradient, variable):
        index = self._index_dict[self._var_key(variable)]
        self.counts[index].add_(1.0)
        variable.sub_(float(self.learning_rate) * torch.sign(gradient))

    def get_config(self):
        config = super().get_config()
        config["learning_rate"] = self._serialize_hyperparameter(self._learning_rate)
        return config


def test_custom_optimizer_subclass():
    w = param([1.0, -1.0])
    optimizer = SignSGD(learning_rate=0.5, clipvalue=10.0)
    optimizer.minimize(lambda: (w * torch.tensor([3.0, -2.0])).sum(), [w])
    assert w.detach().tolist() == [0.5, -0.5]
    assert optimizer.counts[0].tolist() == [1.0, 1.0]
    assert len(optimizer.variables) == 2
    clone = SignSGD.from_config(optimizer.get_config())
    assert float(clone.learning_rate) == 0.5
    state = optimizer.state_dict()
    fresh = SignSGD()
    fresh.build([param([0.0, 0.0])])
    fresh.load_state_dict(state)
    assert fresh.counts[0].tolist() == [1.0, 1.0] and fresh.iterations == 1


def test_custom_optimizer_without_update_step_is_an_error():
    class Empty(optimizers.Optimizer):
        pass

    with pytest.raises(TypeError, match="update_step"):
        Empty(name="empty")


def test_kernel_works_as_a_plain_torch_optimizer():
    w = param([1.0, 2.0])
    kernel = AdagradKernel([w], lr=0.1, epsilon=0.1)
    for g in ([0.1, 0.2], [0.3, -0.4], [-0.5, 0.6]):
        w.grad = torch.tensor(g)
        kernel.step()
    np.testing.assert_allclose(w.detach().numpy(), [0.9908259414722084, 1.953596003995813], rtol=1e-6)
    state = kernel.state_dict()
    assert state["iterations"] == 3
    other = AdagradKernel([param([0.0, 0.0])], lr=0.1)
    other.load_state_dict(state)
    assert other.iterations == 3


def test_no_warnings_on_the_normal_path():
    w = param([1.0])
    optimizer = optimizers.Adam()
    optimizer.build([w])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            (w * 2).sum().backward()
            optimizer.step()
            optimizer.zero_grad()


@pytest.mark.parametrize("cls", [optimizers.Adam, optimizers.Nadam, optimizers.Adadelta, optimizers.Ftrl])
def test_deepcopy_and_pickle_continue_like_the_original(cls):
    import copy
    import pickle

    w = param([1.0, 2.0])
    original = cls(learning_rate=optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
    original.apply_gradients([(torch.tensor([0.5, -0.5]), w)])
    copies = [copy.deepcopy(original), pickle.loads(pickle.dumps(original))]
    original.apply_gradients([(torch.tensor([0.5, -0.5]), w)])
    for clone in copies:
        (variable,) = clone._vars
        assert variable is not w
        clone.apply_gradients([(torch.tensor([0.5, -0.5]), variable)])
        assert len(clone.variables) == len(original.variables)
        assert clone.iterations == 2
        torch.testing.assert_close(variable.detach(), w.detach())

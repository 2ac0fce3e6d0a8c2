"""Each optimizer's update rule against values worked out by hand from Keras 2.15's formulas.

Every case starts from w = [1, 2] and applies three gradients; the expected
values were computed in float64 from the update rules quoted in each test
(Keras 2.15's `update_step`), with epsilons large enough that their placement
shows. FTRL is checked against TF's own FTRL test values.
"""

import numpy as np
import pytest
import torch

import torchestimator.keras.optimizers as optimizers

GRADS = [[0.1, 0.2], [0.3, -0.4], [-0.5, 0.6]]
DECREASING_GRADS = [[0.5, -0.6], [0.1, 0.2], [0.01, 0.01]]


def run(optimizer, grads=GRADS, start=(1.0, 2.0)):
    w = torch.nn.Parameter(torch.tensor(start))
    for g in grads:
        optimizer.apply_gradients([(torch.tensor(g), w)])
    return w.detach().numpy()


def check(optimizer, expected, grads=GRADS, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(run(optimizer, grads), expected, rtol=rtol, atol=atol)
    assert int(optimizer.iterations) == len(grads)


def test_sgd_plain_by_hand():
    # w -= lr * g, three times: [1, 2] - 0.1 * ([0.1, 0.2] + [0.3, -0.4] + [-0.5, 0.6])
    check(optimizers.SGD(learning_rate=0.1), [1.01, 1.96])


def test_sgd_momentum_by_hand():
    # m = momentum * m - lr * g; w += m
    # m1 = [-.01, -.02]      w = [.99, 1.98]
    # m2 = [-.039, .022]     w = [.951, 2.002]
    # m3 = [.0149, -.0402]   w = [.9659, 1.9618]
    check(optimizers.SGD(learning_rate=0.1, momentum=0.9), [0.9659, 1.9618])


def test_sgd_nesterov_by_hand():
    # m = momentum * m - lr * g; w += momentum * m - lr * g
    check(optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True), [0.97931, 1.92562])


def test_sgd_momentum_keeps_the_learning_rate_inside_the_velocity():
    # Keras: m2 = -0.05 * g2 + 0.9 * m1 (m1 = -0.1 * g1); torch.optim.SGD would scale 0.9 * g1 by 0.05.
    schedule = optimizers.schedules.PiecewiseConstantDecay([0], [0.1, 0.05])
    check(optimizers.SGD(learning_rate=schedule, momentum=0.9), [0.9694, 1.9538])


def test_adam_epsilon_hat_by_hand():
    # alpha = lr * sqrt(1 - b2^t) / (1 - b1^t); m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2)
    # w -= alpha * m / (sqrt(v) + eps)   (eps outside the bias correction)
    check(optimizers.Adam(learning_rate=0.1, epsilon=0.1), [0.9911272263976768, 1.9920201529091583])


def test_adam_amsgrad_uses_the_running_max_of_v():
    plain = optimizers.Adam(learning_rate=0.1, beta_2=0.5, epsilon=0.1)
    check(plain, [0.7909641248203753, 2.1473597495236243], grads=DECREASING_GRADS)
    ams = optimizers.Adam(learning_rate=0.1, beta_2=0.5, epsilon=0.1, amsgrad=True)
    check(ams, [0.8283429248807598, 2.1299741475111054], grads=DECREASING_GRADS)
    assert len(ams.variables) == 1 + 3  # iterations, m, v, vhat


def test_adamw_decays_before_the_adam_update():
    # w -= w * weight_decay * lr, then the Adam update
    check(
        optimizers.AdamW(learning_rate=0.1, weight_decay=0.1, epsilon=0.1),
        [0.961570657578024, 1.9326911690363242],
    )


def test_adagrad_epsilon_inside_sqrt_by_hand():
    # accumulator starts at 0.1; accumulator += g^2; w -= lr * g / sqrt(accumulator + eps)
    check(optimizers.Adagrad(learning_rate=0.1, epsilon=0.1), [0.9908259414722084, 1.953596003995813])


def test_adagrad_single_step_keras_example():
    # Keras' own test: lr 0.5, accumulator 0.1 -> 1.1, w = 1 - 0.5 / sqrt(1.1 + 1e-7)
    optimizer = optimizers.Adagrad(learning_rate=0.5)
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    optimizer.apply_gradients([(torch.tensor([1.0, 6.0, 7.0, 2.0]), w)])
    np.testing.assert_allclose(w.detach().numpy(), [0.5233, 1.5007, 2.5005, 3.5061], atol=1e-4)


def test_rmsprop_epsilon_inside_sqrt_by_hand():
    # v = rho v + (1 - rho) g^2; w -= lr * g / sqrt(v + eps)
    check(optimizers.RMSprop(learning_rate=0.1, epsilon=0.1), [1.0146750985473894, 1.9005724402807387])


def test_rmsprop_momentum_by_hand():
    # m = momentum * m + lr * g / sqrt(v + eps); w -= m
    check(
        optimizers.RMSprop(learning_rate=0.1, momentum=0.5, epsilon=0.1),
        [0.9458284461595989, 1.9118909080064093],
    )


def test_rmsprop_centered_by_hand():
    # a = rho a + (1 - rho) g; w -= lr * g / sqrt(v - a^2 + eps)
    check(
        optimizers.RMSprop(learning_rate=0.1, epsilon=0.1, centered=True),
        [1.0141401235385543, 1.8998761315664658],
    )


def test_rmsprop_docstring_example():
    # Keras' docstring: RMSprop(0.1) on loss = w^2 / 2 from w = 10 gives 9.683772
    w = torch.nn.Parameter(torch.tensor(10.0))
    optimizers.RMSprop(learning_rate=0.1).minimize(lambda: w**2 / 2.0, [w])
    assert w.item() == pytest.approx(9.683772, abs=1e-5)


def test_adadelta_by_hand():
    # A = rho A + (1 - rho) g^2; d = -sqrt(D + eps) g / sqrt(A + eps); D = rho D + (1 - rho) d^2; w += lr d
    check(optimizers.Adadelta(learning_rate=1.0, epsilon=0.1), [1.079430444541586, 1.6315547568622237])


def test_adamax_by_hand():
    # u = max(b2 u, |g|); w -= lr m / ((1 - b1^t)(u + eps))
    check(optimizers.Adamax(learning_rate=0.1, epsilon=0.1), [0.9078478021622322, 1.9352998732994848])


def test_nadam_by_hand():
    # u_t = b1 (1 - 0.5 * 0.96^t), products of u; m_hat = u_{t+1} m / (1 - prod_{t+1}) + (1 - u_t) g / (1 - prod_t)
    # w -= lr m_hat / (sqrt(v / (1 - b2^t)) + eps)
    check(optimizers.Nadam(learning_rate=0.1, epsilon=0.1), [0.9438056824198218, 1.928590690967685])


def test_nadam_resumes_at_a_restored_step_count():
    # Two runs of 3 steps with the optimizer state carried over equal one run of 6 steps.
    reference = optimizers.Nadam(learning_rate=0.1, epsilon=0.1)
    expected = run(reference, GRADS + GRADS)
    first = optimizers.Nadam(learning_rate=0.1, epsilon=0.1)
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    for g in GRADS:
        first.apply_gradients([(torch.tensor(g), w)])
    second = optimizers.Nadam(learning_rate=0.1, epsilon=0.1)
    second.load_state_dict(first.state_dict())
    for g in GRADS:
        second.apply_gradients([(torch.tensor(g), w)])
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-6)


FTRL_CASES = [
    # (steps, kwargs, var0 after, var1 after) from TF's ftrl_test.py (lr 3.0, accumulator 0.1)
    (3, {}, [-2.55607247, -3.98729396], [-0.28232238, -0.56096673]),
    (10, {"l1_regularization_strength": 0.001}, [-7.66718769, -10.91273689], [-0.93460727, -1.86147261]),
    (10, {"beta": 0.1}, [-6.096838, -9.162214], [-0.717741, -1.425132]),
    (10, {"l2_regularization_strength": 0.1, "beta": 0.1}, [-2.735487, -4.704625], [-0.294335, -0.586556]),
    (
        10,
        {"l1_regularization_strength": 0.001, "l2_regularization_strength": 2.0},
        [-0.24059935, -0.46829352],
        [-0.02406147, -0.04830509],
    ),
    (
        10,
        {
            "l1_regularization_strength": 0.001,
            "l2_regularization_strength": 2.0,
            "l2_shrinkage_regularization_strength": 0.1,
        },
        [-0.22578995, -0.44345796],
        [-0.14378493, -0.13229476],
    ),
]


@pytest.mark.parametrize("steps,kwargs,expected0,expected1", FTRL_CASES)
def test_ftrl_matches_tf(steps, kwargs, expected0, expected1):
    v0 = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    v1 = torch.nn.Parameter(torch.tensor([4.0, 3.0]))
    g0, g1 = torch.tensor([0.1, 0.2]), torch.tensor([0.01, 0.02])
    optimizer = optimizers.Ftrl(3.0, initial_accumulator_value=0.1, **kwargs)
    for _ in range(steps):
        optimizer.apply_gradients(zip([g0, g1], [v0, v1]))
    np.testing.assert_allclose(v0.detach().numpy(), expected0, rtol=1e-5)
    np.testing.assert_allclose(v1.detach().numpy(), expected1, rtol=1e-5)


def test_ftrl_first_step_by_hand():
    # n = 0.1 -> 4.1 (g = 2); z = 2 - (sqrt(4.1) - sqrt(0.1)) / 0.001 * 1; w = -z / (sqrt(4.1) / 0.001)
    w = torch.nn.Parameter(torch.tensor([1.0]))
    optimizers.Ftrl(learning_rate=0.001).apply_gradients([(torch.tensor([2.0]), w)])
    z = 2 - (np.sqrt(4.1) - np.sqrt(0.1)) / 0.001
    assert w.item() == pytest.approx(-z / (np.sqrt(4.1) / 0.001), rel=1e-5)


def test_ftrl_l1_zeroes_small_weights():
    # |z| <= l1 gives w = 0
    w = torch.nn.Parameter(torch.tensor([0.0, 0.0]))
    optimizers.Ftrl(learning_rate=1.0, l1_regularization_strength=1.0).apply_gradients(
        [(torch.tensor([0.5, 3.0]), w)]
    )
    assert w[0].item() == 0.0 and w[1].item() != 0.0


def test_step_reads_p_grad_like_apply_gradients():
    # The engine's path (backward, step, zero_grad) updates exactly as apply_gradients does.
    for factory in (
        lambda: optimizers.Adam(learning_rate=0.1, epsilon=0.1),
        lambda: optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True),
        lambda: optimizers.Nadam(learning_rate=0.1, epsilon=0.1),
        lambda: optimizers.Adadelta(learning_rate=1.0, epsilon=0.1),
    ):
        expected = run(factory())
        optimizer = factory()
        w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        optimizer.build([w])
        for g in GRADS:
            (w * torch.tensor(g)).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            assert w.grad is None
        np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("change", ["in_place", "load_state_dict"])
def test_ftrl_recomputes_kept_powers_after_the_accumulators_change(change):
    # The kernel keeps sqrt(n) from one step to the next; a restore or an in-place change of the
    # accumulators must not let the stale value through: the step equals a fresh optimizer's.
    def two_vars():
        return [torch.nn.Parameter(torch.tensor([1.0, 2.0])), torch.nn.Parameter(torch.tensor([4.0]))]

    grads = [torch.tensor([0.1, 0.2]), torch.tensor([0.3])]
    kept_vars = two_vars()
    kept = optimizers.Ftrl(3.0, initial_accumulator_value=0.1)
    for _ in range(2):
        kept.apply_gradients(zip(grads, kept_vars))
    if change == "in_place":
        for v in kept_vars:
            kept._kernel.state[v]["accumulator"].mul_(3.0)
    else:
        other_vars = two_vars()
        other = optimizers.Ftrl(3.0, initial_accumulator_value=0.1)
        other.apply_gradients(zip([torch.tensor([0.5, -0.5]), torch.tensor([0.7])], other_vars))
        kept.load_state_dict(other.state_dict())
    fresh_vars = [torch.nn.Parameter(v.detach().clone()) for v in kept_vars]
    fresh = optimizers.Ftrl(3.0, initial_accumulator_value=0.1)
    fresh.build(fresh_vars)
    fresh.load_state_dict(kept.state_dict())
    kept.apply_gradients(zip(grads, kept_vars))
    fresh.apply_gradients(zip(grads, fresh_vars))
    for a, b in zip(kept_vars, fresh_vars):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6)

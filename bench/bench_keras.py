"""Keras on torchestimator against the same work written directly in PyTorch.

1. forward+backward of an MLP and a small CNN built with tf.keras layers vs torch.nn
   (issue 2: ratio goal <= 1.05 at batch >= 32);
2. `fit` examples/s on the seeds' MLP (784-512-10, SGD, categorical crossentropy,
   metrics=['accuracy'], batch 32, 2 epochs, 60,000 synthetic rows) vs a hand-written loop
   doing the same work (loss, backward, SGD step, running loss and accuracy);
3. y = W.x + b on 100 rows, `fit(batch_size=100, epochs=1000, verbose=0)`: microseconds per
   step vs a hand-written loop, with `loss='mse'`, with a Python loss function
   `my_loss(y_true, y_pred) = 0.5 * tf.reduce_mean(tf.square(y_pred - y_true))`, and W3 as
   the W3 anchor (`w3_linreg_overhead`) and issue 18 measure it: a Python
   `half_mse` reduced per sample, SGD(0.001), a user callback, vs their `torch_raw.py` loop
   (goal <= 1.5 x the loop);
4. one `__call__` of a built Dense(10) layer on a [32, 20] float32 tensor: nested inside
   another layer's call (the fast path a model's layers take in `fit`) and at the top level,
   vs `torch.nn.Linear` and `F.linear`.

Runs are interleaved and medians reported.
Usage: python bench/bench_keras.py [--quick] [--calls (only 3 and 4)]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

import torchestimator as tf

torch.set_num_threads(2)
QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 5


def _median_interleaved(fns: dict, repeats: int = REPEATS) -> dict:
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            times[name].append(fn())
    return {name: statistics.median(v) for name, v in times.items()}


# ---------------------------------------------------------------- 1. forward + backward
def keras_mlp():
    return tf.keras.Sequential([
        tf.keras.layers.Dense(512, activation="relu", input_shape=(784,)),
        tf.keras.layers.Dense(10),
    ])


def torch_mlp():
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))


def keras_cnn():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(16, 3, activation="relu", input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(10),
    ])


class TorchCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 16, 3)
        self.c2 = torch.nn.Conv2d(16, 32, 3)
        self.fc = torch.nn.Linear(32 * 5 * 5, 10)

    def forward(self, x):  # NHWC input, as Keras users feed it
        x = x.permute(0, 3, 1, 2)
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.permute(0, 2, 3, 1).flatten(1))


def fwd_bwd_seconds(model, x, steps):
    for _ in range(5):
        model(x).sum().backward()
    start = time.perf_counter()
    for _ in range(steps):
        model(x).sum().backward()
    return (time.perf_counter() - start) / steps


def bench_forward_backward():
    rows = []
    for name, make_k, make_t, shape in (
        ("MLP 784-512-10", keras_mlp, torch_mlp, (784,)),
        ("CNN 28x28x1", keras_cnn, TorchCNN, (28, 28, 1)),
    ):
        for batch in (32, 128):
            x = torch.randn(batch, *shape)
            k, t = make_k(), make_t()
            steps = 50 if QUICK else 200
            med = _median_interleaved({
                "keras": lambda k=k, x=x, s=steps: fwd_bwd_seconds(k, x, s),
                "torch": lambda t=t, x=x, s=steps: fwd_bwd_seconds(t, x, s),
            })
            rows.append((name, batch, med["keras"] * 1e6, med["torch"] * 1e6, med["keras"] / med["torch"]))
    print("\n1. forward+backward, us/step (median)")
    print(f"{'model':<16}{'batch':>6}{'keras':>10}{'torch.nn':>10}{'ratio':>8}")
    for name, batch, k, t, r in rows:
        print(f"{name:<16}{batch:>6}{k:>10.1f}{t:>10.1f}{r:>8.3f}")


# ---------------------------------------------------------------- 2. fit on the MLP
def mlp_data(n=60_000):
    rng = np.random.default_rng(0)
    x = rng.random((n, 784), dtype=np.float32)
    y = tf.keras.utils.to_categorical(rng.integers(0, 10, n), 10)
    return x, y


def keras_fit_examples_per_s(x, y, epochs):
    model = keras_mlp()
    model.layers[-1].activation = tf.keras.activations.softmax
    model.compile(optimizer="sgd", loss="categorical_crossentropy", metrics=["accuracy"])
    start = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=epochs, verbose=0)
    return len(x) * epochs / (time.perf_counter() - start)


def torch_loop_examples_per_s(x, y, epochs):
    model = torch_mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    n = len(xt)
    start = time.perf_counter()
    for _ in range(epochs):
        loss_sum = torch.zeros(())
        correct = torch.zeros(())
        perm = torch.randperm(n)
        for i in range(0, n, 32):
            idx = perm[i:i + 32]
            xb, yb = xt[idx], yt[idx]
            probs = torch.softmax(model(xb), -1)
            loss = -(yb * torch.log(probs.clamp(1e-7, 1 - 1e-7))).sum(-1).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            with torch.no_grad():
                loss_sum += loss.detach() * len(xb)
                correct += (probs.argmax(-1) == yb.argmax(-1)).sum()
        float(loss_sum), float(correct)
    return n * epochs / (time.perf_counter() - start)


def bench_fit():
    x, y = mlp_data(12_000 if QUICK else 60_000)
    epochs = 1 if QUICK else 2
    med = _median_interleaved({
        "keras fit": lambda: keras_fit_examples_per_s(x, y, epochs),
        "torch loop": lambda: torch_loop_examples_per_s(x, y, epochs),
    }, repeats=3)
    print("\n2. MLP 784-512-10 fit, examples/s (median; goal >= 0.95 x torch loop)")
    print(f"{'keras fit':<14}{med['keras fit']:>12,.0f}")
    print(f"{'torch loop':<14}{med['torch loop']:>12,.0f}")
    print(f"{'ratio':<14}{med['keras fit'] / med['torch loop']:>12.3f}")


# ---------------------------------------------------------------- 3. linear regression
def linreg_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 1)).astype(np.float32)
    return x, (3 * x + 2).astype(np.float32)


def my_loss(y_true, y_pred):
    return 0.5 * tf.reduce_mean(tf.square(y_pred - y_true))


def keras_linreg_us(epochs, loss="mse"):
    x, y = linreg_data()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    if loss == "mse":
        model.compile(optimizer="sgd", loss="mse")
    else:
        model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01), loss=my_loss)
    start = time.perf_counter()
    model.fit(x, y, batch_size=100, epochs=epochs, verbose=0)
    return (time.perf_counter() - start) / epochs * 1e6


def torch_linreg_us(epochs, loss="mse"):
    x, y = (torch.from_numpy(a) for a in linreg_data())
    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    start = time.perf_counter()
    for _ in range(epochs):
        perm = torch.randperm(100)
        if loss == "mse":
            loss_value = F.mse_loss(model(x[perm]), y[perm])
        else:
            loss_value = 0.5 * torch.mean(torch.square(model(x[perm]) - y[perm]))
        opt.zero_grad(set_to_none=True)
        loss_value.backward()
        opt.step()
        float(loss_value.detach())
    return (time.perf_counter() - start) / epochs * 1e6


def half_mse(y_true, y_pred):
    """The W3 anchor's loss (`w3_linreg_overhead`): per-sample, then reduced."""
    return 0.5 * tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)


class _EpochCounter(tf.keras.callbacks.Callback):
    """The anchors' W3 timer callback: a user callback with `on_epoch_end` only."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def on_epoch_end(self, epoch, logs=None):
        self.n += 1


def keras_w3_us(epochs):
    """W3 as the anchors run it: Input + Dense(1), SGD(0.001), a Python loss, a user callback."""
    x, y = linreg_data()
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(1,)),
        tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(0.5),
                              bias_initializer=tf.keras.initializers.Constant(0.1)),
    ])
    model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.001), loss=half_mse)
    start = time.perf_counter()
    model.fit(x, y, batch_size=100, epochs=epochs, verbose=0, callbacks=[_EpochCounter()])
    return (time.perf_counter() - start) / epochs * 1e6


def torch_w3_us(epochs):
    """The anchors' hand-written W3 loop (`w3_linreg_overhead/torch_raw.py`)."""
    x, y = (torch.from_numpy(a.ravel()) for a in linreg_data())
    w = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(0.1, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=0.001)
    n = len(x)
    start = time.perf_counter()
    for _ in range(epochs):
        opt.zero_grad(set_to_none=True)
        cost = ((x * w + b - y) ** 2).sum() / (2 * n)
        cost.backward()
        opt.step()
    return (time.perf_counter() - start) / epochs * 1e6


def bench_linreg():
    epochs = 300 if QUICK else 1000
    med = _median_interleaved({
        "keras mse": lambda: keras_linreg_us(epochs),
        "torch mse": lambda: torch_linreg_us(epochs),
        "keras my_loss": lambda: keras_linreg_us(epochs, "python"),
        "torch my_loss": lambda: torch_linreg_us(epochs, "python"),
        "keras w3": lambda: keras_w3_us(epochs),
        "torch w3": lambda: torch_w3_us(epochs),
    })
    print(f"\n3. y = W.x + b, fit(batch_size=100, epochs={epochs}): us/step "
          "(median; goal <= 1.5 x)")
    print(f"{'loss':<30}{'keras fit':>10}{'torch loop':>12}{'ratio':>8}")
    for label, key in (("'mse'", "mse"), ("Python my_loss", "my_loss"),
                       ("W3 (anchors: half_mse, callback)", "w3")):
        k, t = med[f"keras {key}"], med[f"torch {key}"]
        print(f"{label:<30}{k:>10.1f}{t:>12.1f}{k / t:>8.2f}")


# ---------------------------------------------------------------- 4. one layer call
class _Repeat(tf.keras.layers.Layer):
    """Calls `inner` `n` times from inside its own call (the nested fast path)."""

    def __init__(self, inner, n):
        super().__init__()
        self.inner, self.n = inner, n

    def call(self, x):
        inner = self.inner
        for _ in range(self.n):
            inner(x)
        return x


def layer_call_us(fn, n):
    start = time.perf_counter()
    fn(n)
    return (time.perf_counter() - start) / n * 1e6


def bench_layer_call():
    n = 200  # calls per burst; many short interleaved bursts, so a busy machine's slow
    x = torch.randn(32, 20)  # spells hit every variant alike
    dense = tf.keras.layers.Dense(10)
    dense(x)
    linear = torch.nn.Linear(20, 10)
    weight, bias = linear.weight, linear.bias
    nested = _Repeat(dense, n)

    def top(k):
        for _ in range(k):
            dense(x)

    def torch_module(k):
        for _ in range(k):
            linear(x)

    def functional(k):
        for _ in range(k):
            F.linear(x, weight, bias)

    med = _median_interleaved({
        "Dense, nested (fast path)": lambda: layer_call_us(lambda k: nested(x), n),
        "Dense, top level": lambda: layer_call_us(top, n),
        "torch.nn.Linear": lambda: layer_call_us(torch_module, n),
        "F.linear": lambda: layer_call_us(functional, n),
    }, repeats=31 if QUICK else 101)
    print("\n4. one call of a built Dense(10) on a [32, 20] tensor, us/call (median of "
          "interleaved bursts of 200 calls)")
    print(f"{'':28}{'us/call':>8}{'- F.linear':>12}")
    for name, us in med.items():
        print(f"{name:<28}{us:>8.2f}{us - med['F.linear']:>12.2f}")

if __name__ == "__main__":
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
    if "--calls" in sys.argv:  # only the per-call figures (3 and 4)
        bench_linreg()
        bench_layer_call()
        sys.exit()
    bench_forward_backward()
    bench_fit()
    bench_linreg()
    bench_layer_call()

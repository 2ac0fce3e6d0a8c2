"""Host time per step on models too small to compute anything: what a GPU step costs the CPU.

    python bench/bench_host_overhead.py [--steps 600] [--repeats 5] [--smoke] [--twins]

On a GPU a small model's step is bound by the host: the Python and the torch dispatch that
queue its kernels, not the kernels themselves. On the CPU, a model 8-16-4 wide at batch 32
computes next to nothing, so the wall time of a step is that host work; ours against a
hand-written torch loop doing the same work is the CPU's view of issue 28's GPU ratios
(`bench_gpu.py --count-kernels` counts the launches that add to it on a GPU). Value checks are
deferred as on an accelerator. A copy to a GPU keeps each small host tensor as its copy's host
twin, so that label checks read the host instead of launching kernels: `--twins` makes the CPU
stand in for those copies (`loop.TWIN_HOST_TENSORS_ON_CPU`), but the stand-in is a numpy copy of
every small tensor of the batch that the loop does not make, so it overstates our host time
(by 15-30 us a step here); without it the label checks run as deferred device checks, a few
microseconds more than the host check a GPU run makes. One torch thread; runs interleaved,
medians reported.

Cases (ours vs the loop):
* Keras `fit` on arrays, SGD, sparse categorical crossentropy from logits,
  `metrics=['accuracy']` (the loop keeps a running loss and accuracy too);
* the same `fit` on `from_tensor_slices(...).shuffle(...).batch(32).prefetch(AUTOTUNE)`, as
  TensorFlow's tutorials feed it;
* an Estimator with a custom `model_fn` (Dense 16, Dense 2, TF1 Adam) on an `input_fn` ending
  in `prefetch(2)` (the loop: Adam);
* the premade `DNNClassifier([16, 16])` on 4 numeric columns (the loop: Adagrad 0.05).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import torch

BATCH, FEATURES, WIDTH, CLASSES = 32, 8, 16, 4


def _per_step_us(fn, steps: int) -> float:
    gc.collect()  # a full collection of torch's ~170k objects (~0.1 s) lands in neither run
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / steps * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="a few steps, one repeat (tests)")
    parser.add_argument("--twins", action="store_true",
                        help="stand in for a GPU's copies: label checks read host twins")
    args = parser.parse_args()
    steps, repeats = (8, 1) if args.smoke else (args.steps, args.repeats)
    os.environ.setdefault("TORCHESTIMATOR_DEVICE", "cpu")
    torch.set_num_threads(1)
    import torchestimator as tf
    from torchestimator._engine import loop

    loop.DEFER_CHECKS_ON_CPU = True  # as on an accelerator: checks read back at flush points
    loop.TWIN_HOST_TENSORS_ON_CPU = args.twins  # as a copy to an accelerator: host twins
    logging.getLogger("torchestimator").setLevel(logging.WARNING)
    rng = np.random.default_rng(0)
    rows = BATCH * steps
    x = rng.standard_normal((rows, FEATURES), dtype=np.float32)
    y = rng.integers(0, CLASSES, rows)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    results: list[tuple[str, float, float]] = []

    def compare(name: str, ours, loop_fn) -> None:
        ours(), loop_fn()  # warm-up: builds, first-use caches
        times: dict = {"ours": [], "loop": []}
        for _ in range(repeats):
            times["ours"].append(_per_step_us(ours, steps))
            times["loop"].append(_per_step_us(loop_fn, steps))
        o, t = statistics.median(times["ours"]), statistics.median(times["loop"])
        results.append((name, o, t))
        print(f"  {name}: {o:.1f} vs {t:.1f} us/step ({t / o:.2f}x)", flush=True)

    # 1-2. Keras fit, on arrays and on a prefetched dataset
    def keras_mlp():
        model = tf.keras.Sequential([tf.keras.Input((FEATURES,)),
                                     tf.keras.layers.Dense(WIDTH, activation="relu"),
                                     tf.keras.layers.Dense(CLASSES)])
        model.compile(tf.keras.optimizers.SGD(0.01),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        return model

    def torch_fit_loop(shuffle: bool):
        mlp = torch.nn.Sequential(torch.nn.Linear(FEATURES, WIDTH), torch.nn.ReLU(),
                                  torch.nn.Linear(WIDTH, CLASSES))
        opt = torch.optim.SGD(mlp.parameters(), lr=0.01)

        def run():
            order = torch.randperm(rows) if shuffle else torch.arange(rows)
            total, hits = torch.zeros(()), torch.zeros(())
            for i in range(steps):
                idx = order[i * BATCH:(i + 1) * BATCH]
                xb, yb = xt[idx], yt[idx]
                logits = mlp(xb)
                loss = torch.nn.functional.cross_entropy(logits, yb)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                with torch.no_grad():
                    total += loss.detach()
                    hits += (logits.argmax(1) == yb).sum()
            return float(total), float(hits)

        return run

    fit_model = keras_mlp()
    compare("fit, arrays, accuracy", lambda: fit_model.fit(x, y, batch_size=BATCH, verbose=0),
            torch_fit_loop(shuffle=True))
    ds_model = keras_mlp()

    def fit_dataset():
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(rows, seed=0).batch(BATCH)
        ds_model.fit(ds.prefetch(tf.data.AUTOTUNE), verbose=0)

    compare("fit, tf.data + prefetch", fit_dataset, torch_fit_loop(shuffle=True))

    # 3. Estimator, custom model_fn
    config = tf.estimator.RunConfig(log_step_count_steps=None, save_summary_steps=0,
                                    save_checkpoints_steps=None, save_checkpoints_secs=None)
    labels2 = (x[:, 0] > 0).astype(np.int64)

    def input_fn_of(features):
        def input_fn():
            return tf.data.Dataset.from_tensor_slices((features, labels2)).batch(BATCH).prefetch(2)
        return input_fn

    def model_fn(features, labels, mode):
        hidden = tf.keras.layers.Dense(WIDTH, activation="relu")(features["x"])
        logits = tf.keras.layers.Dense(2)(hidden)
        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(
            labels, logits, from_logits=True))
        optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def torch_estimator_loop(features: int, widths: list[int], make_optimizer):
        layers: list[torch.nn.Module] = []
        inputs = features
        for width in widths:
            layers += [torch.nn.Linear(inputs, width), torch.nn.ReLU()]
            inputs = width
        mlp = torch.nn.Sequential(*layers, torch.nn.Linear(inputs, 2))
        opt = make_optimizer(mlp.parameters())
        x_in, y_in = xt[:, :features].contiguous(), torch.from_numpy(labels2)

        def run():
            for i in range(steps):
                xb, yb = x_in[i * BATCH:(i + 1) * BATCH], y_in[i * BATCH:(i + 1) * BATCH]
                loss = torch.nn.functional.cross_entropy(mlp(xb), yb)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()

        return run

    custom = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    compare("Estimator, custom model_fn", lambda: custom.train(input_fn_of({"x": x}), steps=steps),
            torch_estimator_loop(FEATURES, [WIDTH], lambda p: torch.optim.Adam(p, 1e-3)))

    # 4. premade DNNClassifier
    columns = {f"f{i}": x[:, i] for i in range(4)}
    dnn = tf.estimator.DNNClassifier([WIDTH, WIDTH],
                                     [tf.feature_column.numeric_column(k) for k in columns],
                                     model_dir=tempfile.mkdtemp(), config=config)
    compare("DNNClassifier [16, 16]", lambda: dnn.train(input_fn_of(columns), steps=steps),
            torch_estimator_loop(len(columns), [WIDTH, WIDTH], lambda p: torch.optim.Adagrad(p, 0.05)))

    print(f"\nHost time per step, batch {BATCH}, models {FEATURES}-{WIDTH}-{CLASSES} wide "
          f"(1 torch thread, {repeats} interleaved repeats, medians)")
    print(f"{'case':<32}{'ours us':>10}{'torch loop us':>15}{'loop/ours':>11}")
    for name, o, t in results:
        print(f"{name:<32}{o:>10.1f}{t:>15.1f}{t / o:>11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

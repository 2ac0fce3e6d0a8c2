"""GPU benchmark: torchestimator against a hand-written torch loop doing the same work on the
same GPU, runs interleaved, medians reported (issue 28).

Cases: Keras `fit` of an MLP 784-512-10 (SGD, shuffled) at batch 32 and 256; a CNN (2 conv + 2 dense,
Adam) at batch 128; a custom model_fn Estimator; the premade DNNClassifier [256, 256] on 20
numeric columns; wide & deep (hashed + vocabulary + embedding + 5 numeric); and an MLP
4096-4096-4096 at batch 1024 in float32 against 'mixed_bfloat16' (ours: layers cast / under
`torch.autocast`; torch: autocast). Synthetic data only.

Runs only when CUDA is available; otherwise it prints why and exits 0.
Usage: python3 bench/bench_gpu.py [--repeats N] [--quick] [--device cuda:0]

`--count-kernels` runs the same cases on the CPU, with no GPU, and counts instead of timing:
the torch ops per step that would each be a kernel launch on a GPU (view ops and `detach` are
not counted), and the read-backs to the host (`.item()` and the like: each a synchronization
on a GPU). Ours defers its value checks as on an accelerator; the torch loops use the foreach
optimizers that CUDA gets by default (torch's Adam and Adagrad read their step counts back, which
CUDA keeps on the host: reads there, not synchronizations). Setup done in each timed call (the Estimator's restore
and final checkpoint, fit's start) is counted and spread over the steps, as the timing spreads
it. On a small model a GPU step costs about the launches it makes, so this is the CPU's view of
the GPU ratio.
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
from torch.utils._python_dispatch import TorchDispatchMode


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def _timed(fn) -> float:
    gc.collect()  # a full collection of torch's ~170k objects (~0.1 s) lands in neither run
    _sync()
    start = time.perf_counter()
    fn()
    _sync()
    return time.perf_counter() - start


# ------------------------------------------------------------------------ hand-written loops
def torch_loop(model, optimizer, x, y, batch, steps, device, autocast_dtype=None, shuffle=False):
    """`steps` steps of cross-entropy training on host data copied to the device per batch:
    slices of `x` and `y` in order, or with `shuffle` rows gathered by a permutation drawn each
    run (as the issue's reference GPU check and Keras' `fit(shuffle=True)` do)."""
    loss_fn = torch.nn.functional.cross_entropy
    n = x.shape[0]

    def run():
        order = torch.randperm(n) if shuffle else None
        for i in range(steps):
            lo = (i * batch) % max(n - batch + 1, 1)
            if order is None:
                xb = x[lo:lo + batch].to(device, non_blocking=True)
                yb = y[lo:lo + batch].to(device, non_blocking=True)
            else:
                index = order[lo:lo + batch]
                xb = x[index].to(device, non_blocking=True)
                yb = y[index].to(device, non_blocking=True)
            if autocast_dtype is None:
                loss = loss_fn(model(xb), yb)
            else:
                with torch.autocast(device.type, dtype=autocast_dtype):
                    loss = loss_fn(model(xb).float(), yb)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

    return run


class _KernelCount(TorchDispatchMode):
    """Counts the torch ops dispatched while active: `kernels` (ops that would launch a kernel
    on a GPU: not views, `detach` or profiler marks) and `reads` (values read back to the host)."""

    _NOT_KERNELS = ("aten::detach", "aten::lift_fresh", "aten::alias")

    def __init__(self) -> None:
        super().__init__()
        self.kernels = self.reads = 0
        self.by_op: dict[str, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.name()
        if name == "aten::_local_scalar_dense":
            self.reads += 1
        elif not (func.is_view or name.startswith("profiler::") or name in self._NOT_KERNELS):
            self.kernels += 1
            self.by_op[name] = self.by_op.get(name, 0) + 1
        return func(*args, **(kwargs or {}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="3 repeats, fewer steps")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--count-kernels", action="store_true",
                        help="on the CPU: kernel launches and read-backs per step instead of speed")
    parser.add_argument("--by-op", action="store_true",
                        help="with --count-kernels: each case's launches per step by op, ours against torch's")
    args = parser.parse_args()
    smoke = os.environ.get("BENCH_GPU_SMOKE_CPU") == "1"  # tests: the whole script, tiny, on the CPU
    counting = args.count_kernels
    if counting:
        args.device = "cpu"
    if not torch.cuda.is_available() and not smoke and not counting:
        print("bench_gpu: CUDA is not available on this machine (torch "
              f"{torch.__version__}, built for CUDA {torch.version.cuda}); nothing to measure.")
        return 0
    if smoke and not torch.cuda.is_available():
        args.device, args.quick = "cpu", True
    os.environ.setdefault("TORCHESTIMATOR_DEVICE", args.device)
    import torchestimator as tf

    logging.getLogger("torchestimator").setLevel(logging.WARNING)
    device = torch.device(args.device)
    repeats = 1 if smoke or counting else 3 if args.quick else args.repeats
    steps = 6 if smoke else 60 if counting else 100 if args.quick else 300
    foreach = {"foreach": True} if counting else {}  # CUDA's default; the CPU's is a loop
    if counting:
        from torchestimator._engine import loop as engine_loop

        engine_loop.DEFER_CHECKS_ON_CPU = True  # as on an accelerator
        engine_loop.TWIN_HOST_TENSORS_ON_CPU = True  # batches "copied" keep their host twins

    def pin(tensor: torch.Tensor) -> torch.Tensor:
        return tensor.pin_memory() if device.type == "cuda" else tensor
    rng = np.random.default_rng(0)
    rows: list[tuple] = []
    if device.type == "cuda":
        print(f"torch {torch.__version__} on {torch.cuda.get_device_name(device)}; {repeats} repeats, "
              f"{steps} steps each", flush=True)
    else:
        print("bench_gpu: kernel launches per step, counted on the CPU" if counting else "bench_gpu: CPU smoke run")

    def compare(name: str, batch: int, case_steps: int, cases: dict) -> None:
        """Interleaves `cases` (name -> callable running `case_steps` steps of `batch`
        examples), reports examples/s medians (or, counting, kernels and reads per step)."""
        unit_examples = batch * case_steps
        for fn in cases.values():  # warm-up: first-use caches, cuDNN autotune, builds
            fn()
        if counting:
            counts, by_op = {}, {}
            for key, fn in cases.items():
                with _KernelCount() as count:
                    fn()
                counts[key] = (count.kernels / case_steps, count.reads / case_steps)
                by_op[key] = count.by_op
            keys = list(cases)
            (ours, ours_reads), (base, base_reads) = counts[keys[0]], counts[keys[-1]]
            rows.append((name, ours, base, ours_reads, base_reads))
            print(f"  {name}: {ours:.1f} vs {base:.1f} kernels/step, {ours_reads:.2f} vs {base_reads:.2f} "
                  "reads/step", flush=True)
            if args.by_op:
                mine, theirs = by_op[keys[0]], by_op[keys[-1]]
                for op in sorted(set(mine) | set(theirs), key=lambda o: theirs.get(o, 0) - mine.get(o, 0)):
                    a, b = mine.get(op, 0) / case_steps, theirs.get(op, 0) / case_steps
                    if abs(a - b) >= 0.005:
                        print(f"      {op:44s} {a:6.2f} vs {b:6.2f}")
            return
        times: dict = {k: [] for k in cases}
        for _ in range(repeats):
            for key, fn in cases.items():
                times[key].append(_timed(fn))
        medians = {k: statistics.median(v) for k, v in times.items()}
        keys = list(cases)
        ours, base = medians[keys[0]], medians[keys[-1]]
        rows.append((name, unit_examples / ours, unit_examples / base, base / ours, keys[0], keys[-1]))
        print(f"  {name}: {unit_examples / ours:,.0f} vs {unit_examples / base:,.0f} ex/s "
              f"({base / ours:.2f}x)", flush=True)

    # 1-2. Keras fit, MLP 784-512-10, SGD
    x784 = rng.standard_normal((256 * steps, 784), dtype=np.float32)
    y10 = rng.integers(0, 10, 256 * steps)
    for batch in (32, 256):
        n = batch * steps
        tf.keras.utils.set_random_seed(0)
        keras_mlp = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu", input_shape=(784,)),
                                         tf.keras.layers.Dense(10)])
        keras_mlp.compile(tf.keras.optimizers.SGD(0.01),
                          tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        torch_mlp = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                        torch.nn.Linear(512, 10)).to(device)
        # shuffled, as fit's default and the reference loop: ours gathers each batch into
        # pinned memory; the loop gathers into pageable memory, which CUDA copies through staging
        loop = torch_loop(torch_mlp, torch.optim.SGD(torch_mlp.parameters(), 0.01, **foreach),
                          torch.from_numpy(x784[:n]), torch.from_numpy(y10[:n]),
                          batch, steps, device, shuffle=True)
        compare(f"fit MLP 784-512-10, batch {batch}, shuffled", batch, steps, {
            "keras fit": lambda b=batch, n=n, m=keras_mlp: m.fit(x784[:n], y10[:n], batch_size=b, epochs=1,
                                                            verbose=0, shuffle=True),
            "torch loop": loop})

    # 3. CNN, Adam, batch 128
    batch, n = 128, 128 * (2 if smoke else max(steps // 3, 20))
    ximg = rng.standard_normal((n, 32, 32, 3), dtype=np.float32)
    yimg = rng.integers(0, 10, n)
    L = tf.keras.layers
    keras_cnn = tf.keras.Sequential([
        L.Conv2D(32, 3, activation="relu", input_shape=(32, 32, 3)), L.MaxPooling2D(),
        L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
        L.Dense(64, activation="relu"), L.Dense(10)])
    keras_cnn.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    torch_cnn = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(32, 64, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(64 * 6 * 6, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)).to(device)
    compare("fit CNN, batch 128", batch, n // batch, {
        "keras fit": lambda: keras_cnn.fit(ximg, yimg, batch_size=batch, epochs=1, verbose=0, shuffle=False),
        "torch loop": torch_loop(torch_cnn, torch.optim.Adam(torch_cnn.parameters(), **foreach),
                                 pin(torch.from_numpy(ximg).permute(0, 3, 1, 2).contiguous()),
                                 pin(torch.from_numpy(yimg)), batch, n // batch, device)})

    # 4-6. Estimators, batch 256
    batch = 256
    est_steps = 4 if smoke else max(steps // 3, 30)
    x20 = rng.standard_normal((batch * est_steps, 20), dtype=np.float32)
    y2 = (x20[:, 0] > 0).astype(np.int64)
    config = tf.estimator.RunConfig(log_step_count_steps=None, save_summary_steps=0,
                                    save_checkpoints_steps=None, save_checkpoints_secs=None)

    def dataset_fn(features):
        def input_fn():
            return tf.data.Dataset.from_tensor_slices((features, y2)).batch(batch).prefetch(2)
        return input_fn

    def model_fn(features, labels, mode):
        hidden = tf.keras.layers.Dense(256, activation="relu")(features["x"])
        logits = tf.keras.layers.Dense(2)(hidden)
        loss = tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
        loss = torch.mean(loss)
        optimizer = tf.compat.v1.train.AdamOptimizer(1e-3)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    custom = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp(), config=config)
    mlp20 = torch.nn.Sequential(torch.nn.Linear(20, 256), torch.nn.ReLU(), torch.nn.Linear(256, 2)).to(device)
    raw20 = torch_loop(mlp20, torch.optim.Adam(mlp20.parameters(), **foreach), pin(torch.from_numpy(x20)),
                       pin(torch.from_numpy(y2)), batch, est_steps, device)
    compare("Estimator custom model_fn, batch 256", batch, est_steps, {
        "estimator": lambda: custom.train(dataset_fn({"x": x20}), steps=est_steps), "torch loop": raw20})

    columns20 = {f"f{i}": x20[:, i] for i in range(20)}
    dnn = tf.estimator.DNNClassifier([256, 256], [tf.feature_column.numeric_column(k) for k in columns20],
                                     model_dir=tempfile.mkdtemp(), config=config)
    dnn_torch = torch.nn.Sequential(torch.nn.Linear(20, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                    torch.nn.ReLU(), torch.nn.Linear(256, 2)).to(device)
    compare("DNNClassifier [256, 256], 20 numeric, batch 256", batch, est_steps, {
        "estimator": lambda: dnn.train(dataset_fn(columns20), steps=est_steps),
        "torch loop": torch_loop(dnn_torch, torch.optim.Adagrad(dnn_torch.parameters(), 0.05, **foreach),
                                 pin(torch.from_numpy(x20)), pin(torch.from_numpy(y2)),
                                 batch, est_steps, device)})

    words = np.array([f"w{i}".encode() for i in range(50)])[rng.integers(0, 50, batch * est_steps)]
    wide_features = {"word": words, "hashed": words, **{f"n{i}": x20[:, i] for i in range(5)}}
    vocab = tf.feature_column.categorical_column_with_vocabulary_list("word", [f"w{i}" for i in range(50)])
    hashed = tf.feature_column.categorical_column_with_hash_bucket("hashed", 1000)
    numeric = [tf.feature_column.numeric_column(f"n{i}") for i in range(5)]
    wide_deep = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[vocab, hashed],
        dnn_feature_columns=[tf.feature_column.embedding_column(vocab, 8),
                             tf.feature_column.embedding_column(hashed, 8), *numeric],
        dnn_hidden_units=[64, 32], model_dir=tempfile.mkdtemp(), config=config)
    ids = pin(torch.from_numpy(rng.integers(0, 1000, (batch * est_steps, 2))))

    class WideDeep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.EmbeddingBag(1050, 8)
            self.wide = torch.nn.EmbeddingBag(1050, 1, mode="sum")
            self.deep = torch.nn.Sequential(torch.nn.Linear(13, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32),
                                            torch.nn.ReLU(), torch.nn.Linear(32, 2))

        def forward(self, pair):
            idx, dense = pair
            return self.deep(torch.cat([self.embed(idx), dense], 1)) + self.wide(idx)

    wd = WideDeep().to(device)
    wd_opt = torch.optim.Adagrad(wd.parameters(), 0.05, **foreach)
    x5 = pin(torch.from_numpy(x20[:, :5]))
    y2t = pin(torch.from_numpy(y2))

    def wd_loop():
        for i in range(est_steps):
            sl = slice(i * batch, (i + 1) * batch)
            pair = (ids[sl].to(device, non_blocking=True), x5[sl].to(device, non_blocking=True))
            loss = torch.nn.functional.cross_entropy(wd(pair), y2t[sl].to(device, non_blocking=True))
            wd_opt.zero_grad(set_to_none=True)
            loss.backward()
            wd_opt.step()

    compare("wide & deep (vocab + hash + 5 numeric), batch 256", batch, est_steps, {
        "estimator": lambda: wide_deep.train(dataset_fn(wide_features), steps=est_steps),
        "torch loop": wd_loop})

    # 7. mixed_bfloat16 vs float32, MLP 4096-4096-4096, batch 1024
    batch, mp_steps = (64, 2) if smoke else (64, 20) if counting else (1024, max(steps // 6, 20))
    width = 256 if smoke or counting else 4096
    xbig = rng.standard_normal((batch * 4, width), dtype=np.float32)
    ybig = rng.integers(0, width, batch * 4)
    mp = tf.keras.mixed_precision
    big_models = {}
    for policy in ("float32", "mixed_bfloat16"):
        mp.set_global_policy(policy)
        model = tf.keras.Sequential([tf.keras.layers.Dense(width, activation="relu", input_shape=(width,)),
                                     tf.keras.layers.Dense(width, activation="relu"),
                                     tf.keras.layers.Dense(width, dtype="float32")])
        model.compile(tf.keras.optimizers.SGD(0.01),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        big_models[policy] = model
    mp.set_global_policy("float32")
    xs = np.concatenate([xbig] * (mp_steps // 4 + 1))[:batch * mp_steps]
    ys = np.concatenate([ybig] * (mp_steps // 4 + 1))[:batch * mp_steps]
    torch_big = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, width),
                                    torch.nn.ReLU(), torch.nn.Linear(width, width)).to(device)
    xt, yt = pin(torch.from_numpy(xs)), pin(torch.from_numpy(ys))
    big_opt = torch.optim.SGD(torch_big.parameters(), 0.01, **foreach)
    for policy, dtype in (("float32", None), ("mixed_bfloat16", torch.bfloat16)):
        compare(f"fit MLP {width}x3 {policy}, batch {batch}", batch, mp_steps, {
            "keras fit": lambda p=policy: big_models[p].fit(xs, ys, batch_size=batch, epochs=1, verbose=0,
                                                            shuffle=False),
            "torch loop": torch_loop(torch_big, big_opt, xt, yt, batch, mp_steps, device, dtype)})

    print()
    if counting:
        print(f"{'case (per step, counted on the CPU)':52s} {'ours kernels':>12s} {'torch kernels':>13s} "
              f"{'ours reads':>10s} {'torch reads':>11s}")
        for name, ours, base, ours_reads, base_reads in rows:
            print(f"{name:52s} {ours:12.1f} {base:13.1f} {ours_reads:10.2f} {base_reads:11.2f}")
        return 0
    print(f"{'case':52s} {'ours ex/s':>12s} {'torch ex/s':>12s} {'ratio':>7s}")
    for name, ours, base, ratio, _, _ in rows:
        print(f"{name:52s} {ours:12,.0f} {base:12,.0f} {ratio:7.2f}")
    bf16 = [r for r in rows if "mixed_bfloat16" in r[0]]
    f32 = [r for r in rows if "4096x3 float32" in r[0]]
    if bf16 and f32:
        print(f"mixed_bfloat16 / float32 speed-up: ours {bf16[0][1] / f32[0][1]:.2f}x, "
              f"torch {bf16[0][2] / f32[0][2]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Records TF 1.x's RNN API (tf.compat.v1.nn.rnn_cell + dynamic_rnn & co.) for issue 32.

Run with a Python that has `tensorflow-cpu==2.15.1` (never a dependency of the package):

    ~/anchor-venvs/tf215/bin/python tools/make_tf1_rnn_fixtures.py

Each case builds its RNN in a fresh TF1 graph (graph mode through `tf.compat.v1`), with the
variables initialized by a seeded `random_uniform_initializer(-0.5, 0.5)` scope initializer
(biases keep their own initializers), runs it once and records in
tests/compat/v1/fixtures/tf1_rnn.npz:

  `<case>/inputs` (and `<case>/seq_len` when used), `<case>/var/<variable name>` for each global
  variable, `<case>/out/<i>` and `<case>/state/<i>` for the flattened outputs and final states;

and in tests/compat/v1/fixtures/tf1_rnn.json the ordered variable names and shapes of each
case. The tests create the same variables with these values (through a custom getter) and
compare the outputs and states.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
rc = v1.nn.rnn_cell
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "compat", "v1", "fixtures")

B, T, D, U = 3, 4, 2, 3
SEQ = np.array([4, 1, 3], np.int32)


def _x(seed: int, shape=(B, T, D)) -> np.ndarray:
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def c_basic_rnn(x):
    return v1.nn.dynamic_rnn(rc.BasicRNNCell(U), x, sequence_length=SEQ, dtype=tf.float32)


def c_basic_lstm(x):
    return v1.nn.dynamic_rnn(rc.BasicLSTMCell(U, forget_bias=0.5), x, sequence_length=SEQ,
                             dtype=tf.float32)


def c_basic_lstm_concat(x):
    return v1.nn.dynamic_rnn(rc.BasicLSTMCell(U, state_is_tuple=False), x, dtype=tf.float32)


def c_lstm_full_time_major(x):
    cell = rc.LSTMCell(U, use_peepholes=True, cell_clip=0.3, num_proj=2, proj_clip=0.2)
    return v1.nn.dynamic_rnn(cell, tf.transpose(x, [1, 0, 2]), sequence_length=SEQ, dtype=tf.float32,
                             time_major=True)


def c_lstm_relu_concat(x):
    cell = rc.LSTMCell(U, num_proj=2, state_is_tuple=False, activation=tf.nn.relu, forget_bias=0.0)
    return v1.nn.dynamic_rnn(cell, x, dtype=tf.float32)


def c_gru(x):
    return v1.nn.dynamic_rnn(rc.GRUCell(U), x, sequence_length=SEQ, dtype=tf.float32)


def c_gru_initial_state(x):
    init = tf.constant(_x(7, (B, U)))
    return v1.nn.dynamic_rnn(rc.GRUCell(U), x, initial_state=init, scope="enc")


def c_multi(x):
    cell = rc.MultiRNNCell([rc.BasicLSTMCell(U), rc.ResidualWrapper(rc.GRUCell(U)),
                            rc.DropoutWrapper(rc.LSTMCell(U))])
    return v1.nn.dynamic_rnn(cell, x, sequence_length=SEQ, dtype=tf.float32)


def c_static(x):
    inputs = tf.unstack(x, axis=1)
    return v1.nn.static_rnn(rc.LSTMCell(U), inputs, sequence_length=SEQ, dtype=tf.float32)


def c_static_plain(x):
    inputs = tf.unstack(x, axis=1)
    return v1.nn.static_rnn(rc.GRUCell(U), inputs, dtype=tf.float32)


def c_bidirectional(x):
    return v1.nn.bidirectional_dynamic_rnn(rc.GRUCell(U), rc.BasicLSTMCell(2), x,
                                           sequence_length=SEQ, dtype=tf.float32)


def c_bidirectional_time_major(x):
    return v1.nn.bidirectional_dynamic_rnn(rc.BasicRNNCell(U), rc.BasicRNNCell(U),
                                           tf.transpose(x, [1, 0, 2]), dtype=tf.float32,
                                           time_major=True)


def c_static_bidirectional(x):
    inputs = tf.unstack(x, axis=1)
    return v1.nn.static_bidirectional_rnn(rc.LSTMCell(U), rc.GRUCell(U), inputs,
                                          sequence_length=SEQ, dtype=tf.float32)


def c_two_rnns(x):
    with v1.variable_scope("encoder"):
        out1, _ = v1.nn.dynamic_rnn(rc.LSTMCell(U), x, dtype=tf.float32)
    with v1.variable_scope("decoder"):
        out2, st2 = v1.nn.dynamic_rnn(rc.LSTMCell(U, name="dec_cell"), out1, dtype=tf.float32)
    return out2, st2


CASES = {name[2:]: fn for name, fn in globals().items() if name.startswith("c_")}


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    manifest: dict[str, list] = {}
    for index, (case, fn) in enumerate(CASES.items()):
        graph = tf.Graph()
        with graph.as_default():
            x_val = _x(index)
            x = tf.constant(x_val)
            init = v1.random_uniform_initializer(-0.5, 0.5, seed=index)
            with v1.variable_scope(v1.get_variable_scope(), initializer=init):
                result = fn(x)
            out, state = (result[0], result[1:]) if len(result) == 3 else result
            variables = v1.global_variables()
            with v1.Session(graph=graph) as sess:
                sess.run(v1.global_variables_initializer())
                out_v, state_v, var_v = sess.run((tf.nest.flatten(out), tf.nest.flatten(state),
                                                  variables))
        arrays[f"{case}/inputs"] = x_val
        arrays[f"{case}/seq_len"] = SEQ
        for v, value in zip(variables, var_v):
            arrays[f"{case}/var/{v.op.name}"] = value
        for i, value in enumerate(out_v):
            arrays[f"{case}/out/{i}"] = value
        for i, value in enumerate(state_v):
            arrays[f"{case}/state/{i}"] = value
        manifest[case] = [[v.op.name, list(v.shape.as_list())] for v in variables]
        print(case, manifest[case])
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "tf1_rnn.npz"), **arrays)
    with open(os.path.join(OUT, "tf1_rnn.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()

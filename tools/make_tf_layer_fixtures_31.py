"""Records tf.keras 2.15's numbers for the layers and optimizers added for issue 31.

Run with a Python that has `tensorflow-cpu==2.15.1` (never a dependency of the package):

    ~/anchor-venvs/tf215/bin/python tools/make_tf_layer_fixtures_31.py

It reuses tools/make_tf_parity_fixtures.py's recorders (same manifest format, same
array names; read that docstring) and writes `layers_31.npz` and `optimizers_31.npz`
under tests/keras/parity/fixtures/, leaving the other fixture files untouched. The
`tests/keras/saving/fixtures/` gets Keras 2.15 `.keras` archives compiled with loss and metric
objects (`tf215_compiled_{dict,list,single}.keras` and `.h5`) and TF's evaluate of each (`compiled_31.json`).
The training-mode cases of the random layers (AlphaDropout, SpatialDropout3D) are not
recorded: TF's random stream is not reproducible here; tests check their statistics.
"""

from __future__ import annotations

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_parity", os.path.join(HERE, "make_tf_parity_fixtures.py"))
P = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(P)
F, L = P.F, P.L

LAYER_CASES_31 = [
    ("identity", "Identity", {}, [((2, 3), F)], {}),
    ("thresholded_relu", "ThresholdedReLU", {"theta": 0.5}, [((3, 5), F)], {}),
    ("thresholded_relu_default", "ThresholdedReLU", {}, [((3, 5), F)], {}),
    ("alpha_dropout_inference", "AlphaDropout", {"rate": 0.3}, [((3, 5), F)], {}),
    ("spatial_dropout3d_inference", "SpatialDropout3D", {"rate": 0.3}, [((2, 2, 3, 2, 4), F)], {}),
    ("cropping3d", "Cropping3D", {"cropping": [[1, 0], [0, 1], [1, 1]]}, [((2, 3, 4, 5, 2), F)], {}),
    ("cropping3d_int_channels_first", "Cropping3D", {"cropping": 1, "data_format": "channels_first"}, [((2, 2, 3, 4, 5), F)], {}),
    ("zero_padding3d", "ZeroPadding3D", {"padding": [[1, 0], [0, 2], [1, 1]]}, [((2, 2, 3, 2, 2), F)], {}),
    ("zero_padding3d_channels_first", "ZeroPadding3D", {"padding": 1, "data_format": "channels_first"}, [((1, 2, 2, 3, 2), F)], {}),
    ("up_sampling3d", "UpSampling3D", {"size": [2, 1, 3]}, [((2, 2, 3, 2, 2), F)], {}),
    ("up_sampling3d_channels_first", "UpSampling3D", {"size": 2, "data_format": "channels_first"}, [((1, 2, 2, 3, 2), F)], {}),
    ("conv1d_transpose", "Conv1DTranspose", {"filters": 3, "kernel_size": 3}, [((2, 5, 2), F)], {}),
    ("conv1d_transpose_same_strided", "Conv1DTranspose", {"filters": 2, "kernel_size": 4, "strides": 3, "padding": "same", "activation": "relu"}, [((2, 5, 3), F)], {}),
    ("conv1d_transpose_output_padding", "Conv1DTranspose", {"filters": 2, "kernel_size": 3, "strides": 2, "output_padding": 1}, [((2, 4, 2), F)], {}),
    ("conv1d_transpose_dilated", "Conv1DTranspose", {"filters": 2, "kernel_size": 3, "dilation_rate": 2, "use_bias": False}, [((2, 5, 2), F)], {}),
    ("convolution1d_transpose_alias", "Convolution1DTranspose", {"filters": 2, "kernel_size": 2, "strides": 2, "padding": "same"}, [((1, 3, 2), F)], {}),
    ("conv3d_transpose", "Conv3DTranspose", {"filters": 2, "kernel_size": 2}, [((2, 3, 2, 3, 2), F)], {}),
    ("conv3d_transpose_same_strided", "Conv3DTranspose", {"filters": 2, "kernel_size": 3, "strides": [2, 1, 2], "padding": "same"}, [((1, 3, 2, 3, 2), F)], {}),
    ("conv3d_transpose_output_padding", "Conv3DTranspose", {"filters": 2, "kernel_size": 3, "strides": 2, "output_padding": [1, 0, 1]}, [((1, 2, 3, 2, 2), F)], {}),
    ("convolution3d_transpose_alias", "Convolution3DTranspose", {"filters": 1, "kernel_size": [1, 2, 2]}, [((1, 2, 2, 2, 3), F)], {}),
    ("depthwise_conv1d", "DepthwiseConv1D", {"kernel_size": 3}, [((2, 7, 3), F)], {}),
    ("depthwise_conv1d_mult_same_strided", "DepthwiseConv1D", {"kernel_size": 3, "depth_multiplier": 2, "strides": 2, "padding": "same", "activation": "tanh"}, [((2, 8, 3), F)], {}),
    ("depthwise_conv1d_dilated", "DepthwiseConv1D", {"kernel_size": 2, "dilation_rate": 2, "use_bias": False}, [((2, 7, 2), F)], {}),
    ("separable_conv1d", "SeparableConv1D", {"filters": 4, "kernel_size": 3}, [((2, 7, 3), F)], {}),
    ("separable_conv1d_mult_same_strided", "SeparableConv1D", {"filters": 3, "kernel_size": 3, "depth_multiplier": 2, "strides": 2, "padding": "same"}, [((2, 8, 2), F)], {}),
    ("separable_conv1d_causal_dilated", "SeparableConv1D", {"filters": 2, "kernel_size": 3, "padding": "causal", "dilation_rate": 2}, [((2, 9, 2), F)], {}),
    ("separable_convolution1d_alias", "SeparableConvolution1D", {"filters": 2, "kernel_size": 2, "use_bias": False}, [((1, 5, 3), F)], {}),
    ("einsum_dense_ab_bc", "EinsumDense", {"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "c"}, [((3, 5), F)], {}),
    ("einsum_dense_abc_cd", "EinsumDense", {"equation": "abc,cd->abd", "output_shape": [None, 4], "bias_axes": "d", "activation": "relu"}, [((2, 3, 5), F)], {}),
    ("einsum_dense_left_elided", "EinsumDense", {"equation": "...b,bc->...c", "output_shape": 4, "bias_axes": "c"}, [((2, 3, 2, 5), F)], {}),
    ("einsum_dense_right_elided", "EinsumDense", {"equation": "abc...,cd->abd...", "output_shape": [3, 2], "bias_axes": "b"}, [((2, 3, 4, 5), F)], {}),
    ("einsum_dense_multi_out", "EinsumDense", {"equation": "abc,cde->abde", "output_shape": [None, 2, 3], "bias_axes": "de"}, [((2, 3, 4), F)], {}),
    ("einsum_dense_no_bias", "EinsumDense", {"equation": "ab,bcd->acd", "output_shape": [2, 3]}, [((3, 4), F)], {}),
    ("locally_connected1d", "LocallyConnected1D", {"filters": 3, "kernel_size": 3}, [((2, 6, 2), F)], {}),
    ("locally_connected1d_strided_impl2", "LocallyConnected1D", {"filters": 2, "kernel_size": 2, "strides": 2, "implementation": 2}, [((2, 7, 3), F)], {}),
    ("locally_connected1d_same_impl3", "LocallyConnected1D", {"filters": 2, "kernel_size": 3, "padding": "same", "implementation": 3}, [((2, 5, 2), F)], {}),
    ("locally_connected1d_channels_first", "LocallyConnected1D", {"filters": 2, "kernel_size": 2, "data_format": "channels_first", "activation": "tanh"}, [((2, 3, 5), F)], {}),
    ("locally_connected1d_channels_first_impl3", "LocallyConnected1D", {"filters": 2, "kernel_size": 3, "strides": 2, "data_format": "channels_first", "implementation": 3}, [((2, 2, 7), F)], {}),
    ("locally_connected2d", "LocallyConnected2D", {"filters": 2, "kernel_size": [2, 3]}, [((2, 4, 5, 2), F)], {}),
    ("locally_connected2d_strided_impl2", "LocallyConnected2D", {"filters": 2, "kernel_size": 2, "strides": [2, 1], "implementation": 2}, [((2, 5, 4, 3), F)], {}),
    ("locally_connected2d_same_impl3", "LocallyConnected2D", {"filters": 2, "kernel_size": 3, "padding": "same", "implementation": 3}, [((1, 4, 3, 2), F)], {}),
    ("locally_connected2d_channels_first", "LocallyConnected2D", {"filters": 3, "kernel_size": 2, "data_format": "channels_first"}, [((2, 2, 4, 3), F)], {}),
    ("locally_connected2d_channels_first_impl2_same", "LocallyConnected2D", {"filters": 2, "kernel_size": 3, "padding": "same", "data_format": "channels_first", "implementation": 2}, [((1, 2, 3, 4), F)], {}),
    ("spectral_normalization_dense_inference", "SpectralNormalization", {"layer": L("Dense", units=3)}, [((4, 5), F)], {}),
    ("spectral_normalization_dense_training", "SpectralNormalization", {"layer": L("Dense", units=3)}, [((4, 5), F)], {"training": True}),
    ("spectral_normalization_conv2d_training", "SpectralNormalization", {"layer": L("Conv2D", filters=2, kernel_size=2), "power_iterations": 3}, [((2, 4, 4, 3), F)], {"training": True}),
    ("spectral_normalization_embedding_training", "SpectralNormalization", {"layer": L("Embedding", input_dim=6, output_dim=3)}, [((2, 4), "i6")], {"training": True}),
]

OPTIMIZER_CASES_31 = [
    ("adafactor", "new", "Adafactor", {"learning_rate": 0.05}),
    ("adafactor_no_relative_step", "new", "Adafactor", {"learning_rate": 0.05, "relative_step": False}),
    ("adafactor_clip_threshold", "new", "Adafactor", {"learning_rate": 0.1, "clip_threshold": 0.01, "beta_2_decay": -0.5, "epsilon_2": 1e-2}),
    ("adafactor_wd", "new", "Adafactor", {"learning_rate": 0.05, "weight_decay": 0.1}),
    ("lion", "new", "Lion", {"learning_rate": 0.01}),
    ("lion_betas", "new", "Lion", {"learning_rate": 0.02, "beta_1": 0.5, "beta_2": 0.9}),
    ("lion_wd_ema", "new", "Lion", {"learning_rate": 0.01, "weight_decay": 0.1, "use_ema": True, "ema_momentum": 0.9}),
]


SAVING_OUT = os.path.join(HERE, "..", "tests", "keras", "saving", "fixtures")


def record_compiled_archives() -> None:
    """Keras 2.15 `.keras` archives of models compiled with loss/metric objects (a dict, a
    list, a single object) and TF's `evaluate` of each on fixed data (`compiled_31.json`)."""
    import json

    import numpy as np

    tf = P.tf
    os.makedirs(SAVING_OUT, exist_ok=True)
    rng = np.random.default_rng(31)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y_a = (rng.uniform(size=(8, 1)) > 0.5).astype(np.float32)
    y_b = rng.normal(size=(8, 2)).astype(np.float32)
    record = {"x": x.tolist(), "y_a": y_a.tolist(), "y_b": y_b.tolist(), "cases": {}}
    for case in ("dict", "list", "single"):
        tf.keras.backend.clear_session()
        tf.keras.utils.set_random_seed(31)
        inp = tf.keras.Input((3,))
        a = tf.keras.layers.Dense(1, activation="sigmoid", name="a")(inp)
        if case == "single":
            model = tf.keras.Model(inp, a)
            model.compile("adam", loss=tf.keras.losses.BinaryCrossentropy(label_smoothing=0.1),
                          metrics=[tf.keras.metrics.AUC(name="auc")])
            y = y_a
        else:
            b = tf.keras.layers.Dense(2, name="b")(inp)
            if case == "dict":
                model = tf.keras.Model(inp, {"a": a, "b": b})
                model.compile("adam", loss={"a": tf.keras.losses.BinaryCrossentropy(label_smoothing=0.1),
                                            "b": tf.keras.losses.Huber(delta=0.5)},
                              metrics={"a": [tf.keras.metrics.AUC(name="auc")], "b": ["mae"]},
                              loss_weights={"a": 1.0, "b": 0.5})
                y = {"a": y_a, "b": y_b}
            else:
                model = tf.keras.Model(inp, [a, b])
                model.compile("adam", loss=[tf.keras.losses.BinaryCrossentropy(), "mse"],
                              metrics=[[tf.keras.metrics.BinaryAccuracy()], []], loss_weights=[0.3, 0.7])
                y = [y_a, y_b]
        path = os.path.join(SAVING_OUT, f"tf215_compiled_{case}.keras")
        model.save(path + ".tmp.keras")
        os.replace(path + ".tmp.keras", path)
        h5 = os.path.join(SAVING_OUT, f"tf215_compiled_{case}.h5")
        model.save(h5 + ".tmp.h5")
        os.replace(h5 + ".tmp.h5", h5)
        record["cases"][case] = {
            "evaluate": model.evaluate(x, y, verbose=0, return_dict=True),
            "compile_config": json.loads(json.dumps(model.get_compile_config(), default=P._json_default)),
        }
    out = os.path.join(SAVING_OUT, "compiled_31.json")
    with open(out + ".tmp", "w") as f:
        json.dump(record, f, indent=1, sort_keys=True, default=float)
    os.replace(out + ".tmp", out)
    print(f"{out}: {len(record['cases'])} cases")


def main() -> None:
    print(f"TensorFlow {P.tf.__version__}")
    P.LAYER_CASES[:] = LAYER_CASES_31
    arrays, manifest = P.record_layers()
    P.save("layers_31", arrays, manifest)
    if hasattr(P, "OPTIMIZER_CASES"):
        P.OPTIMIZER_CASES[:] = OPTIMIZER_CASES_31
        arrays, manifest = P.record_optimizers()
        P.save("optimizers_31", arrays, manifest)
    record_compiled_archives()


if __name__ == "__main__":
    sys.exit(main())

"""TensorFlow's file formats, read without TensorFlow (private).

* `tensor_bundle`: TF's V2 checkpoint format (`<prefix>.index` + `<prefix>.data-K-of-N`).
* `checkpoint_reader`: `tf.train.load_checkpoint`'s reader, over TF's format and ours.
* `estimator_names`: TF's checkpoint names of an Estimator's optimizer state mapped to ours.
* `convert`: a TF model_dir written once in our checkpoint format.
* `keras_h5`: Keras 2 HDF5 weight files.
"""

from torchestimator._tf_formats import engine_hooks  # noqa: F401 - registers TF's checkpoint format with _engine.checkpoint (its foreign formats)

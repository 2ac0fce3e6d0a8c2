"""The Iris demo: TensorFlow's premade-estimator tutorial, unchanged but for the import.

Trains a DNNClassifier on the bundled Iris data (read with make_csv_dataset),
evaluates it, predicts the species of three flowers, exports the model for
serving and predicts the same flowers from the export; then does the same
with a Keras model (fit, evaluate, save, load, predict).

The program is in the package (`torchestimator._demo`), so that an installed package runs
it too: `python -m torchestimator demo [--steps 2000] [--model_dir DIR]`.
"""

import logging
import sys

from torchestimator import _demo

logging.basicConfig(level=logging.WARNING, format="%(message)s")
logging.getLogger("torchestimator").setLevel(logging.INFO)  # TF's progress lines: loss = ..., step = ...

result = _demo.run()
ok = result.estimator_accuracy >= 0.9 and result.keras_accuracy >= 0.9 and result.predictions_as_expected
sys.exit(0 if ok else 1)

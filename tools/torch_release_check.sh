#!/usr/bin/env bash
# The test suite on another torch release, on this machine's CPU (issue 28): the failures a GPU
# machine's own torch build would show that come from its release, not from the GPU.
#   tools/torch_release_check.sh [PYTEST_ARGS...]      (default: -m "not slow" tests)
# Builds (once) a venv at VENV (default /tmp/torch-<TORCH>-py<PY>) with Python PY (default 3.12)
# and torch TORCH (default 2.11.0, PyPI's build: CUDA libraries included, about 3 GB; the GPU
# machine of issue 28 runs 2.11.0+cu130 on Python 3.12 with numpy 2.5.2), numpy NUMPY (default
# 2.5.2) and the test dependencies, then runs pytest with src/ on PYTHONPATH: the project's own
# pin (torch 2.13) is not installed there. Needs the package index; nothing is downloaded again
# once the venv exists. pytest-timeout's TEST_TIMEOUT (default 300 s) bounds each test.
# WITHOUT="moto s3fs ..." runs as if those top-level modules were not installed
# (tools/without_packages/sitecustomize.py), as on a machine that lacks them.
set -eu
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TORCH="${TORCH:-2.11.0}"
PY="${PY:-3.12}"
NUMPY="${NUMPY:-2.5.2}"
VENV="${VENV:-/tmp/torch-$TORCH-py$PY}"
if [ ! -x "$VENV/bin/python" ]; then
  python_bin=""
  if "python$PY" -c '' 2>/dev/null; then
    python_bin="python$PY"
  else  # pyenv's shim refuses a version that is installed but not selected: take it directly
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$PY"*/bin/python; do
      if [ -x "$candidate" ]; then python_bin="$candidate"; fi
    done
  fi
  [ -n "$python_bin" ] || { echo "no Python $PY found: set PY to an installed Python" >&2; exit 2; }
  "$python_bin" -m venv "$VENV"
  constraints="$VENV/constraints.txt"
  printf 'torch==%s\nnumpy==%s\n' "$TORCH" "$NUMPY" > "$constraints"
  # the project's dependencies and test tools, but torch at $TORCH (its pin says 2.13)
  "$VENV/bin/python" -m pip install -q -c "$constraints" "torch==$TORCH" "numpy==$NUMPY" \
      pyarrow safetensors tensorboard protobuf google-crc32c rich fsspec pillow \
      pytest pytest-timeout pytest-xdist torchmetrics lightning pandas scikit-learn lightgbm hypothesis \
      uvicorn httptools uvloop orjson grpcio h5py s3fs onnx onnxscript onnxruntime pydot \
      'moto[server]' prometheus_client matplotlib mkdocs mkdocs-material 'mkdocstrings[python]'
fi
cd "$ROOT"
"$VENV/bin/python" -c 'import torch, numpy, sys; print("torch", torch.__version__, "numpy", numpy.__version__, "python", sys.version.split()[0])'
if [ "$#" -eq 0 ]; then set -- -m "not slow" tests; fi
if [ -n "${WITHOUT:-}" ]; then
  export TORCHESTIMATOR_TEST_WITHOUT="$WITHOUT"
  export PYTHONPATH="$ROOT/tools/without_packages${PYTHONPATH:+:$PYTHONPATH}"
fi
PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}" TORCHESTIMATOR_DEVICE="${TORCHESTIMATOR_DEVICE:-cpu}" \
  exec "$VENV/bin/python" -m pytest -p no:cacheprovider -o addopts="" -q -rfE \
      --timeout "${TEST_TIMEOUT:-300}" "$@"

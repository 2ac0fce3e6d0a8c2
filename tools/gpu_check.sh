#!/usr/bin/env bash
# The whole GPU check of torchestimator in one command (issue 28), from the project root:
#   tools/gpu_check.sh [OUT_DIR]
# 1. the test suite on CUDA (TORCHESTIMATOR_DEVICE=cuda, -m "${PYTEST_MARK:-not slow}"): by default one pytest
#    over tests/, spread over PYTEST_WORKERS processes when pytest-xdist is there (the H200
#    image has it), each test under pytest-timeout's TEST_TIMEOUT when that is there, the whole
#    run under SUITE_TIMEOUT; with GPU_CHECK_FOLDERS, one pytest per folder instead, each under
#    PART_TIMEOUT. Failures are collected into OUT_DIR/summary.txt;
# 2. bench/bench_gpu.py (ours against a hand-written torch loop on the same GPU), unless
#    SKIP_BENCH=1.
# Uses the machine's own torch build: src/ goes on PYTHONPATH (no install needed). Wheels in
# .whl/ (ignored by git; carried to the device machine) are installed into /tmp/site first: the
# packages the image lacks (google-crc32c, and uvicorn/httptools/orjson/lightgbm for the serving
# and boosted-trees tests). Environment: PYTHON (default python3), PYTEST_WORKERS (default 12),
# SUITE_TIMEOUT (default 420 s), TEST_TIMEOUT (default 120 s), PART_TIMEOUT (default 600 s),
# GPU_CHECK_FOLDERS, BENCH_ARGS (e.g. --quick), SKIP_BENCH, PYTEST_MARK (default "not slow";
# "slow" runs the slow suite, in a call of its own).
# One device call may run 10 minutes: the suite and the bench fit one call with --quick, or run
# them in two calls (SKIP_BENCH=1, then `python3 bench/bench_gpu.py`).
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/gpu-check-$(date -u +%Y%m%d-%H%M%S)}"
PYTHON="${PYTHON:-python3}"
PART_TIMEOUT="${PART_TIMEOUT:-600}"
mkdir -p "$OUT"
cd "$ROOT" || exit 2
export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}"
export TORCHESTIMATOR_DEVICE="${TORCHESTIMATOR_DEVICE:-cuda}"
if compgen -G ".whl/*.whl" > /dev/null; then
  "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl && export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
SUMMARY="$OUT/summary.txt"

{
  echo "torchestimator GPU check, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")'
  echo "TORCHESTIMATOR_DEVICE=$TORCHESTIMATOR_DEVICE PART_TIMEOUT=$PART_TIMEOUT"
} > "$SUMMARY" 2>&1
# GPU_CHECK_ALLOW_CPU=1 (with TORCHESTIMATOR_DEVICE=cpu): a dry run of this script on the CPU
if [ "${GPU_CHECK_ALLOW_CPU:-0}" != 1 ] && ! "$PYTHON" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  echo "CUDA is not available: nothing to check on a GPU." | tee -a "$SUMMARY"
  exit 0
fi

workers=()
if "$PYTHON" -c 'import xdist' 2>/dev/null; then workers=(-n "${PYTEST_WORKERS:-12}"); fi
if "$PYTHON" -c 'import pytest_timeout' 2>/dev/null; then workers+=(--timeout "${TEST_TIMEOUT:-120}"); fi
failed_parts=0
if [ -z "${GPU_CHECK_FOLDERS:-}" ]; then  # the whole suite in one pytest
  start=$(date +%s)
  timeout --kill-after=30 "${SUITE_TIMEOUT:-420}" "$PYTHON" -m pytest -o addopts="" -q -p no:cacheprovider \
      -m "${PYTEST_MARK:-not slow}" -rfE "${workers[@]}" tests > "$OUT/suite.log" 2>&1
  rc=$?
  tally="$(tail -n 1 "$OUT/suite.log")"
  case $rc in 124|137) tally="TIMEOUT after ${SUITE_TIMEOUT:-420}s; last line: $tally" ;; esac
  printf '%-40s rc %-4s %5ss  %s\n' "tests (${workers[*]})" "$rc" "$(( $(date +%s) - start ))" "$tally" | tee -a "$SUMMARY"
  grep -E '^(FAILED|ERROR) ' "$OUT/suite.log" | sed "s|^|    |" >> "$SUMMARY"
  [ "$rc" = 0 ] || failed_parts=1
  folders=()
else  # one pytest per folder or file named
  read -r -a folders <<< "$GPU_CHECK_FOLDERS"
fi

for part in "${folders[@]}"; do
  name="$(echo "$part" | tr '/' '_')"
  log="$OUT/$name.log"
  start=$(date +%s)
  timeout --kill-after=30 "$PART_TIMEOUT" "$PYTHON" -m pytest -o addopts="" -q -p no:cacheprovider -m "${PYTEST_MARK:-not slow}" \
      -rfE "${workers[@]}" "$part" > "$log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  tally="$(tail -n 1 "$log")"
  case $rc in
    0|5) status="ok" ;;            # 5: no tests collected
    124|137) status="TIMEOUT after ${PART_TIMEOUT}s"; failed_parts=$((failed_parts + 1)) ;;
    *) status="FAILED (rc $rc)"; failed_parts=$((failed_parts + 1)) ;;
  esac
  printf '%-40s %-24s %5ss  %s\n' "$part" "$status" "$took" "$tally" | tee -a "$SUMMARY"
  grep -E '^(FAILED|ERROR) ' "$log" | sed "s|^|    |" >> "$SUMMARY"
done

if [ "${SKIP_BENCH:-0}" = 1 ]; then
  echo "summary: $SUMMARY ($failed_parts part(s) failed or timed out; bench skipped)"
  exit $(( failed_parts > 0 ? 1 : 0 ))
fi
echo >> "$SUMMARY"
echo "== bench/bench_gpu.py" | tee -a "$SUMMARY"
timeout --kill-after=30 "${BENCH_TIMEOUT:-900}" "$PYTHON" bench/bench_gpu.py ${BENCH_ARGS:-} \
    > "$OUT/bench_gpu.log" 2>&1
echo "bench rc $?" >> "$SUMMARY"
sed -n '/^case /,$p' "$OUT/bench_gpu.log" >> "$SUMMARY"
echo
echo "summary: $SUMMARY ($failed_parts part(s) failed or timed out)"
exit $(( failed_parts > 0 ? 1 : 0 ))

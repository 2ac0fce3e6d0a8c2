#!/usr/bin/env bash
# The whole GPU check of torchestimator in one command (issue 28), from the project root:
#   tools/gpu_check.sh [OUT_DIR]
# 1. the test suite in parts on CUDA (TORCHESTIMATOR_DEVICE=cuda, -m "not slow"), one pytest per
#    test folder, each under a time limit, failures collected into OUT_DIR/summary.txt;
# 2. bench/bench_gpu.py (ours against a hand-written torch loop on the same GPU).
# Uses the machine's own torch build: src/ goes on PYTHONPATH (no install needed; pytest and the
# project's other requirements must be importable). Environment: PYTHON (default python3),
# PART_TIMEOUT seconds per folder (default 600), PYTEST_WORKERS (default: none; e.g. 8 with
# pytest-xdist), GPU_CHECK_FOLDERS (default: every folder under tests/), BENCH_ARGS (e.g. --quick).
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/gpu-check-$(date -u +%Y%m%d-%H%M%S)}"
PYTHON="${PYTHON:-python3}"
PART_TIMEOUT="${PART_TIMEOUT:-600}"
mkdir -p "$OUT"
cd "$ROOT" || exit 2
export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}"
export TORCHESTIMATOR_DEVICE="${TORCHESTIMATOR_DEVICE:-cuda}"
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
if [ -n "${PYTEST_WORKERS:-}" ]; then workers=(-n "$PYTEST_WORKERS"); fi
if [ -n "${GPU_CHECK_FOLDERS:-}" ]; then
  read -r -a folders <<< "$GPU_CHECK_FOLDERS"
else
  folders=()
  for d in tests/*/; do
    case "$d" in tests/_*|tests/fixtures/) continue ;; esac
    folders+=("${d%/}")
  done
  folders+=(tests/test_*.py)
fi

failed_parts=0
for part in "${folders[@]}"; do
  name="$(echo "$part" | tr '/' '_')"
  log="$OUT/$name.log"
  start=$(date +%s)
  timeout --kill-after=30 "$PART_TIMEOUT" "$PYTHON" -m pytest -o addopts="" -q -p no:cacheprovider -m "not slow" \
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

echo >> "$SUMMARY"
echo "== bench/bench_gpu.py" | tee -a "$SUMMARY"
timeout --kill-after=30 "${BENCH_TIMEOUT:-900}" "$PYTHON" bench/bench_gpu.py ${BENCH_ARGS:-} \
    > "$OUT/bench_gpu.log" 2>&1
echo "bench rc $?" >> "$SUMMARY"
sed -n '/^case /,$p' "$OUT/bench_gpu.log" >> "$SUMMARY"
echo
echo "summary: $SUMMARY ($failed_parts part(s) failed or timed out)"
exit $(( failed_parts > 0 ? 1 : 0 ))

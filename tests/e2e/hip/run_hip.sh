#!/bin/sh
# SPDX-License-Identifier: MIT
# The HIP acceptance program on a kfdsim GPU.
#   run_hip.sh MODE VKFD_RUN HIP_BASIC SANITIZE [copy]
# MODE: native (vkfd-run --native) or server (vkfd-run's default mode: a
# private vkfd-server and the shim's vkfd backend).
# HIP_BASIC is empty when hipcc was not found at configure time.
# "copy" also runs hipMemcpy and hipFree, which run ROCr's and ROCclr's blit
# kernels on kfdsim's ISA interpreter (docs/hip.md; registered both ways).
# Exit 0 pass, 1 fail, 77 skip.
set -u
mode=$1
vkfd_run=$2
hip_basic=$3
sanitize=${4:-none}
extra=${5:-}

# A GPU size other than kfdsim's default, so the check cannot pass by luck.
vram_mb=6144
vram_bytes=$((vram_mb * 1024 * 1024))

case $mode in
native) run_args=--native ;;
server) run_args= ;;
*)
	echo "unknown mode $mode"
	exit 1
	;;
esac

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -n "$hip_basic" ] || skip "hipcc was not found when the build was configured (install hipcc and libamdhip64-dev, then reconfigure)"
[ -x "$hip_basic" ] || skip "$hip_basic was not built"
case $sanitize in
address-*)
	skip "the shim is built with ${sanitize#address-}'s AddressSanitizer, whose runtime vkfd-run cannot preload into uninstrumented programs (use gcc for sanitized e2e runs)"
	;;
*address*)
	# The instrumented shim runs inside the uninstrumented HIP runtime;
	# vkfd-run preloads the ASan runtime first. ROCm does not free
	# everything at exit.
	export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
	;;
esac

out=$(mktemp -d "${TMPDIR:-/tmp}/vkfd-hip.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

# run_args and extra are empty or one word: unquoted on purpose.
# shellcheck disable=SC2086
"$vkfd_run" $run_args --vram-mb $vram_mb -- "$hip_basic" $vram_bytes $extra \
	>"$out/stdout" 2>"$out/stderr"
rc=$?
if [ $rc -ne 0 ] || ! grep -q '^hip_basic: all passed' "$out/stdout"; then
	echo "FAIL: hip_basic exited with $rc"
	echo "--- stdout"
	cat "$out/stdout"
	echo "--- stderr"
	cat "$out/stderr"
	exit 1
fi
echo "PASS: hip_basic ($mode)"
cat "$out/stdout"
exit 0

#!/bin/sh
# SPDX-License-Identifier: MIT
# ROCr used in forked children (see hsa_fork.c), natively or through vkfd.
#   run_fork.sh VKFD_RUN HSA_FORK CASE SANITIZE MODE
# CASE: basic | after-shutdown (hsa_fork's modes)
# MODE: native (vkfd-run --native) or server (a private vkfd-server).
# Exit 0 pass, 1 fail, 77 skip (hsa_fork not built).
set -u
vkfd_run=$1
hsa_fork=$2
case_name=$3
sanitize=${4:-none}
mode=${5:-native}
case $mode in
native) run_args=--native ;;
server) run_args= ;;
*)
	echo "unknown mode $mode"
	exit 1
	;;
esac
[ -x "$hsa_fork" ] || {
	echo "SKIP: hsa_fork was not built (libhsa-runtime64 or its headers missing)"
	exit 77
}
case $sanitize in
*address*) export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
esac

out=$(mktemp -d "${TMPDIR:-/tmp}/vkfd-fork.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
"$vkfd_run" $run_args -- "$hsa_fork" "$case_name" >"$out/stdout" 2>"$out/stderr"
rc=$?
cat "$out/stdout"
if [ $rc -ne 0 ] || ! grep -q '^hsa_fork: all passed' "$out/stdout"; then
	echo "FAIL: hsa_fork $case_name exited with $rc"
	echo "--- stderr"
	grep -v 'amdgpu_get_auth' "$out/stderr"
	exit 1
fi
echo "PASS: fork $case_name ($mode)"
exit 0

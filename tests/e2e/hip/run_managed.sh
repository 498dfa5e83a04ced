#!/bin/sh
# SPDX-License-Identifier: MIT
# hipMallocManaged the same natively and through vkfd.
#   run_managed.sh VKFD_RUN HIP_MANAGED SANITIZE
# kfdsim has the SVM API natively and the guest serves it through vkfd
# (docs/guest-vkfd-backend.md, "SVM"): HIP takes its SVM path both ways
# (the shim's debug log shows its SVM ACCESS calls). Both runs must pass
# and print the same lines. HIP_MANAGED is empty when hipcc was not found at configure
# time. Exit 0 pass, 1 fail, 77 skip.
set -u
vkfd_run=$1
prog=$2
sanitize=${3:-none}

skip() {
	echo "SKIP: $*"
	exit 77
}

[ -n "$prog" ] || skip "hipcc was not found when the build was configured (install hipcc and libamdhip64-dev, then reconfigure)"
[ -x "$prog" ] || skip "$prog was not built"
case $sanitize in
address-*)
	skip "the shim is built with ${sanitize#address-}'s AddressSanitizer, whose runtime vkfd-run cannot preload into uninstrumented programs (use gcc for sanitized e2e runs)"
	;;
*address*)
	export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
	;;
esac

out=$(mktemp -d "${TMPDIR:-/tmp}/vkfd-managed.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

failed=0
for mode in native vkfd; do
	args=
	[ $mode = native ] && args=--native
	# shellcheck disable=SC2086 # args is empty or one word
	VKFD_DEBUG=debug "$vkfd_run" $args -- "$prog" >"$out/$mode.stdout" 2>"$out/$mode.stderr"
	rc=$?
	if ! grep -Eq 'svm set_attr 0x[0-9a-f]+ size .* access(_in_place)? 0x' "$out/$mode.stderr"; then
		echo "FAIL: hip_managed ($mode) did not take HIP's SVM path (no SVM ACCESS call logged)"
		failed=1
	fi
	if [ $rc -ne 0 ] || ! grep -q '^hip_managed: all passed' "$out/$mode.stdout"; then
		echo "FAIL: hip_managed ($mode) exited with $rc"
		cat "$out/$mode.stdout"
		tail -n 20 "$out/$mode.stderr"
		failed=1
	fi
done
[ $failed -eq 0 ] || exit 1
if ! diff -u "$out/native.stdout" "$out/vkfd.stdout"; then
	echo "FAIL: hipMallocManaged behaves differently natively and through vkfd"
	exit 1
fi
echo "PASS: hip_managed, natively and through vkfd, the same output"
cat "$out/native.stdout"
exit 0

#!/bin/sh
# SPDX-License-Identifier: MIT
# Boot the vkfd test VM COUNT times in a row (run-vm.sh) and count the
# stalls of the control queue: a program of the in-guest e2e that is still
# running after VKFD_VM_TIMEOUT seconds (the guest prints TIMEOUT, dumps
# its threads and goes on). Not used by CI.
#
#   stall-runs.sh COUNT QEMU ROOTFS [IMAGE]
#
# Cases per boot: VKFD_VM_CASES (default "info rocminfo hsa").
# VKFD_VM_TIMEOUT: seconds per program (default 120). QEMU_SMP, QEMU_ACCEL,
# QEMU_DISPLAY, QEMU_GPU_OPTS: as for run-vm.sh. LOGDIR: where each boot's
# console goes (default a new directory under /tmp). A boot that does not
# power off within BOOT_LIMIT seconds (default 900) is killed and counted
# as failed. Prints one line per boot and ends with
# "N passed, N failed" (boots), then the stall count.
set -eu
count=$1
qemu=$2
rootfs=$3
image=${4:-$rootfs.img}
here=$(cd "$(dirname "$0")" && pwd)
logdir=${LOGDIR:-$(mktemp -d /tmp/vkfd-stall-runs.XXXXXX)}
mkdir -p "$logdir"
cases=${VKFD_VM_CASES:-info rocminfo hsa}
timeout_s=${VKFD_VM_TIMEOUT:-120}
passed=0
failed=0
stalls=0
i=1
while [ "$i" -le "$count" ]; do
	log=$logdir/boot-$i.log
	start=$(date +%s)
	# kernel command-line words become the init script's environment
	timeout -k 10 "${BOOT_LIMIT:-900}" "$here/run-vm.sh" "$qemu" "$rootfs" "$image" \
		"VKFD_VM_CASES=\"$cases\" VKFD_VM_TIMEOUT=$timeout_s" \
		</dev/null >"$log" 2>&1 || true
	n_cases=$(echo "$cases" | wc -w)
	n_ok=$(grep -c 'vkfd-vm: RESULT .* rc=0 ' "$log" || true)
	n_stall=$(grep -c 'vkfd-vm: TIMEOUT' "$log" || true)
	blocked=$(grep -c 'Blocked re-entrant IO' "$log" || true)
	stalls=$((stalls + n_stall))
	if grep -q 'vkfd-vm: END rc=0' "$log" && [ "$n_ok" -eq "$n_cases" ]; then
		passed=$((passed + 1))
		verdict=pass
	else
		failed=$((failed + 1))
		verdict=FAIL
	fi
	echo "boot $i: $verdict, $n_ok/$n_cases cases rc=0, $n_stall stalls," \
		"$blocked 'Blocked re-entrant IO', $(($(date +%s) - start)) s ($log)"
	i=$((i + 1))
done
echo "$passed passed, $failed failed"
echo "stalls: $stalls (logs in $logdir)"

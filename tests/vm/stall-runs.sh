#!/bin/sh
# SPDX-License-Identifier: MIT
# Boot the vkfd test VM COUNT times in a row (run-vm.sh) and count the
# stalls of the control queue. Not used by CI.
#
#   stall-runs.sh COUNT QEMU ROOTFS [IMAGE]
#
# Stall or slow (see vkfd-vm-test.sh): inside the guest a program counts as
# stalled when the virtio-gpu device signalled no fence for VKFD_VM_STALL
# seconds (default 30) while fences were outstanding; a program that keeps
# completing fences is only slow and is stopped at VKFD_VM_TIMEOUT seconds
# (default 300). On the host, a boot whose console printed nothing for
# DEAD_LIMIT seconds (default 300; the guest prints a PROGRESS line every
# 10 s while a program runs) is killed as DEAD (the whole guest stopped);
# one still printing at BOOT_LIMIT seconds (default 1800) is killed as
# SLOW.
#
# Cases per boot: VKFD_VM_CASES (default "info rocminfo hsa"). QEMU_SMP,
# QEMU_ACCEL, QEMU_DISPLAY, QEMU_GPU_OPTS: as for run-vm.sh. LOGDIR: where
# each boot's console goes (default a new directory under /tmp); LOGDIR/runs.tsv
# gets one line per boot. FIRST: number of the first boot (default 1, to
# continue a series). LOCK: a file locked (flock) around each boot so that
# several of these loops on one machine boot one VM at a time (default
# /tmp/vkfd-vm.lock). NICE: niceness of QEMU (default 5). VM_KERNEL_ARGS:
# more guest kernel arguments (default "quiet": the emulated serial console
# is slow under TCG, and a boot prints ~750 lines). VKFD_VM_HOLD: seconds
# a guest program that timed out is held before it is killed (default 120);
# while it is held, gdb takes the stacks (with locals) of every QEMU thread,
# vkfd's host and wait threads among them, into LOG.host-gdb.
# Prints one line per boot and ends with "N passed, N failed" (boots),
# then the stall count.
set -eu
count=$1
qemu=$2
rootfs=$3
image=${4:-$rootfs.img}
here=$(cd "$(dirname "$0")" && pwd)
logdir=${LOGDIR:-$(mktemp -d /tmp/vkfd-stall-runs.XXXXXX)}
mkdir -p "$logdir"
cases=${VKFD_VM_CASES:-info rocminfo hsa}
timeout_s=${VKFD_VM_TIMEOUT:-300}
stall_s=${VKFD_VM_STALL:-30}
hold_s=${VKFD_VM_HOLD:-120}
lock=${LOCK:-/tmp/vkfd-vm.lock}
tsv=$logdir/runs.tsv
[ -e "$tsv" ] || printf 'boot\tstart_utc\tsmp\tqemu\tverdict\tcases_ok\tcases\tstalls\tslow\tidle\tseconds\tprogram_seconds\n' >"$tsv"
n_cases=$(echo "$cases" | wc -w)
passed=0
failed=0
stalls=0
i=${FIRST:-1}
last=$((i + count - 1))

# boot LOG: one VM, console to LOG; prints DEAD, SLOW or nothing
boot() {
	# kernel command-line words become the init script's environment
	nice -n "${NICE:-5}" "$here/run-vm.sh" "$qemu" "$rootfs" "$image" \
		"${VM_KERNEL_ARGS-quiet} VKFD_VM_CASES=\"$cases\" VKFD_VM_TIMEOUT=$timeout_s VKFD_VM_STALL=$stall_s VKFD_VM_HOLD=$hold_s" \
		</dev/null >"$1" 2>&1 &
	vm=$!
	t=0
	size=-1
	still=0
	while kill -0 "$vm" 2>/dev/null; do
		sleep 5
		t=$((t + 5))
		now=$(stat -c %s "$1")
		if [ "$now" = "$size" ]; then
			still=$((still + 5))
		else
			still=0
		fi
		size=$now
		# a held hang: QEMU's threads as they are (once per boot)
		if [ ! -e "$1.host-gdb" ] && grep -q 'vkfd-vm: HOLD [0-9]' "$1"; then
			gdb -p "$vm" -batch -ex "thread apply all bt full" >"$1.host-gdb" 2>&1 || true
			echo "host stacks of QEMU $vm at $(date -u +%H:%M:%S)" >>"$1.host-gdb"
		fi
		if [ "$still" -ge "${DEAD_LIMIT:-300}" ] || [ "$t" -ge "${BOOT_LIMIT:-1800}" ]; then
			if [ "$still" -ge "${DEAD_LIMIT:-300}" ]; then echo DEAD; else echo SLOW; fi
			kill "$vm" 2>/dev/null || true
			sleep 5
			kill -9 "$vm" 2>/dev/null || true
			break
		fi
	done
	wait "$vm" 2>/dev/null || true
}

while [ "$i" -le "$last" ]; do
	log=$logdir/boot-$i.log
	start=$(date +%s)
	when=$(date -u +%Y-%m-%dT%H:%M:%S)
	exec 9>"$lock"
	flock 9
	host=$(boot "$log")
	exec 9>&-
	n_ok=$(grep -c 'vkfd-vm: RESULT .* rc=0 ' "$log" || true)
	n_stall=$(grep -c 'vkfd-vm: TIMEOUT STALL' "$log" || true)
	n_slow=$(grep -c 'vkfd-vm: TIMEOUT SLOW' "$log" || true)
	n_idle=$(grep -c 'vkfd-vm: TIMEOUT IDLE' "$log" || true)
	blocked=$(grep -c 'Blocked re-entrant IO' "$log" || true)
	# seconds of each program, as the guest measured them
	secs=$(sed -n 's/.*vkfd-vm: RESULT \([a-z-]*\) rc=[0-9]* (\([0-9]*\) s).*/\1:\2/p' "$log" | tr '\n' ' ')
	stalls=$((stalls + n_stall))
	if [ -z "$host" ] && grep -q 'vkfd-vm: END rc=0' "$log" && [ "$n_ok" -eq "$n_cases" ]; then
		passed=$((passed + 1))
		verdict=pass
	else
		failed=$((failed + 1))
		verdict=FAIL${host:+-$host}
	fi
	took=$(($(date +%s) - start))
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$when" \
		"${QEMU_SMP:-2}" "$(basename "$qemu")" "$verdict" "$n_ok" "$n_cases" \
		"$n_stall" "$n_slow" "$n_idle" "$took" "$secs" >>"$tsv"
	echo "boot $i: $verdict, $n_ok/$n_cases cases rc=0, $n_stall stalls, $n_slow slow," \
		"$n_idle idle, $blocked 'Blocked re-entrant IO', $took s ($secs) ($log)"
	i=$((i + 1))
done
echo "$passed passed, $failed failed"
echo "stalls: $stalls (logs in $logdir)"

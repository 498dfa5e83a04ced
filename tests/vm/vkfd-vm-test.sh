#!/bin/sh
# SPDX-License-Identifier: MIT
# init (PID 1) of the vkfd test VM (docs/integration.md, "Real-VM run").
# Mounts the pseudo file systems, waits for the virtio-gpu render node,
# runs vkfd-info, rocminfo and hsa_e2e through the virtgpu transport, prints
# everything to the console and powers the VM off. Not used by CI.
#
# Kernel command-line words of the form NAME=value reach this script as
# environment variables: VKFD_DEBUG=1 (guest library and shim log),
# VKFD_VM_STRACE=1 (run each program under strace -f), VKFD_VM_CASES="..."
# (subset of: info rocminfo hsa hsa-illegal hsa-fault).
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run

say() {
	echo "vkfd-vm: $*"
}

finish() {
	say "END rc=$1"
	sync
	echo o >/proc/sysrq-trigger
	sleep 60
}

say "kernel $(uname -r), $(nproc) CPUs, cmdline: $(cat /proc/cmdline)"
modprobe virtio_gpu 2>/dev/null
i=0
while [ ! -e /dev/dri/renderD128 ] && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
if [ ! -e /dev/dri/renderD128 ]; then
	say "no /dev/dri/renderD128 after ${i}s"
	ls -l /dev/dri 2>&1
	finish 1
fi
ls -l /dev/dri
for f in /sys/kernel/debug/dri/*/virtio-gpu-features; do
	[ -r "$f" ] && cat "$f"
done
dmesg | grep -i -E 'virtio_gpu|virtio-gpu|\[drm\]' | tail -n 20

export VKFD_TRANSPORT=virtgpu
export VKFD_BACKEND=vkfd
preload=/usr/local/lib/x86_64-linux-gnu/libvkfd-preload.so
hsa_e2e=/usr/local/libexec/vkfd/hsa_e2e
cases=${VKFD_VM_CASES:-info rocminfo hsa hsa-illegal}

# run PRELOAD PROGRAM [ARGS]: PRELOAD 1 puts the shim into PROGRAM only
# (never into strace).
run() {
	pre=$1
	shift
	if [ "$pre" = 1 ]; then
		set -- env LD_PRELOAD="$preload" "$@"
	fi
	if [ "${VKFD_VM_STRACE:-0}" = 1 ]; then
		strace -f -o "$trace" "$@"
	else
		"$@"
	fi
}

fails=0
for c in $cases; do
	say "BEGIN $c $(date -u +%H:%M:%S)"
	start=$(date +%s)
	trace=/tmp/strace.$c
	case $c in
	info)
		run 0 vkfd-info --transport virtgpu
		;;
	rocminfo)
		run 1 rocminfo
		;;
	hsa)
		run 1 "$hsa_e2e" all
		;;
	hsa-illegal)
		run 1 "$hsa_e2e" illegal
		;;
	hsa-fault)
		run 1 "$hsa_e2e" fault
		;;
	*)
		echo "unknown case $c"
		false
		;;
	esac
	rc=$?
	say "RESULT $c rc=$rc ($(($(date +%s) - start)) s)"
	if [ "${VKFD_VM_STRACE:-0}" = 1 ]; then
		tail -n 40 "$trace"
	fi
	case $c in
	hsa-fault) [ $rc -ne 0 ] || fails=$((fails + 1)) ;;
	*) [ $rc -eq 0 ] || fails=$((fails + 1)) ;;
	esac
done
dmesg | grep -i -E 'virtio_gpu|\[drm\]|segfault|BUG|WARN' | tail -n 20
finish $fails

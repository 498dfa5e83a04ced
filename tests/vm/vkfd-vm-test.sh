#!/bin/sh
# SPDX-License-Identifier: MIT
# init (PID 1) of the vkfd test VM (docs/integration.md, "Real-VM run").
# Mounts the pseudo file systems, waits for the virtio-gpu render node,
# runs vkfd-info, rocminfo and hsa_e2e through the virtgpu transport, prints
# everything to the console and powers the VM off. Not used by CI.
#
# Kernel command-line words of the form NAME=value reach this script as
# environment variables: VKFD_DEBUG=debug (guest library and shim log),
# VKFD_VM_STRACE=1 (run each program under strace -f), VKFD_VM_CASES="..."
# (a list of: info rocminfo hsa hsa-illegal hsa-fault storm; repeats
# allowed),
# VKFD_VM_TIMEOUT=seconds per program (default 300), VKFD_VM_STALL=seconds
# without progress that make a stall (default 30), VKFD_VM_KTRACE=1 (trace
# the guest's control-queue submits and kick decisions with tracefs and print
# the end of that trace when a program times out), VKFD_VM_HOLD=seconds
# (default 0): a program that timed out is left as it is for that long
# after a "HOLD" line, so that the host can take QEMU's and vkfd's stacks
# while the hang is still there (stall-runs.sh does when HOLD is set).
#
# The storm case replays vkfd-bench's model-load trace (3 replays) over the
# virtgpu transport: vkfd-bench, its libvkfd-host.so.0 and model_load.trace
# in /usr/local/libexec/vkfd/storm (see build-storm-image.sh).
#
# Stall or slow: while a program runs, the script reads two progress
# counters every second: the virtio-gpu fences the device has signalled
# (debugfs virtio-gpu-irq-fence: last signalled id, last emitted id), the
# interrupts of its control queue (/proc/interrupts) and the CPU time of the
# program. A STALL is VKFD_VM_STALL seconds in which fences were
# outstanding (emitted > signalled), none was signalled and the control
# queue raised no interrupt: the device stopped completing work it was
# given, whatever the program does. A program that keeps completing fences but runs past
# VKFD_VM_TIMEOUT is SLOW, not stalled. Neither counter moving with no
# fence outstanding is IDLE (the program waits on something else). A
# PROGRESS line every 10 s lets the host tell a live guest from a dead one.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug

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
ktrace=/sys/kernel/tracing
if [ "${VKFD_VM_KTRACE:-0}" = 1 ]; then
	mount -t tracefs tracefs $ktrace
	# every kick decision (all virtqueues; the GPU's vq pointer is in the
	# virtio_gpu_cmd_queue events) and every notify actually sent
	# shellcheck disable=SC2016 # $retval is tracefs syntax, not shell
	{
		echo 'p:kick_prep virtqueue_kick_prepare vq=%di'
		echo 'r:kick_prep_ret virtqueue_kick_prepare ret=$retval'
		echo 'p:vq_notify virtqueue_notify vq=%di'
	} >>$ktrace/kprobe_events
	echo 8192 >$ktrace/buffer_size_kb
	echo 1 >$ktrace/events/kprobes/enable
	echo 1 >$ktrace/events/virtio_gpu/enable
	say "ktrace: $(cat $ktrace/kprobe_events | wc -l) probes"
fi
for f in /sys/kernel/debug/dri/*/virtio-gpu-features; do
	[ -r "$f" ] && cat "$f"
done
dmesg | grep -i -E 'virtio_gpu|virtio-gpu|\[drm\]' | tail -n 20

export VKFD_TRANSPORT=virtgpu
export VKFD_BACKEND=vkfd
preload=/usr/local/lib/x86_64-linux-gnu/libvkfd-preload.so
hsa_e2e=/usr/local/libexec/vkfd/hsa_e2e
cases=${VKFD_VM_CASES:-info rocminfo hsa hsa-illegal}

# Where each thread of process $1 (and of its children) sleeps.
dump_threads() {
	for p in $1 $(pgrep -P "$1"); do
		for t in "/proc/$p/task/"*; do
			echo "pid $p tid ${t##*/} $(cat "$t/comm") $(grep State "$t/status")" \
				"wchan $(cat "$t/wchan") syscall $(cat "$t/syscall")"
			cat "$t/stack"
		done
	done
}

# A finished child stays a zombie until `wait`: that is not running. A
# status file that vanishes while it is read is not running either (the
# old negated grep took that read error for "alive": a false TIMEOUT).
alive() {
	line=
	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	# the state is the first field after "(comm) "
	# shellcheck disable=SC2086 # split into its words on purpose
	set -- ${line##*) }
	[ "${1:-Z}" != Z ]
}

# The counters are read without starting a process (under TCG a fork costs
# tens of ms, and this runs every second next to the program measured).
fence_file=
for f in /sys/kernel/debug/dri/*/virtio-gpu-irq-fence; do
	[ -r "$f" ] && fence_file=$f && break
done

# f_sig, f_emi: the last signalled and emitted fence ids of the virtio-gpu
# device (0 if unknown)
read_fences() {
	f_sig=0
	f_emi=0
	[ -z "$fence_file" ] || read -r _ f_sig f_emi 2>/dev/null <"$fence_file" || :
	f_sig=${f_sig:-0}
	f_emi=${f_emi:-0}
}

# f_irq: interrupts of the virtio-gpu control queue ("virtioN-control" in
# /proc/interrupts, summed over CPUs): every batch of requests the device
# completes, fenced or not (an unmap that blocks the queue completes none)
read_irqs() {
	f_irq=0
	while read -r line; do
		case $line in
		*-control) ;;
		*) continue ;;
		esac
		# shellcheck disable=SC2086 # split into its words on purpose
		set -- $line
		shift
		for n in "$@"; do
			case $n in
			*[!0-9]*) break ;;
			esac
			f_irq=$((f_irq + n))
		done
	done </proc/interrupts
}

# f_cpu: CPU clock ticks (user + system, all threads) of process $1
read_cpu() {
	line=
	read -r line 2>/dev/null <"/proc/$1/stat" || :
	# the fields after "(comm) ", which may hold spaces
	# shellcheck disable=SC2086 # split into its words on purpose
	set -- ${line##*) }
	f_cpu=$((${12:-0} + ${13:-0}))
}

# run PRELOAD PROGRAM [ARGS]: PRELOAD 1 puts the shim into PROGRAM only
# (never into strace). A program that stalls (see the top) or still runs
# after VKFD_VM_TIMEOUT seconds has its threads dumped and is killed.
run() {
	pre=$1
	shift
	if [ "$pre" = 1 ]; then
		set -- env LD_PRELOAD="$preload" "$@"
	fi
	if [ "${VKFD_VM_STRACE:-0}" = 1 ]; then
		set -- strace -f -o "$trace" "$@"
	fi
	"$@" &
	pid=$!
	t=0
	quiet=0
	verdict=
	read_fences
	read_irqs
	read_cpu $pid
	sig=$f_sig
	irq=$f_irq
	cpu=$f_cpu
	while alive $pid; do
		if [ $t -ge "${VKFD_VM_TIMEOUT:-300}" ]; then
			verdict="SLOW after ${t}s (still progressing)"
			break
		fi
		sleep 1
		t=$((t + 1))
		read_fences
		read_irqs
		read_cpu $pid
		if [ "$f_sig" != "$sig" ] || [ "$f_irq" != "$irq" ]; then
			quiet=0
		elif [ "$f_emi" -gt "$f_sig" ] || [ "$f_cpu" = "$cpu" ]; then
			quiet=$((quiet + 1))
		else
			quiet=0
		fi
		sig=$f_sig
		irq=$f_irq
		cpu=$f_cpu
		if [ $((t % 10)) -eq 0 ]; then
			say "PROGRESS $c t=${t}s fences signalled $f_sig emitted $f_emi control irqs $f_irq cpu $f_cpu quiet ${quiet}s"
		fi
		if [ $quiet -ge "${VKFD_VM_STALL:-30}" ]; then
			if [ "$f_emi" -gt "$f_sig" ]; then
				verdict="STALL after ${t}s: fence $f_sig signalled, $f_emi emitted, no fence signalled and no control-queue interrupt for ${quiet}s"
			else
				verdict="IDLE after ${t}s: no fence outstanding, no CPU time for ${quiet}s"
			fi
			break
		fi
	done
	if [ -n "$verdict" ] && alive $pid; then
		say "TIMEOUT $verdict: threads of $pid"
		if [ "${VKFD_VM_HOLD:-0}" -gt 0 ]; then
			say "HOLD ${VKFD_VM_HOLD}s for the host's capture"
			sleep "$VKFD_VM_HOLD"
			read_fences
			say "HOLD end: fences signalled $f_sig emitted $f_emi"
		fi
		if [ "${VKFD_VM_KTRACE:-0}" = 1 ]; then
			# kworkers refresh the console every ~200 ms: leave them out
			say "ktrace (last 400 lines outside kworkers)"
			grep -v kworker $ktrace/trace | tail -n 400
			say "ktrace end"
		fi
		dump_threads $pid
		if command -v gdb >/dev/null; then
			for p in $pid $(pgrep -P $pid); do
				gdb -p "$p" -batch -ex "thread apply all bt 25" 2>&1 |
					grep -v '^\[New LWP'
			done
		fi
		kill -9 $pid $(pgrep -P $pid) 2>/dev/null
	fi
	wait $pid
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
	storm)
		storm=/usr/local/libexec/vkfd/storm
		run 0 env LD_LIBRARY_PATH=$storm $storm/vkfd-bench --scenario storm \
			--paths virtgpu --iterations 3 --trace $storm/model_load.trace
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

#!/bin/sh
# SPDX-License-Identifier: MIT
# The real-ROCr storm (docs/performance.md, "Real-ROCr storm"): the same
# ROCr program with a model load's pattern (tests/e2e/hsa_storm.c) natively
# (vkfd-run --native: kfdsim inside the program) and through vkfd
# (vkfd-run: the shim's vkfd backend and a private vkfd-server, vtest
# socket), with and without arenas, interleaved in one run. Prints a table:
# the storm's median wall time, its ratio to native and the part spent in
# allocations, copies (with their signal waits) and frees, and per process
# the replies the shim waited for, its fenced waits and the blobs it created
# (VKFD_SHIM_STATS), with the ratio to the run without arenas.
#
#   rocr-storm.sh BUILD_DIR [ROUNDS] [REPEAT]
#
# ROUNDS: hsa_storm rounds (default 200); REPEAT: runs per mode (default 5).
# ROCR_STORM_MODES: the modes, in the order they are interleaved (default
# "native arenas blobs"); "syncmap" is "arenas" with every MAP synchronous
# (VKFD_GUEST_SYNC_MAP=1, the baseline of protocol 1.1's asynchronous MAP);
# "setflush" is "arenas" with every SET_EVENT flushed (VKFD_GUEST_SET_FLUSH=1);
# "baseline" both (the shim before the asynchronous MAP and the flush rule);
# "eager" is "arenas" with every freed USERPTR range copied back at FREE
# (VKFD_USERPTR_EAGER_RESTORE=1: arena slices as before their deferral);
# "scan" is "arenas" with each USERPTR conversion reading /proc/self/maps
# instead of asking the kernel per mapping (VKFD_GUEST_MAPS_SCAN=1);
# "lazyrelay" is "arenas" with the host's doorbell relay backing off right
# after each doorbell and not poked by waits (VKFD_HOST_RELAY_LAZY=1);
# "deferred" is "arenas" without protocol 1.1's strict rule for
# asynchronous allocations (VKFD_GUEST_DEFERRED_ALLOC=1: arena BOs' MAPs
# synchronous, as with a host of before the rule).
# The last two columns compare with "blobs", when it ran.
# Exit 0, 1 on a failed run, 77 when hsa_storm or vkfd-run is missing.
set -u
build=${1:?usage: rocr-storm.sh BUILD_DIR [ROUNDS] [REPEAT]}
rounds=${2:-200}
repeat=${3:-5}
run="$build/src/tools/vkfd-run"
storm="$build/tests/e2e/hsa_storm"
[ -x "$run" ] || { echo "skip: $run not built"; exit 77; }
[ -x "$storm" ] || { echo "skip: $storm not built (ROCr missing?)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocr-storm.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# one run of mode $1 (native | arenas | blobs); appends
# "ms replies waits blobs alloc_ms copy_ms free_ms"
one() {
	stats="$tmp/stats.$1"
	rm -f "$stats"
	case $1 in
	native) out=$("$run" --native -- "$storm" "$rounds") ;;
	arenas) out=$(VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds") ;;
	blobs) out=$(VKFD_ARENAS=0 VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds") ;;
	syncmap) out=$(VKFD_GUEST_SYNC_MAP=1 VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds") ;;
	setflush) out=$(VKFD_GUEST_SET_FLUSH=1 VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds") ;;
	scan) out=$(VKFD_GUEST_MAPS_SCAN=1 VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds") ;;
	lazyrelay)
		out=$(VKFD_HOST_RELAY_LAZY=1 VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds")
		;;
	deferred)
		out=$(VKFD_GUEST_DEFERRED_ALLOC=1 VKFD_SHIM_STATS="$stats" "$run" -- "$storm" "$rounds")
		;;
	eager)
		out=$(VKFD_USERPTR_EAGER_RESTORE=1 VKFD_SHIM_STATS="$stats" "$run" -- \
			"$storm" "$rounds")
		;;
	baseline)
		out=$(VKFD_GUEST_SYNC_MAP=1 VKFD_GUEST_SET_FLUSH=1 VKFD_SHIM_STATS="$stats" "$run" -- \
			"$storm" "$rounds")
		;;
	*) echo "unknown mode $1"; exit 1 ;;
	esac || { echo "$1 run failed: $out"; exit 1; }
	ms=$(printf '%s\n' "$out" | sed -n 's/.*storm_ms \([0-9.]*\).*/\1/p')
	[ -n "$ms" ] || { echo "$1 run printed no storm_ms: $out"; exit 1; }
	parts=$(printf '%s\n' "$out" |
		sed -n 's/.*alloc_ms \([0-9.]*\) copy_ms \([0-9.]*\) free_ms \([0-9.]*\).*/\1 \2 \3/p')
	if [ -f "$stats" ]; then
		# one line per process of the run; vkfd-run's own processes do not load the shim
		sums=$(awk '{r += $4; w += $6; b += $8} END {print r, w, b}' "$stats")
		echo "$ms $sums $parts" >>"$tmp/$1"
	else
		echo "$ms 0 0 0 $parts" >>"$tmp/$1"
	fi
}

modes=${ROCR_STORM_MODES:-native arenas blobs}
case " $modes " in *" native "*) ;; *) echo "ROCR_STORM_MODES must include native"; exit 1 ;; esac
i=0
while [ "$i" -lt "$repeat" ]; do
	for m in $modes; do
		one "$m"
	done
	i=$((i + 1))
done

median() { # column $2 of file $1
	sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
nat=$(median "$tmp/native" 1)
blobs_b=0
replies_b=0
if [ -f "$tmp/blobs" ]; then
	blobs_b=$(median "$tmp/blobs" 4)
	replies_b=$(median "$tmp/blobs" 2)
fi
echo "hsa_storm $rounds rounds, $repeat runs per mode, medians ($(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| mode | storm_ms | vs native | alloc / copy / free ms | replies | waits | blobs | blobs vs per-BO blobs | replies vs per-BO blobs |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in $modes; do
	ms=$(median "$tmp/$m" 1)
	r=$(median "$tmp/$m" 2)
	w=$(median "$tmp/$m" 3)
	b=$(median "$tmp/$m" 4)
	pa=$(median "$tmp/$m" 5)
	pc=$(median "$tmp/$m" 6)
	pf=$(median "$tmp/$m" 7)
	awk -v m="$m" -v ms="$ms" -v nat="$nat" -v r="$r" -v w="$w" -v b="$b" -v bb="$blobs_b" -v rb="$replies_b" \
		-v pa="$pa" -v pc="$pc" -v pf="$pf" 'BEGIN {
		name = m == "native" ? "native (vkfd-run --native)" : m == "arenas" ? "vkfd, arenas" : m == "syncmap" ? "vkfd, arenas, synchronous MAP (VKFD_GUEST_SYNC_MAP=1)" : m == "setflush" ? "vkfd, arenas, every SET_EVENT flushed (VKFD_GUEST_SET_FLUSH=1)" : m == "baseline" ? "vkfd, arenas, both (before)" : m == "eager" ? "vkfd, arenas, copy-back at FREE (VKFD_USERPTR_EAGER_RESTORE=1)" : m == "scan" ? "vkfd, arenas, maps file read per conversion (VKFD_GUEST_MAPS_SCAN=1)" : m == "lazyrelay" ? "vkfd, arenas, relay without hot window or poke (VKFD_HOST_RELAY_LAZY=1)" : m == "deferred" ? "vkfd, arenas, no strict rule: arena MAPs synchronous (VKFD_GUEST_DEFERRED_ALLOC=1)" : "vkfd, a blob per BO (VKFD_ARENAS=0)"
		cmp = m != "native" && bb > 0 && rb > 0
		printf "| %s | %.1f | %.2fx | %.0f / %.0f / %.0f | %d | %d | %d | %s | %s |\n", name, ms, ms / nat, pa, pc, pf, r, w, b,
			cmp ? sprintf("%.2fx", b / bb) : "-", cmp ? sprintf("%.2fx", r / rb) : "-"
	}'
done

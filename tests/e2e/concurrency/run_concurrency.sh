#!/bin/sh
# SPDX-License-Identifier: MIT
# Eight concurrent guests on one vkfd-server, one of them killed mid-run.
#   run_concurrency.sh VKFD_RUN VKFD_SERVER HSA_LOOP [SANITIZE]
# Starts one vkfd-server, runs eight `vkfd-run --connect SOCKET -- hsa_loop`
# guests at once (seven with ROUNDS rounds, one endless), lets them all
# start their rounds together once every one is set up (HSA_LOOP_GO),
# SIGKILLs the endless one once it is in its loop, and checks that the seven
# were still running then and pass, 
# the server still serves a new guest afterwards, its
# worker processes are all reaped, its open fd count is exactly the
# baseline taken before the first client, and its VmRSS is within
# RSS_SLACK_KB of that baseline.
# Exit 0 pass, 1 fail, 77 skip (hsa_loop not built).
set -u
vkfd_run=$1
server=$2
hsa_loop=$3
sanitize=${4:-none}

GUESTS=8
ROUNDS=${VKFD_CONCURRENCY_ROUNDS:-200}
# The server parent only accepts and forks; its RSS may still move by a few
# pages (libc arenas, the client table, stdio). 1 MiB covers that and is far
# below what one leaked worker's state (a host context) would cost.
RSS_SLACK_KB=1024

skip() {
	echo "SKIP: $*"
	exit 77
}
[ -x "$hsa_loop" ] || skip "hsa_loop was not built (libhsa-runtime64 or its headers missing)"
case $sanitize in
*address*) export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
esac

d=$(mktemp -d "${TMPDIR:-/tmp}/vkfd-conc.XXXXXX") || exit 1
spid=
cleanup() {
	for p in $(jobs -p); do kill -KILL "$p" 2>/dev/null; done
	[ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	for f in "$d"/out.* "$d"/err.* "$d"/server.log; do
		[ -f "$f" ] || continue
		echo "--- $(basename "$f") (last 15 lines)"
		grep -v 'amdgpu_get_auth' "$f" | tail -n 15
	done
	exit 1
}

fd_count() { ls "/proc/$1/fd" | wc -l; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# Worker processes of the server: processes whose parent is the server.
# cat skips processes that vanish meanwhile (mawk would stop at them).
workers() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v p="$1" '{ sub(/^.*\) /, ""); if ($2 == p) n++ } END { print n + 0 }'
}
# wait_for SECONDS COMMAND...: poll every 0.1 s until COMMAND succeeds.
wait_for() {
	n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}
ready() { [ -s "$d/ready" ]; }

"$server" --socket "$d/vkfd.sock" --ready-fd 3 3>"$d/ready" >"$d/server.log" 2>&1 &
spid=$!
wait_for 20 ready || fail "vkfd-server did not become ready"
base_fds=$(fd_count "$spid")
base_rss=$(rss_kb "$spid")
echo "server $spid baseline: $base_fds fds, VmRSS $base_rss kB"

victim=$GUESTS
i=1
while [ $i -le $GUESTS ]; do
	r=$ROUNDS
	[ $i -eq $victim ] && r=0
	HSA_LOOP_GO=$d/go "$vkfd_run" --connect "$d/vkfd.sock" -- "$hsa_loop" "$r" \
		>"$d/out.$i" 2>"$d/err.$i" &
	eval "pid_$i=$!"
	i=$((i + 1))
done
eval "vpid=\$pid_$victim"

all_ready() {
	[ "$(cat "$d"/out.* 2>/dev/null | grep -c '^hsa_loop: ready')" -eq $GUESTS ]
}
wait_for 120 all_ready || fail "not every guest finished ROCr setup"
[ "$(workers "$spid")" -ge $GUESTS ] || fail "expected at least $GUESTS server workers, saw $(workers "$spid")"
: >"$d/go"
victim_looping() { grep -q '^hsa_loop: round 1 ok' "$d/out.$victim"; }
wait_for 120 victim_looping || fail "the victim guest never reached its loop"
peak_workers=$(workers "$spid")
running=0
i=1
while [ $i -lt $GUESTS ]; do
	eval "p=\$pid_$i"
	grep -q '^hsa_loop: passed' "$d/out.$i" || running=$((running + 1))
	i=$((i + 1))
done
kill -KILL "$vpid"
wait "$vpid"
vrc=$?
echo "killed guest $vpid (exit $vrc) with $running other guests unfinished, $peak_workers workers"
[ $vrc -eq 137 ] || fail "killed guest exited with $vrc, expected 137 (SIGKILL)"
[ $running -eq $((GUESTS - 1)) ] ||
	fail "only $running other guests were still running at the kill; raise ROUNDS"

i=1
while [ $i -lt $GUESTS ]; do
	eval "p=\$pid_$i"
	wait "$p"
	rc=$?
	[ $rc -eq 0 ] || fail "guest $i exited with $rc"
	grep -q "^hsa_loop: passed $ROUNDS rounds" "$d/out.$i" || fail "guest $i: no pass line"
	i=$((i + 1))
done
echo "the other $((GUESTS - 1)) guests passed $ROUNDS rounds each"

# A guest that arrives after the kill is served normally.
"$vkfd_run" --connect "$d/vkfd.sock" -- "$hsa_loop" 2 >"$d/out.after" 2>"$d/err.after" ||
	fail "a guest started after the kill failed"
grep -q '^hsa_loop: passed 2 rounds' "$d/out.after" || fail "late guest: no pass line"

no_workers() { [ "$(workers "$spid")" -eq 0 ]; }
wait_for 20 no_workers || fail "server still has $(workers "$spid") worker processes"
fds_back() { [ "$(fd_count "$spid")" -eq "$base_fds" ]; }
wait_for 10 fds_back || fail "server has $(fd_count "$spid") open fds, baseline $base_fds"
rss=$(rss_kb "$spid")
echo "server after all clients: $(fd_count "$spid") fds, VmRSS $rss kB"
[ "$rss" -le $((base_rss + RSS_SLACK_KB)) ] ||
	fail "server VmRSS $rss kB > baseline $base_rss kB + $RSS_SLACK_KB kB"

kill -TERM "$spid"
wait "$spid"
src=$?
spid=
[ $src -eq 0 ] || fail "vkfd-server exited with $src after SIGTERM"
echo "PASS: 8 concurrent guests, one killed"
exit 0

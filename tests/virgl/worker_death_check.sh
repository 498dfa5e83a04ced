#!/bin/bash
# SPDX-License-Identifier: MIT
# A host that dies under a waiting guest must reach the guest as an error,
# not as a hang (docs/security.md, "Lifetimes and liveness").
#
#   worker_death_check.sh WAIT_CLIENT SERVER [SERVER ARGS...]
#
# Starts SERVER (vkfd-server, or a patched virgl_test_server) with its
# socket path appended (--socket PATH for vkfd-server, --socket-path PATH
# otherwise), runs WAIT_CLIENT against it, and once the client waits
# SIGKILLs the deepest process under the server: vkfd-server's per-client
# worker, virgl_test_server's per-client process, or with --render-server
# the render server's context worker. Passes when the client reports that
# its wait and then its next call failed, within 10 s of the kill (the
# guest library checks every 250 ms, so this never flakes; a hang fails
# it), and the server's log has no AddressSanitizer report.
set -u
client=$1
shift
server=$1
dir=$(mktemp -d)
sock=$dir/sock
trap 'kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; rm -rf "$dir"' EXIT
case "$(basename "$server")" in
vkfd-server*) "$@" --socket "$sock" >"$dir/server.log" 2>&1 & ;;
*) "$@" --socket-path "$sock" >"$dir/server.log" 2>&1 & ;;
esac
spid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "FAIL: server did not listen"; cat "$dir/server.log"; exit 1; }

"$client" "$sock" >"$dir/client.log" 2>&1 &
cpid=$!
for _ in $(seq 300); do grep -q waiting "$dir/client.log" && break; sleep 0.1; done
grep -q waiting "$dir/client.log" || { echo "FAIL: client never waited"; cat "$dir/client.log"; exit 1; }

# the deepest descendant of the server: the process that holds the context
deepest() {
	local p=$1 c
	for c in $(ps -o pid= --ppid "$p"); do
		deepest "$c"
		return
	done
	echo "$p"
}
victim=$(deepest "$spid")
[ "$victim" != "$spid" ] || { echo "FAIL: no worker under the server"; exit 1; }
echo "killing $(ps -o comm= -p "$victim") ($victim)"
kill -KILL "$victim"

for _ in $(seq 100); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$cpid" 2>/dev/null; then
	echo "FAIL: the guest still blocks 10 s after its host died"
	kill -KILL "$cpid"
	cat "$dir/client.log"
	exit 1
fi
wait "$cpid"
rc=$?
cat "$dir/client.log"
[ "$rc" = 0 ] || { echo "FAIL: client exit $rc"; exit 1; }
# a sanitizer build of the server must stay clean through the death
if grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer" "$dir/server.log"; then
	echo "FAIL: sanitizer report in the server"
	cat "$dir/server.log"
	exit 1
fi
echo "OK"

#!/bin/bash
# SPDX-License-Identifier: MIT
# A guest that dies with fences pending must not crash or corrupt its host
# (docs/security.md, "Fences retired into freed VMM state").
#
#   client_death_check.sh WAIT_CLIENT SERVER [SERVER ARGS...]
#
# Starts SERVER (vkfd-server, or a patched virgl_test_server; the socket
# option is appended as in worker_death_check.sh), runs WAIT_CLIENT, which
# leaves a WAIT_EVENTS fence pending, SIGKILLs the client, and repeats that
# three times. Passes when the server still serves a fourth client to its
# wait and its log has no AddressSanitizer report (build the server with
# -Db_sanitize=address for this to mean anything: before the host library
# dropped destroy-time fences, virgl_test_server reported a
# heap-use-after-free here).
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

for round in 1 2 3 4; do
	: >"$dir/client.log"
	"$client" "$sock" >"$dir/client.log" 2>&1 &
	cpid=$!
	for _ in $(seq 300); do grep -q waiting "$dir/client.log" && break; sleep 0.1; done
	if ! grep -q waiting "$dir/client.log"; then
		echo "FAIL: client $round never waited"
		cat "$dir/client.log" "$dir/server.log"
		exit 1
	fi
	kill -KILL "$cpid"
	wait "$cpid" 2>/dev/null
	# let the server notice and destroy the context
	sleep 0.5
	if ! kill -0 "$spid" 2>/dev/null; then
		echo "FAIL: server exited after client $round died"
		cat "$dir/server.log"
		exit 1
	fi
done
if grep -q "ERROR: AddressSanitizer" "$dir/server.log"; then
	echo "FAIL: sanitizer report in the server"
	cat "$dir/server.log"
	exit 1
fi
echo "OK: 4 clients killed while waiting, server clean"

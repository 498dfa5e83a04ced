#!/bin/sh
# Guest programs through the shim's vkfd backend and a private vkfd-server
# (vkfd-run's default mode). Exit 77 (skip) when what a case needs is not
# installed.
#   run_guest.sh fork VKFD_RUN FORK_REOPEN
#   run_guest.sh rocminfo VKFD_RUN [vkfd-run options...]
set -u
mode=$1
run=$2
shift 2

case "$mode" in
fork)
	exec "$run" -- "$1"
	;;
rocminfo)
	if ! command -v rocminfo >/dev/null 2>&1; then
		echo "rocminfo not installed: skipping"
		exit 77
	fi
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	"$run" --native "$@" -- rocminfo >"$tmp/native" 2>&1 || {
		echo "native rocminfo failed"; cat "$tmp/native"; exit 1; }
	"$run" "$@" -- rocminfo >"$tmp/vkfd" 2>&1 || {
		echo "rocminfo through vkfd failed"; cat "$tmp/vkfd"; exit 1; }
	# The agent sections must agree except for what the host sanitizes
	# (Uuid from unique_id, BDFID from location_id) and the CPU agent,
	# which the guest composes from its own CPUs (clock from /proc/cpuinfo).
	agents() {
		awk '/^HSA Agents/ { on = 1 }
		     on && /Device Type:/ { cpu = ($3 == "CPU") }
		     on && /Name: +gfx|Name: +AMD|Name: +[A-Za-z]/ && /^  Name:/ { cpu = 0 }
		     on && /Uuid:|BDFID:/ { next }
		     on && cpu && /Max Clock Freq/ { next }
		     on { print }' "$1"
	}
	agents "$tmp/native" >"$tmp/native.agents"
	agents "$tmp/vkfd" >"$tmp/vkfd.agents"
	if ! grep -q "Name: *gfx" "$tmp/vkfd.agents"; then
		echo "no GPU agent through vkfd"; cat "$tmp/vkfd"; exit 1
	fi
	if ! diff -u "$tmp/native.agents" "$tmp/vkfd.agents"; then
		echo "agent sections differ"
		exit 1
	fi
	echo "rocminfo agents identical (native vs vkfd), $(grep -c '^Agent ' "$tmp/vkfd.agents") agents"
	;;
*)
	echo "unknown mode $mode"
	exit 2
	;;
esac

#!/bin/sh
# SPDX-License-Identifier: MIT
# vkfd-run's command line, environment and exit status contract.
#   vkfd_run_test.sh VKFD_RUN SANITIZE HAVE_SERVER(yes|no)
set -u
vkfd_run=$1
sanitize=${2:-none}
have_server=${3:-no}
case $sanitize in
address-*)
	skip_msg="the shim is built with ${sanitize#address-}'s AddressSanitizer, whose runtime vkfd-run cannot preload into uninstrumented programs (use gcc for sanitized e2e runs)"
	echo "SKIP: $skip_msg"
	exit 77
	;;
*address*) export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
esac
failures=0
out=$(mktemp -d "${TMPDIR:-/tmp}/vkfd-run-test.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

check() { # NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok   $1"
	else
		echo "FAIL $1: expected '$2', got '$3'"
		failures=$((failures + 1))
	fi
}

"$vkfd_run" --native -- sh -c 'exit 7'
check "exit status passes through" 7 $?
"$vkfd_run" --native -- sh -c 'kill -TERM $$'
check "native mode execs PROGRAM (signal is its own)" 143 $?
"$vkfd_run" --native -- /nonexistent/program 2>/dev/null
check "missing PROGRAM" 127 $?
"$vkfd_run" --gpus 0 --native -- true 2>"$out/err"
check "--gpus 0 refused" 125 $?
grep -q "bad value '0' for --gpus" "$out/err"
check "--gpus 0 message" 0 $?
"$vkfd_run" --target 90a --native -- true 2>/dev/null
check "--target without gfx refused" 125 $?
"$vkfd_run" --native 2>/dev/null
check "no PROGRAM" 125 $?
VKFD_PRELOAD=/nonexistent/libvkfd-preload.so "$vkfd_run" --native -- true 2>/dev/null
check "shim not found" 125 $?
VKFD_SERVER=/nonexistent/vkfd-server "$vkfd_run" -- true 2>"$out/err"
check "no server: no fallback to native" 125 $?
grep -q "vkfd-server not found" "$out/err"
check "no server message" 0 $?

env=$("$vkfd_run" --native --gpus 2 --target gfx1030 --vram-mb 512 -- \
	sh -c 'echo "$VKFD_BACKEND $VKFDSIM_GPUS $VKFDSIM_TARGET $VKFDSIM_VRAM_MB"')
check "native environment" "native 2 gfx1030 512" "$env"
pre=$("$vkfd_run" --native -- sh -c 'echo "$LD_PRELOAD"')
case $pre in
*libvkfd-preload.so*) r=0 ;;
*) r=1 ;;
esac
check "LD_PRELOAD has the shim" 0 $r
# (an instrumented vkfd-run itself would refuse a foreign first preload)
pre=$(ASAN_OPTIONS="verify_asan_link_order=0:${ASAN_OPTIONS:-}" LD_PRELOAD=libm.so.6 \
	"$vkfd_run" --native -- sh -c 'echo "$LD_PRELOAD"')
check "an existing LD_PRELOAD is kept last" "libm.so.6" "${pre##*:}"
env=$("$vkfd_run" --connect /run/vkfd-test.sock -- sh -c 'echo "$VKFD_BACKEND $VKFD_SOCKET"')
check "connect environment" "vkfd /run/vkfd-test.sock" "$env"
got=$(echo stdin-data | "$vkfd_run" --native -- cat)
check "stdin and stdout are PROGRAM's" "stdin-data" "$got"
"$vkfd_run" --native -- sh -c 'echo to-stderr >&2' 2>"$out/err" >/dev/null
check "stderr is PROGRAM's" "to-stderr" "$(cat "$out/err")"
# PROGRAM's own options are not vkfd-run's.
got=$("$vkfd_run" --native -- sh -c 'echo "$1"' sh --gpus)
check "PROGRAM options left alone" "--gpus" "$got"

if [ "$have_server" = yes ]; then
	got=$("$vkfd_run" -- sh -c 'test -S "$VKFD_SOCKET" && echo "$VKFD_BACKEND $VKFD_SOCKET"')
	check "server mode: socket is live for PROGRAM" 0 $?
	check "server mode: backend" "vkfd" "${got%% *}"
	sock=${got#* }
	[ -e "$sock" ] || [ -e "${sock%/*}" ]
	check "server mode: socket and its directory removed after" 1 $?
	"$vkfd_run" -- sh -c 'exit 5'
	check "server mode: exit status passes through" 5 $?
fi

[ $failures -eq 0 ] || exit 1

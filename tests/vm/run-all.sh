#!/bin/sh
# SPDX-License-Identifier: MIT
# Everything of issue 13's VM acceptance from a clean checkout, given the
# QEMU source (docs/integration.md, "Acceptance runs" and "Storm replay in
# the VM"). Run as root (the guest image is built with debootstrap). Not
# used by CI; downloads only Debian packages (debootstrap).
#
#   run-all.sh QEMU_TARBALL VIRGL_GIT WORKDIR MIRROR
#
# QEMU_TARBALL, VIRGL_GIT, WORKDIR: as for build-qemu-series.sh (QEMU
# 10.0.x; its configure needs meson >= 1.5 and pycotap on PYTHONPATH;
# keep that PYTHONPATH for every step: the vkfd build tree is configured by
# the meson found there, and the image step runs `meson install` in it).
# MIRROR: a Debian mirror for build-guest-image.sh. Needs the packages build-qemu-series.sh
# lists, debootstrap, e2fsprogs (debugfs), xvfb, libgl1-mesa-dri, seabios
# and qemu-system-data (firmware), python3.
#
# Steps (STEPS selects some, default all):
#   build   build-qemu-series.sh: vkfd, virglrenderer + series, each QEMU
#           patch applied in order with a warning check of the objects it
#           touches, QEMU with the series and QEMU without 0005 (and 0006)
#   image   the guest image (build-guest-image.sh), then its storm files
#           and test script (update-guest-image.sh)
#   loop    BOOTS (default 50) boots with -smp 2 and BOOTS with -smp 1 of
#           the series QEMU, each running vkfd-info, rocminfo and hsa_e2e
#           all (stall-loop.sh; logs in WORKDIR/vmlogs/accept)
#   storm   STORM_BOOTS (default 2) boots of each QEMU (series, without
#           0005) running vkfd-bench's storm over virtgpu, 3 replays per
#           boot; the same storm on the host over vtest (3 runs of 3
#           replays); tables in WORKDIR/vmlogs/storm-summary.md
#
# One VM at a time (stall-runs.sh's lock), QEMU at nice 5. DISPLAY: an X
# server with GLX; without one, Xvfb is started on :137 (and stopped at
# the end).
set -eu
tarball=$1
virgl_git=$2
work=$3
mirror=$4
here=$(cd "$(dirname "$0")" && pwd)
steps=${STEPS:-build image loop storm}
boots=${BOOTS:-50}
storm_boots=${STORM_BOOTS:-2}
mkdir -p "$work"
work=$(realpath "$work")
logs=$work/vmlogs
libdir=lib/x86_64-linux-gnu
mkdir -p "$logs"

want() {
	case " $steps " in *" $1 "*) return 0 ;; esac
	return 1
}

if want build; then
	"$here/build-qemu-series.sh" "$tarball" "$virgl_git" "$work"
fi
if want image; then
	"$here/build-guest-image.sh" "$mirror" "$work/vkfd-build" "$work/vm-guest"
	"$here/update-guest-image.sh" "$work/vm-guest.img" "$work/vkfd-build"
fi

export LD_LIBRARY_PATH="$work/prefix/$libdir:$work/vkfd-stage/usr/local/$libdir"
xvfb=
if [ -z "${DISPLAY:-}" ]; then
	Xvfb :137 -screen 0 1024x768x24 +extension GLX -nolisten tcp >"$logs/xvfb.log" 2>&1 &
	xvfb=$!
	export DISPLAY=:137
	sleep 2
fi
trap '[ -z "$xvfb" ] || kill "$xvfb"' EXIT

if want loop; then
	"$here/stall-loop.sh" "$boots" "$work/qemu-system-x86_64.series" "$work/vm-guest" \
		"$work/vm-guest.img" "$logs/accept"
	tail -n 2 "$logs/accept/loop.log"
fi

if want storm; then
	for q in series minus-0005; do
		QEMU_HOSTMEM=32G QEMU_HOLE64=64G QEMU_SMP=2 LOGDIR=$logs/storm-$q VKFD_VM_CASES=storm VKFD_VM_TIMEOUT=900 \
			"$here/stall-runs.sh" "$storm_boots" "$work/qemu-system-x86_64.$q" \
			"$work/vm-guest" "$work/vm-guest.img"
	done
	mkdir -p "$logs/storm-vtest"
	for i in 1 2 3; do
		nice -n 5 "$work/vkfd-build/src/tools/bench/vkfd-bench" --scenario storm \
			--paths vtest --iterations 3 >"$logs/storm-vtest/run-$i.txt" 2>&1
	done
	set --
	for f in "$logs"/storm-series/boot-*.log; do set -- "$@" "series=$f"; done
	for f in "$logs"/storm-minus-0005/boot-*.log; do set -- "$@" "minus-0005=$f"; done
	for f in "$logs"/storm-vtest/run-*.txt; do set -- "$@" "vtest=$f"; done
	"$here/storm-summary.py" "$@" | tee "$logs/storm-summary.md"
fi

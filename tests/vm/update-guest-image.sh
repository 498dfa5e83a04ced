#!/bin/sh
# SPDX-License-Identifier: MIT
# Refresh a vkfd test VM image in place, without mounting it (debugfs):
# /vkfd-vm-test.sh from this checkout and, for the storm case, vkfd-bench,
# the libvkfd-host.so.0 it was linked with and model_load.trace from a vkfd
# build tree in /usr/local/libexec/vkfd/storm. The VM must not be running
# on IMAGE (take stall-runs.sh's LOCK first when a loop is running). Not
# used by CI.
#
#   update-guest-image.sh IMAGE VKFD_BUILD_DIR
set -eu
image=$1
build=$2
here=$(cd "$(dirname "$0")" && pwd)
storm=/usr/local/libexec/vkfd/storm
bench=$build/src/tools/bench/vkfd-bench
host_lib=$(readlink -f "$build/src/amdkfd/libvkfd-host.so.0")

# put FILE at PATH (mode MODE) in the image
put() {
	debugfs -w -R "rm $2" "$image" >/dev/null 2>&1 || true
	debugfs -w -R "write $1 $2" "$image" >/dev/null 2>&1
	debugfs -w -R "sif $2 mode 0100$3" "$image" >/dev/null 2>&1
	debugfs -R "cat $2" "$image" 2>/dev/null | cmp -s - "$1" || {
		echo "update-guest-image: $2 not written" >&2
		exit 1
	}
}

put "$here/vkfd-vm-test.sh" /vkfd-vm-test.sh 755
debugfs -w -R "mkdir $storm" "$image" >/dev/null 2>&1 || true
put "$bench" $storm/vkfd-bench 755
put "$host_lib" $storm/libvkfd-host.so.0 644
put "$build/src/tools/bench/model_load.trace" $storm/model_load.trace 644
echo "updated $image"

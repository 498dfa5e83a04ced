#!/bin/sh
# SPDX-License-Identifier: MIT
# The stall acceptance run: COUNT boots with -smp 2 and COUNT with -smp 1,
# alternating (so that a loop cut short has run both about equally), each
# boot running VKFD_VM_CASES (default "info rocminfo hsa": vkfd-info,
# rocminfo, hsa_e2e all) through stall-runs.sh. One VM at a time (the
# stall-runs.sh lock). Not used by CI.
#
#   stall-loop.sh COUNT QEMU ROOTFS IMAGE LOGDIR [FIRST]
#
# Boot logs go to LOGDIR/smp2 and LOGDIR/smp1, each with its runs.tsv;
# LOGDIR/loop.log gets every boot's line. FIRST (default 1) continues an
# interrupted loop at that boot number.
set -eu
count=$1
qemu=$2
rootfs=$3
image=$4
logdir=$5
i=${6:-1}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$logdir/smp2" "$logdir/smp1"
while [ "$i" -le "$count" ]; do
	for smp in 2 1; do
		QEMU_SMP=$smp LOGDIR=$logdir/smp$smp FIRST=$i \
			"$here/stall-runs.sh" 1 "$qemu" "$rootfs" "$image" |
			sed -n "s/^boot /smp $smp boot /p" >>"$logdir/loop.log"
	done
	i=$((i + 1))
done
for smp in 2 1; do
	awk -F'\t' -v smp="$smp" 'NR > 1 { n++; if ($5 == "pass") p++; s += $8 }
		END { printf "smp %s: %d boots, %d passed, %d stalls\n", smp, n, p, s }' \
		"$logdir/smp$smp/runs.tsv" >>"$logdir/loop.log"
done

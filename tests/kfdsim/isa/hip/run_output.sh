#!/bin/sh
# SPDX-License-Identifier: MIT
# Run one isa_hip test natively and check its output.
#   run_output.sh VKFD_RUN ISA_HIP TEST fail|pass PATTERN...
# "fail": the process must exit non-zero (a device abort/assert ends it);
# every PATTERN (a shell glob) must match some output line.
vkfd_run=$1
isa_hip=$2
test=$3
want=$4
shift 4
out=$("$vkfd_run" --native -- "$isa_hip" "$test" 2>&1)
rc=$?
echo "$out"
if [ "$want" = fail ] && [ $rc -eq 0 ]; then
	echo "FAIL: $test exited 0"
	exit 1
fi
if [ "$want" = pass ] && [ $rc -ne 0 ]; then
	echo "FAIL: $test exited $rc"
	exit 1
fi
for p in "$@"; do
	found=no
	while IFS= read -r line; do
		case $line in
		$p) found=yes ;;
		esac
	done <<EOT
$out
EOT
	if [ $found = no ]; then
		echo "FAIL: no output line matches: $p"
		exit 1
	fi
done
exit 0

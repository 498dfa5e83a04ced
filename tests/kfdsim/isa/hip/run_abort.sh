#!/bin/sh
# SPDX-License-Identifier: MIT
# A device-side abort() (s_trap 2) must reach HIP as the trap exception a
# GPU raises: ROCclr's queue callback names HSA_STATUS_ERROR_EXCEPTION and
# the process aborts.  run_abort.sh VKFD_RUN ISA_HIP
out=$("$1" --native -- "$2" abort 2>&1)
rc=$?
echo "$out"
if [ $rc -eq 0 ]; then
	echo "FAIL: the program exited 0 after a device abort()"
	exit 1
fi
case $out in
*HSA_STATUS_ERROR_EXCEPTION*) exit 0 ;;
esac
echo "FAIL: no HSA_STATUS_ERROR_EXCEPTION report (exit $rc)"
exit 1

#!/bin/sh
# SPDX-License-Identifier: MIT
# Boot the vkfd test VM (docs/integration.md, "Real-VM run") under TCG and
# print its serial console on stdout; vkfd-vm-test.sh (the guest's init)
# powers it off when done. Not used by CI.
#
#   run-vm.sh QEMU ROOTFS [IMAGE] [EXTRA_KERNEL_ARGS]
#
# QEMU: a qemu-system-x86_64 built with the patched virglrenderer (whose
# library directory must be on LD_LIBRARY_PATH). ROOTFS: the directory
# the image was built from (for its kernel and initrd). DISPLAY must name
# an X server with GLX (e.g. Xvfb): virtio-gpu-gl needs a GL display.
# QEMU_ACCEL overrides the accelerator (default tcg), QEMU_DISPLAY the
# display (default gtk,gl=on: sdl,gl=on failed on Xvfb with "Unable to
# create OpenGL context >= 3.0"), QEMU_BIOS_DIRS the firmware directories,
# QEMU_SMP the number of vCPUs (default 2), QEMU_GPU_OPTS extra
# virtio-gpu-gl-pci options (e.g. ",amdkfd-doorbell-ioeventfds=64"),
# QEMU_HOSTMEM the host-visible BAR (default 4G; the storm maps 16.3 GiB at
# once and needs 32G), QEMU_HOLE64 the q35 64-bit PCI hole (default QEMU's
# 32 GiB; a 32G BAR needs 64G: the BAR is aligned to its size).
# no_timer_check: on a loaded host a TCG guest can fail the kernel's
# IO-APIC timer self-test and panic ("IO-APIC + timer doesn't work!"),
# seen once on 2 shared cores with a load average of 26.
set -eu
qemu=$1
rootfs=$2
image=${3:-$rootfs.img}
extra=${4:-}
# the newest by name, as the glob sorts
for kernel in "$rootfs"/boot/vmlinuz-*; do :; done
for initrd in "$rootfs"/boot/initrd.img-*; do :; done
bios_args=
[ -z "${QEMU_HOLE64:-}" ] || bios_args="-global q35-pcihost.pci-hole64-size=$QEMU_HOLE64"
for d in ${QEMU_BIOS_DIRS:-/usr/share/qemu /usr/share/seabios}; do
	bios_args="$bios_args -L $d"
done

# shellcheck disable=SC2086 # bios_args is a list of words
exec "$qemu" -machine q35 -accel "${QEMU_ACCEL:-tcg}" -cpu max -m 4G -smp "${QEMU_SMP:-2}" \
	$bios_args -nic none -no-reboot \
	-display "${QEMU_DISPLAY:-gtk,gl=on}" \
	-device "virtio-gpu-gl-pci,blob=on,hostmem=${QEMU_HOSTMEM:-4G},amdkfd=on${QEMU_GPU_OPTS:-}" \
	-drive file="$image",format=raw,if=virtio \
	-kernel "$kernel" -initrd "$initrd" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 no_timer_check init=/vkfd-vm-test.sh $extra" \
	-serial stdio -monitor none

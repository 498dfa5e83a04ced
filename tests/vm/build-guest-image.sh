#!/bin/sh
# SPDX-License-Identifier: MIT
# Build the raw ext4 disk image of the vkfd test VM from Debian 12 packages
# and a vkfd build tree (docs/integration.md, "Real-VM run"). Run as root.
# Not used by CI; downloads only Debian packages, through debootstrap.
#
#   build-guest-image.sh MIRROR VKFD_BUILD_DIR [ROOTFS] [IMAGE]
#
# MIRROR: a Debian mirror URL (e.g. the one in /etc/apt/sources.list*).
# VKFD_BUILD_DIR: a configured and built vkfd meson tree (its prefix is
# used inside the guest; the default /usr/local is what vkfd-vm-test.sh
# expects). ROOTFS defaults to /var/cache/vkfd/vm-guest, IMAGE to
# $ROOTFS.img. An existing ROOTFS is reused (only vkfd is refreshed).
set -eu
mirror=$1
build=$2
rootfs=${3:-/var/cache/vkfd/vm-guest}
image=${4:-$rootfs.img}
here=$(cd "$(dirname "$0")" && pwd)
# The ROCm userspace the end-to-end tests run unmodified (as in
# ci/install-deps.sh), a kernel with virtio-gpu context init and blobs,
# and debugging aids.
pkgs=linux-image-amd64,initramfs-tools,rocminfo,libhsa-runtime64-1,libhsakmt1
pkgs=$pkgs,libdrm2,libdrm-amdgpu1,strace,gdb,kmod,udev,procps,pciutils

if [ ! -x "$rootfs/usr/bin/rocminfo" ]; then
	# debootstrap leaves gdb unconfigured (it does not resolve gdb's
	# dependency on a virtual boost package); apt in the chroot finishes it
	debootstrap --variant=minbase --include="$pkgs" bookworm "$rootfs" "$mirror" ||
		chroot "$rootfs" apt-get -y -f install
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" --quiet
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
mkdir -p "$rootfs$prefix"
cp -a "$stage$prefix/." "$rootfs$prefix/"
install -D -m 0755 "$build/tests/e2e/hsa_e2e" "$rootfs$prefix/libexec/vkfd/hsa_e2e"
install -m 0755 "$here/vkfd-vm-test.sh" "$rootfs/vkfd-vm-test.sh"
chroot "$rootfs" ldconfig

rm -f "$image"
truncate -s 4G "$image"
mkfs.ext4 -q -F -L vkfd-vm -d "$rootfs" "$image"
echo "image: $image"
for kernel in "$rootfs"/boot/vmlinuz-*; do :; done
for initrd in "$rootfs"/boot/initrd.img-*; do :; done
echo "kernel: $kernel"
echo "initrd: $initrd"

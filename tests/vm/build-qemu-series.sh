#!/bin/sh
# SPDX-License-Identifier: MIT
# Build everything the vkfd test VM runs on the host, from a clean checkout
# of this repository (docs/integration.md, "QEMU 10.0"). Not used by CI;
# downloads nothing.
#
#   build-qemu-series.sh QEMU_TARBALL VIRGL_GIT WORKDIR
#
# QEMU_TARBALL: QEMU 10.0.x source, e.g. Debian trixie's
#   qemu_10.0.13+ds.orig.tar.xz (`apt-get source --download-only qemu`).
# VIRGL_GIT: a git repository of virglrenderer that has the tag 1.1.0.
# WORKDIR: an empty or reused directory outside this repository.
#
# Stages, in order (STAGES selects some, default all):
#   vkfd     vkfd built with prefix /usr/local (the guest's) and installed
#            with DESTDIR into WORKDIR/vkfd-stage; a copy of vkfd-host.pc
#            pointing there in WORKDIR/pkgconfig
#   virgl    virglrenderer 1.1.0 + virglrenderer/patches, -Damdkfd=enabled,
#            installed into WORKDIR/prefix (render server included)
#   steps    QEMU unpacked into WORKDIR/qemu, configured once, then each
#            patch of virglrenderer/vmm/qemu applied in order (`git apply
#            --check` first) and the virtio-gpu and physmem objects rebuilt
#            after each: any compiler warning or error fails the stage
#   full     qemu-system-x86_64 with the whole series, copied to
#            WORKDIR/qemu-system-x86_64.series
#   minus5   the series without 0005 (the amdkfd unmap patch) and 0006
#            (which needs 0005), for the storm comparison: 0006 and 0005
#            are reverse-applied in the same tree, QEMU rebuilt and copied
#            to WORKDIR/qemu-system-x86_64.minus-0005, then both re-applied
#            and QEMU rebuilt (needs the full stage's tree)
#
# QEMU 10.0's configure needs meson >= 1.5 (Debian 12 has 1.0.1) and
# pycotap >= 1.1 as Python modules, and the +ds tarball lacks the wheels
# it would otherwise install them from: put both on PYTHONPATH, e.g. the
# unpacked files (dpkg-deb -x) of Debian trixie's meson and python3-pycotap
# packages. The +ds tarball has no firmware either; empty
# pc-bios/edk2-*.fd.bz2 placeholders let the build finish (UEFI unused).
# Needs: libepoxy-dev libgbm-dev libdrm-dev libgtk-3-dev libpixman-1-dev
# libglib2.0-dev libfdt-dev flex bison ninja-build and vkfd's build deps.
set -eu
tarball=$(realpath "$1")
virgl_git=$(realpath "$2")
work=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
stages=${STAGES:-vkfd virgl steps full minus5}
mkdir -p "$work"
work=$(realpath "$work")
nice="nice -n ${NICE:-15}"
jobs=${JOBS:-2}
stage=$work/vkfd-stage
prefix=$work/prefix
libdir=lib/x86_64-linux-gnu

want() {
	case " $stages " in *" $1 "*) return 0 ;; esac
	return 1
}

if want vkfd; then
	[ -d "$work/vkfd-build" ] ||
		meson setup "$work/vkfd-build" "$repo" --prefix=/usr/local \
			--buildtype=debugoptimized
	$nice ninja -j"$jobs" -C "$work/vkfd-build"
	rm -rf "$stage"
	DESTDIR=$stage meson install -C "$work/vkfd-build" --quiet
	mkdir -p "$work/pkgconfig"
	sed "s|^prefix=.*|prefix=$stage/usr/local|" \
		"$stage/usr/local/$libdir/pkgconfig/vkfd-host.pc" >"$work/pkgconfig/vkfd-host.pc"
fi

if want virgl; then
	rm -rf "$work/virgl"
	git clone -q --shared "$virgl_git" "$work/virgl"
	git -C "$work/virgl" checkout -q -b vkfd 1.1.0
	git -C "$work/virgl" -c user.name=vkfd -c user.email=vkfd@localhost \
		am -q "$repo"/virglrenderer/patches/*.patch
	rm -rf "$work/virgl-build"
	meson setup "$work/virgl-build" "$work/virgl" -Damdkfd=enabled \
		-Dpkg_config_path="$work/pkgconfig" --prefix="$prefix" \
		--buildtype=debugoptimized
	$nice ninja -j"$jobs" -C "$work/virgl-build" install
fi

qemu=$work/qemu
# the objects the series touches: virtio-gpu's and (0007) physmem's
objs="libcommon.a.p/hw_display_virtio-gpu-base.c.o
libcommon.a.p/hw_display_virtio-gpu.c.o
libcommon.a.p/hw_display_virtio-gpu-gl.c.o
libcommon.a.p/hw_display_virtio-gpu-virgl.c.o
libcommon.a.p/hw_display_virtio-gpu-pci-gl.c.o
libqemu-x86_64-softmmu.a.p/system_physmem.c.o"

# Rebuild those objects; fail on any warning.
build_objs() {
	targets=
	for o in $objs; do
		rm -f "$qemu/build/$o"
		targets="$targets $o"
	done
	log=$work/objs.log
	# shellcheck disable=SC2086 # targets is a list of words
	if ! $nice ninja -j"$jobs" -C "$qemu/build" $targets >"$log" 2>&1; then
		cat "$log"
		echo "build failed after $1"
		exit 1
	fi
	if grep -q 'warning:' "$log"; then
		grep -A3 'warning:' "$log"
		echo "warnings after $1"
		exit 1
	fi
	echo "virtio-gpu and physmem objects after $1: no warnings"
}

if want steps; then
	rm -rf "$qemu"
	mkdir -p "$qemu"
	tar xf "$tarball" -C "$qemu" --strip-components=1
	for f in aarch64-code arm-code arm-vars i386-code i386-secure-code \
		i386-vars loongarch64-code loongarch64-vars riscv-code riscv-vars \
		x86_64-code x86_64-secure-code; do
		[ -e "$qemu/pc-bios/edk2-$f.fd.bz2" ] || : >"$qemu/pc-bios/edk2-$f.fd.bz2"
	done
	mkdir -p "$qemu/build"
	(cd "$qemu/build" &&
		PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig:$work/pkgconfig ../configure \
			--target-list=x86_64-softmmu --without-default-features \
			--enable-tcg --enable-virglrenderer --enable-opengl \
			--enable-pixman --enable-gtk --enable-fdt=system \
			--disable-docs --disable-download --disable-werror \
			--disable-install-blobs)
	build_objs "QEMU as unpacked"
	for p in "$repo"/virglrenderer/vmm/qemu/*.patch; do
		(cd "$qemu" && git apply --check "$p" && git apply "$p")
		build_objs "$(basename "$p")"
	done
fi

build_qemu() {
	# the amdkfd-enabled libvirglrenderer needs libvkfd-host at link time
	LD_LIBRARY_PATH=$stage/usr/local/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		$nice ninja -j"$jobs" -C "$qemu/build" qemu-system-x86_64
}

if want full; then
	build_qemu
	cp "$qemu/build/qemu-system-x86_64" "$work/qemu-system-x86_64.series"
	echo "qemu: $work/qemu-system-x86_64.series"
	echo "run with LD_LIBRARY_PATH=$prefix/$libdir:$stage/usr/local/$libdir"
fi

if want minus5; then
	p5=$(echo "$repo"/virglrenderer/vmm/qemu/0005-*.patch)
	p6=$(echo "$repo"/virglrenderer/vmm/qemu/0006-*.patch)
	(cd "$qemu" && git apply -R "$p6" && git apply -R "$p5")
	build_qemu
	cp "$qemu/build/qemu-system-x86_64" "$work/qemu-system-x86_64.minus-0005"
	(cd "$qemu" && git apply "$p5" && git apply "$p6")
	build_qemu
	echo "qemu without 0005 and 0006: $work/qemu-system-x86_64.minus-0005"
fi

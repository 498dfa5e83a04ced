#!/bin/sh
# SPDX-License-Identifier: MIT
# ROCm version matrix: one Debian release's ROCm userspace running real work
# on kfdsim, natively and through a vkfd-server, with one GPU and with two.
#   run_matrix.sh SUITE VKFD_SERVER SHIM SANITIZE HSA_E2E DRM_IDENTITY
#   run_matrix.sh SUITE VKFD_SERVER SHIM SANITIZE HSA_E2E DRM_IDENTITY \
#                 hip HIP_BASIC_SRC ISA_HIP_SRC HIP_MANAGED_SRC
# SUITE is bookworm (ROCm 5.2.3: the build machine itself, no chroot),
# trixie (6.1.x) or sid (6.4.x) (each in a debootstrap chroot, built once
# with rocminfo and libhsa-runtime64-1 from the Debian mirror this machine's
# apt uses, cached in $VKFD_CACHE/<suite>-rocm, default /var/cache/vkfd).
# For each backend (native: kfdsim in the process; vkfd: a vkfd-server
# outside the chroot) and each machine (one gfx90a; two gfx1030 with 4 GiB
# each) it runs:
#   rocminfo          exit 0, the expected GPU agents, "*** Done ***";
#   drm_identity_test libdrm's view of every virtual DRM node;
#   hsa_e2e matrix    copies (1 byte to 1 GiB on one GPU, to 64 MiB on two)
#                     verified byte for byte, dispatches, barrier-AND,
#                     dependency and timeout waits, two-GPU peer work; with
#                     the shim's debug log, which names every created queue:
#                     the copies must have run on SDMA queues (and on this
#                     ROCr's expected SDMA queue type), never blit kernels;
#   hsa_e2e fault     ROCr must report the GPU memory fault and abort;
#   hsa_e2e lock      hsa_amd_memory_lock of malloc'ed memory, copies
#                     through the agent pointer verified (one GPU);
#   hsa_e2e register  the same buffer locked twice, overlapping locks,
#                     ROCr's own memory locked, fork while locked (one GPU;
#                     vkfd's documented differences, tests/e2e/hsa_register.h);
#   hsa_e2e unlock-busy  unlock with a copy of the range queued: the GPU
#                     fault where libhsakmt registered the buffer as a
#                     USERPTR BO (5.2, HSA_USE_SVM=0), the copy with the
#                     right bytes where it registered the buffer as SVM
#                     pages (6.x: lock_svm below), natively and through
#                     vkfd alike; run both ways on every version;
#   hsa_e2e hostmem   64 MiB of system memory through the thunk, twice;
#                     through vkfd both frees must defer their copy-back and
#                     libhsakmt's unmap must drop the range (shim debug log).
#   hsa_e2e svm       the SVM API (attributes, a dispatch into mmap'ed
#                     memory, prefetch): kfdsim has it natively, the guest
#                     serves it through vkfd; the same output (one GPU);
#   hsa_e2e ipc       IPC memory between two processes, in ROCr's default
#                     mode and with HSA_ENABLE_IPC_MODE_LEGACY=0 (its dmabuf
#                     mode): the answer upstream amdkfd gives each ROCr
#                     (ipc_dmabuf below; one GPU).
# The hsa_e2e matrix output of the native and the vkfd run must be
# identical. HSA_E2E and DRM_IDENTITY are built on the host against
# bookworm's headers and run unchanged in the chroots (ROCr's and libdrm's C
# ABIs are stable across these releases).
# With "hip" it runs the HIP part instead: that suite's hipcc and HIP
# runtime (hipcc and libamdhip64-dev, added to the cached chroot with its
# own apt the first time; on bookworm the build machine's) build
# HIP_BASIC_SRC (tests/e2e/hip/hip_basic.cpp) and ISA_HIP_SRC
# (tests/kfdsim/isa/hip/isa_hip.cpp) with --offload-arch=gfx90a inside the
# chroot, and they run natively and through vkfd on kfdsim's ISA
# interpreter: hip_basic with "copy" on one gfx90a of 6 GiB, isa_hip on two
# gfx90a; HIP_MANAGED_SRC (tests/e2e/hip/hip_managed.cpp, hipMallocManaged:
# HIP's SVM path natively and through vkfd, the shim's log must show its
# SVM calls both ways) on one gfx90a; each run's output the same both ways.
# Environment: VKFD_CACHE (cache root), VKFD_DEBIAN_MIRROR (overrides the
# mirror read from apt's sources), VKFD_MATRIX_KEEP=1 (keep the logs).
# Exit 0 pass, 1 fail, 77 skip (not root, no debootstrap/unshare, ROCm or
# hipcc not installed on the host for bookworm, or no cached chroot and no
# archive).
set -u
SUITE=$1
server=$2
shim=$3
sanitize=${4:-none}
hsa_e2e=$5
drm_identity=$6
part=${7:-hsa}
hip_basic_src=${8:-}
isa_hip_src=${9:-}
hip_managed_src=${10:-}

PACKAGES=rocminfo,libhsa-runtime64-1
# The HIP part's packages, added to a cached chroot by its own apt (so a
# chroot built before the HIP part existed is extended, not rebuilt).
HIP_PACKAGES="hipcc libamdhip64-dev"
case $SUITE in
# ipc_dmabuf: what hsa_amd_ipc_memory_create answers natively with
# HSA_ENABLE_IPC_MODE_LEGACY=0, as on upstream amdkfd: ROCr 5.2 has no
# dmabuf mode and 6.1 forces legacy mode (libhsakmt's share handle, an
# ioctl only ROCm's own kernel module has: INVALID_ARGUMENT, 0x1001); 6.4
# exports a dmabuf and passes it over a socket (success). Its default mode
# is legacy everywhere (0x1001).
# The SDMA queue type each release creates for its copies on the one-GPU
# (gfx90a) and the two-GPU (gfx1030) machine. ROCr 6.4 asks for
# SDMA_BY_ENG_ID (4) on kfdsim's gfx90a, which reports xGMI SDMA engines
# and KFD 1.17, and for plain SDMA (1) on gfx1030, which has none. Through
# vkfd the guest reports KFD 1.14 (it does not carry 1.15's render-node
# GEM_VA, docs/kfd-uapi.md), below 1.17, so ROCr 6.4 asks for plain SDMA.
# hip_version: libamdhip64-dev; hipcc_version: the hipcc package.
# lock_svm: whether libhsakmt registers locked memory as SVM pages when the
# GPU advertises the SVM API (fmm.c's fmm_register_mem_svm_api and
# fmm_map_mem_svm_api, since 6.x; 5.2 has only USERPTR BOs). Its unlock
# then issues no ioctl at all (hsaKmtUnmapMemoryToGPU and
# hsaKmtDeregisterMemory find no BO and return success), so upstream amdkfd
# keeps the range's ACCESS_IN_PLACE and its GPU mapping while the CPU pages
# stay mapped, and a copy queued before the unlock reads the buffer: no
# fault, as on kfdsim (the shim's debug log shows the two SET_ATTRs and
# nothing at the unlock; kfdsim_svm test_lock_sequence_outlives_unlock).
# Through vkfd the guest serves the SVM API the same way
# (docs/guest-vkfd-backend.md, "SVM"): the same answer.
bookworm) ipc_dmabuf=0x1001 rocr_version='5\.2\.' lock_svm=no sdma_1gpu=1 sdma_2gpu=1 sdma_1gpu_vkfd=1 hip_version='5\.2\.' hipcc_version='5\.2\.' ;;
trixie) ipc_dmabuf=0x1001 rocr_version='6\.1\.' lock_svm=yes sdma_1gpu=1 sdma_2gpu=1 sdma_1gpu_vkfd=1 hip_version='5\.7\.' hipcc_version='5\.7\.' ;;
sid) ipc_dmabuf=0x0 rocr_version='6\.4\.' lock_svm=yes sdma_1gpu=4 sdma_2gpu=1 sdma_1gpu_vkfd=1 hip_version='6\.4\.' hipcc_version='7\.0\.' ;;
*)
	echo "FAIL: unknown suite $SUITE"
	exit 1
	;;
esac
cache=${VKFD_CACHE:-/var/cache/vkfd}/$SUITE-rocm
root=$cache/root

skip() {
	echo "SKIP: $*"
	exit 77
}
die() {
	echo "FAIL: $*"
	exit 1
}

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts)"
[ -x "$server" ] || die "vkfd-server not found at $server"
[ -f "$shim" ] || die "shim not found at $shim"
[ -x "$hsa_e2e" ] || skip "hsa_e2e was not built (no libhsa-runtime64 / hsa/hsa.h)"
[ -x "$drm_identity" ] || skip "drm_identity_test was not built (no libdrm_amdgpu headers)"
case $part in
hsa) ;;
hip)
	[ -f "$hip_basic_src" ] || die "hip_basic source not found at $hip_basic_src"
	[ -f "$isa_hip_src" ] || die "isa_hip source not found at $isa_hip_src"
	[ -f "$hip_managed_src" ] || die "hip_managed source not found at $hip_managed_src"
	;;
*) die "unknown part $part (hsa or hip)" ;;
esac
case $sanitize in
address-*) skip "the shim is instrumented by a non-gcc ASan whose runtime this script cannot preload" ;;
esac

# The first Debian archive (not -security/-updates/-backports) in apt's own
# sources, deb822 (.sources) or one-line (.list) format.
apt_mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
		function flush() {
			if (deb && uri != "" && main) { print uri; found = 1; exit }
			deb = 0; uri = ""; main = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /-/) main = 1 }
		END { if (!found) flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) !~ /-/) { print $i; exit }
		}' "$f"
	done
}

build_chroot() {
	mirror=${VKFD_DEBIAN_MIRROR:-$(apt_mirror | head -n 1)}
	[ -n "$mirror" ] || skip "no Debian mirror found in /etc/apt/sources.list*"
	case $mirror in
	http://* | https://*) ;;
	*) skip "apt's Debian source is not an http(s) mirror: $mirror" ;;
	esac
	# debootstrap fetches with wget; check the archive has this suite. (An
	# unstable snapshot may be past its Valid-Until: debootstrap accepts it,
	# apt-get in the chroot would need -o Acquire::Check-Valid-Until=false.)
	if command -v wget >/dev/null 2>&1; then
		wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$SUITE/Release" ||
			skip "the Debian archive $mirror has no reachable $SUITE release"
	fi
	echo "building the $SUITE chroot in $root from $mirror (minutes)"
	# A failed debootstrap may leave /proc or /sys mounted in the target:
	# unmount, and never let rm cross into a mount.
	for m in proc sys dev/pts; do umount "$root.tmp/$m" 2>/dev/null; done
	rm -rf --one-file-system "$root.tmp"
	debootstrap --variant=minbase --include=$PACKAGES $SUITE "$root.tmp" "$mirror" \
		>"$cache/debootstrap.log" 2>&1 || {
		tail -n 20 "$cache/debootstrap.log"
		for m in proc sys dev/pts; do umount "$root.tmp/$m" 2>/dev/null; done
		rm -rf --one-file-system "$root.tmp"
		die "debootstrap of $SUITE failed (log: $cache/debootstrap.log)"
	}
	echo "$SUITE $PACKAGES" >"$root.tmp/.vkfd-chroot"
	rm -rf --one-file-system "$root"
	mv "$root.tmp" "$root"
}

# The HIP part's compiler and runtime, installed by the chroot's own apt
# from the archive debootstrap used (recorded in its sources.list).
add_hip_packages() {
	mirror=$(awk '$1 == "deb" { print $2; exit }' "$root/etc/apt/sources.list" 2>/dev/null)
	[ -n "$mirror" ] || die "no archive in $root/etc/apt/sources.list"
	if command -v wget >/dev/null 2>&1; then
		wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$SUITE/Release" ||
			skip "the Debian archive $mirror has no reachable $SUITE release: cannot add $HIP_PACKAGES to the cached chroot"
	fi
	echo "adding $HIP_PACKAGES to the $SUITE chroot in $root (minutes)"
	# An unstable snapshot may be past its Valid-Until: apt-get refuses it
	# unless told. /dev/pts only keeps dpkg's log quiet.
	# shellcheck disable=SC2086 # the package list is split on purpose
	unshare --mount --propagation private sh -c '
		r=$1
		shift
		mount -t proc proc "$r/proc" || exit 125
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts" 2>/dev/null
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			DEBIAN_FRONTEND=noninteractive sh -c "
			apt-get -q -o Acquire::Check-Valid-Until=false update &&
			apt-get -q -y -o Acquire::Check-Valid-Until=false install \
				--no-install-recommends $* && apt-get clean"' sh "$root" $HIP_PACKAGES \
		>"$cache/apt-hip.log" 2>&1 || {
		tail -n 20 "$cache/apt-hip.log"
		die "apt-get install $HIP_PACKAGES in the $SUITE chroot failed (log: $cache/apt-hip.log)"
	}
	echo "$SUITE $HIP_PACKAGES" >"$root/.vkfd-hip"
}

if [ $SUITE = bookworm ]; then
	# The build machine's own ROCm, no chroot.
	command -v rocminfo >/dev/null 2>&1 || skip "rocminfo is not installed on this machine"
	[ $part = hsa ] || command -v hipcc >/dev/null 2>&1 ||
		skip "hipcc is not installed on this machine (packages: $HIP_PACKAGES)"
	root=
	versions=$(dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null)
else
	for c in debootstrap chroot unshare mount flock; do
		command -v $c >/dev/null 2>&1 || skip "$c is not installed (Debian package debootstrap/util-linux)"
	done
	mkdir -p "$cache" || die "cannot create $cache"
	# One builder at a time; later runs reuse the finished chroot.
	exec 9>"$cache/.lock"
	flock 9
	[ "$(cat "$root/.vkfd-chroot" 2>/dev/null)" = "$SUITE $PACKAGES" ] || build_chroot
	[ $part = hsa ] || [ "$(cat "$root/.vkfd-hip" 2>/dev/null)" = "$SUITE $HIP_PACKAGES" ] ||
		add_hip_packages
	flock -u 9
	versions=$(chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null)
fi
hip_pkgs='|hipcc|libamdhip64-dev|libamdhip64-[0-9]+|clang-[0-9]+|rocm-device-libs-?[0-9]*|libamd-comgr[0-9]+'
[ $part = hsa ] && hip_pkgs=
versions=$(echo "$versions" |
	grep -E "^(rocminfo|libhsa-runtime64-1|libhsakmt1|libdrm-amdgpu1|libdrm2|libc6$hip_pkgs) ")
echo "$SUITE packages:"
echo "$versions" | sed 's/^/  /'
echo "$versions" | grep -Eq "^libhsa-runtime64-1 $rocr_version" ||
	die "libhsa-runtime64-1 of $SUITE is not the expected $rocr_version"
if [ $part = hip ]; then
	echo "$versions" | grep -Eq "^libamdhip64-dev $hip_version" ||
		die "libamdhip64-dev of $SUITE is not the expected $hip_version"
	echo "$versions" | grep -Eq "^hipcc $hipcc_version" ||
		die "hipcc of $SUITE is not the expected $hipcc_version"
fi

# This run's files (inside the chroot tree when there is one).
run=vkfd-matrix.$$
opt=$root/opt/$run
sockdir=$root/run/$run
out=$(mktemp -d "${TMPDIR:-/tmp}/vkfd-matrix.XXXXXX") || exit 1
spid=
cleanup() {
	[ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null
	rm -rf "$opt" "$sockdir"
	if [ "${VKFD_MATRIX_KEEP:-0}" = 1 ]; then
		echo "logs kept in $out"
	else
		rm -rf "$out"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The shim, the libraries it needs that the chroot lacks (libvkfd-guest,
# libvkfd-host; the sanitizer runtimes in a sanitized build) and the test
# programs. The shim was linked against bookworm's glibc 2.36; the newer
# glibc of trixie and sid is backward compatible.
mkdir -p "$opt/lib" "$opt/bin" "$sockdir" || die "cannot populate $opt"
cp "$shim" "$opt/lib/" && cp "$hsa_e2e" "$drm_identity" "$opt/bin/" || die "cannot copy the test files"
preload=/opt/$run/lib/$(basename "$shim")
for lib in $(ldd "$shim" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
	case $(basename "$lib") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) continue ;;
	libasan.so.* | libtsan.so.*)
		# Always the build's own sanitizer runtime, preloaded first: the
		# chroot may have another gcc's runtime of the same soname (the
		# HIP part's clang brings one).
		cp -L "$lib" "$opt/lib/" || die "cannot copy $lib"
		preload=/opt/$run/lib/$(basename "$lib"):$preload
		continue
		;;
	esac
	# The chroot's own copy (libstdc++, libgcc_s) is newer: never shadow it.
	[ -n "$root" ] && [ -e "$root/usr/lib/x86_64-linux-gnu/$(basename "$lib")" ] && continue
	cp -L "$lib" "$opt/lib/" || die "cannot copy $lib"
done
case $sanitize in
*address*) asan="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
*) asan=${ASAN_OPTIONS:-} ;;
esac

# in_root CMD...: CMD in the chroot (a private mount namespace with /proc,
# /sys and /dev/shm) or on the host, with a clean environment.
in_root() {
	if [ -n "$root" ]; then
		unshare --mount --propagation private sh -c '
			r=$1
			mount -t proc proc "$r/proc" &&
			mount -t sysfs sysfs "$r/sys" &&
			mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm" || exit 125
			shift
			exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				HOME=/root TMPDIR=/tmp "$@"' sh "$root" "$@"
	else
		# no chroot: /opt/$run and /run/$run are this machine's own
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			TMPDIR="${TMPDIR:-/tmp}" "$@"
	fi
}

# run NAME BACKEND MACHINE CMD...: CMD with the shim through in_root.
# MACHINE 1 is one gfx90a, 2 two gfx1030 with 4 GiB each; for the HIP
# part hip1 is one gfx90a with $hip_vram_mb MiB, hip2 two gfx90a.
run() {
	name=$1 backend=$2 gpus=$3
	shift 3
	case $gpus in
	2) sim="VKFDSIM_GPUS=2 VKFDSIM_TARGET=gfx1030 VKFDSIM_VRAM_MB=4096" ;;
	hip1) sim="VKFDSIM_GPUS=1 VKFDSIM_VRAM_MB=$hip_vram_mb" ;;
	hip2) sim="VKFDSIM_GPUS=2" ;;
	*) sim="VKFDSIM_GPUS=1" ;;
	esac
	# shellcheck disable=SC2086 # $sim is a list of assignments
	in_root LD_LIBRARY_PATH=/opt/$run/lib LD_PRELOAD="$preload" ASAN_OPTIONS="$asan" \
		VKFD_BACKEND="$backend" VKFD_SOCKET="/run/$run/vkfd$gpus.sock" \
		VKFD_DEBUG="${debug:-0}" $sim "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"
	echo $? >"$out/$name.rc"
}

failed=0
fail() {
	echo "not ok ($1): $2"
	for f in stdout stderr; do
		[ -s "$out/$1.$f" ] || continue
		echo "--- $1 $f (last 15 lines)"
		grep -v '^vkfd-shim' "$out/$1.$f" | tail -n 15
	done
	failed=1
}

check_rocminfo() {
	name=$1 target=$2 count=$3
	rc=$(cat "$out/$name.rc")
	n=$(grep -Ec "^[[:space:]]*Name:[[:space:]]+$target[[:space:]]*$" "$out/$name.stdout")
	if [ "$rc" -ne 0 ]; then
		fail "$name" "rocminfo exited with $rc"
	elif [ "$n" -ne "$count" ]; then
		fail "$name" "$n $target agents listed, want $count"
	elif [ "$(tail -n 1 "$out/$name.stdout" | tr -d '[:space:]')" != "***Done***" ]; then
		fail "$name" "output does not end with *** Done ***"
	else
		echo "ok ($name): $count $target agent(s)"
	fi
}

check_rc0() {
	rc=$(cat "$out/$1.rc")
	if [ "$rc" -ne 0 ]; then
		fail "$1" "exited with $rc"
	else
		echo "ok ($1): $(tail -n 1 "$out/$1.stdout")"
	fi
}

# hsa_e2e svm: the SVM API, natively and through vkfd (the outputs are
# compared after both runs).
check_svm() {
	if grep -qx "hsa_e2e: SVM API yes" "$out/$1.stdout"; then
		check_rc0 "$1"
	else
		fail "$1" "expected SVM API yes"
	fi
}

# hsa_e2e ipc: what hsa_amd_ipc_memory_create answered, and the run passed.
check_ipc() {
	if grep -qx "hsa_e2e: ipc_memory_create $2" "$out/$1.stdout"; then
		check_rc0 "$1"
	else
		fail "$1" "expected ipc_memory_create $2, got: $(grep ipc_memory_create "$out/$1.stdout")"
	fi
}

# The queue types the run created (from the shim's debug log): at least one
# SDMA queue of this ROCr's type, and copies passed, so they ran on SDMA.
queue_summary() {
	types=$(sed -n 's/.*create_queue gpu_id [0-9]* type \([0-9]*\) .*/\1/p' "$out/$1.stderr" |
		sort | uniq -c | awk '{ printf "%s%sx type %s", sep, $1, $2; sep = ", " }')
	echo "  $1 queues: $types (1 SDMA, 2 AQL compute, 3 SDMA xGMI, 4 SDMA by engine id)"
}
check_queues() {
	name=$1 sdma_type=$2
	queue_summary "$name"
	sed -n 's/.*create_queue gpu_id [0-9]* type \([0-9]*\) .*/\1/p' "$out/$name.stderr" |
		grep -qx "$sdma_type" ||
		fail "$name" "no SDMA queue of type $sdma_type created: copies did not run on SDMA"
}

check_fault() {
	name=$1
	rc=$(cat "$out/$name.rc")
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
		fail "$name" "hsa_e2e fault exited with $rc instead of being aborted by ROCr"
	elif ! grep -q 'Memory access fault.*0xdead0000' "$out/$name.stderr"; then
		fail "$name" "ROCr did not report the memory fault at 0xdead0000"
	else
		echo "ok ($name): ROCr reported the fault and aborted (status $rc)"
	fi
}

# unlock-busy: the kernel's fault at the unregistered agent pointer where
# the buffer was a USERPTR BO (EXPECT fault); where libhsakmt registered it
# as SVM pages (EXPECT svm: lock_svm=yes, natively and through vkfd) the
# copy completes with the buffer's bytes, and the shim's debug log must
# show that registration (ACCESS_IN_PLACE on the agent pointer, the pointer
# being the buffer itself) and no SVM call taking the access away.
check_unlock_busy() {
	name=$1 backend=$2 expect=$3
	rc=$(cat "$out/$name.rc")
	agent=$(sed -n 's/^hsa_e2e: agent pointer \(0x[0-9a-f]*\) no longer registered$/\1/p' \
		"$out/$name.stdout")
	read_bytes=no
	[ "$rc" -eq 0 ] && grep -q "^hsa_e2e: unlock-busy: it read the buffer.s bytes *OK" \
		"$out/$name.stdout" && read_bytes=yes
	if [ -z "$agent" ]; then
		fail "$name" "no agent pointer printed (exit $rc)"
	elif [ "$expect" = svm ]; then
		if [ $read_bytes != yes ]; then
			fail "$name" "exited with $rc: the copy from the SVM-registered range did not complete with its bytes"
		elif ! grep -q "svm set_attr $agent size .*: access_in_place " "$out/$name.stderr"; then
			fail "$name" "libhsakmt did not register $agent as SVM pages (no ACCESS_IN_PLACE in the shim's log)"
		elif grep "svm set_attr $agent " "$out/$name.stderr" | grep -q no_access; then
			fail "$name" "an SVM call took the GPU's access to $agent away, yet the copy completed"
		else
			echo "ok ($name): registered as SVM pages, the unlock left them mapped and the copy read the buffer's bytes"
		fi
	elif [ "$rc" -gt 2 ] && grep 'Memory access fault' "$out/$name.stderr" | grep -q "$agent"; then
		echo "ok ($name): the queued copy faulted on the unregistered range"
	else
		fail "$name" "exited with $rc without the fault at $agent"
	fi
}

# hostmem: passed, and through vkfd both 64 MiB frees deferred their
# copy-back and libhsakmt's own unmap dropped the range (no copy).
check_hostmem() {
	name=$1 backend=$2
	rc=$(cat "$out/$name.rc")
	deferred=$(grep -c 'userptr 0x4000000 at .* freed: copy-back deferred' "$out/$name.stderr")
	dropped=$(grep -c 'userptr 0x4000000 at .* freed earlier: dropped' "$out/$name.stderr")
	if [ "$rc" -ne 0 ]; then
		fail "$name" "exited with $rc"
	elif [ "$backend" = vkfd ] && { [ "$deferred" -ne 2 ] || [ "$dropped" -ne 2 ]; }; then
		fail "$name" "$deferred of 2 frees deferred, $dropped of 2 ranges dropped on unmap"
	elif [ "$backend" = vkfd ]; then
		echo "ok ($name): $(tail -n 1 "$out/$name.stdout"), both frees deferred and dropped"
	else
		echo "ok ($name): $(tail -n 1 "$out/$name.stdout")"
	fi
}

start_server() {
	gpus=$1
	shift
	rm -f "$out/ready"
	"$server" --socket "$sockdir/vkfd$gpus.sock" --ready-fd 3 "$@" 3>"$out/ready" \
		>>"$out/server$gpus.log" 2>&1 &
	spid=$!
	n=200
	while [ ! -s "$out/ready" ]; do
		n=$((n - 1))
		kill -0 "$spid" 2>/dev/null && [ $n -gt 0 ] || {
			cat "$out/server$gpus.log"
			die "vkfd-server did not become ready"
		}
		sleep 0.1
	done
}

stop_server() {
	kill -TERM "$spid"
	wait "$spid"
	src=$?
	spid=
	[ $src -eq 0 ] || die "vkfd-server exited with $src after SIGTERM"
}

# What ROCr asked the KFD device for in run NAME (the shim's debug log):
# each distinct ioctl with its count and result, then the queue types.
# docs/rocm-versions.md compares these between releases.
trace_summary() {
	echo "  $1 ioctls (count, name, result):"
	sed -n "s/.*ioctl([0-9]*, dir [0-9] type '\(.\)' nr 0x\([0-9a-f]*\) size \([0-9]*\)) -> \(-*[0-9]*\)\$/\1 \2 \3 \4/p" \
		"$out/$1.stderr" | awk '
		function hex(s, v, i) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		BEGIN {
			split("GET_VERSION CREATE_QUEUE DESTROY_QUEUE SET_MEMORY_POLICY " \
			      "GET_CLOCK_COUNTERS GET_PROCESS_APERTURES UPDATE_QUEUE " \
			      "CREATE_EVENT DESTROY_EVENT SET_EVENT RESET_EVENT WAIT_EVENTS " \
			      "DBG_REGISTER DBG_UNREGISTER DBG_ADDRESS_WATCH DBG_WAVE_CONTROL " \
			      "SET_SCRATCH_BACKING_VA GET_TILE_CONFIG SET_TRAP_HANDLER " \
			      "GET_PROCESS_APERTURES_NEW ACQUIRE_VM ALLOC_MEMORY_OF_GPU " \
			      "FREE_MEMORY_OF_GPU MAP_MEMORY_TO_GPU UNMAP_MEMORY_FROM_GPU " \
			      "SET_CU_MASK GET_QUEUE_WAVE_STATE GET_DMABUF_INFO IMPORT_DMABUF " \
			      "ALLOC_QUEUE_GWS SMI_EVENTS SVM SET_XNACK_MODE CRIU_OP " \
			      "AVAILABLE_MEMORY EXPORT_DMABUF RUNTIME_ENABLE DBG_TRAP", kfd, " ")
			split("DRM_VERSION DRM_GET_UNIQUE DRM_GET_MAGIC DRM_IRQ_BUSID " \
			      "DRM_GET_MAP DRM_GET_CLIENT", drm, " ")
		}
		{
			nr = hex($2)
			if ($1 == "K")
				name = (nr >= 1 && nr in kfd) ? kfd[nr] : sprintf("KFD 0x%02x", nr)
			else if (nr >= 64)
				name = (nr == 69) ? "AMDGPU_INFO" : sprintf("AMDGPU 0x%02x", nr - 64)
			else
				name = (nr + 1 in drm) ? drm[nr + 1] : sprintf("DRM 0x%02x", nr)
			key = name " (" $3 " bytes) -> " ($4 == 0 ? "0" : $4)
			if (!(key in n))
				order[++k] = key
			n[key]++
		}
		END { for (i = 1; i <= k; i++) printf "    %5d  %s\n", n[order[i]], order[i] }'
}

bin=/opt/$run/bin

# The HIP part's checks. A program ran to "PROG: all passed" with exit 0;
# on failure the instructions kfdsim's interpreter reported as missing
# (docs/kfdsim-isa.md) are listed, from the process (native) or the server.
check_hip() {
	name=$1 prog=$2 log=$3
	rc=$(cat "$out/$name.rc")
	if [ "$rc" -eq 0 ] && grep -q "^$prog: all passed" "$out/$name.stdout"; then
		echo "ok ($name): $(grep -c " OK\$" "$out/$name.stdout") checks passed"
		return
	fi
	fail "$name" "$prog exited with $rc"
	grep -h 'is not implemented' "$out/$name.stderr" "$log" 2>/dev/null | sort -u | sed 's/^/  /'
	grep -h 'kfdsim' "$out/$name.stderr" "$log" 2>/dev/null | grep -v 'kfdsim isa: dispatch' |
		sort -u | head -n 10 | sed 's/^/  /'
}

# Every expected line of isa_hip's device printf test.
check_printf() {
	name=$1
	missing=
	for t in 3 19 35 51; do
		grep -qx "isa_hip: device printf $((1000 + t)) from thread $t" "$out/$name.stdout" ||
			missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		fail "$name" "device printf lines of threads$missing missing"
	else
		check_hip "$name" isa_hip "$2"
	fi
}

# The same stdout natively and through vkfd.
compare_runs() {
	if ! diff -u "$out/$1-native.stdout" "$out/$1-vkfd.stdout" >"$out/$1.diff"; then
		fail "$1" "native and vkfd results differ: $(head -n 20 "$out/$1.diff")"
	else
		echo "ok ($1): native and vkfd results identical"
	fi
}

# The HIP part: this suite's hipcc builds the HIP programs in the chroot;
# they run on the ISA interpreter natively and through vkfd.
hip_part() {
	hip_vram_mb=6144
	# The servers' kfdsim counts its interpreted dispatches too.
	export VKFDSIM_ISA_STATS=1
	mkdir -p "$opt/src" && cp "$hip_basic_src" "$isa_hip_src" "$hip_managed_src" "$opt/src/" ||
		die "cannot copy the HIP sources"
	for prog in hip_basic isa_hip hip_managed; do
		t0=$(date +%s)
		# The target named: without it hipcc asks rocm_agent_enumerator.
		in_root hipcc --offload-arch=gfx90a -O2 -Wall -Wextra -Werror \
			"/opt/$run/src/$prog.cpp" -o "$bin/$prog" >"$out/hipcc-$prog.log" 2>&1 || {
			tail -n 20 "$out/hipcc-$prog.log"
			die "hipcc of $SUITE could not build $prog"
		}
		echo "ok (hipcc-$prog): built by $SUITE's hipcc in $(($(date +%s) - t0)) s"
	done
	for backend in native vkfd; do
		log=
		# VKFDSIM_ISA_STATS: one line per interpreted dispatch (kfdsim
		# runs in the process natively, in the server through vkfd).
		if [ $backend = vkfd ]; then
			log=$out/serverhip1.log
			start_server hip1 --vram-mb $hip_vram_mb
		fi
		debug=debug
		run hip-basic-$backend $backend hip1 VKFDSIM_ISA_STATS=1 \
			$bin/hip_basic $((hip_vram_mb << 20)) copy
		debug=0
		check_hip hip-basic-$backend hip_basic "$log"
		queue_summary hip-basic-$backend
		echo "  hip-basic-$backend: $(cat "$out/hip-basic-$backend.stderr" ${log:+"$log"} |
			grep -c 'kfdsim isa: dispatch') kernel dispatches interpreted, the copies on the queues above"
		if [ $backend = vkfd ]; then
			stop_server
			log=$out/serverhip2.log
			start_server hip2 --gpus 2
		fi
		run isa-hip-$backend $backend hip2 VKFDSIM_ISA_STATS=1 $bin/isa_hip
		check_hip isa-hip-$backend isa_hip "$log"
		run isa-hip-printf-$backend $backend hip2 $bin/isa_hip printf
		check_printf isa-hip-printf-$backend "$log"
		[ $backend = vkfd ] && stop_server
		if [ $backend = vkfd ]; then
			log=$out/serverhip1.log
			start_server hip1 --vram-mb $hip_vram_mb
		fi
		debug=debug
		run hip-managed-$backend $backend hip1 $bin/hip_managed
		debug=0
		check_hip hip-managed-$backend hip_managed "$log"
		# HIP's SVM path both ways: its SVM calls in the shim's log
		grep -Eq 'svm set_attr 0x[0-9a-f]+ size .* access(_in_place)? 0x' "$out/hip-managed-$backend.stderr" ||
			fail hip-managed-$backend "HIP did not take its SVM path (no SVM ACCESS call in the shim's log)"
		[ $backend = vkfd ] && stop_server
	done
	echo "  isa-hip-native: $(grep -c 'kfdsim isa: dispatch' "$out/isa-hip-native.stderr") kernel dispatches interpreted"
	compare_runs hip-basic
	compare_runs isa-hip
	compare_runs isa-hip-printf
	compare_runs hip-managed
	[ $failed -eq 0 ] || die "HIP from Debian $SUITE failed"
	echo "PASS: HIP from Debian $SUITE (hipcc and runtime above), natively and through vkfd"
	exit 0
}
[ $part = hip ] && hip_part

for gpus in 1 2; do
	if [ $gpus = 2 ]; then
		target=gfx1030 max=$(((64 << 20) + 3))
	else
		target=gfx90a max=$((1 << 30))
	fi
	for backend in native vkfd; do
		tag=$backend-${gpus}gpu
		if [ $backend = vkfd ]; then
			if [ $gpus = 2 ]; then
				start_server 2 --gpus 2 --target gfx1030 --vram-mb 4096
			else
				start_server 1
			fi
		fi
		run rocminfo-$tag $backend $gpus rocminfo
		check_rocminfo rocminfo-$tag $target $gpus
		run drm-$tag $backend $gpus $bin/$(basename "$drm_identity")
		check_rc0 drm-$tag
		debug=debug
		run hsa-$tag $backend $gpus $bin/$(basename "$hsa_e2e") matrix $max
		debug=0
		check_rc0 hsa-$tag
		if [ $gpus = 2 ]; then
			check_queues hsa-$tag $sdma_2gpu
		elif [ $backend = vkfd ]; then
			check_queues hsa-$tag $sdma_1gpu_vkfd
		else
			check_queues hsa-$tag $sdma_1gpu
		fi
		[ $tag = native-1gpu ] && trace_summary hsa-$tag
		if [ $gpus = 1 ]; then
			run fault-$tag $backend $gpus $bin/$(basename "$hsa_e2e") fault
			check_fault fault-$tag
			run lock-$tag $backend $gpus $bin/$(basename "$hsa_e2e") lock
			check_rc0 lock-$tag
			run register-$tag $backend $gpus $bin/$(basename "$hsa_e2e") register
			check_rc0 register-$tag
			# on 6.x the buffer is SVM pages (lock_svm above), natively
			# and through vkfd; with HSA_USE_SVM=0 libhsakmt makes it a
			# USERPTR BO again and the copy must fault on every
			# version (the debug log only where it is checked: it
			# slows the vkfd run)
			expect=fault debug=0
			[ $lock_svm = yes ] && expect=svm debug=debug
			run unlock-busy-$tag $backend $gpus $bin/$(basename "$hsa_e2e") unlock-busy
			debug=0
			check_unlock_busy unlock-busy-$tag $backend $expect
			run unlock-busy-nosvm-$tag $backend $gpus HSA_USE_SVM=0 \
				$bin/$(basename "$hsa_e2e") unlock-busy
			check_unlock_busy unlock-busy-nosvm-$tag $backend fault
			debug=debug
			run hostmem-$tag $backend $gpus $bin/$(basename "$hsa_e2e") hostmem 64 2
			debug=0
			check_hostmem hostmem-$tag $backend
			run svm-$tag $backend $gpus $bin/$(basename "$hsa_e2e") svm
			check_svm svm-$tag
			run ipc-$tag $backend $gpus $bin/$(basename "$hsa_e2e") ipc
			check_ipc ipc-$tag 0x1001
			# the same answer natively and through vkfd: the guest
			# shares a BO between two processes of one guest as a
			# shareable blob (docs/guest-vkfd-backend.md, "IPC")
			run ipc-dmabuf-$tag $backend $gpus HSA_ENABLE_IPC_MODE_LEGACY=0 \
				$bin/$(basename "$hsa_e2e") ipc
			check_ipc ipc-dmabuf-$tag $ipc_dmabuf
		fi
		[ $backend = vkfd ] && stop_server
	done
	# The same results natively and through vkfd.
	if [ $gpus = 1 ] && ! diff -u "$out/svm-native-1gpu.stdout" "$out/svm-vkfd-1gpu.stdout" \
		>"$out/svm-1gpu.diff"; then
		fail svm-1gpu "native and vkfd SVM results differ: $(head -n 20 "$out/svm-1gpu.diff")"
	elif [ $gpus = 1 ]; then
		echo "ok (svm-1gpu): native and vkfd results identical"
	fi
	if ! diff -u "$out/hsa-native-${gpus}gpu.stdout" "$out/hsa-vkfd-${gpus}gpu.stdout" \
		>"$out/hsa-${gpus}gpu.diff"; then
		fail hsa-${gpus}gpu "native and vkfd results differ: $(head -n 20 "$out/hsa-${gpus}gpu.diff")"
	else
		echo "ok (hsa-${gpus}gpu): native and vkfd results identical"
	fi
done

[ $failed -eq 0 ] || die "ROCm from Debian $SUITE failed"
echo "PASS: ROCm from Debian $SUITE, natively and through vkfd, one GPU and two"
exit 0

#!/bin/sh
# SPDX-License-Identifier: MIT
# ROCm version matrix: one Debian release's ROCm userspace running real work
# on kfdsim, natively and through a vkfd-server, with one GPU and with two.
#   run_matrix.sh SUITE VKFD_SERVER SHIM SANITIZE HSA_E2E DRM_IDENTITY
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
#                     through the agent pointer verified (one GPU).
# The hsa_e2e matrix output of the native and the vkfd run must be
# identical. HSA_E2E and DRM_IDENTITY are built on the host against
# bookworm's headers and run unchanged in the chroots (ROCr's and libdrm's C
# ABIs are stable across these releases).
# Environment: VKFD_CACHE (cache root), VKFD_DEBIAN_MIRROR (overrides the
# mirror read from apt's sources), VKFD_MATRIX_KEEP=1 (keep the logs).
# Exit 0 pass, 1 fail, 77 skip (not root, no debootstrap/unshare, ROCm not
# installed on the host for bookworm, or no cached chroot and no archive).
set -u
SUITE=$1
server=$2
shim=$3
sanitize=${4:-none}
hsa_e2e=$5
drm_identity=$6

PACKAGES=rocminfo,libhsa-runtime64-1
case $SUITE in
# The SDMA queue type each release creates for its copies on the one-GPU
# (gfx90a) and the two-GPU (gfx1030) machine. ROCr 6.4 asks for
# SDMA_BY_ENG_ID (4) on kfdsim's gfx90a, which reports xGMI SDMA engines
# and KFD 1.17, and for plain SDMA (1) on gfx1030, which has none. Through
# vkfd the guest reports KFD 1.14 (it does not carry 1.15's render-node
# GEM_VA, docs/kfd-uapi.md), below 1.17, so ROCr 6.4 asks for plain SDMA.
bookworm) rocr_version='5\.2\.' sdma_1gpu=1 sdma_2gpu=1 sdma_1gpu_vkfd=1 ;;
trixie) rocr_version='6\.1\.' sdma_1gpu=1 sdma_2gpu=1 sdma_1gpu_vkfd=1 ;;
sid) rocr_version='6\.4\.' sdma_1gpu=4 sdma_2gpu=1 sdma_1gpu_vkfd=1 ;;
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

if [ $SUITE = bookworm ]; then
	# The build machine's own ROCm, no chroot.
	command -v rocminfo >/dev/null 2>&1 || skip "rocminfo is not installed on this machine"
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
	flock -u 9
	versions=$(chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null)
fi
versions=$(echo "$versions" |
	grep -E '^(rocminfo|libhsa-runtime64-1|libhsakmt1|libdrm-amdgpu1|libdrm2|libc6) ')
echo "$SUITE packages:"
echo "$versions" | sed 's/^/  /'
echo "$versions" | grep -Eq "^libhsa-runtime64-1 $rocr_version" ||
	die "libhsa-runtime64-1 of $SUITE is not the expected $rocr_version"

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
	esac
	# The chroot's own copy (libstdc++, libgcc_s) is newer: never shadow it.
	[ -n "$root" ] && [ -e "$root/usr/lib/x86_64-linux-gnu/$(basename "$lib")" ] && continue
	cp -L "$lib" "$opt/lib/" || die "cannot copy $lib"
	case $(basename "$lib") in
	libasan.so.* | libtsan.so.*) preload=/opt/$run/lib/$(basename "$lib"):$preload ;;
	esac
done
case $sanitize in
*address*) asan="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
*) asan=${ASAN_OPTIONS:-} ;;
esac

# run NAME BACKEND GPUS CMD...: CMD with the shim, in the chroot (a private
# mount namespace with /proc, /sys and /dev/shm) or on the host, with a
# clean environment. GPUS 2 is two gfx1030 with 4 GiB each.
run() {
	name=$1 backend=$2 gpus=$3
	shift 3
	if [ "$gpus" = 2 ]; then
		sim="VKFDSIM_GPUS=2 VKFDSIM_TARGET=gfx1030 VKFDSIM_VRAM_MB=4096"
	else
		sim="VKFDSIM_GPUS=1"
	fi
	# shellcheck disable=SC2086 # $sim is a list of assignments
	set -- LD_LIBRARY_PATH=/opt/$run/lib LD_PRELOAD="$preload" ASAN_OPTIONS="$asan" \
		VKFD_BACKEND="$backend" VKFD_SOCKET="/run/$run/vkfd$gpus.sock" \
		VKFD_DEBUG="${debug:-0}" $sim "$@"
	if [ -n "$root" ]; then
		unshare --mount --propagation private sh -c '
			r=$1
			mount -t proc proc "$r/proc" &&
			mount -t sysfs sysfs "$r/sys" &&
			mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm" || exit 125
			shift
			exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				HOME=/root TMPDIR=/tmp "$@"' sh "$root" "$@" \
			>"$out/$name.stdout" 2>"$out/$name.stderr"
	else
		# no chroot: /opt/$run and /run/$run are this machine's own
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			TMPDIR="${TMPDIR:-/tmp}" "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"
	fi
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

# The queue types the run created (from the shim's debug log): at least one
# SDMA queue of this ROCr's type, and copies passed, so they ran on SDMA.
check_queues() {
	name=$1 sdma_type=$2
	types=$(sed -n 's/.*create_queue gpu_id [0-9]* type \([0-9]*\) .*/\1/p' "$out/$name.stderr" |
		sort | uniq -c | awk '{ printf "%s%sx type %s", sep, $1, $2; sep = ", " }')
	echo "  $name queues: $types (1 SDMA, 2 AQL compute, 3 SDMA xGMI, 4 SDMA by engine id)"
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
		fi
		[ $backend = vkfd ] && stop_server
	done
	# The same results natively and through vkfd.
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

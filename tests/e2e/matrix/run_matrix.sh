#!/bin/sh
# SPDX-License-Identifier: MIT
# ROCm version matrix: Debian 13 (trixie) ROCm 6.1 userspace in a debootstrap
# chroot, on a vkfd-server running outside the chroot.
#   run_matrix.sh VKFD_SERVER SHIM SANITIZE
# The chroot is built once (debootstrap --variant=minbase with rocminfo and
# libhsa-runtime64-1, from the Debian mirror this machine's apt uses) and
# cached in $VKFD_CACHE/trixie-rocm (default /var/cache/vkfd/trixie-rocm).
# Each run copies the shim and its vkfd libraries to /opt/vkfd/<run> in the
# chroot, starts vkfd-server with its socket inside the chroot tree, and
# runs rocminfo in the chroot (private mount namespace with /proc, /sys and
# /dev/shm) twice: on kfdsim in-process (VKFD_BACKEND=native, the baseline)
# and through the server (VKFD_BACKEND=vkfd). Both must list the gfx90a
# agent with a marketing name (from libdrm_amdgpu) and end with "*** Done ***".
# Environment: VKFD_CACHE (cache root), VKFD_DEBIAN_MIRROR (overrides the
# mirror read from apt's sources), VKFD_MATRIX_KEEP=1 (keep the run's logs).
# Exit 0 pass, 1 fail, 77 skip (not root, no debootstrap/unshare, or no
# cached chroot and no network to the mirror).
set -u
server=$1
shim=$2
sanitize=${3:-none}

SUITE=trixie
PACKAGES=rocminfo,libhsa-runtime64-1
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
for c in debootstrap chroot unshare mount flock; do
	command -v $c >/dev/null 2>&1 || skip "$c is not installed (Debian package debootstrap/util-linux)"
done
[ -x "$server" ] || die "vkfd-server not found at $server"
[ -f "$shim" ] || die "shim not found at $shim"

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
	# debootstrap fetches with wget; check the mirror answers for trixie.
	if command -v wget >/dev/null 2>&1; then
		wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$SUITE/Release" ||
			skip "no network access to the Debian mirror ($mirror)"
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
		die "debootstrap failed (log: $cache/debootstrap.log)"
	}
	echo "$SUITE $PACKAGES" >"$root.tmp/.vkfd-chroot"
	rm -rf --one-file-system "$root"
	mv "$root.tmp" "$root"
}

mkdir -p "$cache" || die "cannot create $cache"
# One builder at a time; later runs reuse the finished chroot.
exec 9>"$cache/.lock"
flock 9
[ "$(cat "$root/.vkfd-chroot" 2>/dev/null)" = "$SUITE $PACKAGES" ] || build_chroot
flock -u 9

versions=$(chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null |
	grep -E '^(rocminfo|libhsa-runtime64-1|libhsakmt1|libdrm-amdgpu1|libc6) ')
echo "chroot packages:"
echo "$versions" | sed 's/^/  /'
echo "$versions" | grep -Eq '^libhsa-runtime64-1 6\.1\.' ||
	die "the chroot's libhsa-runtime64-1 is not 6.1.x"

# This run's files inside the chroot tree, removed at exit.
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

# The shim and the libraries it needs that the chroot does not have
# (libvkfd-guest, libvkfd-host; the sanitizer runtimes in a sanitized
# build). The shim was linked against the host's glibc 2.36;
# trixie's glibc is newer and compatible.
mkdir -p "$opt/lib" "$sockdir" || die "cannot populate $opt"
cp "$shim" "$opt/lib/" || die "cannot copy the shim"
preload=/opt/$run/lib/$(basename "$shim")
for lib in $(ldd "$shim" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
	case $(basename "$lib") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) continue ;;
	esac
	# The chroot's own copy (libstdc++, libgcc_s) is newer: never shadow it.
	[ -e "$root/usr/lib/x86_64-linux-gnu/$(basename "$lib")" ] && continue
	cp -L "$lib" "$opt/lib/" || die "cannot copy $lib"
	case $(basename "$lib") in
	libasan.so.* | libtsan.so.*) preload=/opt/$run/lib/$(basename "$lib"):$preload ;;
	esac
done
case $sanitize in
*address*) asan="detect_leaks=0:${ASAN_OPTIONS:-}" ;;
*) asan=${ASAN_OPTIONS:-} ;;
esac

# run_in_chroot NAME BACKEND SOCKET: rocminfo in the chroot, in a private
# mount namespace (the mounts go away with it).
run_in_chroot() {
	unshare --mount --propagation private sh -c '
		r=$1
		mount -t proc proc "$r/proc" &&
		mount -t sysfs sysfs "$r/sys" &&
		mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm" || exit 125
		shift
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root TMPDIR=/tmp "$@"' sh "$root" \
		LD_LIBRARY_PATH=/opt/$run/lib LD_PRELOAD="$preload" \
		ASAN_OPTIONS="$asan" VKFD_BACKEND="$2" VKFD_SOCKET="$3" \
		rocminfo >"$out/$1.stdout" 2>"$out/$1.stderr"
	echo $? >"$out/$1.rc"
}

# What a failed run points at, when it is one of the gaps ROCm 6.1 had
# before vkfd filled them (see docs/rocm-versions.md): a regression.
known_cause() {
	if grep -q 'ROCk module is NOT loaded' "$out/$1.stdout"; then
		echo "rocminfo found no \"live\" /sys/module/amdgpu/initstate (the shim answers it, shim_module.c)"
	elif grep -q 'libdrm get device handle failed' "$out/$1.stderr"; then
		echo "libdrm_amdgpu's device handle failed on the shim's render fd ($(grep -c 'amdgpu_get_auth' "$out/$1.stderr") x amdgpu_get_auth)"
	fi
}

# check_rocminfo NAME: 0 pass; 1 fail (reason printed).
check_rocminfo() {
	name=$1
	rc=$(cat "$out/$name.rc")
	why=
	if [ "$rc" -ne 0 ]; then
		why="rocminfo exited with $rc"
	elif ! grep -Eq '^[[:space:]]*Name:[[:space:]]+gfx90a[[:space:]]*$' "$out/$name.stdout"; then
		why="no gfx90a agent listed"
	elif [ "$(tail -n 1 "$out/$name.stdout" | tr -d '[:space:]')" != "***Done***" ]; then
		why="output does not end with *** Done ***"
	elif ! grep -A3 -E '^[[:space:]]*Name:[[:space:]]+gfx90a[[:space:]]*$' "$out/$name.stdout" |
		grep -Eq '^[[:space:]]*Marketing Name:[[:space:]]+[^[:space:]]'; then
		# ROCr 6.1 takes it from libdrm_amdgpu's device handle
		why="the gfx90a agent has no marketing name"
	fi
	if [ -z "$why" ]; then
		echo "ok ($name): gfx90a listed with a marketing name, ends with *** Done ***"
		return 0
	fi
	echo "not ok ($name): $why"
	echo "--- $name stdout (last 20 lines)"
	tail -n 20 "$out/$name.stdout"
	echo "--- $name stderr (last 20 lines)"
	grep -v '^vkfd-' "$out/$name.stderr" | tail -n 20
	return 1
}

start_server() {
	rm -f "$out/ready"
	"$server" --socket "$sockdir/vkfd.sock" --ready-fd 3 3>"$out/ready" \
		>>"$out/server.log" 2>&1 &
	spid=$!
	n=200
	while [ ! -s "$out/ready" ]; do
		n=$((n - 1))
		kill -0 "$spid" 2>/dev/null && [ $n -gt 0 ] || {
			cat "$out/server.log"
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

# native: kfdsim in the process (the baseline); vkfd: through vkfd-server
# outside the chroot.
failed=0
for mode in native vkfd; do
	sock=
	if [ $mode = vkfd ]; then
		start_server
		sock=/run/$run/vkfd.sock
	fi
	run_in_chroot $mode $mode "$sock"
	if ! check_rocminfo $mode; then
		failed=1
		cause=$(known_cause $mode)
		[ -z "$cause" ] || echo "  ($mode: $cause)"
	fi
	[ $mode = vkfd ] && stop_server
done

[ $failed -eq 0 ] || die "rocminfo from ROCm 6.1 failed"
echo "PASS: ROCm 6.1 rocminfo from Debian $SUITE, natively and through vkfd"
grep -E '^[[:space:]]*(Runtime Version|Runtime Ext Version|Marketing Name|Name):' "$out/vkfd.stdout" |
	sed 's/^[[:space:]]*/  /'
exit 0

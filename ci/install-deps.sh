#!/usr/bin/env bash
# Install the Debian 12 packages vkfd needs, only when one is missing.
set -euo pipefail

pkgs=(
	meson ninja-build pkg-config gcc clang clang-format libc6-dev linux-libc-dev
	libcmocka-dev libdrm-dev
	# ROCm userspace the end-to-end tests run unmodified
	rocminfo libhsa-runtime64-1 libhsa-runtime-dev libhsakmt1
	# the ROCm version matrix builds Debian 13 and unstable chroots
	debootstrap
	# HIP acceptance test (tests/e2e/hip), built with hipcc at build time
	hipcc libamdhip64-dev
	# library code run on the ISA interpreter (tests/kfdsim/isa/hip)
	librocprim-dev libhiprand-dev librocrand-dev librocsparse-dev
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if ((${#missing[@]})); then
	echo "vkfd: installing ${missing[*]}"
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

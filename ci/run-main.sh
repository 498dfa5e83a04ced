#!/usr/bin/env bash
# The main job: build vkfd and run an unmodified ROCm program (rocminfo)
# through vkfd on kfdsim. Extra arguments replace the program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
meson compile -C build
if [ $# -eq 0 ]; then set -- rocminfo; fi
exec build/src/tools/vkfd-run -- "$@"

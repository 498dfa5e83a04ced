#!/usr/bin/env bash
# The whole test suite: a normal build and an ASan+UBSan build, every suite.
# Usage: ci/run-tests.sh   (from anywhere; installs what is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh

passed=0
failed=0
summary() {
	# meson's testlog.json has one JSON object per test
	local log="$1/meson-logs/testlog.json"
	[ -f "$log" ] || return 0
	local p f
	p=$(grep -c '"result": "OK"' "$log" || true)
	f=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
}

run_build() {
	local dir="$1"
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@"
	fi
	meson compile -C "$dir"
	local rc=0
	meson test -C "$dir" --print-errorlogs --num-processes 2 || rc=$?
	summary "$dir"
	return $rc
}

rc=0
echo "== build: default (gcc, -Werror)"
run_build build || rc=1
echo "== build: ASan + UBSan"
run_build build-san -Db_sanitize=address,undefined -Db_lundef=false || rc=1

echo "tests: $passed passed, $failed failed"
exit $rc

#!/usr/bin/env bash
# The whole test suite, in four builds (-Werror is set here: the project's
# default options leave it off, so release and distro builds are not broken
# by a newer compiler's warnings):
#   build/       gcc, -Werror: every suite
#   build-san/   ASan + UBSan: every suite (UBSan findings are fatal), then
#                the threaded suites (kfdsim, host, guest) twice more
#   build-tsan/  TSan: the threaded suites (kfdsim, host, guest) three times,
#                then the e2e suite (ROCm programs, vkfd-server) once
#   build-fuzz/  clang + libFuzzer + ASan/UBSan: the host decoder fuzzed for
#                VKFD_FUZZ_SECONDS (default 60) and vkfd-server's vtest worker for
#                half that, each from its committed seed generator, and
#                the stateful host harness for half of it
# plus build-harden/: Debian's hardening flags (dpkg-buildflags), release,
# -Werror, library and tools compiled only; build-guest/: -Dhost=false, the
# guest-only build (guest library, shim, vkfd-info), compiled and its unit
# suite run; and ci/check-layout.py: the dependency rules of
# docs/architecture.md on the sources (style stage) and on the libraries of
# build/ and build-guest/.
# Usage: ci/run-tests.sh   (from anywhere; installs what is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh

# Sanitizer reports must fail the test that triggered them.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# (ASan detects leaks by default; wrappers of third-party ROCm programs turn
# that off for themselves, so it is not forced here.)
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"

passed=0
failed=0
summary() {
	# meson's testlog.json has one JSON object per test run: a suite run
	# with --repeat N counts N times (after a failed run meson starts no
	# further runs, so what never ran is not counted)
	local log="$1/meson-logs/testlog.json"
	[ -f "$log" ] || return 0
	local p f
	p=$(grep -c '"result": "OK"' "$log" || true)
	f=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
}

# run_build DIR "SUITES" [meson setup options...]; SUITES empty = all
run_build() {
	local dir="$1" suites="$2"
	shift 2
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@"
	fi
	meson compile -C "$dir"
	local args=() s rc=0
	for s in $suites; do args+=(--suite "$s"); done
	meson test -C "$dir" --print-errorlogs --num-processes 2 "${args[@]}" || rc=$?
	summary "$dir"
	return $rc
}

rc=0
echo "== style: .clang-format"
# shellcheck disable=SC2046 # file names from git have no spaces
if clang-format --dry-run --Werror $(git ls-files 'src/*.c' 'src/*.h' 'tests/*.c' \
	'tests/*.h' 'include/*.h') 2>/tmp/vkfd-format.log; then
	echo "style: every C file matches .clang-format"
	passed=$((passed + 1))
else
	echo "style: files differ from .clang-format (run clang-format -i on them):"
	grep -o '^[^:]*\.[ch]' /tmp/vkfd-format.log | sort -u
	failed=$((failed + 1))
	rc=1
fi

echo "== style: dependency rules (ci/check-layout.py)"
if python3 ci/check-layout.py; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	rc=1
fi

echo "== build: default (gcc, -Werror)"
run_build build "" -Dwerror=true || rc=1

echo "== build: guest only (-Dhost=false), unit suite, dependency rules on the libraries"
run_build build-guest "unit" -Dwerror=true -Dhost=false -De2e=disabled || rc=1
if python3 ci/check-layout.py build build-guest; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	rc=1
fi

# retest DIR REPEAT "SUITES": run the suites of a built tree REPEAT more
# times (races that show one run in N; docs/testing.md).
THREADED_SUITES="kfdsim host guest"
# (further arguments go to meson test, e.g. --no-suite NAME)
retest() {
	local dir="$1" repeat="$2" suites="$3" s args=() rc=0
	shift 3
	for s in $suites; do args+=(--suite "$s"); done
	args+=("$@")
	meson test -C "$dir" --print-errorlogs --num-processes 2 --repeat "$repeat" \
		"${args[@]}" || rc=$?
	summary "$dir"
	return $rc
}

echo "== build: ASan + UBSan"
run_build build-san "" -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false || rc=1
echo "== ASan + UBSan: the threaded suites twice more"
retest build-san 2 "$THREADED_SUITES" --no-suite bulk || rc=1

echo "== build: TSan (threaded suites three times, e2e once)"
# Guests that fork (fork_reopen, ROCm's fork tests) start threads in the
# child of a multi-threaded process: TSan must let them.
tsan_fork="$TSAN_OPTIONS:die_after_fork=0"
TSAN_OPTIONS="$tsan_fork" run_build build-tsan "$THREADED_SUITES" -Dwerror=true -Db_sanitize=thread || rc=1
TSAN_OPTIONS="$tsan_fork" retest build-tsan 2 "$THREADED_SUITES" --no-suite bulk || rc=1
# ROCm programs on kfdsim and vkfd-server under TSan: GPU-memory accesses
# are suppressed (ordered by uninstrumented ROCm code, ci/tsan-rocm.supp).
# The version matrix (suite matrix) is left out here: it runs uninstrumented
# ROCm over 1 GiB copies, which TSan's shadow checks make many times slower,
# and the gcc and ASan builds run it already.
TSAN_OPTIONS="$tsan_fork:suppressions=$PWD/ci/tsan-rocm.supp" retest build-tsan 1 "e2e" \
	--no-suite matrix || rc=1

echo "== build: Debian hardening flags, release, -Werror (compile only)"
if command -v dpkg-buildflags >/dev/null; then
	[ -f build-harden/build.ninja ] ||
		CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)" \
			LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" meson setup build-harden \
			--buildtype=release -Dwerror=true -Dtests=false -De2e=disabled
	if meson compile -C build-harden; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		rc=1
	fi
else
	echo "hardening: dpkg-buildflags missing (dpkg-dev), not built"
fi

echo "== build: libFuzzer (clang, ASan + UBSan)"
# run_fuzzer NAME SEED_DIR SECONDS: fuzz from a copy of the generated seeds.
run_fuzzer() {
	local name=$1 seeds=$2 secs=$3 corpus
	corpus=$(mktemp -d)
	cp "$seeds"/* "$corpus"/
	if "build-fuzz/tests/fuzz/$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="build-fuzz/$name-" \
		"$corpus" >"build-fuzz/$name.log" 2>&1; then
		echo "fuzz: $name ran for ${secs}s, no finding"
		tail -n 12 "build-fuzz/$name.log"
		passed=$((passed + 1))
	else
		echo "fuzz: $name FINDING (reproducer saved under build-fuzz/)"
		tail -n 60 "build-fuzz/$name.log"
		failed=$((failed + 1))
		rc=1
	fi
	rm -rf "$corpus"
}
if command -v clang >/dev/null; then
	if [ ! -f build-fuzz/build.ninja ]; then
		CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined \
			-Db_lundef=false -De2e=disabled -Dwerror=true
	fi
	meson compile -C build-fuzz
	secs="${VKFD_FUZZ_SECONDS:-60}"
	run_fuzzer fuzz-host-submit build-fuzz/tests/fuzz/seeds "$secs"
	run_fuzzer fuzz-vtest-worker build-fuzz/tests/fuzz/vtest-seeds $(((secs + 1) / 2))
	run_fuzzer fuzz-host-stateful build-fuzz/tests/fuzz/stateful-seeds $(((secs + 1) / 2))
else
	echo "fuzz: clang missing, not run"
fi

echo "tests: $passed passed, $failed failed"
exit $rc

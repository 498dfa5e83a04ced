#!/usr/bin/env bash
# Smoke test of vkfd-bench (meson test 'bench-smoke', suite 'bench'):
# a few iterations of every scenario must exit 0 and report every scenario
# on every path, as a number or as "n/a (reason)"; the storm must run on the
# direct path where that path works. No timing is asserted.
# With a generator and a trace given, the committed trace must be exactly
# what the generator prints.
# Usage: ci/bench-smoke.sh VKFD_BENCH [GEN_MODEL_LOAD_TRACE TRACE]
set -euo pipefail

bench="$1"
out="$(mktemp)"
trap 'rm -f "$out" "$out.json" "$out.trace"' EXIT

if [ $# -ge 3 ]; then
	"$2" >"$out.trace"
	if ! cmp -s "$out.trace" "$3"; then
		echo "FAIL: $3 is not what $2 generates; regenerate it" >&2
		exit 1
	fi
fi

"$bench" --iterations 3 >"$out"
cat "$out"
fail=0
for s in storm sync fence decode dispatch rocminfo isa hostfree; do
	if ! grep -q "^$s: " "$out"; then
		echo "FAIL: scenario $s missing from the table" >&2
		fail=1
	fi
done
# every scenario block has a row for every path
for p in native direct vtest; do
	n=$(grep -cE "^  $p +" "$out" || true)
	if [ "$n" -ne 8 ]; then
		echo "FAIL: path $p has $n rows, want 8" >&2
		fail=1
	fi
done

# the storm goes through the shim's backend: where the direct path works
# at all (its sync row is a figure), the storm must run on it too (an
# "n/a" there hid a shim that refused the storm's event page)
row() { awk -v s="$1" -v p="$2" '$0 ~ "^" s ": " {b = 1; next} /^$/ {b = 0}
	b && $1 == p {print; exit}' "$out"; }
if ! row sync direct | grep -q 'n/a' && row storm direct | grep -q 'n/a'; then
	echo "FAIL: the storm is n/a on the direct path: $(row storm direct)" >&2
	fail=1
fi

"$bench" --iterations 3 --json --scenario sync,decode >"$out.json"
n=$(grep -c '"scenario": ' "$out.json" || true)
# sync: 3 paths + socket; decode: 3 paths
if [ "$n" -ne 7 ]; then
	echo "FAIL: --json printed $n results, want 7" >&2
	fail=1
fi
if command -v jq >/dev/null && ! jq -e . "$out.json" >/dev/null; then
	echo "FAIL: --json output is not valid JSON" >&2
	fail=1
fi
exit $fail

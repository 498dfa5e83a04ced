#!/usr/bin/env bash
# Turn `vkfd-bench --json` output into a PNG of latency distributions: one
# panel per scenario that has samples (storm: every trace operation; sync,
# fence, dispatch: every call; rocminfo: every run), one CDF per path.
# Installs gnuplot (Debian package gnuplot-nox) when it is missing.
#
# Usage: ci/bench-plot.sh BENCH.json OUT.png
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 BENCH.json OUT.png" >&2
	exit 2
fi
in="$1"
out="$2"

if ! command -v gnuplot >/dev/null; then
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get install -y -q gnuplot-nox >/dev/null
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# vkfd-bench --json prints one result object per line; pull scenario, path
# and samples out of each line that ran and has samples.
scenarios=()
while IFS= read -r line; do
	case "$line" in
	*'"status": "ok"'*'"samples_us": ['[0-9]*) ;;
	*) continue ;;
	esac
	scen=$(sed -E 's/.*"scenario": "([^"]*)".*/\1/' <<<"$line")
	path=$(sed -E 's/.*"path": "([^"]*)".*/\1/' <<<"$line")
	sed -E 's/.*"samples_us": \[([^]]*)\].*/\1/' <<<"$line" | tr ',' '\n' | sort -g |
		awk 'NF { v[NR] = $1 } END { for (i = 1; i <= NR; i++) if (i in v) print v[i], i / NR }' \
			>"$tmp/$scen.$path.dat"
	[ -s "$tmp/$scen.$path.dat" ] || continue
	seen=0
	for s in "${scenarios[@]+"${scenarios[@]}"}"; do
		[ "$s" = "$scen" ] && seen=1
	done
	[ $seen -eq 1 ] || scenarios+=("$scen")
done <"$in"

if [ ${#scenarios[@]} -eq 0 ]; then
	echo "$0: no latency samples in $in" >&2
	exit 1
fi

title() {
	case "$1" in
	storm) echo "storm: per-operation latency (guest side)" ;;
	sync) echo "sync: GET_CLOCK_COUNTERS round trip" ;;
	fence) echo "fence: SET_EVENT to waiter wake-up" ;;
	dispatch) echo "dispatch: doorbell to completion signal" ;;
	rocminfo) echo "rocminfo: whole-program wall time" ;;
	*) echo "$1" ;;
	esac
}

n=${#scenarios[@]}
rows=$(((n + 1) / 2))
term="png"
if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then
	term="pngcairo"
fi
{
	echo "set terminal $term size 1400,$((rows * 420)) font ',10'"
	echo "set output '$out'"
	echo "set termoption noenhanced"
	echo "set multiplot layout $rows,2"
	echo "set logscale x"
	echo "set xlabel 'latency (µs, log scale)'"
	echo "set ylabel 'fraction of samples ≤ x'"
	echo "set yrange [0:1.02]"
	echo "set grid"
	echo "set key bottom right"
	for s in "${scenarios[@]}"; do
		echo "set title '$(title "$s")'"
		plots=()
		# the same colour for a path in every panel
		for p in native direct vtest socket; do
			f="$tmp/$s.$p.dat"
			[ -s "$f" ] || continue
			case $p in
			native) c='#1b9e77' ;;
			direct) c='#7570b3' ;;
			vtest) c='#d95f02' ;;
			*) c='#666666' ;;
			esac
			plots+=("'$f' using 1:2 with steps lw 2 lc rgb '$c' title '$p'")
		done
		(
			IFS=,
			echo "plot ${plots[*]}"
		)
	done
	echo "unset multiplot"
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "wrote $out (${scenarios[*]})"

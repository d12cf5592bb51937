#!/usr/bin/env bash
# gen.sh writes the benchmark captures of BENCHMARKS.md with bench/cmd/gencap:
# 1M and 10M frames, mirror-style snaplen 128 and whole frames (PMTU 1024,
# ~1.1 KiB data frames), 1000 QPs, seed 1.
#
#   bench/gen.sh [-f] [-s "1m 10m"] [DIR]
#
# DIR defaults to $BENCH_DIR or /tmp/rocetrace-bench. Existing files are kept
# unless -f. Sizes: 1m-128 131 MB, 1m-full 863 MB, 10m-128 1.3 GB,
# 10m-full 8.6 GB; gencap takes ~7-10 s per million frames. Each capture's
# expected counts are written next to it (NAME.counts).
set -euo pipefail

force=0
sizes="1m 10m"
while getopts "fs:" opt; do
	case $opt in
	f) force=1 ;;
	s) sizes=$OPTARG ;;
	*) echo "usage: $0 [-f] [-s \"1m 10m\"] [DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
dir=${1:-${BENCH_DIR:-/tmp/rocetrace-bench}}
mkdir -p "$dir"
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && go build -o "$dir/gencap" ./bench/cmd/gencap)

for size in $sizes; do
	case $size in
	1m) frames=1000000 ;;
	10m) frames=10000000 ;;
	*[0-9]) frames=$size ;;
	*) echo "gen.sh: unknown size $size (1m, 10m or a frame count)" >&2; exit 2 ;;
	esac
	for shape in 128 full; do
		snap=$shape
		[ "$shape" = full ] && snap=0
		out="$dir/bulk-$size-$shape.pcap"
		if [ -s "$out" ] && [ $force = 0 ]; then
			echo "keep $out"
			continue
		fi
		"$dir/gencap" -frames "$frames" -snaplen "$snap" -pmtu 1024 -qps 1000 -seed 1 -o "$out.tmp" | sed "s|$out.tmp|$out|" | tee "$out.counts"
		mv "$out.tmp" "$out"
	done
done

#!/usr/bin/env bash
# pgo.sh rewrites cmd/rocetrace/default.pgo, the CPU profile `go build`
# uses for profile-guided optimization of the rocetrace binary (Go's
# -pgo=auto: the compiler inlines the hot calls of the profile, such as the
# producer's read and decode chain, with a larger budget). The profile is
# that of the `report --json` path (engine BenchmarkPipelineFile) over the
# bulk captures of bench/gen.sh: mirror-style snaplen 128 (10M frames,
# mapped) and whole frames (1M frames, buffered, every ICRC checked),
# merged with the TUI's full load of the 10M capture (tui BenchmarkLoadFile)
# and export's (export BenchmarkExport1M): the paths users wait for. Regenerate it after large changes of the hot paths; a stale
# profile only loses some of its effect (the compiler matches functions by
# name and line offset, and ignores what it cannot match).
#
#   bench/pgo.sh [DIR]     # DIR as for gen.sh, default /tmp/rocetrace-bench
set -euo pipefail
dir=${1:-${BENCH_DIR:-/tmp/rocetrace-bench}}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for f in bulk-10m-128 bulk-1m-full bulk-1m-128; do
	[ -s "$dir/$f.pcap" ] || { echo "pgo.sh: $dir/$f.pcap missing: run bench/gen.sh first" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -pgo=off -o "$tmp/engine.test" ./engine
ROCETRACE_BENCH_FILE=$dir/bulk-10m-128.pcap "$tmp/engine.test" -test.run '^$' \
	-test.bench PipelineFile -test.benchtime 2x -test.cpuprofile "$tmp/128.prof" >/dev/null
ROCETRACE_BENCH_FILE=$dir/bulk-1m-full.pcap "$tmp/engine.test" -test.run '^$' \
	-test.bench PipelineFile -test.benchtime 3x -test.cpuprofile "$tmp/full.prof" >/dev/null
go test -c -pgo=off -o "$tmp/tui.test" ./tui
ROCETRACE_BENCH_FILE=$dir/bulk-10m-128.pcap "$tmp/tui.test" -test.run '^$' \
	-test.bench LoadFile -test.benchtime 1x -test.cpuprofile "$tmp/tui.prof" >/dev/null
go test -c -pgo=off -o "$tmp/export.test" ./export
ROCETRACE_BENCH_PCAP=$dir/bulk-1m-128.pcap "$tmp/export.test" -test.run '^$' -test.bench 'Export1M/export' -test.benchtime 1x \
	-test.cpuprofile "$tmp/export.prof" >/dev/null
go tool pprof -proto "$tmp/128.prof" "$tmp/full.prof" "$tmp/tui.prof" "$tmp/export.prof" >"$tmp/default.pgo"
mv "$tmp/default.pgo" cmd/rocetrace/default.pgo
echo "wrote cmd/rocetrace/default.pgo ($(wc -c <cmd/rocetrace/default.pgo) bytes)"

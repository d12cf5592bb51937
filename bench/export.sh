#!/usr/bin/env bash
# Export benchmark (issue 4): rows/s, CPU per row, allocations and bytes per
# packet row on a 1M-frame synthesized capture, through the Go benchmark and
# through the command with each codec. Output goes to bench/out/export/
# (git-ignored); the capture is made once and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/export
mkdir -p "$out"
pcap=$PWD/$out/bench1m.pcap

ROCETRACE_BENCH_PCAP=$pcap go test ./export -run '^$' -bench 'Export1M' -benchtime 3x | tee "$out/bench.txt"
go test ./export -run '^$' -bench 'PacketRow' | tee -a "$out/bench.txt"

go build -o "$out/rocetrace" ./cmd/rocetrace
for codec in zstd gzip lz4 snappy none; do
  rm -rf "${out:?}/$codec"
  start=$(date +%s.%N)
  rows=$("$out/rocetrace" export --compression "$codec" -o "$out/$codec" "$pcap" | sed -n 's|.*/packets.parquet: \([0-9]*\) rows.*|\1|p')
  end=$(date +%s.%N)
  size=$(stat -c %s "$out/$codec/packets.parquet")
  awk -v c="$codec" -v s="$start" -v e="$end" -v b="$size" -v n="$rows" \
    'BEGIN { printf "%-6s %d rows in %.2f s wall: %.0f rows/s, %.2f bytes per packet row\n", c, n, e - s, n / (e - s), b / n }'
done | tee -a "$out/bench.txt"

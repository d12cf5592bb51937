#!/usr/bin/env bash
# Soak test of live capture: not part of CI.
#
# Builds rocetrace, creates two network namespaces joined by a veth pair
# (MTU 9000), runs `rocetrace capture --json` on one end and replays RoCE
# RC WRITE traffic (64 QPs, 1024-byte payloads: 1120-byte frames, with
# valid ICRCs) into the other end with sendmmsg, as fast as the machine
# allows or at a fixed rate, for a while. Then it stops rocetrace with
# SIGINT and prints one line:
#
#   SOAK duration=… frame_bytes=… sent=… sent_per_s=… captured=… captured_per_s=…
#        kernel_drops=… lost_before_socket=… veth_rx_dropped=… rocetrace_cpu=…%
#
# kernel_drops is rocetrace's own capture.kernel_drops (PACKET_STATISTICS:
# the ring was full); lost_before_socket counts frames the kernel lost
# before the capture socket saw them (veth backlog), which rocetrace cannot
# see. Traffic only travels inside the two namespaces the run creates.
#
# Usage (as root; needs iproute2's ip and Go):
#   scripts/soak-capture.sh [DURATION] [RATE] [PAYLOAD] [-- rocetrace capture flags]
#     DURATION  how long to send (default 60s)
#     RATE      frames per second, 0 = as fast as possible (default 0)
#     PAYLOAD   RDMA payload bytes per frame (default 1024)
#   scripts/soak-capture.sh 60s                 # highest rate for a minute
#   scripts/soak-capture.sh 60s 400000          # a fixed rate
#   scripts/soak-capture.sh 30s 0 1024 -- --buffer-size 256M
#   FIND=1 scripts/soak-capture.sh 20s          # also search the highest rate with zero drops
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-60s}
rate=${2:-0}
payload=${3:-1024}
shift $(( $# < 3 ? $# : 3 )) || true
[ "${1:-}" = "--" ] && shift
extra="$*"

if [ "$(id -u)" != 0 ]; then echo "soak-capture: run as root (network namespaces, CAP_NET_RAW)" >&2; exit 2; fi
command -v ip >/dev/null || { echo "soak-capture: needs ip (apt-get install -y iproute2)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/rocetrace" ./cmd/rocetrace
go test -c -o "$tmp/capture.test" ./capture

soak() { # soak DURATION RATE: prints the SOAK line
  ROCETRACE_SOAK="$1" ROCETRACE_SOAK_RATE="$2" ROCETRACE_SOAK_PAYLOAD="$payload" \
    ROCETRACE_SOAK_ARGS="$extra" ROCETRACE_BIN="$tmp/rocetrace" \
    "$tmp/capture.test" -test.run '^TestSoak$' -test.count=1 -test.timeout=60m | grep '^SOAK'
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }

line=$(soak "$duration" "$rate")
echo "$line"

if [ -n "${FIND:-}" ]; then
  # Halve the distance between a rate with drops and one without until
  # they are within 5 %.
  hi=$(echo "$line" | field sent_per_s | cut -d. -f1)
  drops=$(echo "$line" | field kernel_drops)
  if [ "$drops" = 0 ]; then echo "zero kernel drops at the highest send rate, $hi frames/s"; exit 0; fi
  lo=$(( hi / 2 ))
  best=""
  while [ $(( (hi - lo) * 20 )) -gt "$hi" ]; do
    mid=$(( (hi + lo) / 2 ))
    l=$(soak "$duration" "$mid"); echo "$l"
    if [ "$(echo "$l" | field kernel_drops)" = 0 ]; then lo=$mid; best=$l; else hi=$mid; fi
  done
  echo "highest rate with zero kernel drops: ${best:-none found above $lo frames/s}"
fi

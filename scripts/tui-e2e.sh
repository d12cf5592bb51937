#!/usr/bin/env bash
# End-to-end check of `rocetrace tui` in a real terminal: tmux runs the TUI
# on a demo capture, keys are sent as a user would type them, and
# capture-pane must show the expected screens. Exits 0 with a message when
# tmux is not installed.
#
#   scripts/tui-e2e.sh            (from anywhere in the repository)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "tui-e2e: tmux is not installed; skipping the terminal check"
  exit 0
fi

tmp=$(mktemp -d)
session="rocetrace-tui-e2e-$$"
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/rocetrace" ./cmd/rocetrace
capture=pcaps/loss_nak_replay.pcap

# The pane runs the TUI, then records its exit status and stderr.
tmux new-session -d -s "$session" -x 120 -y 40 \
  "$tmp/rocetrace tui $capture 2>$tmp/stderr; echo \$? >$tmp/status"

screen() { tmux capture-pane -p -t "$session" 2>/dev/null || true; }

# expect TEXT...: wait (up to 10 s) until the screen shows every TEXT.
expect() {
  for _ in $(seq 200); do
    local s ok=1
    s=$(screen)
    for want in "$@"; do
      grep -qF -- "$want" <<<"$s" || ok=0
    done
    if [ "$ok" = 1 ]; then
      return 0
    fi
    sleep 0.05
  done
  echo "tui-e2e: FAIL: the screen never showed: $*"
  echo "---- screen ----"
  screen
  echo "----------------"
  exit 1
}

send() { tmux send-keys -t "$session" "$@"; }

step() { echo "tui-e2e: $*"; }

step "overview"
expect "1 Overview" "Connections with the most problems" "10.0.0.1>10.0.0.2:qp0x000022" "23 frames loaded"
expect "2 in 1 connection" "Problems   1 connection"
expect "Findings (2 in 2 codes)" "psn_gap" "Throughput"
expect "ACK lat    1: p50 3 µs, p99 3 µs, max 3 µs"

step "Enter: the worst flow"
send Enter
expect "Flow #1" "expected PSN 1003, got 1004" "Packets (20"
expect "Goodput   1.8 Gb/s, peak 173.4 Mb/s" "ACK latency" "23.5 µs after the NAK"
# The flow's QoS and each event's frame (the gap shows at frame 4, the
# replay starts at frame 9).
expect "QoS       DSCP 26, untagged, UDP source port 49169" "psn_gap        10.0.0.1>10.0.0.2:qp0x000022     4 expected" \
  "retransmission 10.0.0.1>10.0.0.2:qp0x000022     9 replay"

step "Enter: the frame of its first event"
send Enter
expect "Headers of frame 4" "Packets │ row 4/23" "Frame 4: 1082 bytes on wire"

step "the header tree: Tab to it, G (its last line: the ICRC), Left on a BTH field collapses the BTH, Right expands it"
send Tab
send G
expect "Invariant CRC: 0x"
send Up Up # the Payload line, then the BTH's last field
expect "Packet Sequence Number: 1004"
send Left
expect "▸ Base Transport Header"
send Right
expect "▾ Base Transport Header"
send BTab

step "Esc: back to the flow, Esc: back to the overview"
send Escape
expect "Flow #1" "Flow │ event 1/3"
send Escape
expect "Overview │ row 1/1"

step "2: flows, s: sort by flow id, / filter"
send 2
expect "Flows (2 of 2)"
send s
expect "Flow▲" "by Flow ascending"

step "issue 16 item 2: j / k / g move the status position"
send j
expect "Flows │ row 2/2"
send k
expect "Flows │ row 1/2"
send G
expect "Flows │ row 2/2"
send g
expect "Flows │ row 1/2"

step "issue 16 item 3: a new sort order states its column and direction, keeps a selection on screen"
# (with two flows every row is on screen; TestSortShowsTop covers the top
# shown when the selection sorts off screen)
send G
send S
expect "Flows │ row 2/2"
send s s s
expect "Packets▼" "by Packets descending" "Flows │ row 2/2"

send / q p : 0 x 1 1 Enter
expect "Flows (1 of 2)" "filter: qp:0x11"

step "3: events, t: kind filter"
send 3
expect "Events (3 of 3)" "retransmission"
send t
expect "Events (1 of 3) of kind psn_gap"

step "4: packets, G: last frame"
send 4
expect "Packets (23)"
send G
expect "Packets │ row 23/23" "Headers of frame 23"

step "issue 16 item 1: a filter keeps the selected frame (frame 10 is the 9th of QP 0x22)"
send / 1 0 Enter
expect "Headers of frame 10" "Packets │ row 10/23"
send / q p : 0 x 2 2 Enter
expect "Packets (20 of 23" "Headers of frame 10" "Packets │ row 9/20"
send / C-u Enter
expect "Packets (23)" "Headers of frame 10" "Packets │ row 10/23"

step "marks: m on frames 14 and 5, ' jumps, w writes them"
send / 1 4 Enter
send m
send / 5 Enter
send m
expect "Packets (23, 2 marked)" "*5"
send "'"
expect "Headers of frame 14" "*14"
send w C-u
send -l "$tmp/marked.pcap"
send Enter
expect "wrote 2 marked frames to $tmp/marked.pcap"
[ "$(stat -c %s "$tmp/marked.pcap")" = $((24 + 2 * (16 + 62))) ] || {
  echo "tui-e2e: FAIL: marked.pcap is not a header and two 62-byte records"
  exit 1
}

step "5: PFC"
send 5
expect "PFC and PAUSE by source and priority (0)"

step "?: help"
send ?
expect "Keys (? or Esc to close)" "Everywhere" "In PFC (this view)"
send ?

step "q: quit"
send q
for _ in $(seq 200); do
  [ -s "$tmp/status" ] && break
  sleep 0.05
done
status=$(cat "$tmp/status" 2>/dev/null || echo "none")
if [ "$status" != 0 ]; then
  echo "tui-e2e: FAIL: rocetrace tui exited with status $status"
  cat "$tmp/stderr" 2>/dev/null || true
  exit 1
fi
if [ -s "$tmp/stderr" ]; then
  echo "tui-e2e: FAIL: rocetrace tui wrote to stderr:"
  cat "$tmp/stderr"
  exit 1
fi
echo "tui-e2e: ok"

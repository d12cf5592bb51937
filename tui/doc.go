// Package tui is rocetrace's interactive terminal UI (`rocetrace tui
// FILE...`), built with tview and tcell.
//
// # Views and keys
//
// 1 Overview: capture summary, findings, the flows with the most problems
// and timelines (throughput, problem events, CE marks, CNPs, paused time)
// drawn as bar charts. 2 Flows: every flow, sortable by any column (s / S,
// r, or a click on a title), filterable (/ words, ip:ADDR, qp:N, problems;
// p for problem flows only), problem rows in red, congestion in yellow;
// Enter opens the flow. Flow: counters, peer (p opens it), its rate and its
// peer's over time, its events (Enter opens the frame that shows one) and
// its packets. 3 Events: every event, filterable by kind (t cycles: all,
// psn_gap, retransmission, nak, rnr_nak, cnp, pause, psn_conflict,
// hop_loss) and flow (/ kind:K flow:ID), sortable by time, kind, flow or
// duration (s / S, r); Enter opens the frame, f the flow. The events
// tables (here and in the flow detail) have a Frame column, the frame that
// shows the event ("FILE:FRAME" with several files), found as Enter finds
// it (Pager.Resolve) for the rows drawn only, one job at a time
// (eventframes.go). 4 Packets:
// every frame in a virtualized table, its header tree and hex dump (Tab
// between the three; headertree.go: the tree from decode.TreeLines, Enter
// or space expands or collapses a header, ← collapses, → expands, on a
// field its header; collapsed headers stay so from frame to frame, by
// title; the selected line's bytes are highlighted in the hex dump), the frames that show events marked (their kinds
// before the info); / takes the display-filter language of packets -Y
// (package filter; a live error under the input while typing; an IP alone,
// ip:ADDR, qp:N and problems are read as ip.addr == ADDR, dst_qpn == N and
// events), evaluated in a job over the frames read again, with the events
// the loader recorded (Snapshot.FrameEvents: memory per event frame, not
// per frame), or goes to a frame number; -Y starts it filtered; m marks a
// frame, ' goes to the next mark, w writes the marked frames (none marked:
// the frames listed) to a pcap file (marks.go); d shows the time since the
// previous frame listed. 5 PFC:
// per source MAC and priority, the pause episodes of the selected one
// (Enter opens the frame that started one; s / S, r sort them, s once the
// longest first) and paused time over time. 6
// Connections: the QP pairs (a flow and its peer), both directions in one
// row with their counters added, as Wireshark's Conversations; sortable
// and filterable as the flows, Enter opens the direction with the
// problems. The overview's problem list and its "with problems" count are
// per connection: a loss shows as a gap in one direction and a NAK in the
// other, and counts once. 7 Points, with --point only (pointsview.go): the
// capture points (name, packets, files; the first is the reference) and the
// report's hops, per flow and pair of points: from, to, matched, lost,
// unseen upstream, delay p50/p99/max; sortable (s / S, r, a click) and
// filterable (/ words of the flow id or point names), lost rows red,
// unseen-upstream rows yellow. Enter on a hop lists its lost frames in the
// packets view (below).
//
// # Capture points
//
// With Config.Points (pointsmodel.go) the model runs engine.Points, as
// `rocetrace report --point`: the reference (first) point's engine drives
// every other view (report, flow frame lists, PFC list, timelines), and
// the final report adds the points, hops, hop_loss events and findings
// (interim reports are the reference's alone: the matcher is not copied).
// How frames of several points are indexed: the packet index holds every
// point's frames in the one timestamp-ordered merge of all their files, so
// the packets view lists them all ("FILE:FRAME" names the file, hence the
// point), each with the events its own point's engine found (as the rows
// of packets.parquet with --point). A hop's lost frames are frames of its
// `from` point, which need not be the reference: each point's frames of
// each flow are kept (Snapshot.PointFrames, the reference's by FlowFramesOf),
// and a hop_loss event is resolved among `from`'s frames of its flow by
// time, then PSN and opcode (Pager.Resolve; the events view's Enter uses
// it too). Enter on a hop shows exactly those frames as a fixed list named
// "lost FROM>TO FLOW" in place of a display filter (pointslost.go): Esc or
// another filter leaves it, entering the name unchanged keeps it.
//
// # Latency, throughput and the DCQCN reaction
//
// What analysis computed for issues 13 and 17, shown (detailperf.go,
// eventdetail.go, flowperf.go): the overview's summary has a line per
// latency kind with samples (ack, READ, READ first, atomic: count, p50,
// p99, max; the help's "latency" line says that they are measured at the
// capture point; from 36 lines the pane grows to show them). The flow
// detail adds the flow's ack and READ latency percentiles, goodput and
// peak (bit rates; "-" for a null goodput) and, when CNPs target the flow,
// its cc_reaction_cnps and median after/before ratio, in red "no reaction"
// when the report has a cc_no_reaction finding for it. Its rate chart
// gains a "CNPs rx" band (the CNPs that target the flow), and selecting a
// CNP event puts its rate_before -> rate_after (and their ratio) in the
// rate chart's title; from 30 lines a Latency chart under it shows the
// largest ack and READ sample per column. Events: a retransmission shows
// idle_ns and since_original_ns, a cnp its rates, psn_conflict its opcode,
// PSN, READ PSN and both spans, hop_loss its points. Flows: Goodput and
// Peak columns, then DSCP, PCP/VLAN and Src port (the report's dscp,
// pcp / vlan_id, src_port / src_ports; "+" when the frames differed),
// before Peer; the flow detail ends with a QoS line saying the same.
//
// The overview's findings are grouped by code, with their count and flow
// (findings.go): Enter on a group lists its findings under it, Enter on a
// finding opens its flow, or the PFC entry its message names. Esc clears a
// committed filter before it goes back.
//
// Tables show only the columns that fit whole (fit.go): numbers are never
// cut, the last text column is cut on the right with an ellipsis, h / l
// scroll the others while the key columns (# and Flow) stay. A new sort
// order shows the top rows. A new packet list (a filter set or cleared)
// keeps the selected frame, or selects the nearest following one.
// Everywhere: arrows or h j k l, g G, PgUp PgDn, Tab / Shift-Tab, Enter,
// Esc (back), / (filter), ? (help listing every key), q or Ctrl-C (quit);
// the mouse selects, opens (double click), scrolls and switches tabs.
//
// # Architecture
//
// The UI computes nothing about the capture. A Model (model.go; loader.go) runs the
// same decode -> flows -> analysis loop as `rocetrace report` in a
// background goroutine and publishes immutable Snapshots: progress, the
// latest analysis.Report, a packet index, per-flow frame lists and
// timeline counters. While loading, a report of the frames read so far is
// built every few hundred milliseconds from a copy of the flow table
// (flows.Table.Clone), on another goroutine, so the overview, flows and
// events fill in as the file is read; the interval adapts so that builds
// (the copy included) take at most a sixteenth of the time, and none
// starts when the files are expected to be read before that interval
// passes (the final report comes first). When loading ends, the final
// report is built from the table itself, beside an interim build still
// running, and is exactly what `rocetrace report` prints. When a pipe or
// FIFO waits for its writer, the loader publishes what it has
// (engine.Config.Idle, at most every PublishEvery), and again until the
// report shown covers every frame read, so a stalled
// `tcpdump -w - | rocetrace tui -` shows every frame written so far and
// its analysis.
//
// Opening: OpenContext opens the files before the UI starts, as report
// does (engine.OpenContext): a signal while it waits (a FIFO with no
// writer, a pipe that has not sent its header) ends it with an error that
// matches context.Canceled. Once the UI is up, quitting (q, Ctrl-C, or the
// context Run was given ending) cancels the loader, whose blocked read of a
// pipe or FIFO returns (engine.Inputs.Each), so Run returns at once.
//
// The charts' per-flow series besides the rate (FlowMarks, flowmarks.go)
// are collected by the loader from what flows reports, never computed:
// the CNP events' target flows, and each latency sample flows hands to
// Config.LatencySink (the loader's sink; a caller's sink is still
// called), binned by response time on the rate grid keeping the largest
// sample per bucket (exact when buckets merge). The sink runs inside the
// engine's Observe on the loader goroutine (live: under the same lock), so
// it needs no lock; Clone's copy never calls it (Finish takes no sample).
// Files are loaded a batch at a time (engine.RunBatches, loadbatch.go):
// the loader indexes a batch of up to 256 frames after the flow table saw
// all of them, so the batch's latency samples reach the series before its
// frames and its events after them; each lands in the bucket of its time
// either way (TestLoadBatchMatchesPerFrame); samples that come before the
// first frame has set the grid wait for it (timelines.drainEarly).
//
// A live capture (Config.Live, live.go) goes through the same loop: each
// record from the capture source is first written to a recording (a
// capture file, so that the packet index and the Pager work as for a file)
// and then analysed; a ticker publishes a snapshot every second whether
// frames arrive or not. The status bar shows "live: IFACE", the frames
// captured and the kernel drops; quitting stops the source.
//
// Views only display: derive.go turns a report into row orders (filter,
// sort) in job goroutines, and tables are tview.TableContent adapters
// (content.go) whose GetCell is O(1). A Pager (pager.go) reads frames again
// from the files when they are shown (pcapio.ReadRecordAt), in a background
// goroutine with a small cache, so the packet tables never hold packets.
//
// Keys are data (keys.go): each view returns one table of bindings (the
// keys, the help line, the action, or none when the focused pane handles
// the key), and one table holds the keys of every view, the number keys
// derived from the tab bar's views. The same tables drive the key handling
// and the help overlay, so the two cannot disagree.
//
// Threading (app.go): only the supervisor goroutine calls QueueUpdateDraw,
// on a 100 ms ticker or when woken by new data, and only when something
// changed; its update (tick) swaps in the latest snapshot and applies the
// finished jobs. Key and mouse handlers never queue updates or draw, and
// quitting cancels a context: the supervisor then waits for the loader and
// the pager and stops the application.
//
// # Memory per frame
//
// The packet index (index.go) keeps per block of 64 frames a 16-byte head
// and per frame a varint of how its record's offset steps: 1.4 bytes a
// frame in all for a snaplen-128 capture of one file, 1.65 for whole
// frames (bulk-1m-128, bulk-1m-full), 2-4 for several files, plus for
// several input files 8 bytes per file every 256 frames. Each frame's flow is a uint16 (frameflows.go;
// uint32 once a capture has more than 65,535 flows): a flow's frame list
// is made from those when it is shown (a scan, cached for 8 flows). The
// PFC and PAUSE frames are a delta-encoded FrameList (about 2 bytes each).
// That is about 3.4 bytes a frame, 34 MB for ten million frames; flows,
// events and the report cost what they cost `rocetrace report`, and each
// flow 512 bytes of rate timeline (for the first 65,536 flows), plus 512
// bytes per series it has of CNPs received, ack and READ latency (made at
// its first value). TestIndexBytesPerFrame holds the live heap besides the
// report under 16 bytes a frame (9.7 at 500,000 frames of 2,000 flows,
// most of it the flows' series); peak RSS, with the garbage collector's
// headroom, measured 11-12 bytes a frame above `report --json` at 10M
// frames of snaplen 128 and 8-10 at 20M (BENCHMARKS.md, issue 20). With
// capture points every point's frames are in the index and the ids (0 for
// the other points'), their flows' frames in delta-encoded FrameLists per
// point (about 2 bytes each), and the matcher costs what it costs `report
// --point`.
package tui

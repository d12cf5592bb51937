// Package flows turns decoded frames (decode.Packet) into per-flow state,
// events and PFC pause history. It does no I/O and prints nothing.
//
// A Table is used from one goroutine: Observe every frame in capture order,
// then Finish, then read Flows, Events and PFC. Observe does not allocate for
// frames of known flows and PFC keys unless the frame produces an event;
// memory grows with flows, events and PFC keys, never with packets.
//
// # Memory bounds
//
// A flow that saw one packet costs about 380 bytes (the Flow, its id and its
// index slot); what only some flows need is made on first need, in two
// tiers: the cold state (flowCold, 192 bytes: the rate window, the peer,
// the ring of recent requests, pairing effort, the DCQCN window, the
// request memory of latency.go, and a pointer to the latency values' slice
// headers, made with the request memory), made from a flow's second frame, and the rare state (flowRare, 112
// bytes: READ state, replays, READ responses, pairing votes, CE marks, more
// than one source port). The ring of recent requests starts at 4 entries
// and doubles while full, up to 32 (64 bytes for a flow of a few requests,
// not 512). (The VLAN tag of the first frame and its "differed" flag,
// Flow.VLAN, take two bytes freed by packing the source-port count, its
// overflow flag and the transport into one byte: Flow stays 288 bytes.)
// Flow and flowCold put the fields that every frame reads first (after
// the key, in Flow): a frame touches fewer of their cache lines, which
// with thousands of flows are misses. flowCold's size class starts each
// object on a line: a request frame reads its first two lines, and its
// ring slots are one dependent load past it; an ACK or READ response
// reads its second line alone (TestColdStateLines). A
// stored event is 64 bytes: the values of its kind share four 8-byte
// slots (Event; read with its methods), and the table keeps events in
// chunks of 4096 (eventstore.go), so storing more never copies the ones
// stored (a growing slice holds its old and new arrays together while it
// copies). Events returns a copy; NumEvents and Event read in place.
// TestMemoryPerFlowAndEvent holds the bounds (400 bytes per flow, 128 per
// event; measured 380 and 66), analysis.TestMemoryEndToEnd the same bounds
// for the table plus a lean report (analysis.Options.Lean). The table
// holds at most Config.MaxFlows flows (DefaultMaxFlows; --max-flows): a
// frame that would start a flow beyond it belongs to none, Observe returns
// nil for it, and FlowsDropped counts it (the capture counters still count
// it: analysis' capture.flows_dropped and its flows_dropped finding).
//
// The interface (docs/interface.md: capture, flows, events, pfc) is
// implemented as written. Where it is silent, these are the rules:
//
// # Flows
//
// A flow is one direction (src IP, dst IP, BTH DestQP), plus the DETH source
// QP for UD (Key). Every frame with a whole BTH on the RoCE port (KindRoCE or
// KindCNP) belongs to a flow, unless it is malformed: a malformed frame
// belongs to no flow and changes nothing in the table (nor in the PFC
// state). The flow id (Key.String) is
//
//	10.0.0.1>10.0.0.2:qp0x000011             RC/UC/XRC and CNP flows
//	[fd00::1]>[fd00::2]:qp0x000011           IPv6 addresses in brackets
//	10.0.0.1>10.0.0.2:qp0x000001/src0x000022 UD: DETH source QP appended
//
// A CNP to QP Y from B to A is keyed like the ACKs B->A to QP Y, so a flow
// that carries ACKs and CNPs is one flow ("transport" is that of its first
// non-CNP frame; "CNP" only for a flow with nothing but CNPs). Flows are
// listed in first-seen order.
//
// # Request PSNs
//
// Request opcodes (Opcode.IsRequest: SEND, WRITE, READ Request, atomics, UD
// SEND) follow the contract's psn_gap and retransmission rules with serial
// arithmetic (PSN). The expected PSN is the high-water mark + 1. A
// retransmission episode that goes back again (a PSN behind the previous
// replayed one) closes and a new episode starts. An episode still open at the
// end of the capture is reported by Finish. UD flows are checked like the
// others, per flow; a UD QP that sends to several destinations numbers its
// PSNs across all of them, so UD gaps are weak evidence (analysis reports
// them as info).
//
// READ spans: a READ Request with DMA length L takes max(1, ceil(L/PMTU))
// PSNs. PMTU is Config.PMTU, else the payload length of the first SEND/WRITE
// First/Middle or READ Response First/Middle seen on the flow or its peer
// (it must be 256, 512, 1024, 2048 or 4096), else the first such value
// seen anywhere in the capture. While it is unknown, the READ's span is
// resolved lazily when the next request arrives: by then the PMTU may be
// known, or a READ Response Last/Only (PSN p+n-1) may have revealed the span;
// otherwise the observed advance d is read with the most favourable PMTU: the
// largest candidate max(1, ceil(L/m)), m in {4096, 2048, 1024, 512, 256},
// that is <= d (the smallest candidate when none is). An unknown PMTU thus
// never invents a gap (it may under-count one). A READ whose RETH was cut
// off accepts any advance.
//
// READ Response PSNs are checked on the response flow against the READ
// requests of its peer (the last 32 READs are remembered). Within one READ a
// skipped PSN is a gap; a response for a later READ counts as missing the
// rest of the current READ, every READ in between and the start of the new
// one. A response for an earlier READ (a re-read) resynchronises silently.
// A READ request replayed inside an existing READ's range does not open a
// new range. Responses are only checked once the flows are paired.
//
// ACK PSNs never make gaps. NAK and RNR NAK events count on the flow that
// carries them; their target_flow is that flow's peer at the end of the
// capture (nil when unpaired).
//
// after_nak_ns of a retransmission is the replay's time minus the latest NAK
// or RNR NAK on the peer flow at or before the replay, provided that NAK came
// after the start of the flow's previous replay episode (a NAK already
// answered by a replay does not explain a later one: that one is a
// timeout, null). It is computed in Finish, with the final pairing.
//
// # Latency samples
// The contract's ack, read, read_first and atomic samples (LatencySample,
// Flow.Latencies, Config.LatencySink) come from a request memory per flow
// (latency.go), in the flow's cold state: the request packets that moved
// the flow's PSN forward (and psn_conflict requests), in PSN order, each
// with its time, kind (SEND/WRITE, READ with its DMA length, atomic,
// other) and flags (replayed, READ First / Last seen, atomic answered).
//
//   - The flow's first request is held by reqFirst/reqTs0 only; the
//     memory is made at the second request (or at the first response or
//     replay that needs it), with the first request in it: its opcode is
//     not kept, so it is taken as a READ when the READ ring says so, else as
//     whatever kind its response names (an ACK counts it as a SEND/WRITE,
//     an ATOMIC ACKNOWLEDGE as an atomic). This keeps one-packet flows at
//     their issue-12 size.
//   - The ring starts at 4 entries. When it is full, entries answered are
//     dropped from its old end (SEND/WRITE and others: PSN <= the highest PSN
//     an ACK on the peer named, cumulative; READ: its Last/Only response
//     seen or a later PSN acked; atomic: its ATOMIC ACKNOWLEDGE seen or a
//     later PSN acked); then it doubles, up to 1024 entries once the flow is
//     paired (32 while it is not: a flow whose responses are not in the
//     capture stays small); then the oldest entry is forgotten. So the
//     latest 1024 unanswered requests of a paired flow are always there.
//     UD flows keep none.
//   - Lookups are binary searches by PSN. A READ Response belongs to the
//     latest READ at or before its PSN (up to 8 entries back, past
//     psn_conflict requests) whose range holds it: ceil(L/PMTU) at the
//     PMTU the psn_gap rules know (PMTUFor), ceil(L/256) while unknown.
//   - Karn's rule: a request PSN behind the expected one (a replay) marks
//     its entry replayed; one inside a remembered READ's range (a re-read)
//     marks that READ. Such entries give no sample, and neither does a
//     request stamped after its response.
//   - ack: an ACKNOWLEDGE with an ACK syndrome on F whose PSN is ahead of
//     the highest PSN an earlier one on F named (tracked also before F is
//     paired; the first one counts). Tried after pairing, so the ACK that
//     pairs gives a sample. read_first / read: the first READ Response
//     First/Only with the READ's PSN, the first Last/Only in its range.
//   - The values (latency ns) are kept per request flow and kind, in the
//     order taken, for exact percentiles; the full sample goes to
//     Config.LatencySink only (export streams latency.parquet from it).
//     They are stored as uint32 while every value of that flow and kind
//     fits (up to 2^32-1 ns, ~4.29 s), and as (low, high) uint32 pairs
//     from the first that does not (the earlier ones widened then; a bit per
//     kind in the request memory says which): LatencyValues reads them in
//     place, Flow.Latencies returns an int64 copy (latvals.go). Half the
//     memory of int64 in the usual case; the values never change.
//
// # Stalls and PSN conflicts
//
// A retransmission's IdleNs is the replay's time minus the flow's latest
// earlier request packet (the recent ring, replays included);
// SinceOriginalNs is the replay's time minus the remembered entry with
// that exact BTH PSN: null (HasSinceOriginal false) when the PSN was never
// seen (lost) or has left the memory (answered and dropped, forgotten at
// the 1024 cap, or a first replay that moved no PSN forward: replays make
// no entries, so a second replay of a lost PSN is null too).
//
// A request that is not a READ Request, behind the expected PSN, outside a
// replay episode, whose PSN is in [r+1, r+n-1] of the flow's latest READ r
// when that READ is also the flow's latest request, is a psn_conflict
// (Event values PSN, Opcode, ReadPSN, ReadSpan, SenderPMTUs,
// ResponderPMTUs): n is the span a READ Response Last/Only revealed, else
// ceil(L/PMTU); with the PMTU unknown (PMTUFor 0) there is none. The
// expected PSN becomes psn + 1 and the request is remembered.
//
// # Pairing (peer)
//
// The peer of A->B:X is the flow B->A:Y whose responses answer X's requests
// (pairing is symmetric: both flows may carry requests and responses). Each
// ACK, NAK, RNR NAK or READ Response on an unpaired flow F is matched against
// every unpaired, non-UD reverse flow C that has sent requests:
//
//   - ACK / ATOMIC ACK PSN p is in range of C when C's first request PSN <= p
//     < C's expected PSN, at most 65536 behind it; NAK / RNR NAK also when p
//     equals the expected PSN; a READ Response PSN when it lies in one of C's
//     last 32 READ requests' ranges (span bound: ceil(L/256) while unknown)
//     and that READ was seen before the response.
//   - The match is exact when p is the PSN of one of C's last 32 requests
//     seen at or before the response (for READ responses: the READ's first
//     PSN).
//
// If exactly one C is in range, F and C are paired at once. If several are
// but exactly one matches exactly, that C gets a vote; two consecutive votes
// for the same C pair them. Otherwise nothing happens: with random initial
// PSNs (as NICs choose them) one response usually suffices, and QPs that are
// indistinguishable by PSN and timing (identical PSNs in lockstep) stay
// unpaired rather than paired wrongly. Pairing is never undone. A flow that
// stays unpaired is retried on each of its first 64 responses, then on every
// 64th. CM REQ/REP pairing is not implemented: decode.Packet carries no
// payload bytes.
//
// # CNPs
//
// A CNP counts in `cnps` on its own flow B->A:Y. Its target is the flow
// A->B whose sender QP is Y, i.e. the peer of the CNP's flow (which is also
// the flow of the ACKs to Y). When that flow has no peer, the fallback looks
// at flows A->B with data: first UD flows whose DETH source QP is Y (the only
// one, or else the only one with CE marks waiting), otherwise the unpaired
// RC/UC/XRC flows (the only one, or else the only one with CE marks
// waiting); anything else leaves the target unknown (nil, target_flow
// null). ecn_to_cnp_ns = CNP time minus the first CE-marked (ECN = 3)
// non-CNP frame of the target since the previous CNP that matched it.
// `ecn_ce` counts every frame of the flow with ECN = 3.
//
// # CNP rate windows (DCQCN reaction)
//
// A cnp event with a target gets the target's rate over its last
// CNPRateWindow (16) request packets before the CNP (RateBeforeBps) and over
// its first 16 request packets after it (RateAfterBps): floor((FrameLen of
// packets 2..16) * 8 * 10^9 / (t16 - t1)), integers only. Request packets
// are the frames observeRequest sees (replays and READ requests included;
// ACKs, READ responses and CNPs are not). A rate is unknown
// (HasRateBefore/HasRateAfter false, JSON null) when fewer than 16 requests
// exist on that side, when t16 <= t1 (all 16 at one time, or timestamps going
// backwards), and for the after-window when the next CNP that targets the
// flow arrives before its 16th request (the before-window ignores earlier
// CNPs). The target is the one known when the CNP is seen (above); a CNP
// without one has no rates. Memory: the before-window is the flow's recent
// request ring (made at its second request; each entry keeps the frame's
// length in what was padding); the one pending after-window per flow is an
// event index and a count in the flow's cold state; nothing is allocated
// per packet.
//
// # Rate windows
//
// Config.Bin (W, default DefaultBinNs = 1 ms; --bin) cuts time into windows
// [k·W, (k+1)·W) of ns since the Unix epoch (floor division: a frame exactly
// at k·W is in window k). A flow's counters packets, bytes, payload_bytes,
// ecn_ce, cnps and cnps_received are split by window: a frame counts in the
// window of its ts_ns, a CNP's cnps_received on its target in the window of
// the CNP's time (the moment the target's counter grows), so a flow's
// windows add up to its counters exactly. A flow keeps only its current
// window (in its cold state, from its second frame: the counters when the
// window opened, and the largest closed window's bytes for the peak; 72
// bytes, in the cold state; a
// flow of one frame has one window, its totals). A frame of a later window
// closes the current one; a frame earlier than the current window
// (timestamps out of order within a file) counts in the current window.
// Closed windows go to Config.RateSink as they close, during Observe, and
// each flow's last window at Finish in first-seen order of the flows; a
// window where nothing was counted is never handed over. Clone's copy has
// no sink. Flow.PeakWindowBytes is the most wire bytes of any window (the
// open one included).
//
// # PFC and PAUSE
//
// One state per (source MAC, priority); 802.3x PAUSE uses priority -1 (JSON
// null). Durations are kept in picoseconds relative to the episode start:
// q quanta = floor(q*512*10^12/bps) ps (exact for every standard speed:
// 5120 ps per quantum at 100 Gb/s, 20480 at 25 Gb/s). A frame at ts <= the
// deadline (equal included) continues the episode; a later one starts a new
// episode after closing the old one at its deadline. An XON while paused
// ends the episode at its time and counts in its frames; an XON while not
// paused only counts in frames/xon_frames. An episode's duration in ns is its
// exact length rounded to the nearest ns (halves up); end_ns = start +
// duration; paused_ns and longest_ns are sums/maxima of those rounded
// durations, so they agree with the pause events. Episodes still open at the
// end are closed at their deadline by Finish. Malformed MAC Control frames
// are ignored. Pause events have no flow (nil; JSON "flow": null) and their
// ts_ns is the episode start.
//
// # Event order
//
// Finish sorts events by ts_ns, then flow (first-seen order; pause events
// after flow events), then kind (psn_gap, retransmission, nak, rnr_nak, cnp,
// pause, psn_conflict), then discovery order (a stable sort in place over
// the chunks, skipped when they are in order already). A retransmission's ts_ns is its first
// replayed packet; a psn_gap's is the packet that revealed it.
//
// # The events of a frame
//
// Table.FrameEvents is the set (EventMask, bit k-1 for kind k) of the
// events the frame just observed shows, reset at each ObserveFlow: an event
// emitted while observing the frame marks it (emit), except retransmission
// and pause, emitted when their episode ends: startReplay marks the frame
// that starts a replay episode and pauseFrame the frame that arms a pause
// episode. A new event kind gets its bit from its EventKind value and its
// name in EventMaskNames (psn_conflict bit 6, hop_loss bit 7).
package flows

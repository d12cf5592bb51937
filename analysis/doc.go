// Package analysis turns a finished flows.Table and the capture counters
// into the Report of `rocetrace report` (docs/interface.md, "report --json"): pure
// functions, deterministic output, no I/O except the io.Writer given to
// WriteText / WriteJSON.
//
// Typical use:
//
//	var c analysis.Counter
//	t := flows.NewTable(flows.Config{PMTU: pmtu, LinkSpeedBps: bps})
//	for each decoded frame p { c.Observe(&p); t.Observe(&p) }
//	r := analysis.Build(t, c.Summary(files), analysis.Options{})
//	analysis.WriteJSON(os.Stdout, r, true)      // report --json
//	analysis.WriteText(os.Stdout, r, analysis.TextOptions{Color: isTTY})
//
// With Options.Lean, Build keeps the finished table instead of a FlowReport
// and an EventReport per flow and event (Flows and Events stay nil): WriteJSON
// and export build the rows from it a chunk at a time (NumFlows, AppendFlows,
// NumEvents, AppendEvents; lean.go), so a report of a million flows or events
// costs the table only. WriteText fills its copy's Flows (it ranks them)
// and reads the events a chunk at a time; other consumers that index the
// rows call Materialize. json.Marshal of a lean report has
// no rows: use WriteJSON. report --json and export build lean reports. A
// lean report's findings and latency summaries are computed on a goroutine
// of their own while the writers build the rows (the second core is idle
// then): Findings is nil, CNPLatency and Latency zero, until Await, which
// the writers, Materialize, AddPoints and AddSameTraffic call.
//
// # Counting
//
// Counter follows the contract: packets = every frame observed (the caller
// observes whole records only); truncated = Truncated or CapLen < Len;
// malformed = Malformed, and a malformed frame counts nowhere else (not in
// roce_packets, cnp_packets, pfc_frames, pause_frames or the ICRC counts);
// of the other frames, roce_packets = Kind RoCE or CNP (a whole BTH on the
// RoCE port), pfc_frames / pause_frames = Kind PFC / PAUSE, icrc_bad =
// ICRCStatus bad, icrc_unchecked = RoCE/CNP frames whose ICRCStatus is
// unchecked (cut by the snaplen); first/last_ts_ns = smallest/largest
// timestamp (0 when there are no frames).
//
// # Report rules where the contract is silent
//
//   - flows are listed in first-seen order; ids are flows.Key.String.
//   - events come in the table's order: ts_ns, then flow (first-seen order;
//     pause events, whose "flow" is null, after flow events at the same
//     time), then kind (psn_gap, retransmission, nak, rnr_nak, cnp, pause).
//     Each event has exactly kind, ts_ns, flow and its kind's fields; the
//     nullable ones are written as null, never omitted.
//   - cnp_latency: nearest-rank percentiles (the ceil(p*n)-th smallest,
//     computed as (p*n+99)/100 in integers); all zero when count is 0.
//   - pfc entries are sorted by source MAC, then priority, with the 802.3x
//     entry (priority null) first.
//   - findings are sorted by severity (error, warning, info), then flow
//     (capture-wide findings first, then flows in first-seen order), then
//     code.
//   - goodput_bps and peak_bps (rates.go) are computed in 128-bit integer
//     arithmetic and floored; a rate beyond MaxInt64 b/s (absurd, but a
//     hostile capture can claim it) saturates at MaxInt64. peak_bps counts
//     the flow's busiest window of flows.Table.Bin, the windows of
//     flows/doc.go "Rate windows" (the one rates.parquet rows show).
//   - text report at scale (textscale.go): problem flows are listed worst
//     first (missing_psns, then naks, retransmitted, cnps_received, all
//     descending; ties keep first-seen order), then the other flows in
//     first-seen order. When rows are left out, the line after the table
//     is "... N flows left out (P with problems, C without): --all-flows
//     lists every flow, --json has them all", plain digits. A code with two
//     or more findings is one line: "SEV code: N findings, worst [F1] [F2]
//     [F3]; the worst: MESSAGE (--json lists every finding)", the flows
//     ranked by their row in the flow table (at most three), MESSAGE the
//     worst one's; capture-wide findings are not ranked ("the first:").
//     The lines keep the order of each code's first finding (severity
//     first). A code with one finding keeps its own line.
//   - WriteJSON does not HTML-escape ('>' in flow ids stays '>');
//     json.Marshal of a Report gives the same document with '>' escaped as
//     \u003e. 64-bit integers are JSON numbers.
//
// # Findings
//
// Codes are stable lower_snake strings. Thresholds come from Options.
//
//	psn_gap_lossless            error    a flow has PSN gaps and its VLAN priority had PFC frames in
//	                                     the capture (a lossless class dropped packets)
//	psn_gap                     warning  PSN gaps on a flow whose priority shows no PFC (lossless not
//	                                     confirmed)
//	ud_psn_gap                  info     PSN gaps on a UD flow (a UD QP numbers PSNs across all its
//	                                     destinations: weak evidence of loss)
//	nak_storm                   error    >= StormCount (10) NAKs on one flow within StormWindowNs (1 s)
//	nak                         warning  NAKs below the storm threshold (message lists the code names)
//	rnr_nak_storm               warning  >= StormCount RNR NAKs on one flow within StormWindowNs
//	rnr_nak                     info     RNR NAKs below the storm threshold
//	retransmission_timeout      warning  replay episodes with after_nak_ns null (requester timeout);
//	                                     timeout_k = smallest k in 0..31 with 4.096 µs x 2^k >= idle_ns
//	                                     (the shortest idle of the flow's timeouts; null when none is)
//	pmtu_mismatch               error    psn_conflict events on a flow: the message names, from its
//	                                     first one, the PMTUs m with ceil(L/m) = sender_span
//	                                     (requester) and = read_span (responder)
//	pause_storm                 error    a PFC/PAUSE episode longer than PauseStormNs (100 ms)
//	pause_priority_without_roce warning  PFC frames for a priority that no RoCE frame (data or CNP)
//	                                     used as VLAN PCP; only judged when some RoCE frames are tagged
//	not_ect                     warning  non-CNP frames with ECN 0 (Not-ECT); one finding for the flow,
//	                                     or one capture-wide finding when several flows do; UD to QP1
//	                                     (CM MADs) is not judged
//	ce_without_cnp              warning  a flow has CE-marked frames but received no CNP
//	cnp_without_ce              info     CNPs matched to a flow with no CE mark since the previous CNP
//	cnp_target_unknown          info     CNPs whose congested flow could not be identified
//	mixed_dscp                  warning  one flow's non-CNP frames use several DSCPs
//	mixed_dscp_across_flows     warning  flows that each use one DSCP do not all use the same one
//	mixed_pcp                   warning  one flow's non-CNP frames use several VLAN PCPs (untagged
//	                                     counts as a value)
//	mixed_pcp_across_flows      warning  flows that each use one PCP do not all use the same one
//	cnp_on_data_priority        warning  CNPs share a VLAN PCP with RoCE data (when both are untagged:
//	                                     share a DSCP)
//	payload_exceeds_pmtu        error    a frame's payload is larger than the PMTU (configured, or
//	                                     learnt on the flow or its peer; not judged when unknown)
//	multiple_udp_source_ports   warning  one flow's non-CNP frames come from several UDP source ports
//	icrc_bad                    error    a flow has frames with a bad ICRC
//	icrc_unchecked_snaplen      info     RoCE frames cut too short to check the ICRC
//	malformed_frames            warning  the capture has malformed frames
//	capture_drops               warning  a live capture lost frames in the kernel (capture.kernel_drops
//	                                     > 0): the capture dropped them, not the fabric
//	flows_dropped               warning  frames of flows beyond the flow limit (flows.Config.MaxFlows,
//	                                     --max-flows) started no flow (capture.flows_dropped > 0)
//	cc_no_reaction              warning  >= 3 CNPs to a flow have both rates and their median
//	                                     rate_after/rate_before is above 0.95 (after*100 > 95*before,
//	                                     exact): the sender did not slow down; names the target flow
//	cnp_interval_short          info     CNPs to one target flow closer together than CNPIntervalNs
//	                                     (--cnp-interval, 4 µs); names the target flow
//	cnp_marking                 info     CNPs of one sending host with a DSCP other than CNPDSCP (48)
//	                                     or, tagged, a VLAN PCP other than CNPPCP (6); one finding
//	                                     per host, flow null (the host is in the message)
//	lost_between_points         error    capture points (AddPoints): frames of a hop seen at from, not
//	                                     at to, between its first and last match
//	capture_missed_frames       warning  capture points: frames seen at to, not at from (upstream)
//	same_traffic_in_several_files warning plain FILE arguments share > 1% of one file's RoCE frames
//	                                     (AddSameTraffic)
//
// # DCQCN reaction
//
// rate_before_bps / rate_after_bps of cnp events come from flows (flows/doc.go,
// "CNP rate windows"). Per target flow, cc_reaction_cnps counts its CNPs
// with both rates and rate_before_bps > 0 (a zero before-rate gives no
// ratio); cc_rate_ratio_p50 is the nearest-rank median (the ceil(n/2)-th
// smallest) of their rate_after_bps/rate_before_bps, chosen by exact
// 128-bit comparison and written as the float64 of that one ratio (null
// when the count is 0). cc_no_reaction compares the chosen ratio exactly.
// The wire bytes are the frames' lengths as `bytes` counts them: preamble
// and inter-frame gap (20 bytes a frame on Ethernet) are not, so a sender
// at line rate shows a little less than the link speed (1078-byte frames
// at 100 Gb/s: 98 Gb/s).
//
// The rates are what the capture point sees, as latency is: captured next
// to the sender (its NIC or its ToR port) they are the sender's own pacing,
// which DCQCN's rate limiter sets; captured after a congested queue (a
// mirror of the receiver's port, the receiver itself) the packets leave the
// queue at its drain rate, so the spacing shows the queue's output, not the
// sender's reaction, and a sender that did slow down may look unchanged
// (or the reverse) while the queue drains. Judge cc_no_reaction on a capture
// taken at the sender side.
//
// # Text report
//
// WriteText prints the capture summary (with kernel drops for a live
// capture), the flows (those with gaps, replays,
// NAKs, CE marks or CNPs received first; at most TextOptions.MaxFlows, 50 by
// default), CNP latency in µs, response latency (ack, read, read_first,
// atomic: count, p50, p99, max in µs, and one line saying that the times
// are measured at the capture point), the DCQCN reaction (flows with
// cc_reaction_cnps > 0: cc_no_reaction flows first, at most 20, with their
// median ratio), PFC per source MAC and priority (share =
// paused_ns over the capture's duration) and the findings. Durations are
// scaled (ns, µs, ms, s), byte counts in B/KiB/MiB/GiB, times relative to
// the capture start.
package analysis

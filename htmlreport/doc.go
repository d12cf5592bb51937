// Package htmlreport renders an analysis.Report as one self-contained HTML
// page (`rocetrace report --html FILE`, docs/interface.md): the capture
// summary, the findings rolled up by code (severity coloured, each linking
// to its flow's row), the flows table (problem flows first), and plots with units on
// every axis. Everything is inline: CSS (with a print stylesheet), SVG, and
// a few lines of script that sort the flows table (the page reads the same
// without script: the table comes sorted worst first). A Content-Security-
// Policy meta tag forbids loading anything from outside (scripts, styles,
// fonts, images, frames); links may point outside. Text goes through
// html/template, and through template.HTMLEscapeString inside the SVG.
//
// # Plots
//
// The plot helpers work over plain series: Point{X, Y int64} in Series,
// with an Axis (label and Unit: time since the first frame, duration,
// count, bit/s, bytes, permille) per axis; LineChart draws lines or steps
// with dashed marks (p50, p99), Timeline draws intervals per lane. Bins,
// CDF, LatencyCDF and ThroughputChart build the series; a Series with Dots
// draws a scatter. The page draws, in order: the throughput of the worst
// flows and the CE marks and CNPs per bin (from Extra.Rates: the rate
// windows re-binned by the caller, cmd/rocetrace's htmlRates), the
// ECN→CNP latency CDF, one CDF per response-latency kind (Extra.Latency,
// p50/p99 from Report.Latency), the DCQCN scatter (rate_before_bps against
// rate_after_bps per CNP of the flows with cc_reaction_cnps), the PFC
// pause timeline per port and priority (pause events ts_ns to end_ns), and
// events per kind over time. With --point the page has a Capture points
// section: the points and the hops table. Write (no Extra) leaves the
// throughput and ACK/READ plots out and draws the CE series as the first
// CE mark before each CNP (ts_ns − ecn_to_cnp_ns).
//
// Why hand-written SVG and not gonum.org/v1/plot (v0.17.0, vg/vgsvg): the
// issue prefers a well-kept library if it fits, and gonum/plot does not fit
// the page well. Its SVG names the Liberation fonts it measured text with;
// without them on the reader's machine labels are laid out with the wrong
// metrics, and the remedy, embedding the fonts, puts base64 font data
// (hundreds of kB per face) into every plot, which a page with a CSP that
// loads nothing must carry inline. It sizes plots in absolute units instead
// of a viewBox that follows the page width (1280 px screens and print), it
// draws float64 values where every rocetrace value is an exact int64 (ns,
// bytes), and it brings a dependency tree (gonum, golang.org/x/image,
// font and LaTeX packages, svgo) into a binary that needs four plot kinds.
// The helpers here are a few hundred lines: nice ticks in the axis's unit,
// step and line paths, legends, marks, lanes; coordinates are written with
// one decimal.
//
// # Bounds
//
// The page's size does not grow with the capture: time plots have about
// DefaultBins (200) bins of a 1-2-5 width (the rate plots at most 250 bins
// of the caller's width), a chart at most MaxSeries (8) series, a CDF at
// most MaxCDFPoints (256) points, the DCQCN scatter at most MaxDots (400)
// dots, the pause timeline at most MaxLanes (16) lanes (the longest paused
// first) drawn per pixel column (at most one rectangle per column, shaded
// by the share of the column's time paused), the flows table and the hops
// table at most MaxTableFlows (200) rows (the flows table plus the flows of
// the listed findings), and each finding code lists at most
// MaxFindingsPerCode (10) findings; the page says how many were left out
// of each. 175 kB for the 1M-frame bench capture, 188 kB for the 10M one.
//
// # Rules where the contract is silent
//
//   - Problem flows are the text report's (loss, replays, NAKs or
//     congestion) plus every flow a finding names, ordered by WorstFlows;
//     the table lists the MaxTableFlows worst and then every other flow a
//     listed finding names, so that each listed finding links to its row;
//     then, up to MaxTableFlows rows, the flows without problems in the
//     report's order (the contract's "the flows table": a capture without
//     problems still lists its flows).
//   - Finding groups come in the Report's order (severity first), one per
//     code.
//   - The CE series is the rate windows' ecn_ce summed per bin (all flows);
//     without Extra.Rates, the first CE mark before each CNP.
//   - A throughput bin's rate is its bytes over the part of the bin inside
//     the capture [first frame, last frame], so that edge bins and a bin
//     longer than the capture read as the rate seen, not diluted.
//   - Throughput draws the worst flows that have a series (WorstFlows
//     order); a clean capture draws the busiest flows by bytes.
//   - DCQCN draws at most MaxSeries-1 flows (the last series is the line
//     after = before), worst first, then in Report order.
//   - Hops are listed most lost first, then by p99 delay.
//   - Anchors are "flow-N", N the flow's index in Report.Flows.
package htmlreport

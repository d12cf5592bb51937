// Package htmlreport renders an analysis.Report as one self-contained HTML
// page (`rocetrace report --html FILE`, docs/interface.md): the capture
// summary, the findings rolled up by code (severity coloured, each linking
// to its flow's row), the problem flows table, and plots with units on
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
// CDF, LatencyCDF and ThroughputChart build the series. The page draws
// what the Report has on this branch: CNPs and the CE marks they answer
// over time, the ECN→CNP latency CDF with p50/p99, the PFC pause timeline
// per port and priority (pause events ts_ns to end_ns), and events per kind
// over time. The per-flow throughput plot (ThroughputChart, over the rate
// windows) and the ACK/READ latency distributions (LatencyCDF, over the
// latency samples) are ready in code for when the Report carries them:
// build the series and append a figure in build (page.go).
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
// DefaultBins (200) bins of a 1-2-5 width, a chart at most MaxSeries (8)
// series, a CDF at most MaxCDFPoints (256) points, the pause timeline at
// most MaxLanes (16) lanes (the longest paused first) drawn per pixel
// column (at most one rectangle per column, shaded by the share of the
// column's time paused), the flows table at most MaxTableFlows (200) rows
// plus the flows of the listed findings, and each finding code lists at
// most MaxFindingsPerCode (10) findings; the page says how many were left
// out of each. About 140 kB for the 1M- and 10M-frame bench captures.
//
// # Rules where the contract is silent
//
//   - Problem flows are the text report's (loss, replays, NAKs or
//     congestion) plus every flow a finding names, ordered by WorstFlows;
//     the table lists the MaxTableFlows worst and then every other flow a
//     listed finding names, so that each listed finding links to its row.
//   - Finding groups come in the Report's order (severity first), one per
//     code.
//   - The CE series counts, per bin, the first CE mark before each CNP
//     (ts_ns − ecn_to_cnp_ns): the Report has no per-window CE counts yet.
//   - Anchors are "flow-N", N the flow's index in Report.Flows.
package htmlreport

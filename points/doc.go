// Package points correlates the same RoCE frames seen at several capture
// points (contract "Capture points", "Same traffic in several files").
//
// A RoCE frame's identity is (flow key, opcode, PSN, stored ICRC); its k-th
// occurrence at one point is its k-th at another. The ICRC masks TTL,
// DSCP/ECN and the checksums, so the identity survives every hop. Frames
// whose ICRC the capture cut off are matched on (flow, opcode, PSN) alone.
//
// # Streaming and the window
//
// Matcher.Observe takes the frames of every point in one time-ordered merge
// (each tagged with its point). It keeps only frames in flight: an identity
// (all its occurrences at all points) is resolved once its first occurrence
// is older than the window W of stream time (the newest timestamp observed):
// W = max(1 s, 100 x |p50| of the first 1024 matched delays). Resolving
// pairs the k-th occurrence at point i with the k-th at point j; an
// occurrence beyond the other point's count is unmatched. A replay later
// than W after the first occurrence starts a new identity at every point, so
// the k-th-to-k-th pairing is kept as long as both points see it on the same
// side of the boundary. Consequences: delays (clock offsets included) larger
// than W are not matched; memory is bounded by the identities created in the
// last W of capture time, never by the capture's length (TestMatcherMemory,
// TestMatcherWindowMemory).
//
// Most identities are resolved earlier: as soon as every point that has
// seen the identity's flow (two or more; the first 64 points) has seen it
// equally often, provided those are all the points or no other point joined
// the flow in the last W before the identity. Later occurrences (replays)
// then start a new identity at every point, which keeps the k-th-to-k-th
// pairing. So what stays in flight for a whole window is mostly the frames
// seen at one point only (lost, or missed upstream), and the memory of a
// two-point report is about that of two single reports.
//
// # Counting between the first and last matched frame
//
// Only frames between a hop's first and last matched frame (at each point,
// in that point's own time) count as lost / unseen upstream. Identities are
// resolved in the order of their first occurrence, so per hop and side the
// matcher keeps the unmatched frames resolved after the last match as
// pending and commits those not later than a match's time when that match is
// resolved; what is still pending at the end lies after the last match and
// is dropped. Unmatched frames before the first match are dropped too.
// Pending frames keep their details (for hop_loss events) up to MaxPending
// per hop and side; beyond that they are counted only.
//
// # Orientation and delays
//
// A hop is a pair of points (i < j in argument order) and a flow. d = time
// at j - time at i over matched frames; p50 by nearest rank (the
// ceil(n/2)-th smallest). from = i when p50 >= 0, else j (the delays are
// then negated). Delay percentiles are nearest-rank over exact values while
// a hop has at most 65536 distinct delays; beyond, the values are rounded
// down to multiples of 2^k ns (the smallest k that fits); min and max stay
// exact.
//
// # Same traffic in several files
//
// Shared counts, per pair of files, the frames whose identity occurs in both
// (min of the occurrence counts per identity) with a window of
// SharedWindowNs (100 ms) and the same early resolution, so that
// plain FILE arguments that are one traffic seen twice can be named. It keeps
// no per-hop state: memory is the frames in flight plus one counter per pair
// of files that share frames.
package points

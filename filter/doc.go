// Package filter is rocetrace's filter language: the subset of Wireshark's
// display-filter syntax of docs/interface.md ("Filters"), over a
// decode.Packet and a small per-frame context (Frame: the capture's name,
// the flow id, the events mask the flow table computed).
//
// Compile (display filters, -Y) and CompileRead (read filters, -R) lex,
// parse and type-check an expression once and compile it to closures;
// Filter.Match then allocates nothing per frame. A filter that does not
// compile is an *Error with the 1-based column of the offending token;
// Error.Format prints it as the command line does:
//
//	rocetrace: display filter: unknown field "ip.sr"
//	  ip.sr == 10.0.0.1
//	  ^
//
// Semantics (the contract's "Readings settled", and where it is silent):
//
//   - A comparison on a field the frame lacks is false, != included. A
//     field may have several values (ip.addr, ipv6.addr, eth.addr,
//     udp.port: both sides; vlan.id, vlan.priority: the outermost and the
//     second tag; pfc_quanta: its eight entries): ==, <, in and contains
//     are true when any value passes, and X != v is true when the field is
//     present and no value equals v.
//   - && binds tighter than ||; ! (not) tighter than both.
//   - Integers are unsigned, decimal or 0x hex; a set's lo..hi range is
//     inclusive (integers; IP addresses of one family; MACs: setrange.go).
//     Booleans compare with true/false and 1/0, with == and != only. Strings need "quotes" (escapes \" \\ \n \t \r
//     \xNN); ordering is bytewise. IP fields take an address or a CIDR
//     prefix (== and != only for a prefix); ip.* and ipv6.* take their
//     family only (another is a type error), src_ip/dst_ip either. MACs are
//     aa:bb:cc:dd:ee:ff (or with '-').
//   - events is a set of kind names ("psn_gap", ... EventNames): ==, !=,
//     in and contains (on the names) only, and an unknown kind is an error.
//     A read filter runs before the analysis, so CompileRead refuses
//     events; flow is computed from the frame's key (Frame.Flow) and allowed.
//   - A field present in packets --json is present here exactly when it is
//     not null there (the same conditions as decode.AppendJSON).
//   - Not supported: matches/~, slices, functions, field-to-field
//     comparisons, bitwise &, the === and ~= operators.
package filter

package flows

import "github.com/rocetrace/rocetrace/decode"

// Ring sizes: fixed arrays inside each Flow, so that Observe never allocates
// for a known flow.
const (
	recentRing  = 32 // recent request PSNs, for pairing by timing (the ring's largest size)
	recentStart = 4  // the recent ring's first size; it doubles while full, up to recentRing
	readRing    = 32 // recent RDMA READ requests, for response checks
	maxPorts    = 8  // distinct UDP source ports remembered per flow
)

// Flow is the state of one flow (see Key). Exported counters follow the
// contract's flow fields; callers treat a Flow as read-only.
type Flow struct {
	Key Key

	// The fields every frame of the flow reads or writes come first, next
	// to the key that the lookup loads: 160 bytes with it, so that a frame
	// touches three of the Flow's cache lines, not all five (with
	// thousands of flows they are misses). Flows lie 288 bytes apart, at 0
	// or 32 bytes past a line: 160 bytes span three lines either way.
	Packets      int64 // every BTH frame on the flow, CNPs included
	Bytes        int64 // sum of FrameLen (the inner frame for mirrored traffic)
	PayloadBytes int64 // RDMA payload from the length fields (CNPs carry none)
	FirstTsNs    int64
	LastTsNs     int64
	DataPackets  int64  // non-CNP frames
	DSCPMask     uint64 // bit d: a non-CNP frame had DSCP d
	PCPMask      uint16 // bit p: a non-CNP frame had outer VLAN PCP p; bit 8: untagged
	CNPPCPMask   uint16 // same, for CNP frames

	// Small unexported fields fill the rest of the masks' word and the
	// next one (the layout is for size: see below).
	pmtu      uint16 // PMTU learnt from this flow's First/Middle packets
	port0     uint16 // the first UDP source port (nPorts > 0)
	vlan      uint16 // the first non-CNP frame's VLAN tag, and whether a later one differed (vlan*)
	portsInfo uint8  // distinct source ports, more than maxPorts, transport (ports*)
	peerState uint8  // peerUnknown, peerPaired or peerPMTUKnown: the peer (cold.peer) without a load of cold
	req       reqState

	MaxPayload int // largest payload length of a non-CNP frame

	// The unexported fields hold what every flow needs, packed: 288
	// bytes in all for a flow that saw one packet (TestMemoryPerFlowAndEvent:
	// a hostile capture may hold millions of them). What only some flows
	// need (the peer, a second source port, CE marks, the request and READ
	// rings, replays, READ responses, pairing votes) is in cold, made on
	// first need; flags in req say whether to look there.
	cold *flowCold

	// Counters of rarer frames (and the rate windows' other counters).
	ECNCE        int64 // frames with ECN = 3 (CE)
	CNPs         int64 // CNPs carried by this flow
	CNPsReceived int64 // CNPs that named this flow as their target
	NotECT       int64 // non-CNP frames with ECN = 0

	PSNGaps       int64 // psn_gap events on this flow
	MissingPSNs   int64 // sum of their `missing`
	Retransmitted int64 // request packets inside replay episodes
	NAKs          int64 // NAK packets carried by this flow
	RNRNAKs       int64 // RNR NAK packets carried by this flow

	// Quality statistics used by analysis' findings (with DataPackets,
	// NotECT, DSCPMask and PCPMask above).
	ICRCBad      int64  // frames whose ICRC did not match
	CNPDSCPMask  uint64 // same as DSCPMask, for CNP frames
	MaxPayloadTs int64  // time of the frame that set MaxPayload

	id       string
	reqTs0   int64 // time of the first request (PSN reqFirst), before cold.recent
	reqFirst PSN   // first request PSN seen (req.init)
	index    int32
}

// reqState tracks the request PSN stream of a flow (cold holds the rest),
// and the flow's flags.
type reqState struct {
	next    PSN    // expected next request PSN = high-water mark + 1
	nRecent uint32 // requests recorded (recentAt); after 2^32 it wraps to recentRing

	init      bool // the flow sent a request (Flow.reqFirst, Flow.reqTs0: the first)
	pending   bool // next depends on a READ whose span is not known yet (cold.rare.pendingSeq)
	inReplay  bool // a replay episode is open (cold.rare.replay*)
	cePending bool // CE marks wait for a CNP since cold.rare.ceFirst (on the flow, not its requests)
}

// flowCold is the state of a flow made on first need (Flow.more): what a
// flow of a few packets needs (rate window, peer, recent requests, request
// memory, pairing effort, DCQCN window). 192 bytes: the size class lays
// every object on a cache-line boundary, so the lines below are the CPU's.
// What fewer flows need is in rare, made on first need in turn.
//
// The request memory's ring and counters (mem) are here, not behind the
// lat pointer: a request frame's chain of dependent loads is the Flow, its
// cold state, then the two ring slots it writes (each a cache miss with
// thousands of flows), one load less than through latState.
type flowCold struct {
	// Line 0: what a request frame writes through: the two rings' headers
	// and the memory's head and tail.

	// recent holds the latest requests, made at the second one with
	// recentStart entries and doubled each time it fills, up to recentRing
	// (a power of two long: request seq lives in slot seq&(len-1)). Most
	// flows send a few requests: 64 bytes instead of 512.
	recent []recentReq

	mem reqRing // the request memory (latency.go), from the flow's second request

	// Line 1: what every frame reads (rateEndB), the rest of a request
	// frame's state, and a response frame's: a response flow's frame
	// reads this line alone.

	// rateEndB is the end of the current rate window (rateState), biased
	// (bias) so that the zero value, no window yet, is below every time:
	// the hot path's test is one comparison.
	rateEndB uint64

	// ackHigh is the highest PSN an ACK-syndrome ACKNOWLEDGE on this flow
	// named (hasAck: there was one).
	ackHigh PSN
	// ackedTo is the highest PSN an ACK on the peer named (hasAcked: there
	// was one): the request memory's entries up to it are answered (done).
	ackedTo  PSN
	hasAck   bool
	hasAcked bool

	ccCount uint8 // request packets seen since ccPending's CNP (at most CNPRateWindow)

	// DCQCN rate windows (ccrate.go): the pending after-window of the
	// latest CNP that targets this flow.
	ccPending int // index in Table.events + 1 of that CNP; 0: none pending

	// lat holds the latency values and the replay stall figures, made
	// with the request memory.
	lat *latState

	peer *Flow // the reverse flow (peerState != peerUnknown)

	pairTries int64

	rare *flowRare // Flow.rare

	// Line 2: the rest of the current rate window, read when it closes.
	rate rateState // the current rate window, from the flow's second frame (rates.go)
}

// flowRare is the part of a flow's cold state that only some flows need:
// a second source port, CE marks, READ requests, replays, READ responses,
// ambiguous pairing votes (Flow.rare). 128 bytes.
type flowRare struct {
	ports   [maxPorts]uint16 // source ports, port0 first, once there are two
	ceFirst int64            // first CE-marked frame since the previous matched CNP

	// reads is made at the flow's first READ request: most flows never
	// send one, and the ring is 1 KiB. A slice, not a pointer to an array:
	// storing into a new array through a pointer costs a nil check that
	// reads it first, and a read of a page the process never wrote maps the
	// shared zero page, which the store then replaces at the price of a TLB
	// shootdown of the other core (an interrupt of both pipeline goroutines).
	reads      []readReq
	nReads     uint64 // READ requests recorded so far (sequence numbers 0..nReads-1)
	pendingSeq uint64 // the READ whose span is pending (reqState.pending)

	replayPSN     PSN
	replayCursor  PSN
	replayTs      int64
	replayPackets int64

	resp respState

	pairVote  *Flow
	pairVotes int
}

// more returns f's cold state, made on first need.
func (f *Flow) more() *flowCold {
	if f.cold == nil {
		f.cold = new(flowCold)
	}
	return f.cold
}

// rare returns f's rare state, made on first need (with the cold state).
func (f *Flow) rare() *flowRare {
	c := f.more()
	if c.rare == nil {
		c.rare = new(flowRare)
	}
	return c.rare
}

// rareOrNil returns f's rare state, or nil when it has none.
func (f *Flow) rareOrNil() *flowRare {
	if f.cold == nil {
		return nil
	}
	return f.cold.rare
}

type recentReq struct {
	psn  PSN
	wire uint32 // FrameLen (0 for the flow's first request: see ccrate.go)
	ts   int64
}

type readReq struct {
	psn    PSN
	dmaLen uint32
	hasLen bool  // RETH was whole
	span   int64 // PSNs used, learnt from a READ Response Last/Only; 0 unknown
	ts     int64
}

// respState tracks the READ Response PSN stream of a flow (checked against the
// peer's READ requests).
type respState struct {
	init bool
	cur  uint64 // sequence number (in the peer's READ ring) being answered
	next PSN    // expected next response PSN
}

// ID returns the flow id (Key.String, computed once).
func (f *Flow) ID() string { return f.id }

// Index returns the flow's position in first-seen order (0-based).
func (f *Flow) Index() int { return int(f.index) }

// Peer returns the reverse flow of the same QP pair, or nil when unknown.
func (f *Flow) Peer() *Flow {
	if f.cold == nil {
		return nil
	}
	return f.cold.peer
}

// paired reports whether the flow's peer is known.
func (f *Flow) paired() bool { return f.peerState != peerUnknown }

// Flow.peerState values. peerPMTUKnown: paired, and the peer's pmtu is
// not 0 (both never change after).
const (
	peerUnknown uint8 = iota
	peerPaired
	peerPMTUKnown
)

// Transport returns "RC", "UC", "UD", "XRC" (or "RD") from the first non-CNP
// frame, and "CNP" when the flow carried nothing but CNPs.
func (f *Flow) Transport() string {
	if f.DataPackets == 0 {
		return "CNP"
	}
	return decode.Transport(f.portsInfo >> portsTransportShift).String()
}

// Flow.portsInfo: the number of distinct source ports (0..maxPorts),
// whether there were more, and the transport of the first non-CNP frame,
// in one byte.
const (
	portsCount          = 0x0F
	portsMore           = 0x10
	portsTransportShift = 5
)

// nPorts is the number of distinct source ports remembered.
func (f *Flow) nPorts() uint8 { return f.portsInfo & portsCount }

// portsExtra reports whether there were more than maxPorts source ports.
func (f *Flow) portsExtra() bool { return f.portsInfo&portsMore != 0 }

// PMTU returns the path MTU learnt from this flow's or its peer's First and
// Middle packets, or 0. See Table.PMTUFor for the value analysis uses.
func (f *Flow) PMTU() int {
	if f.pmtu != 0 {
		return int(f.pmtu)
	}
	if q := f.Peer(); q != nil {
		return int(q.pmtu)
	}
	return 0
}

// SrcPorts returns the distinct UDP source ports of the flow's non-CNP frames
// (at most 8) and whether there were more. It allocates only for a flow of
// one port (see NumSrcPorts).
func (f *Flow) SrcPorts() ([]uint16, bool) {
	switch f.nPorts() {
	case 0:
		return nil, f.portsExtra()
	case 1:
		return []uint16{f.port0}, f.portsExtra()
	}
	return f.cold.rare.ports[:f.nPorts()], f.portsExtra()
}

// NumSrcPorts returns len(SrcPorts()) and whether there were more, without
// allocating.
func (f *Flow) NumSrcPorts() (int, bool) { return int(f.nPorts()), f.portsExtra() }

// FirstSrcPort returns the UDP source port of the flow's first non-CNP
// frame, and false when it had none (a flow of CNPs only). RoCEv1 frames
// have no UDP header: their port is 0.
func (f *Flow) FirstSrcPort() (uint16, bool) { return f.port0, f.nPorts() > 0 }

// Flow.vlan: the VLAN id and PCP of the first non-CNP frame's outermost
// tag (vlanUntagged: none), or of the first CNP while the flow has only
// CNPs, and vlanMixed when a later frame (of the same kind) had another id
// or PCP, or was tagged differently.
const (
	vlanID       = 0x0FFF
	vlanPCPShift = 12
	vlanUntagged = vlanID // VID 4095 is reserved (802.1Q): never on the wire
	vlanValue    = 0x7FFF
	vlanMixed    = 0x8000
)

// VLAN is the outermost VLAN tag of a flow's first non-CNP frame (of its
// first CNP for a flow of CNPs only), and whether later frames differed.
type VLAN struct {
	Tagged bool   // false: the first frame had no VLAN tag (ID and PCP are 0)
	ID     uint16 // VLAN id
	PCP    uint8  // priority code point
	Mixed  bool   // a later frame had another id or PCP, or was tagged differently
}

// VLAN returns the flow's VLAN tag (see VLAN). The DSCPs of its frames are
// DSCPMask and CNPDSCPMask.
func (f *Flow) VLAN() VLAN {
	v := VLAN{Mixed: f.vlan&vlanMixed != 0}
	if f.vlan&vlanID != vlanUntagged {
		v.Tagged, v.ID, v.PCP = true, f.vlan&vlanID, uint8(f.vlan>>vlanPCPShift&7)
	}
	return v
}

// setVLAN records a frame's VLAN tag v (its id and PCP, vlanUntagged:
// none): the first, else whether it differs from the first (first: this
// frame replaces what was recorded).
func (f *Flow) setVLAN(v uint16, first bool) {
	switch {
	case first:
		f.vlan = v
	case (f.vlan^v)&vlanValue != 0:
		f.vlan |= vlanMixed
	}
}

// CEPending reports whether CE-marked frames arrived after the last CNP that
// matched this flow (or with none at all), and the first one's time.
func (f *Flow) CEPending() (bool, int64) {
	if !f.req.cePending {
		return false, 0
	}
	return true, f.cold.rare.ceFirst
}

// account adds a frame to the flow's counters. The packet's fields are
// read once into locals: each store to the flow would otherwise make the
// compiler load them again (f and p might alias).
func (f *Flow) account(p *decode.Packet, isCNP bool) {
	ts, n := p.TsNs, f.Packets
	if n == 0 || ts < f.FirstTsNs {
		f.FirstTsNs = ts
	}
	if n == 0 || ts > f.LastTsNs {
		f.LastTsNs = ts
	}
	f.Packets = n + 1
	f.Bytes += int64(p.FrameLen)
	tagged, vpcp, ecn := p.VLANCount > 0, p.VLANPCP&7, p.ECN
	pcp := uint16(1) << 8
	v := uint16(vlanUntagged) // the tag, for setVLAN
	if tagged {
		pcp = 1 << vpcp
		v = p.VLANID&vlanID | uint16(vpcp)<<vlanPCPShift
	}
	dscp := uint64(1) << (p.DSCP & 63)
	if p.ICRCStatus == decode.ICRCBad {
		f.ICRCBad++
	}
	if isCNP {
		if ecn == 3 {
			f.ECNCE++
		}
		f.CNPDSCPMask |= dscp
		f.CNPPCPMask |= pcp
		if f.DataPackets == 0 {
			f.setVLAN(v, n == 0)
		}
		return
	}
	data := f.DataPackets
	f.setVLAN(v, data == 0)
	if data == 0 {
		f.portsInfo = f.portsInfo&^(7<<portsTransportShift) | uint8(p.BTH.Opcode.Transport())<<portsTransportShift
	}
	f.DataPackets = data + 1
	f.DSCPMask |= dscp
	f.PCPMask |= pcp
	switch ecn {
	case 0:
		f.NotECT++
	case 3:
		f.ECNCE++
		if !f.req.cePending {
			f.req.cePending = true
			f.rare().ceFirst = ts
		}
	}
	if p.HasPayloadLen {
		pl := p.PayloadLen
		f.PayloadBytes += int64(pl)
		if pl > f.MaxPayload {
			f.MaxPayload = pl
			f.MaxPayloadTs = ts
		}
	}
	// Last: nothing of the above is live across addPort's call.
	if port := p.SrcPort; f.nPorts() == 0 || f.port0 != port { // the usual case, the first port again, needs no call
		f.addPort(port)
	}
}

// addPort records a UDP source port of f that is not its first one
// (account tests that): the first, the other distinct ones up to maxPorts
// in rare, and portsMore past them.
func (f *Flow) addPort(port uint16) {
	n := f.nPorts()
	if n == 0 {
		f.port0 = port
		f.portsInfo++
		return
	}
	c := f.rare()
	c.ports[0] = f.port0
	for i := uint8(1); i < n; i++ {
		if c.ports[i] == port {
			return
		}
	}
	if n < maxPorts {
		c.ports[n] = port
		f.portsInfo++
		return
	}
	f.portsInfo |= portsMore
}

// read returns the READ request with sequence number seq, or nil when it
// has left the ring.
func (f *Flow) read(seq uint64) *readReq {
	c := f.rareOrNil()
	if c == nil || seq >= c.nReads || c.nReads-seq > readRing {
		return nil
	}
	return &c.reads[seq%readRing]
}

// nReads returns the number of READ requests recorded.
func (f *Flow) nReads() uint64 {
	if c := f.rareOrNil(); c != nil {
		return c.nReads
	}
	return 0
}

func (f *Flow) addRead(psn PSN, dmaLen uint32, hasLen bool, ts int64) uint64 {
	c := f.rare()
	if c.reads == nil {
		c.reads = make([]readReq, readRing)
	}
	seq := c.nReads
	c.reads[seq%readRing] = readReq{psn: psn, dmaLen: dmaLen, hasLen: hasLen, ts: ts}
	c.nReads++
	return seq
}

// addRecent records a request (wire: its FrameLen); the first needs no ring
// (its PSN is reqFirst; its length is never needed: it can only be packet 1
// of a rate window, whose bytes do not count). The ring grows while full
// and smaller than recentRing: it fills exactly when nRecent reaches its
// size, when request seq sits in slot seq, so the copy keeps every slot.
func (f *Flow) addRecent(psn PSN, ts int64, wire int) {
	r := &f.req
	if r.nRecent == 0 {
		f.reqTs0 = ts
		r.nRecent = 1
		return
	}
	c := f.more()
	if n := len(c.recent); n < recentRing && uint32(n) <= r.nRecent {
		f.growRecent() // once the ring is whole, one comparison
	}
	c.recent[r.nRecent&uint32(len(c.recent)-1)] = recentReq{psn: psn, wire: uint32(wire), ts: ts}
	r.nRecent++
	if r.nRecent == 0 { // wrapped: stay above the ring's size, same slot
		r.nRecent = recentRing
	}
}

// growRecent makes the recent ring (recentStart entries, the first request
// in slot 0) or doubles it; it is full then: nRecent equals its size.
func (f *Flow) growRecent() {
	c := f.cold
	n := len(c.recent)
	if n == 0 {
		c.recent = make([]recentReq, recentStart)
		c.recent[0] = recentReq{psn: f.reqFirst, ts: f.reqTs0}
		return
	}
	g := make([]recentReq, 2*n)
	copy(g, c.recent)
	c.recent = g
}

// recentAt returns the i-th most recent request (0: the latest), for i <
// min(nRecent, recentRing).
func (f *Flow) recentAt(i uint32) recentReq {
	if f.cold == nil || f.cold.recent == nil {
		return recentReq{psn: f.reqFirst, ts: f.reqTs0}
	}
	return f.cold.recent[(f.req.nRecent-1-i)&uint32(len(f.cold.recent)-1)]
}

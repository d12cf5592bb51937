package flows

import "github.com/rocetrace/rocetrace/decode"

// Ring sizes: fixed arrays inside each Flow, so that Observe never allocates
// for a known flow.
const (
	recentRing = 32 // recent request PSNs, for pairing by timing
	readRing   = 32 // recent RDMA READ requests, for response checks
	maxPorts   = 8  // distinct UDP source ports remembered per flow
)

// Flow is the state of one flow (see Key). Exported counters follow the
// contract's flow fields; callers treat a Flow as read-only.
type Flow struct {
	Key Key

	Packets      int64 // every BTH frame on the flow, CNPs included
	Bytes        int64 // sum of FrameLen (the inner frame for mirrored traffic)
	PayloadBytes int64 // RDMA payload from the length fields (CNPs carry none)
	FirstTsNs    int64
	LastTsNs     int64

	PSNGaps       int64 // psn_gap events on this flow
	MissingPSNs   int64 // sum of their `missing`
	Retransmitted int64 // request packets inside replay episodes
	NAKs          int64 // NAK packets carried by this flow
	RNRNAKs       int64 // RNR NAK packets carried by this flow
	ECNCE         int64 // frames with ECN = 3 (CE)
	CNPs          int64 // CNPs carried by this flow
	CNPsReceived  int64 // CNPs that named this flow as their target

	// Quality statistics used by analysis' findings.
	DataPackets  int64  // non-CNP frames
	NotECT       int64  // non-CNP frames with ECN = 0
	ICRCBad      int64  // frames whose ICRC did not match
	DSCPMask     uint64 // bit d: a non-CNP frame had DSCP d
	PCPMask      uint16 // bit p: a non-CNP frame had outer VLAN PCP p; bit 8: untagged
	CNPDSCPMask  uint64 // same, for CNP frames
	CNPPCPMask   uint16 // same, for CNP frames
	MaxPayload   int    // largest payload length of a non-CNP frame
	MaxPayloadTs int64  // time of the frame that set MaxPayload

	// The unexported fields are laid out for the cache: those most frames
	// touch fill the rest of the line of MaxPayload and the next one, and
	// the request state starts on the line after (at byte 320), with its
	// scalars in one line and its rings behind. Flow structs are 2 KiB
	// apart, so with thousands of flows each line touched is a cache miss.
	peer       *Flow
	pmtu       int // PMTU learnt from this flow's First/Middle packets
	ports      [maxPorts]uint16
	nPorts     int
	ce         ceState
	transport  decode.Transport
	portsExtra bool // more than maxPorts distinct source ports
	peerPMTU   bool // peer != nil and peer.pmtu != 0 (both never change after)
	index      int
	pairVotes  int

	req reqState

	resp respState

	id        string
	pairTries int64
	pairVote  *Flow

	// Finish-time scratch.
	nakTs []int64
}

// reqState tracks the request PSN stream of a flow.
type reqState struct {
	init  bool
	first PSN // first request PSN seen
	next  PSN // expected next request PSN = high-water mark + 1

	pending    bool   // next depends on a READ whose span is not known yet
	pendingSeq uint64 // that READ's sequence number

	inReplay      bool
	replayPSN     PSN
	replayTs      int64
	replayPackets int64
	replayCursor  PSN

	nRecent uint64
	nReads  uint64 // READ requests recorded so far (sequence numbers 0..nReads-1)

	recent [recentRing]recentReq
	// reads is made at the flow's first READ request: most flows never
	// send one, and the ring is 1 KiB (half a flow's size otherwise).
	reads *[readRing]readReq
}

type recentReq struct {
	psn PSN
	ts  int64
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

// ceState tracks CE marks waiting for a CNP.
type ceState struct {
	pending bool
	first   int64 // first CE-marked frame since the previous matched CNP
}

// ID returns the flow id (Key.String, computed once).
func (f *Flow) ID() string { return f.id }

// Index returns the flow's position in first-seen order (0-based).
func (f *Flow) Index() int { return f.index }

// Peer returns the reverse flow of the same QP pair, or nil when unknown.
func (f *Flow) Peer() *Flow { return f.peer }

// Transport returns "RC", "UC", "UD", "XRC" (or "RD") from the first non-CNP
// frame, and "CNP" when the flow carried nothing but CNPs.
func (f *Flow) Transport() string {
	if f.DataPackets == 0 {
		return "CNP"
	}
	return f.transport.String()
}

// PMTU returns the path MTU learnt from this flow's or its peer's First and
// Middle packets, or 0. See Table.PMTUFor for the value analysis uses.
func (f *Flow) PMTU() int {
	if f.pmtu != 0 {
		return f.pmtu
	}
	if f.peer != nil {
		return f.peer.pmtu
	}
	return 0
}

// SrcPorts returns the distinct UDP source ports of the flow's non-CNP frames
// (at most 8) and whether there were more.
func (f *Flow) SrcPorts() ([]uint16, bool) {
	return f.ports[:f.nPorts], f.portsExtra
}

// CEPending reports whether CE-marked frames arrived after the last CNP that
// matched this flow (or with none at all), and the first one's time.
func (f *Flow) CEPending() (bool, int64) { return f.ce.pending, f.ce.first }

// account adds a frame to the flow's counters.
func (f *Flow) account(p *decode.Packet, isCNP bool) {
	if f.Packets == 0 || p.TsNs < f.FirstTsNs {
		f.FirstTsNs = p.TsNs
	}
	if f.Packets == 0 || p.TsNs > f.LastTsNs {
		f.LastTsNs = p.TsNs
	}
	f.Packets++
	f.Bytes += int64(p.FrameLen)
	pcp := uint16(1) << 8
	if p.VLANCount > 0 {
		pcp = 1 << (p.VLANPCP & 7)
	}
	dscp := uint64(1) << (p.DSCP & 63)
	if p.ECN == 3 {
		f.ECNCE++
	}
	if p.ICRCStatus == decode.ICRCBad {
		f.ICRCBad++
	}
	if isCNP {
		f.CNPDSCPMask |= dscp
		f.CNPPCPMask |= pcp
		return
	}
	if f.DataPackets == 0 {
		f.transport = p.BTH.Opcode.Transport()
	}
	f.DataPackets++
	f.addPort(p.SrcPort)
	f.DSCPMask |= dscp
	f.PCPMask |= pcp
	if p.ECN == 0 {
		f.NotECT++
	}
	if p.ECN == 3 && !f.ce.pending {
		f.ce.pending = true
		f.ce.first = p.TsNs
	}
	if p.HasPayloadLen {
		f.PayloadBytes += int64(p.PayloadLen)
		if p.PayloadLen > f.MaxPayload {
			f.MaxPayload = p.PayloadLen
			f.MaxPayloadTs = p.TsNs
		}
	}
}

func (f *Flow) addPort(port uint16) {
	for i := 0; i < f.nPorts; i++ {
		if f.ports[i] == port {
			return
		}
	}
	if f.nPorts < maxPorts {
		f.ports[f.nPorts] = port
		f.nPorts++
		return
	}
	f.portsExtra = true
}

// read returns the READ request with sequence number seq, or nil when it
// has left the ring.
func (r *reqState) read(seq uint64) *readReq {
	if seq >= r.nReads || r.nReads-seq > readRing {
		return nil
	}
	return &r.reads[seq%readRing]
}

func (r *reqState) addRead(psn PSN, dmaLen uint32, hasLen bool, ts int64) uint64 {
	if r.reads == nil {
		r.reads = new([readRing]readReq)
	}
	seq := r.nReads
	r.reads[seq%readRing] = readReq{psn: psn, dmaLen: dmaLen, hasLen: hasLen, ts: ts}
	r.nReads++
	return seq
}

func (r *reqState) addRecent(psn PSN, ts int64) {
	r.recent[r.nRecent%recentRing] = recentReq{psn: psn, ts: ts}
	r.nRecent++
}

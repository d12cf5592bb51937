package flows

import (
	"cmp"
	"slices"

	"github.com/rocetrace/rocetrace/decode"
)

// Config configures a Table.
type Config struct {
	PMTU         int   // 256, 512, 1024, 2048 or 4096; 0 = infer from the capture
	LinkSpeedBps int64 // link speed in bits per second for PFC quanta; 0 = 100 Gb/s
	// MaxFlows bounds the flow table: a frame that would start a flow
	// beyond it starts none and is counted in FlowsDropped. 0 means
	// DefaultMaxFlows; a negative value, no limit.
	MaxFlows int
	// LatencySink, when not nil, receives every latency sample as it is
	// taken (export writes latency.parquet from it). The table keeps only
	// the values (Flow.Latencies).
	LatencySink func(LatencySample)
	// Bin is the rate window W in ns (peak rate, RateSink); 0 means
	// DefaultBinNs.
	Bin int64
	// RateSink, when not nil, receives every flow's non-empty rate windows
	// (RateWindow) as they close: during Observe when a later window's
	// frame arrives, and at Finish each flow's last one. It must not keep
	// the window's Flow beyond the table's life, nor call the table.
	RateSink func(RateWindow)
}

// DefaultMaxFlows is the flow limit used when Config.MaxFlows is 0.
const DefaultMaxFlows = 2_000_000

// DefaultLinkSpeedBps is the link speed used when Config.LinkSpeedBps is 0.
const DefaultLinkSpeedBps int64 = 100_000_000_000

// Table holds every flow, event and PFC state of one analysis. It is used
// from a single goroutine: Observe each frame in capture order, then Finish.
type Table struct {
	cfg   Config
	bps   int64
	flows flowIndex // every flow by key
	order []*Flow
	hosts map[uint64]*hostGroup // by hostPair.hash: every flow, grouped by its addresses

	events eventStore

	pfc      map[PFCKey]*PFCStat
	pfcOrder []*PFCStat

	pmtu     int // configured, or the first PMTU the capture revealed
	finished bool

	maxFlows int   // flows beyond this start none (negative: no limit)
	dropped  int64 // frames of flows beyond maxFlows

	cmReqs  map[cmKey]cmReq // CM REQs seen, by requester and communication ID
	cmPairs map[Key]Key     // flows paired by a CM REQ/REP, both ways

	frameEvents EventMask // the events the frame being observed shows (FrameEvents)
	frameStart  int       // len(events) before the frame being observed (FrameEventList)
	frameBuf    []Event   // FrameEventList's copy when the frame's events straddle two chunks
}

type hostGroup struct {
	flows []*Flow
}

// NewTable returns an empty table.
func NewTable(cfg Config) *Table {
	t := &Table{
		cfg:   cfg,
		bps:   cfg.LinkSpeedBps,
		flows: newFlowIndex(0),
		hosts: make(map[uint64]*hostGroup),
		pfc:   make(map[PFCKey]*PFCStat),
		pmtu:  cfg.PMTU,

		maxFlows: cfg.MaxFlows,
	}
	if t.cfg.Bin <= 0 {
		t.cfg.Bin = DefaultBinNs // Config and Clone see the window in force
	}
	if t.bps <= 0 {
		t.bps = DefaultLinkSpeedBps
	}
	if t.maxFlows == 0 {
		t.maxFlows = DefaultMaxFlows
	}
	return t
}

// Config returns the table's configuration.
func (t *Table) Config() Config { return t.cfg }

// LinkSpeedBps returns the link speed used for PFC quanta.
func (t *Table) LinkSpeedBps() int64 { return t.bps }

// PMTU returns the configured PMTU, else the first one the capture revealed
// (a First or Middle packet's payload length), else 0.
func (t *Table) PMTU() int { return t.pmtu }

// PMTUFor returns the PMTU that applies to f: the configured one, else the
// one learnt on f or its peer, else the capture-wide one, else 0 (unknown).
func (t *Table) PMTUFor(f *Flow) int {
	if t.cfg.PMTU > 0 {
		return t.cfg.PMTU
	}
	if m := f.PMTU(); m > 0 {
		return m
	}
	return t.pmtu
}

// Flows returns the flows in first-seen order. The slice and the flows are
// owned by the table; callers treat them as read-only.
func (t *Table) Flows() []*Flow { return t.order }

// Flow returns the flow with key k, or nil.
func (t *Table) Flow(k Key) *Flow { return t.flows.get(&k) }

// FlowOf returns the flow a decoded frame belongs to, or nil.
func (t *Table) FlowOf(p *decode.Packet) *Flow {
	dst, src, ud, hasSrc, ok := keyParts(p)
	if !ok {
		return nil
	}
	return t.flows.getPacket(p, 0, dst, src, ud, hasSrc)
}

// MaxFlows returns the flow limit in force (Config.MaxFlows, DefaultMaxFlows
// for 0; negative: none).
func (t *Table) MaxFlows() int { return t.maxFlows }

// FlowsDropped returns the number of frames that belonged to no flow of the
// table because they would have started a flow beyond Config.MaxFlows.
func (t *Table) FlowsDropped() int64 { return t.dropped }

// Events returns the events. After Finish they are sorted by time, then flow
// (first-seen order; pause events, which have no flow, after flow events),
// then kind, then the order they were found in.
//
// Events returns a copy: NumEvents and Event read them without copying.
func (t *Table) Events() []Event {
	out := make([]Event, t.events.len())
	for i := range out {
		out[i] = *t.events.at(i)
	}
	return out
}

// NumEvents returns the number of events.
func (t *Table) NumEvents() int { return t.events.len() }

// Event returns the i-th event (0 <= i < NumEvents), in the order Events
// gives; the event is the table's (read it, do not change it).
func (t *Table) Event(i int) *Event { return t.events.at(i) }

// PFC returns the PFC/PAUSE state per (source MAC, priority), sorted by MAC
// then priority (802.3x, priority -1, first).
func (t *Table) PFC() []*PFCStat { return t.pfcOrder }

// Observe adds one decoded frame. It does not allocate for frames of a known
// flow or PFC key unless the frame produces an event.
func (t *Table) Observe(p *decode.Packet) { t.ObserveFlow(p) }

// ObserveFlow is Observe, and returns the flow the frame belongs to (what
// FlowOf returns after it, without a second lookup), or nil for a frame of
// no flow: a malformed frame (p.Malformed) changes nothing, and a frame of
// a flow beyond Config.MaxFlows starts none (FlowsDropped counts it).
func (t *Table) ObserveFlow(p *decode.Packet) *Flow { return t.ObserveFlowHash(p, 0) }

// ObserveFlowHash is ObserveFlow for a frame whose FlowHash is h, computed
// beforehand (0: not computed). h must be FlowHash(p) or 0.
func (t *Table) ObserveFlowHash(p *decode.Packet, h uint64) *Flow {
	t.frameEvents, t.frameStart = 0, t.events.len()
	if p.Malformed {
		return nil
	}
	switch p.Kind {
	case decode.KindPFC:
		t.observePFC(p)
		return nil
	case decode.KindPause:
		t.observePause(p)
		return nil
	case decode.KindRoCE, decode.KindCNP:
	default:
		return nil
	}
	dst, src, ud, hasSrc, ok := keyParts(p)
	if !ok {
		return nil
	}
	if h == 0 {
		h = hashParts(&p.SrcIP, &p.DstIP, dst, src)
	}
	f := t.flows.getHashed(p, h, dst, src, ud, hasSrc)
	if f == nil {
		if t.maxFlows >= 0 && t.flows.len() >= t.maxFlows {
			t.dropped++
			return nil
		}
		k, _ := KeyOf(p)
		f = t.newFlow(k)
	}
	t.observeFlow(f, p)
	return f
}

// observeFlow is Observe for a RoCE or CNP frame of flow f.
func (t *Table) observeFlow(f *Flow, p *decode.Packet) {
	op := p.BTH.Opcode
	isCNP := p.Kind == decode.KindCNP || op == decode.OpcodeCNP
	if c := f.cold; c == nil || bias(p.TsNs) >= c.rateEndB { // rateTick, inlined by hand
		t.rateMove(f, p.TsNs)
	}
	f.account(p, isCNP)
	if p.CM.Attr != 0 {
		t.observeCM(p)
	}
	if isCNP {
		t.observeCNP(f, p)
		return
	}
	if t.pmtuToLearn(f) {
		t.learnPMTU(f, p)
	}
	switch opClasses[op] {
	case opAck:
		t.observeAck(f, p)
	case opReadResponse:
		t.observeReadResponse(f, p)
	case opRequest:
		t.observeRequest(f, p)
	}
}

// Opcode classes for observeFlow's dispatch (opClasses).
const (
	opOther        uint8 = iota
	opAck                // Opcode.IsAck
	opReadResponse       // Opcode.IsReadResponse
	opRequest            // Opcode.IsRequest
)

// opClasses is the class of each opcode, computed once from the Opcode
// methods (which exclude one another): one load instead of their tests on
// every frame. Never written after.
var opClasses = func() (c [256]uint8) {
	for i := range c {
		switch op := decode.Opcode(i); {
		case op.IsAck():
			c[i] = opAck
		case op.IsReadResponse():
			c[i] = opReadResponse
		case op.IsRequest():
			c[i] = opRequest
		}
	}
	return c
}()

func (t *Table) newFlow(k Key) *Flow {
	f := &Flow{Key: k, id: k.String(), index: int32(len(t.order))}
	t.flows.add(f)
	t.order = append(t.order, f)
	hp := hostPair{k.Src, k.Dst}.hash()
	g := t.hosts[hp]
	if g == nil {
		g = &hostGroup{}
		t.hosts[hp] = g
	}
	g.flows = append(g.flows, f)
	if other, ok := t.cmPairs[k]; ok {
		t.cmLink(k, other)
	}
	return f
}

// validPMTU reports whether n is one of the five IB path MTUs.
func validPMTU(n int) bool {
	return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096
}

// pmtuToLearn reports whether a frame of f may still teach a PMTU: f's,
// its peer's or the table's is not known yet. Once all are (the usual
// case), observeFlow skips learnPMTU's tests.
func (t *Table) pmtuToLearn(f *Flow) bool {
	return f.pmtu == 0 || f.peerState == peerPaired || t.pmtu == 0
}

// learnPMTU infers the PMTU from a First or Middle packet's payload length
// (called while pmtuToLearn).
func (t *Table) learnPMTU(f *Flow, p *decode.Packet) {
	if t.cfg.PMTU > 0 || !p.HasPayloadLen || p.Malformed || !validPMTU(p.PayloadLen) {
		return
	}
	op := p.BTH.Opcode
	switch op.Transport() {
	case decode.TransportRC, decode.TransportUC, decode.TransportXRC:
	default:
		return
	}
	switch op.Operation() {
	case decode.OpSendFirst, decode.OpSendMiddle, decode.OpWriteFirst, decode.OpWriteMiddle,
		decode.OpReadResponseFirst, decode.OpReadResponseMiddle:
	default:
		return
	}
	if f.pmtu == 0 {
		f.pmtu = uint16(p.PayloadLen)
	}
	if f.peerState == peerPaired { // peerPMTUKnown: skip loading the peer's state
		if q := f.cold.peer; q.pmtu == 0 {
			q.pmtu = uint16(p.PayloadLen)
		}
		f.peerState = peerPMTUKnown
	}
	if t.pmtu == 0 {
		t.pmtu = p.PayloadLen
	}
}

func (t *Table) emit(e Event) {
	if e.Kind != EventRetransmission && e.Kind != EventPause {
		// shown by the frame being observed (retransmission and pause: by
		// the frame that started the episode, see FrameEvents)
		t.markFrame(e.Kind)
	}
	t.events.add(e)
}

// observeAck handles Acknowledge and ATOMIC Acknowledge frames: pairing
// evidence, NAK and RNR NAK events.
func (t *Table) observeAck(f *Flow, p *decode.Packet) {
	psn := PSN(p.BTH.PSN & psnMask)
	hasAETH := p.Ext&decode.ExtAETH != 0
	kind := decode.SyndromeACK
	if hasAETH {
		kind = p.AETH.Syndrome.Kind()
	}
	if !f.paired() && !f.Key.UD { // tryPair's first test written out: a paired flow's ACKs skip the call
		if hasAETH && (kind == decode.SyndromeNAK || kind == decode.SyndromeRNRNAK) {
			t.tryPair(f, psn, p.TsNs, matchNAK)
		} else {
			t.tryPair(f, psn, p.TsNs, matchACK)
		}
	}
	switch op := p.BTH.Opcode.Operation(); {
	case op == decode.OpAtomicAcknowledge:
		t.latencyAtomicAck(f, psn, p.TsNs)
	case hasAETH && kind == decode.SyndromeACK:
		t.latencyAck(f, psn, p.TsNs)
	}
	if !hasAETH {
		return
	}
	code := p.AETH.Syndrome.Value()
	switch kind {
	case decode.SyndromeNAK:
		f.NAKs++
		t.emit(nakEvent(EventNAK, p.TsNs, f, psn, code, 0))
	case decode.SyndromeRNRNAK:
		f.RNRNAKs++
		t.emit(nakEvent(EventRNRNAK, p.TsNs, f, psn, code, decode.RNRTimerNs(code)))
	case decode.SyndromeACK, decode.SyndromeReserved:
	}
}

// Finish ends the input: it closes open replay episodes and PFC episodes
// (the capture's end does not cut them), sorts the events and resolves the
// fields that depend on the final pairing (NAK targets, after_nak_ns).
// Calling it again does nothing; Observe must not be called after it.
func (t *Table) Finish() {
	if t.finished {
		return
	}
	t.finished = true
	for _, f := range t.order {
		if f.req.inReplay {
			t.endReplay(f)
		}
	}
	t.finishPFC()
	t.finishRates()
	t.events.sortStable()
	t.resolveEvents()
}

func flowOrder(f *Flow) int {
	if f == nil {
		return int(^uint(0) >> 1)
	}
	return int(f.index)
}

func compareEvents(a, b *Event) int {
	if c := cmp.Compare(a.TsNs, b.TsNs); c != 0 {
		return c
	}
	if c := cmp.Compare(flowOrder(a.Flow), flowOrder(b.Flow)); c != 0 {
		return c
	}
	return cmp.Compare(a.Kind, b.Kind)
}

// resolveEvents fills NAK targets from the final pairing and computes
// after_nak_ns for retransmissions. Events must be sorted.
func (t *Table) resolveEvents() {
	// nakTs[flow]: the times of the flow's NAKs and RNR NAKs, ascending.
	nakTs := make(map[*Flow][]int64)
	for i := range t.events.len() {
		e := t.events.at(i)
		switch e.Kind {
		case EventNAK, EventRNRNAK:
			e.Target = e.Flow.Peer()
			nakTs[e.Flow] = append(nakTs[e.Flow], e.TsNs)
		}
	}
	// lastReplay[flow index] = start of the previous replay episode + 1 (0: none).
	lastReplay := make(map[*Flow]int64)
	for i := range t.events.len() {
		e := t.events.at(i)
		if e.Kind != EventRetransmission {
			continue
		}
		prev, hadPrev := lastReplay[e.Flow]
		lastReplay[e.Flow] = e.TsNs
		peer := e.Flow.Peer()
		naks := nakTs[peer] // nil for a nil peer
		if len(naks) == 0 {
			continue
		}
		// Latest NAK with ts <= replay ts.
		j, _ := slices.BinarySearch(naks, e.TsNs+1)
		if j == 0 {
			continue
		}
		nak := naks[j-1]
		if hadPrev && nak <= prev {
			continue // that NAK was answered by the previous replay
		}
		e.setAfterNAK(e.TsNs - nak)
	}
}

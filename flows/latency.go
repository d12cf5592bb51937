package flows

import (
	"slices"

	"github.com/rocetrace/rocetrace/decode"
)

// LatencyKind is the kind of a response-latency sample (contract "Response
// latency, throughput and stalls").
type LatencyKind uint8

// Latency sample kinds.
const (
	LatencyAck       LatencyKind = iota // ACK for a SEND / RDMA WRITE packet
	LatencyRead                         // READ Request -> first READ Response Last/Only in its range
	LatencyReadFirst                    // READ Request -> first READ Response First/Only with its PSN
	LatencyAtomic                       // CMP_SWAP / FETCH_ADD -> first ATOMIC ACKNOWLEDGE with its PSN
	NumLatencyKinds                     // the number of kinds
)

// String returns the contract name: "ack", "read", "read_first" or "atomic".
func (k LatencyKind) String() string {
	switch k {
	case LatencyAck:
		return "ack"
	case LatencyRead:
		return "read"
	case LatencyReadFirst:
		return "read_first"
	case LatencyAtomic:
		return "atomic"
	}
	return "unknown"
}

// LatencySample is one response-latency sample. Flow is the request flow;
// PSN the request's PSN.
type LatencySample struct {
	Flow         *Flow
	Kind         LatencyKind
	PSN          PSN
	RequestTsNs  int64
	ResponseTsNs int64
}

// LatencyNs returns ResponseTsNs - RequestTsNs (never negative).
func (s *LatencySample) LatencyNs() int64 { return s.ResponseTsNs - s.RequestTsNs }

// Request memory bounds (see the package doc, "Latency").
const (
	reqMemStart    = 4    // first ring size
	reqMemUnpaired = 32   // ring size cap while the flow has no peer
	reqMemPaired   = 1024 // ring size cap once paired (the contract's "at least 1024")
)

// reqMem kinds and flags (the top byte of reqMem.psnFlags).
const (
	memOther     uint8 = iota // a request that no latency kind answers
	memSendWrite              // SEND or RDMA WRITE packet: answered by ACKs
	memRead                   // READ Request
	memAtomic                 // CMP_SWAP or FETCH_ADD
	memAny                    // the flow's first request, not a READ: its opcode is not kept (SEND/WRITE or atomic)
	memKindMask  uint8 = 7

	memReplayed  uint8 = 1 << 3 // seen again (replayed, or re-read inside its range)
	memFirstDone uint8 = 1 << 4 // READ: a Response First/Only with its PSN seen
	memDone      uint8 = 1 << 5 // READ: a Response Last/Only seen; atomic: its ATOMIC ACK seen
	memHasLen    uint8 = 1 << 6 // READ: the RETH was whole (dmaLen valid)
)

// reqMem is one remembered request packet: the first time the flow sent a
// PSN ahead of its high-water mark (or a psn_conflict request). 16 bytes:
// the PSN in the low 24 bits of psnFlags, the flags in the top 8.
type reqMem struct {
	psnFlags uint32
	dmaLen   uint32
	ts       int64
}

func (e *reqMem) psn() PSN         { return PSN(e.psnFlags & psnMask) }
func (e *reqMem) flags() uint8     { return uint8(e.psnFlags >> 24) }
func (e *reqMem) kind() uint8      { return e.flags() & memKindMask }
func (e *reqMem) set(f uint8)      { e.psnFlags |= uint32(f) << 24 }
func (e *reqMem) has(f uint8) bool { return e.flags()&f != 0 }

// reqRing is a flow's request memory (as a request flow), made at the
// flow's second request (latReq) with the latency state (flowCold.lat);
// the flow's first request is remembered by Flow.reqFirst and reqTs0
// until then. It lives in flowCold (flowCold.mem, in its first line; the
// ACK state that done reads, ackedTo, is in the second): a request frame
// reaches its slot with one dependent load less than through a pointer.
type reqRing struct {
	ring       []reqMem // power-of-two size; entries [tail, head) by sequence number; nil: no memory yet
	head, tail uint64
}

// latState holds the latency values of the samples a flow is the request
// flow of, and the stall figures of its open replay episode; made with
// the request memory (latReq).
type latState struct {
	// vals are in the struct, not behind a pointer: a flow with a request
	// memory nearly always takes samples (the 2M-flow benchmark capture:
	// 351k memories, 357k value arrays), so this costs no memory and saves
	// observeAck's addValue one dependent load (a cache miss at scale).
	vals [NumLatencyKinds][]uint32 // uint32 while they fit, else pairs (latvals.go)

	replayIdle  int64
	replaySince int64

	wide uint8 // bit k: vals[k] holds (low, high) pairs

	replayHasSince bool
}

// latReq returns f's cold state with the request memory (mem) and the
// latency state (lat), made on first need with the flow's first request
// in the memory (reqFirst, reqTs0: a READ when the READ ring's first entry
// is that request, else memAny). f must have sent a request.
func (f *Flow) latReq() *flowCold {
	c := f.more()
	if c.lat != nil {
		return c
	}
	c.lat = new(latState)
	m := &c.mem
	m.grow()
	e := reqMem{psnFlags: uint32(f.reqFirst), ts: f.reqTs0}
	if rd := f.read(0); rd != nil && rd.psn == f.reqFirst && rd.ts == f.reqTs0 {
		e.set(memRead)
		if rd.hasLen {
			e.set(memHasLen)
			e.dmaLen = rd.dmaLen
		}
	} else {
		e.set(memAny)
	}
	m.ring[0] = e
	m.head = 1
	return c
}

// Latencies returns the latency values (ns) of the samples of kind k whose
// request flow is f, in the order they were taken. The slice is owned by
// the caller (a copy: the table keeps them compact, see LatencyValues,
// which reads them in place).
func (f *Flow) Latencies(k LatencyKind) []int64 {
	return f.LatencyValues(k).Int64s()
}

// memKind classifies a request opcode for the request memory: remember
// reads memKinds, computed from it once.
func memKind(op decode.Opcode) uint8 {
	switch o := op.Operation(); {
	case o <= decode.OpWriteOnlyImm, o == decode.OpSendLastInvalidate, o == decode.OpSendOnlyInvalidate:
		return memSendWrite
	case o == decode.OpReadRequest:
		return memRead
	case o == decode.OpCompareSwap, o == decode.OpFetchAdd:
		return memAtomic
	}
	return memOther
}

// memKinds is memKind of each opcode: one load instead of its tests on
// every request remembered. Never written after.
var memKinds = func() (k [256]uint8) {
	for i := range k {
		k[i] = memKind(decode.Opcode(i))
	}
	return k
}()

// done reports whether a remembered request needs no more remembering for
// latency: answered, or named (READs and atomics: passed) by a cumulative
// ACK (ackedTo).
func (l *flowCold) done(e *reqMem) bool {
	// Written to be inlined (remember calls it for each entry it drops):
	// one load of the entry, the kind tested with a bit mask.
	pf := e.psnFlags
	f := uint8(pf >> 24)
	readOrAtomic := 1<<(f&memKindMask)&(1<<memRead|1<<memAtomic) != 0
	if readOrAtomic && f&memDone != 0 {
		return true
	}
	d := l.ackedTo.Diff(PSN(pf & psnMask))
	return l.hasAcked && (d > 0 || d == 0 && !readOrAtomic)
}

// roomInMem drops the answered entries at the tail of f's full request
// memory (the entries that are done: they need no more remembering), and
// reports whether that made room for an entry. done's test is written out
// over the ring, with the ACK state and the ring's header loaded once: a
// full ring drops its answered entries a few at a time, for most requests
// of a flow (observeRequest's in-order path and remember call it).
func (c *flowCold) roomInMem() bool {
	l := &c.mem
	ring, mask := l.ring, uint64(len(l.ring)-1)
	ackedTo, hasAcked := c.ackedTo, c.hasAcked
	s, head := l.tail, l.head
	for ; s < head; s++ {
		pf := ring[s&mask].psnFlags
		// Diff drops the top 8 bits of the difference: the flags need no mask.
		d := ackedTo.Diff(PSN(pf))
		if d > 0 && hasAcked {
			continue // passed by a cumulative ACK: done, whatever its kind
		}
		// memRead or memAtomic (2 or 3): the kind with its low bit cleared is 2.
		if uint8(pf>>24)&(memKindMask&^1) == memRead {
			if pf&(uint32(memDone)<<24) != 0 {
				continue
			}
			break
		}
		if d < 0 || !hasAcked {
			break
		}
	}
	l.tail = s
	return head-s < uint64(len(ring))
}

// remember records a new request packet of f (PSN ahead of the high-water
// mark, or a psn_conflict). The flow's first request needs no entry yet
// (latReq). It allocates only when the ring grows (amortised; at most up to
// reqMemPaired entries): when the ring is full, answered entries are
// dropped first, then it doubles up to its cap, then it forgets the oldest.
func (t *Table) remember(f *Flow, p *decode.Packet, psn PSN) {
	if f.Key.UD || f.req.nRecent == 0 {
		return
	}
	c := f.more()
	if c.lat == nil {
		c = f.latReq() // latReq's test written out: it is not inlined
	}
	l := &c.mem
	if n := uint64(len(l.ring)); l.head-l.tail == n {
		if !c.roomInMem() {
			limit := reqMemUnpaired
			if f.paired() {
				limit = reqMemPaired
			}
			if int(n) < limit {
				l.grow()
			} else {
				l.tail++ // forget the oldest
			}
		}
	}
	// The entry is written field by field in its slot: a reqMem built on
	// the stack and copied is loaded back with a wide load of its two
	// narrow stores, a store-forwarding stall (a third of trackRequest's
	// samples in a profile of report --json).
	pf, dmaLen := uint32(psn)|uint32(memKinds[p.BTH.Opcode])<<24, uint32(0)
	if pf>>24 == uint32(memRead) && p.Ext&decode.ExtRETH != 0 {
		pf |= uint32(memHasLen) << 24
		dmaLen = p.RETH.DMALen
	}
	e := l.at(l.head)
	e.psnFlags, e.dmaLen, e.ts = pf, dmaLen, p.TsNs
	l.head++
}

// grow doubles the ring (or makes the first one), keeping the entries.
func (l *reqRing) grow() {
	n := len(l.ring) * 2
	if n == 0 {
		n = reqMemStart
	}
	ring := make([]reqMem, n)
	for s := l.tail; s < l.head; s++ {
		ring[s&uint64(n-1)] = *l.at(s)
	}
	l.ring = ring
}

// at returns the entry with sequence number s (tail <= s < head).
func (l *reqRing) at(s uint64) *reqMem { return &l.ring[s&uint64(len(l.ring)-1)] }

// search returns the sequence number of the latest remembered entry whose
// PSN is at or before psn (serial arithmetic; entries are in ascending PSN
// order), or false when there is none.
func (l *reqRing) search(psn PSN) (uint64, bool) {
	ring, mask, tail := l.ring, uint64(len(l.ring)-1), l.tail
	lo, hi := tail, l.head // find the first entry with PSN after psn
	for lo < hi {
		mid := (lo + hi) / 2 // sequence numbers: far below 2^63
		// Diff drops the top 8 bits of the difference: the flags need no mask.
		if PSN(ring[mid&mask].psnFlags).Diff(psn) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1, lo != tail // (the sequence number is of no use when false)
}

// reqMemOf returns f's request memory for a lookup, or nil when f has sent
// no request (UD flows keep none).
func (f *Flow) reqMemOf() *reqRing {
	// The memory made, the usual case, needs no call. (A flow with a
	// latency state has sent a request: every maker of it, latReq's
	// callers, runs after the flow's first.)
	if c := f.cold; c != nil && c.lat != nil && !f.Key.UD {
		return &c.mem
	}
	return f.makeReqMem()
}

// makeReqMem is reqMemOf for a flow whose memory may not be made yet.
func (f *Flow) makeReqMem() *reqRing {
	if !f.req.init || f.Key.UD {
		return nil
	}
	return &f.latReq().mem
}

// findReq returns the remembered request of f with PSN psn, or nil.
func (f *Flow) findReq(psn PSN) *reqMem {
	var l *reqRing
	if c := f.cold; c != nil && c.lat != nil && !f.Key.UD { // reqMemOf's usual case: no call
		l = &c.mem
	} else if l = f.makeReqMem(); l == nil {
		return nil
	}
	s, ok := l.search(psn)
	if !ok {
		return nil
	}
	if e := l.at(s); e.psn() == psn {
		return e
	}
	return nil
}

// readSearchBack is how many entries before the latest one at or before a
// response PSN are looked at for the READ whose range holds it (requests
// inside a READ's range only come from psn_conflicts).
const readSearchBack = 8

// findReadReq returns the remembered READ Request of f whose range holds
// psn: the range as the psn_gap rules know it now, ceil(L/256) while the
// PMTU is unknown.
func (t *Table) findReadReq(f *Flow, psn PSN) *reqMem {
	l := f.reqMemOf()
	if l == nil {
		return nil
	}
	s, ok := l.search(psn)
	for i := 0; ok && i < readSearchBack; i++ {
		e := l.at(s)
		if e.kind() == memRead {
			if !e.has(memHasLen) || psn.Diff(e.psn()) < t.readRange(f, e.dmaLen) {
				return e
			}
			return nil
		}
		if s == l.tail {
			break
		}
		s--
	}
	return nil
}

// readRange returns the number of PSNs of a READ of dmaLen bytes on f, as
// the psn_gap rules know it now: ceil(L/PMTU), ceil(L/256) while unknown.
func (t *Table) readRange(f *Flow, dmaLen uint32) int64 {
	m := int64(t.PMTUFor(f))
	if m == 0 {
		m = 256
	}
	return readSpanFor(dmaLen, m)
}

// markReplayed records that a request PSN behind the high-water mark was
// sent again: its packet (or the READ whose range holds it) no longer gives
// samples. It returns the time the flow first sent that PSN, if remembered.
func (t *Table) markReplayed(f *Flow, psn PSN) (int64, bool) {
	if e := f.findReq(psn); e != nil {
		e.set(memReplayed)
		return e.ts, true
	}
	if e := t.findReadReq(f, psn); e != nil {
		e.set(memReplayed) // a re-read inside the READ's range
	}
	return 0, false
}

// sample records a latency sample of request flow r.
func (t *Table) sample(r *Flow, k LatencyKind, e *reqMem, ts int64) {
	r.cold.lat.addValue(k, ts-e.ts)
	if t.cfg.LatencySink != nil {
		t.cfg.LatencySink(LatencySample{Flow: r, Kind: k, PSN: e.psn(), RequestTsNs: e.ts, ResponseTsNs: ts})
	}
}

// usable reports whether e may give a sample for a response at ts (Karn's
// rule: seen once; not after the response).
func usable(e *reqMem, ts int64) bool { return !e.has(memReplayed) && e.ts <= ts }

// latencyAck handles an ACKNOWLEDGE with an ACK syndrome on response flow f
// (after pairing was tried): the `ack` sample for the PSN it names the first
// time.
func (t *Table) latencyAck(f *Flow, psn PSN, ts int64) {
	c := f.more()
	if c.hasAck && psn.Diff(c.ackHigh) <= 0 {
		return
	}
	c.ackHigh, c.hasAck = psn, true
	r := f.Peer()
	if r == nil {
		return
	}
	e := r.findReq(psn)
	if c := r.cold; c.lat != nil {
		c.ackedTo, c.hasAcked = psn, true
	}
	if e != nil && (e.kind() == memSendWrite || e.kind() == memAny) && usable(e, ts) {
		t.sample(r, LatencyAck, e, ts)
	}
}

// latencyAtomicAck handles an ATOMIC ACKNOWLEDGE on response flow f.
func (t *Table) latencyAtomicAck(f *Flow, psn PSN, ts int64) {
	r := f.Peer()
	if r == nil {
		return
	}
	e := r.findReq(psn)
	if e == nil || (e.kind() != memAtomic && e.kind() != memAny) || e.has(memDone) {
		return
	}
	e.set(memDone)
	if usable(e, ts) {
		t.sample(r, LatencyAtomic, e, ts)
	}
}

// latencyReadResponse handles a READ Response on response flow f: the
// `read_first` and `read` samples of the READ whose range holds its PSN.
func (t *Table) latencyReadResponse(f *Flow, p *decode.Packet, psn PSN) {
	r := f.Peer()
	if r == nil {
		return
	}
	e := t.findReadReq(r, psn)
	if e == nil {
		return
	}
	op := p.BTH.Opcode.Operation()
	if (op == decode.OpReadResponseFirst || op == decode.OpReadResponseOnly) && psn == e.psn() && !e.has(memFirstDone) {
		e.set(memFirstDone)
		if usable(e, p.TsNs) {
			t.sample(r, LatencyReadFirst, e, p.TsNs)
		}
	}
	if (op == decode.OpReadResponseLast || op == decode.OpReadResponseOnly) && !e.has(memDone) {
		e.set(memDone)
		if usable(e, p.TsNs) {
			t.sample(r, LatencyRead, e, p.TsNs)
		}
	}
}

// clone copies the latency state: the values are shared up to their
// current length (they are only appended to, and the copy's slices are
// clipped so an append copies). (The request memory, flowCold.mem, whose
// flags change as responses arrive, is cloned with the cold state.)
func (l *latState) clone() *latState {
	n := *l
	for k := range n.vals {
		n.vals[k] = slices.Clip(l.vals[k])
	}
	return &n
}

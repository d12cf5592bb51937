package flows

// matchKind is the kind of response that offers pairing evidence.
type matchKind uint8

const (
	matchACK  matchKind = iota // ACK / ATOMIC ACK: PSN of a request already seen
	matchNAK                   // NAK / RNR NAK: may also name the next expected PSN
	matchRead                  // READ response: PSN inside a READ request's range
)

// pairWindow bounds how far behind a request flow's high-water mark an
// ACK PSN may be and still count as evidence.
const pairWindow = 1 << 16

// pairVotesNeeded is how many consecutive exact matches to the same flow an
// ambiguous pairing (several flows in range) needs.
const pairVotesNeeded = 2

// tryPair looks for the flow whose requests f's response (PSN psn at ts)
// answers, among the unpaired reverse-direction flows. See the package doc
// for the rule.
func (t *Table) tryPair(f *Flow, psn PSN, ts int64, kind matchKind) {
	if f.paired() || f.Key.UD {
		return
	}
	fc := f.more()
	fc.pairTries++
	if fc.pairTries > 64 && fc.pairTries%64 != 0 {
		return // bounded effort for flows whose requester is not in the capture
	}
	hp := hostPair{f.Key.Dst, f.Key.Src}
	g := t.hosts[hp.hash()]
	if g == nil {
		return
	}
	var inRange, exact *Flow
	nRange, nExact := 0, 0
	for _, c := range g.flows {
		if c == f || c.paired() || c.Key.UD || !c.req.init {
			continue
		}
		ok, ex := t.answers(c, psn, ts, kind)
		if !ok || !hp.from(c) { // a flow of another pair (a hash collision): last, as it is rare
			continue
		}
		nRange++
		inRange = c
		if ex {
			nExact++
			exact = c
		}
	}
	switch {
	case nRange == 1:
		link(f, inRange)
	case nExact == 1:
		fr := f.rare()
		if fr.pairVote == exact {
			fr.pairVotes++
		} else {
			fr.pairVote, fr.pairVotes = exact, 1
		}
		if fr.pairVotes >= pairVotesNeeded {
			link(f, exact)
		}
	}
}

// answers reports whether a response PSN fits request flow c (in range), and
// whether it names exactly one of c's recent requests sent before ts.
func (t *Table) answers(c *Flow, psn PSN, ts int64, kind matchKind) (inRange, exact bool) {
	r := &c.req
	if kind == matchRead {
		_, e, ok := t.findRead(c, psn)
		if !ok || e.ts > ts {
			return false, false
		}
		return true, psn == e.psn
	}
	if psn.Diff(c.reqFirst) < 0 {
		return false, false
	}
	d := psn.Diff(r.next)
	if d < -pairWindow || d > 0 || (d == 0 && kind != matchNAK) {
		return false, false
	}
	if d == 0 {
		return true, false
	}
	for i := uint32(0); i < recentRing && i < r.nRecent; i++ {
		e := c.recentAt(i)
		if e.psn == psn && e.ts <= ts {
			return true, true
		}
	}
	return true, false
}

func link(a, b *Flow) {
	ac, bc := a.more(), b.more()
	ac.peer, bc.peer = b, a
	a.peerState, b.peerState = peerPaired, peerPaired
	for _, r := range [2]*flowRare{ac.rare, bc.rare} {
		if r != nil {
			r.pairVote = nil
		}
	}
	if a.pmtu == 0 {
		a.pmtu = b.pmtu
	}
	if b.pmtu == 0 {
		b.pmtu = a.pmtu
	}
}

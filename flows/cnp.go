package flows

import "github.com/rocetrace/rocetrace/decode"

// observeCNP counts a CNP on its own flow f, finds its target (the congested
// flow) and emits the cnp event.
func (t *Table) observeCNP(f *Flow, p *decode.Packet) {
	f.CNPs++
	target := f.Peer()
	if target == nil {
		target = t.cnpFallback(f)
	}
	e := Event{Kind: EventCNP, TsNs: p.TsNs, Flow: f, Target: target}
	if target != nil {
		t.rateTick(target, p.TsNs) // counted in the target's window at the CNP's time
		target.CNPsReceived++
		if target.req.cePending {
			e.setECNToCNP(p.TsNs - target.cold.rare.ceFirst)
			target.req.cePending = false
		}
		t.cnpRates(&e, t.events.len())
	}
	t.emit(e)
}

// cnpFallback finds the target of a CNP whose flow f (B->A, dst_qpn = the
// reaction point's QP) has no peer. Candidates are flows A->B:
//  1. UD flows whose DETH source QP is the CNP's DestQP: the only one, or the
//     only one with CE marks waiting for a CNP;
//  2. otherwise unpaired RC/UC/XRC flows: the only one, or the only one with
//     CE marks waiting for a CNP.
//
// Anything else is ambiguous and the target stays unknown (nil).
func (t *Table) cnpFallback(f *Flow) *Flow {
	hp := hostPair{f.Key.Dst, f.Key.Src}
	g := t.hosts[hp.hash()]
	if g == nil {
		return nil
	}
	var ud, udCE, conn, connCE *Flow
	nUD, nUDCE, nConn, nConnCE := 0, 0, 0, 0
	for _, c := range g.flows {
		if c.DataPackets == 0 || !hp.from(c) {
			continue
		}
		if c.Key.UD {
			if !c.Key.HasSrcQPN || c.Key.SrcQPN != f.Key.DstQPN {
				continue
			}
			nUD++
			ud = c
			if c.req.cePending {
				nUDCE++
				udCE = c
			}
			continue
		}
		if c.paired() {
			continue
		}
		nConn++
		conn = c
		if c.req.cePending {
			nConnCE++
			connCE = c
		}
	}
	switch {
	case nUD == 1:
		return ud
	case nUD > 1:
		if nUDCE == 1 {
			return udCE
		}
		return nil
	case nConn == 1:
		return conn
	case nConnCE == 1:
		return connCE
	}
	return nil
}

package flows

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of the table: flows, pairing, events and PFC
// state are copied, and every pointer inside the copy (peers, event flows
// and targets, host groups) points into the copy. The copy and the original
// share no mutable memory, so a viewer may Finish the copy and build a report
// from it on another goroutine while the original goes on observing frames:
// a snapshot of a capture that is still being read. Clone costs O(flows +
// events + PFC keys); it must be called from the goroutine that observes.
func (t *Table) Clone() *Table {
	c := &Table{
		cfg:      t.cfg,
		bps:      t.bps,
		pmtu:     t.pmtu,
		finished: t.finished,
		maxFlows: t.maxFlows,
		dropped:  t.dropped,
		flows:    newFlowIndex(t.flows.len()),
		order:    slices.Clone(t.order), // replaced one by one below
		hosts:    make(map[uint64]*hostGroup, len(t.hosts)),
		events:   t.events.clone(),
		pfc:      make(map[PFCKey]*PFCStat, len(t.pfc)),
		pfcOrder: slices.Clone(t.pfcOrder), // replaced one by one below
		cmReqs:   maps.Clone(t.cmReqs),     // values only
		cmPairs:  maps.Clone(t.cmPairs),    // values only

		frameEvents: t.frameEvents,
		frameStart:  t.frameStart,
	}
	c.cfg.RateSink = nil // the copy's windows are not the capture's: only the original streams them
	// Flows are numbered by their position in order, so a pointer maps to
	// its copy through its index.
	for i, f := range t.order {
		nf := new(Flow)
		*nf = *f // every field but the pointers and slices below is a value
		if f.cold != nil {
			nc := *f.cold
			nc.recent = slices.Clone(nc.recent)
			nc.mem.ring = slices.Clone(nc.mem.ring)
			if nc.rare != nil {
				nr := *nc.rare
				nr.reads = slices.Clone(nr.reads)
				nc.rare = &nr
			}
			if nc.lat != nil {
				nc.lat = nc.lat.clone()
			}
			nf.cold = &nc
		}
		c.order[i] = nf
	}
	remap := func(f *Flow) *Flow {
		if f == nil {
			return nil
		}
		return c.order[f.index]
	}
	for _, nf := range c.order {
		if nf.cold != nil {
			nf.cold.peer = remap(nf.cold.peer)
			if r := nf.cold.rare; r != nil {
				r.pairVote = remap(r.pairVote)
			}
		}
		c.flows.add(nf)
	}
	for hp, g := range t.hosts {
		ng := &hostGroup{flows: make([]*Flow, len(g.flows))}
		for i, f := range g.flows {
			ng.flows[i] = remap(f)
		}
		c.hosts[hp] = ng
	}
	for i := range c.events.len() {
		e := c.events.at(i)
		e.Flow = remap(e.Flow)
		e.Target = remap(e.Target)
	}
	for i, s := range t.pfcOrder {
		ns := new(PFCStat)
		*ns = *s
		c.pfcOrder[i] = ns
		c.pfc[ns.Key] = ns
	}
	return c
}

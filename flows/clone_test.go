package flows

import (
	"reflect"
	"sync"
	"testing"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/internal/synth"
	"github.com/rocetrace/rocetrace/pcapio"
)

// scenarioPackets decodes every frame of the demo scenarios, one capture
// after the other (timestamps shifted so the whole stream is in order).
func scenarioPackets(t *testing.T) []*decode.Packet {
	t.Helper()
	dec := decode.NewDecoder(decode.Config{})
	var out []*decode.Packet
	var shift int64
	for _, sc := range synth.Scenarios() {
		c := sc.Build()
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		var last int64
		for i, fr := range c.Frames {
			p := new(decode.Packet)
			dec.Decode(fr.Data, pcapio.LinkTypeEthernet, fr.Len, p)
			p.TsNs = fr.TsNs + shift
			p.Frame = uint64(i + 1)
			out = append(out, p)
			last = p.TsNs
		}
		shift = last - synth.Scenarios()[0].Build().Frames[0].TsNs + 1_000_000_000
	}
	return out
}

func observeAll(t *Table, ps []*decode.Packet) {
	for _, p := range ps {
		t.Observe(p)
	}
}

// A clone taken after k frames and finished equals a fresh table fed the
// same k frames and finished; the original, fed the rest, equals a fresh
// table fed everything: cloning and finishing the clone leave it untouched.
func TestCloneEqualsFreshPrefix(t *testing.T) {
	ps := scenarioPackets(t)
	cuts := []int{0, 1, 5, 17, len(ps) / 3, len(ps) / 2, len(ps) - 1, len(ps)}
	for _, k := range cuts {
		live := NewTable(Config{})
		observeAll(live, ps[:k])
		clone := live.Clone()
		clone.Finish()

		fresh := NewTable(Config{})
		observeAll(fresh, ps[:k])
		fresh.Finish()
		if !reflect.DeepEqual(clone, fresh) {
			t.Fatalf("cut %d: finished clone differs from a fresh table of the same frames", k)
		}

		observeAll(live, ps[k:])
		live.Finish()
		full := NewTable(Config{})
		observeAll(full, ps)
		full.Finish()
		if !reflect.DeepEqual(live, full) {
			t.Fatalf("cut %d: the original changed by cloning", k)
		}
	}
}

// Every pointer of a clone points into the clone.
func TestCloneSharesNothing(t *testing.T) {
	ps := scenarioPackets(t)
	live := NewTable(Config{})
	observeAll(live, ps[:len(ps)*2/3])
	live.Observe(read(1e15, 0x77, 100, 4096)) // a flow with a READ ring
	clone := live.Clone()
	own := map[*Flow]bool{}
	for _, f := range clone.Flows() {
		own[f] = true
	}
	for _, f := range live.Flows() {
		if own[f] {
			t.Fatalf("flow %s shared", f.ID())
		}
	}
	check := func(what string, f *Flow) {
		if f != nil && !own[f] {
			t.Errorf("%s points outside the clone", what)
		}
	}
	reads := 0
	for i, f := range clone.Flows() {
		if f.cold == nil {
			continue
		}
		lc := live.Flows()[i].cold
		if f.cold == lc {
			t.Errorf("cold state of %s shared", f.ID())
		}
		if f.cold.rare != nil && f.cold.rare == lc.rare {
			t.Errorf("rare state of %s shared", f.ID())
		}
		if r := f.rareOrNil(); r != nil && r.reads != nil {
			reads++
			if &r.reads[0] == &lc.rare.reads[0] {
				t.Errorf("READ ring of %s shared", f.ID())
			}
		}
		if r := f.cold.recent; r != nil && &r[0] == &lc.recent[0] {
			t.Errorf("request ring of %s shared", f.ID())
		}
	}
	if reads == 0 {
		t.Error("no flow with READ requests in the scenario")
	}
	for _, f := range clone.Flows() {
		check("peer", f.Peer())
		if f.cold != nil {
			if r := f.cold.rare; r != nil {
				check("pairVote", r.pairVote)
			}
		}
		if clone.Flow(f.Key) != f {
			t.Errorf("map entry of %s is not the clone's flow", f.ID())
		}
	}
	for _, g := range clone.hosts {
		for _, f := range g.flows {
			check("host group", f)
		}
	}
	for _, e := range clone.Events() {
		check("event flow", e.Flow)
		check("event target", e.Target)
	}
	livePFC := map[*PFCStat]bool{}
	for _, s := range live.PFC() {
		livePFC[s] = true
	}
	for _, s := range clone.PFC() {
		if livePFC[s] || clone.pfc[s.Key] != s {
			t.Errorf("PFC state %v shared or not indexed", s.Key)
		}
	}
}

// A clone can be finished and read on another goroutine while the original
// goes on observing (run with -race).
func TestCloneConcurrentUse(t *testing.T) {
	ps := scenarioPackets(t)
	live := NewTable(Config{})
	half := len(ps) / 2
	observeAll(live, ps[:half])
	clone := live.Clone()
	var wg sync.WaitGroup
	wg.Add(1)
	var n int
	go func() {
		defer wg.Done()
		clone.Finish()
		for _, f := range clone.Flows() {
			n += int(f.Packets)
		}
		n += len(clone.Events())
	}()
	observeAll(live, ps[half:])
	live.Finish()
	wg.Wait()
	if n == 0 {
		t.Fatal("clone is empty")
	}
}

// Clone copies a Flow, Event and PFCStat as values, then fixes the
// pointers it knows of. A new pointer, slice or map anywhere inside them
// (nested structs and arrays included) would be shared between the copies:
// it must be handled in flows/clone.go and listed here. A new Table field
// must be copied there too (the field count below is the reminder).
func TestCloneKnowsEveryField(t *testing.T) {
	handled := map[string]bool{"flowCold.peer": true, "flowRare.pairVote": true, "flowCold.recent": true, "flowCold.rare": true,
		"Flow.id": true, "flowRare.reads": true, "flowCold.lat": true, "reqRing.ring": true, "Flow.cold": true, "Event.Flow": true, "Event.Target": true, "Key.Src": true, "Key.Dst": true}
	var walk func(owner string, typ reflect.Type)
	walk = func(owner string, typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name := owner + "." + f.Name
			ft := f.Type
			for ft.Kind() == reflect.Array {
				ft = ft.Elem()
			}
			switch ft.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.String:
				if !handled[typ.Name()+"."+f.Name] {
					t.Errorf("%s (%s) is shared by Clone's value copy: handle it in flows/clone.go", name, f.Type)
				}
			case reflect.Struct:
				if ft.PkgPath() == "net/netip" {
					if !handled[typ.Name()+"."+f.Name] {
						t.Errorf("%s: unexpected netip value", name)
					}
					continue // immutable value
				}
				walk(name, ft)
			}
		}
	}
	for _, v := range []any{Flow{}, flowCold{}, flowRare{}, Event{}, PFCStat{}} {
		walk(reflect.TypeOf(v).Name(), reflect.TypeOf(v))
	}
	if got := reflect.TypeOf(Table{}).NumField(); got != 17 {
		t.Errorf("flows.Table has %d fields, Clone was written for 17: review flows/clone.go", got)
	}
}

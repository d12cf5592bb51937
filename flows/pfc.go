package flows

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"

	"github.com/rocetrace/rocetrace/decode"
)

// PFCKey identifies a pause state: a source MAC and a priority 0-7, or -1
// for 802.3x PAUSE (the whole link).
type PFCKey struct {
	SrcMAC   [6]byte
	Priority int8
}

// PFCStat is the pause history of one PFCKey.
type PFCStat struct {
	Key       PFCKey
	Frames    int64 // frames with the priority's enable bit set (XON included); all PAUSE frames
	XONFrames int64 // of those, quanta 0
	Episodes  int64 // maximal paused intervals
	PausedNs  int64 // sum of episode durations (each rounded as in the package doc)
	LongestNs int64 // longest episode

	paused   bool
	startNs  int64 // episode start (a frame's time)
	deadline int64 // episode end, in picoseconds after startNs
	epFrames int64 // frames that armed or ended the current episode
}

// quantaPs returns the duration of q pause quanta (512 bit times each) at
// bps, in picoseconds: floor(q*512*10^12/bps), exact for every standard
// Ethernet speed (e.g. 5120 ps per quantum at 100 Gb/s, 20480 at 25 Gb/s).
func quantaPs(q uint16, bps int64) int64 {
	hi, lo := bits.Mul64(uint64(q)*512, 1_000_000_000_000)
	quo, _ := bits.Div64(hi, lo, uint64(bps)) // hi < bps: q*512e12 < 2^64*bps
	return int64(quo)
}

// QuantaNs returns the duration of q quanta at bps in nanoseconds, rounded to
// the nearest nanosecond (halves up): q*512*10^9/bps.
func QuantaNs(q uint16, bps int64) int64 { return (quantaPs(q, bps) + 500) / 1000 }

func (t *Table) observePFC(p *decode.Packet) {
	if p.Malformed {
		return
	}
	for prio := range 8 {
		if p.PFCEnable&(1<<prio) == 0 {
			continue // a time value whose bit is clear is ignored
		}
		t.pauseFrame(PFCKey{SrcMAC: p.SrcMAC, Priority: int8(prio)}, p.TsNs, p.PFCQuanta[prio])
	}
}

func (t *Table) observePause(p *decode.Packet) {
	if p.Malformed {
		return
	}
	t.pauseFrame(PFCKey{SrcMAC: p.SrcMAC, Priority: -1}, p.TsNs, p.PauseQuanta)
}

// pauseFrame applies one enabled pause time to its key.
func (t *Table) pauseFrame(k PFCKey, ts int64, q uint16) {
	s := t.pfc[k]
	if s == nil {
		s = &PFCStat{Key: k}
		t.pfc[k] = s
		i, _ := slices.BinarySearchFunc(t.pfcOrder, k, func(a *PFCStat, k PFCKey) int { return comparePFCKey(a.Key, k) })
		t.pfcOrder = slices.Insert(t.pfcOrder, i, s)
	}
	s.Frames++
	if q == 0 {
		s.XONFrames++
	}
	if s.paused {
		rel := (ts - s.startNs) * 1000
		if rel > s.deadline {
			t.closeEpisode(s) // expired before this frame
		} else {
			s.epFrames++
			if q == 0 {
				s.deadline = rel // XON ends the pause at its time
				t.closeEpisode(s)
			} else {
				s.deadline = rel + quantaPs(q, t.bps) // re-arm (may shorten)
			}
			return
		}
	}
	if q == 0 {
		return // XON while not paused
	}
	t.markFrame(EventPause) // this frame arms the episode
	s.paused = true
	s.startNs = ts
	s.deadline = quantaPs(q, t.bps)
	s.epFrames = 1
}

// closeEpisode ends the current episode at its deadline and emits it.
func (t *Table) closeEpisode(s *PFCStat) {
	s.paused = false
	dur := (s.deadline + 500) / 1000
	s.Episodes++
	s.PausedNs += dur
	s.LongestNs = max(s.LongestNs, dur)
	t.emit(pauseEvent(s.startNs, s.Key.SrcMAC, s.Key.Priority, s.startNs+dur, dur, s.epFrames))
}

func (t *Table) finishPFC() {
	for _, s := range t.pfcOrder {
		if s.paused {
			t.closeEpisode(s)
		}
	}
}

func comparePFCKey(a, b PFCKey) int {
	if c := bytes.Compare(a.SrcMAC[:], b.SrcMAC[:]); c != 0 {
		return c
	}
	return cmp.Compare(a.Priority, b.Priority)
}

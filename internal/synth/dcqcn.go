package synth

// DCQCN models the rate limiter of a DCQCN reaction point (the sender's
// NIC), in integer bits per second and nanoseconds, for captures whose
// packet spacing shows the reaction to CNPs (rocetrace's rate_before_bps /
// rate_after_bps).
//
// The model, with NVIDIA's documented defaults (mlx5 DCQCN parameters):
//   - A CNP arriving at t cuts the current rate RC at t + ReactionDelayNs:
//     the target rate RT becomes RC and RC becomes RC * DecreasePercent /
//     100 (rpg_min_dec_fac 50 %: with alpha at its maximum of 1, the cut
//     RC * (1 - alpha/2) is that minimum; the model keeps alpha at 1).
//   - At most one cut per MonitorPeriodNs (rate_reduce_monitor_period,
//     4 µs): a cut due less than that after the previous cut is dropped.
//   - Recovery: every TimeResetNs (rpg_time_reset, 300 µs) without a cut,
//     one step: the first FastRecoverySteps (rpg_threshold, 5) are fast
//     recovery, RC = ceil((RT + RC) / 2); the next FastRecoverySteps add
//     AIRateBps (rpg_ai_rate, 5 Mb/s) to RT first (additive increase);
//     later steps add HAIRateBps (rpg_hai_rate, 50 Mb/s) (hyper increase).
//     RT and RC never exceed LineBps.
//   - Ignore makes a sender that ignores CNPs (DCQCN off): always LineBps.
//
// Use NewDCQCN, then CNP for each CNP reaching the sender and Gap for the
// spacing after each packet, in time order.
type DCQCN struct {
	LineBps           int64 // starting and highest rate
	ReactionDelayNs   int64 // CNP arrival to rate cut (default 1 µs)
	MonitorPeriodNs   int64 // rate_reduce_monitor_period (4 µs)
	TimeResetNs       int64 // rpg_time_reset (300 µs)
	AIRateBps         int64 // rpg_ai_rate (5 Mb/s)
	HAIRateBps        int64 // rpg_hai_rate (50 Mb/s)
	DecreasePercent   int64 // rate kept by a cut, percent (rpg_min_dec_fac 50)
	FastRecoverySteps int   // rpg_threshold (5)
	Ignore            bool  // a sender that ignores CNPs

	rc, rt  int64   // current and target rate
	cuts    []int64 // times of cuts still to apply, ascending
	cut     bool    // a cut happened (recovery runs)
	lastCut int64
	steps   int   // recovery steps since the last cut
	stepAt  int64 // time of the next recovery step
}

// NVIDIA's defaults, and the model's reaction delay.
const (
	DefaultReactionDelayNs int64 = 1_000
	DefaultMonitorPeriodNs int64 = 4_000
	DefaultTimeResetNs     int64 = 300_000
	DefaultAIRateBps       int64 = 5_000_000
	DefaultHAIRateBps      int64 = 50_000_000
	DefaultDecreasePercent int64 = 50
	DefaultFastRecovery          = 5
)

// NewDCQCN returns a sender at lineBps with the default parameters.
func NewDCQCN(lineBps int64) *DCQCN {
	return &DCQCN{
		LineBps: lineBps, ReactionDelayNs: DefaultReactionDelayNs, MonitorPeriodNs: DefaultMonitorPeriodNs,
		TimeResetNs: DefaultTimeResetNs, AIRateBps: DefaultAIRateBps, HAIRateBps: DefaultHAIRateBps,
		DecreasePercent: DefaultDecreasePercent, FastRecoverySteps: DefaultFastRecovery,
		rc: lineBps, rt: lineBps,
	}
}

// CNP tells the sender a CNP reached it at ts (calls in time order).
func (d *DCQCN) CNP(ts int64) {
	if d.Ignore {
		return
	}
	d.cuts = append(d.cuts, ts+d.ReactionDelayNs)
}

// RateAt returns the rate at ts, after the cuts and recovery steps due at
// or before ts (calls in time order).
func (d *DCQCN) RateAt(ts int64) int64 {
	if d.rc == 0 && d.rt == 0 {
		d.rc, d.rt = d.LineBps, d.LineBps
	}
	for {
		cutDue := len(d.cuts) > 0 && d.cuts[0] <= ts
		stepDue := d.cut && d.stepAt <= ts
		switch {
		case cutDue && (!stepDue || d.cuts[0] <= d.stepAt):
			d.applyCut(d.cuts[0])
			d.cuts = d.cuts[1:]
		case stepDue:
			d.recover()
		default:
			return d.rc
		}
	}
}

func (d *DCQCN) applyCut(t int64) {
	if d.cut && t-d.lastCut < d.MonitorPeriodNs {
		return
	}
	d.rt = d.rc
	d.rc = d.rc * d.DecreasePercent / 100
	d.cut, d.lastCut, d.steps, d.stepAt = true, t, 0, t+d.TimeResetNs
}

func (d *DCQCN) recover() {
	d.steps++
	switch {
	case d.steps <= d.FastRecoverySteps:
	case d.steps <= 2*d.FastRecoverySteps:
		d.rt += d.AIRateBps
	default:
		d.rt += d.HAIRateBps
	}
	d.rt = min(d.rt, d.LineBps)
	d.rc = min((d.rt+d.rc+1)/2, d.LineBps) // rounded up: RC reaches RT
	d.stepAt += d.TimeResetNs
	if d.rc == d.LineBps {
		d.cut = false // back at line rate: nothing left to recover
	}
}

// Gap returns the spacing after a packet of wireBytes sent at ts: the time
// it takes at the rate then, ceil(wireBytes * 8 * 10^9 / rate) ns.
func (d *DCQCN) Gap(ts int64, wireBytes int) int64 {
	r := d.RateAt(ts)
	bits := int64(wireBytes) * 8 * 1_000_000_000
	return (bits + r - 1) / r
}

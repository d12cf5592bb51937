package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/filter"
	"github.com/rocetrace/rocetrace/flows"
	"github.com/spf13/pflag"
)

// packetsOut holds the output flags of packets that tshark users bring:
// -T text|json|fields, -e FIELD, -E OPTION=VALUE and -c N (docs/interface.md,
// "rocetrace packets").
type packetsOut struct {
	json   bool     // --json, or -T json
	format string   // -T
	fields []string // -e
	opts   []string // -E
	count  int      // -c: frames printed at most (0: all)
	fo     *fieldsOut
}

func (o *packetsOut) register(fs *pflag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "one JSON object per frame (JSON lines)")
	fs.StringVarP(&o.format, "format", "T", "text", "output format, as tshark's -T: text, json (= --json) or fields (with -e)")
	fs.StringArrayVarP(&o.fields, "field", "e", nil, "with -T fields: print this field (repeatable; a packet field or a Wireshark name of the filters)")
	fs.StringArrayVarP(&o.opts, "fields-option", "E", nil, "with -T fields: separator=C (default a tab; /t, /s), header=y|n, quote=d|s|n, occurrence=a|f|l, aggregator=C (default ,)")
	fs.IntVarP(&o.count, "count", "c", 0, "print at most N frames (those -Y lets through), then stop reading (0: all)")
}

// resolve checks the output flags and compiles the -T fields columns.
func (o *packetsOut) resolve(verbose bool) error {
	switch o.format {
	case "text":
	case "json":
		o.json = true
	case "fields":
		if o.json || verbose {
			return errors.New("-T fields does not go with --json or -V")
		}
		if len(o.fields) == 0 {
			return errors.New("-T fields needs at least one -e FIELD")
		}
	default:
		return fmt.Errorf("invalid -T %q: want text, json or fields", o.format)
	}
	if o.count < 0 {
		return fmt.Errorf("invalid -c %d: want 0 (all) or more", o.count)
	}
	if o.format != "fields" {
		if len(o.fields) > 0 || len(o.opts) > 0 {
			return errors.New("-e and -E need -T fields")
		}
		return nil
	}
	fo, err := newFieldsOut(o.fields, o.opts)
	o.fo = fo
	return err
}

// fieldsOut prints frames as tshark -T fields does: one line per frame,
// the values of the -e fields separated by sep, an absent field empty, the
// values of a field with several (ip.addr: source and destination)
// joined by agg.
type fieldsOut struct {
	cols     []fieldCol
	sep      string
	agg      string
	quote    byte // 0: none
	header   bool
	occ      byte // 'a' all, 'f' first, 'l' last
	needFlow bool // a column reads `flow` (f.ID, an allocation per frame)
}

// fieldCol is one -e column.
type fieldCol struct {
	g         filter.Getter
	wireshark bool // a Wireshark name: booleans print 1/0, as tshark does
	hex       int  // Wireshark hex field: digits after 0x (tshark's BASE_HEX width); 0: decimal
}

// tsharkHex are the Wireshark names tshark shows in hex (BASE_HEX), with
// the digits of their type (FT_UINT24: 6, FT_UINT32: 8, FT_UINT64: 16).
var tsharkHex = map[string]int{
	"infiniband.bth.destqp": 6,
	"infiniband.deth.srcqp": 8,
	"infiniband.deth.q_key": 16,
	"infiniband.reth.va":    16,
	"infiniband.reth.r_key": 8,
}

// newFieldsOut compiles the -e fields and the -E options.
func newFieldsOut(names, opts []string) (*fieldsOut, error) {
	fo := &fieldsOut{sep: "\t", agg: ",", occ: 'a'}
	for _, n := range names {
		g, ok := filter.Lookup(n)
		if !ok {
			return nil, fmt.Errorf("-e %s: unknown field (a packet field or a Wireshark name of the filters: docs/interface.md, Filters)", n)
		}
		fo.cols = append(fo.cols, fieldCol{g: g, wireshark: strings.Contains(n, "."), hex: tsharkHex[n]})
		fo.needFlow = fo.needFlow || n == "flow"
	}
	for _, o := range opts {
		if err := fo.option(o); err != nil {
			return nil, err
		}
	}
	return fo, nil
}

// option applies one -E OPTION=VALUE.
func (fo *fieldsOut) option(o string) error {
	k, v, _ := strings.Cut(o, "=")
	bad := func() error { return fmt.Errorf("invalid -E %q", o) }
	switch k {
	case "separator", "aggregator":
		s := map[string]string{"/t": "\t", "/s": " "}[v]
		if s == "" {
			s = v
		}
		if s == "" {
			return bad()
		}
		if k == "separator" {
			fo.sep = s
		} else {
			fo.agg = s
		}
	case "header":
		if v != "y" && v != "n" {
			return bad()
		}
		fo.header = v == "y"
	case "quote":
		q := map[string]byte{"d": '"', "s": '\'', "n": 0}
		c, ok := q[v]
		if !ok {
			return bad()
		}
		fo.quote = c
	case "occurrence":
		if v != "a" && v != "f" && v != "l" {
			return bad()
		}
		fo.occ = v[0]
	default:
		return fmt.Errorf("invalid -E %q: want separator=, header=, quote=, occurrence= or aggregator=", o)
	}
	return nil
}

// appendHeader appends the header line (-E header=y) of the field names.
func (fo *fieldsOut) appendHeader(b []byte) []byte {
	for i, c := range fo.cols {
		if i > 0 {
			b = append(b, fo.sep...)
		}
		b = append(b, c.g.Name()...)
	}
	return append(b, '\n')
}

// appendFrame appends the line of frame p (without the newline).
func (fo *fieldsOut) appendFrame(b []byte, p *decode.Packet, fr *filter.Frame) []byte {
	for i := range fo.cols {
		if i > 0 {
			b = append(b, fo.sep...)
		}
		b = fo.appendCol(b, &fo.cols[i], p, fr)
	}
	return b
}

// maxValues bounds the values of one field (pfc_quanta and events have 8).
const maxValues = 16

// appendCol appends one column: its values (those -E occurrence picks),
// quoted when -E quote asks, nothing when the frame lacks the field.
func (fo *fieldsOut) appendCol(b []byte, c *fieldCol, p *decode.Packet, fr *filter.Frame) []byte {
	n := 0
	for n < maxValues && c.has(p, fr, n) {
		n++
	}
	if n == 0 {
		return b
	}
	lo, hi := 0, n
	switch fo.occ {
	case 'f':
		hi = 1
	case 'l':
		lo = n - 1
	}
	if fo.quote != 0 {
		b = append(b, fo.quote)
	}
	for i := lo; i < hi; i++ {
		if i > lo {
			b = append(b, fo.agg...)
		}
		b = c.appendValue(b, p, fr, i)
	}
	if fo.quote != 0 {
		b = append(b, fo.quote)
	}
	return b
}

// has reports whether the frame has value i of the column's field.
func (c *fieldCol) has(p *decode.Packet, fr *filter.Frame, i int) bool {
	var ok bool
	switch c.g.Type() {
	case filter.TypeInt:
		_, ok = c.g.Int(p, fr, i)
	case filter.TypeIP:
		_, ok = c.g.IP(p, fr, i)
	case filter.TypeMAC:
		_, ok = c.g.MAC(p, fr, i)
	case filter.TypeString:
		_, ok = c.g.String(p, fr)
		ok = ok && i == 0
	case filter.TypeBool:
		_, ok = c.g.Bool(p, fr)
		ok = ok && i == 0
	case filter.TypeEvents:
		ok = nthEvent(fr.Events, i) >= 0
	}
	return ok
}

// appendValue appends value i (which has reported present) of the column.
func (c *fieldCol) appendValue(b []byte, p *decode.Packet, fr *filter.Frame, i int) []byte {
	switch c.g.Type() {
	case filter.TypeInt:
		v, _ := c.g.Int(p, fr, i)
		if c.hex > 0 {
			s := strconv.FormatUint(v, 16)
			b = append(b, "0x"...)
			for k := len(s); k < c.hex; k++ {
				b = append(b, '0')
			}
			return append(b, s...)
		}
		return strconv.AppendUint(b, v, 10)
	case filter.TypeIP:
		a, _ := c.g.IP(p, fr, i)
		return a.AppendTo(b)
	case filter.TypeMAC:
		m, _ := c.g.MAC(p, fr, i)
		const digits = "0123456789abcdef"
		for k, x := range m {
			if k > 0 {
				b = append(b, ':')
			}
			b = append(b, digits[x>>4], digits[x&15])
		}
		return b
	case filter.TypeString:
		s, _ := c.g.String(p, fr)
		return append(b, s...)
	case filter.TypeBool:
		v, _ := c.g.Bool(p, fr)
		switch {
		case c.wireshark && v:
			return append(b, '1')
		case c.wireshark:
			return append(b, '0')
		}
		return strconv.AppendBool(b, v)
	case filter.TypeEvents:
		return append(b, filter.EventNames[nthEvent(fr.Events, i)]...)
	}
	return b
}

// nthEvent returns the bit index of the i-th set bit of mask (from the
// lowest), or -1.
func nthEvent(mask uint8, i int) int {
	for k := range filter.EventNames {
		if mask&(1<<k) != 0 {
			if i == 0 {
				return k
			}
			i--
		}
	}
	return -1
}

// errCountReached stops packets' reading once -c frames are printed.
var errCountReached = errors.New("-c frames printed")

// appendFields appends the -T fields line of frame p of flow f (nil: none).
func (o *packetsOut) appendFields(b []byte, p *decode.Packet, f *flows.Flow, t *flows.Table, names []string) []byte {
	fr := filter.Frame{File: names[p.File], Events: uint8(t.FrameEvents())}
	if o.fo.needFlow {
		if f != nil {
			fr.Flow = f.ID()
		} else {
			fr.Flow = flowID(p)
		}
	}
	return o.fo.appendFrame(b, p, &fr)
}

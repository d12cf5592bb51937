package filter

import (
	"encoding/json"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

// The property test: random expressions over the contract's field names,
// compiled, against a slow reference that evaluates the same expression
// tree over the packet's packets --json object (decode.AppendJSON), with
// the semantics of the contract (absent field: false, != included; lists:
// any element; != : present and no element equal).

type refExpr struct {
	op    string // "&&", "||", "!", "cmp", "in", "present"
	l, r  *refExpr
	field string
	rel   string
	vals  []string // literals as written
}

func (e *refExpr) String() string {
	switch e.op {
	case "&&", "||":
		return "(" + e.l.String() + " " + e.op + " " + e.r.String() + ")"
	case "!":
		return "!" + e.l.String()
	case "cmp":
		return e.field + " " + e.rel + " " + e.vals[0]
	case "in":
		return e.field + " in {" + strings.Join(e.vals, ", ") + "}"
	}
	return e.field
}

// refFields are the fields the generator uses, with literals to draw.
var refFields = map[string][]string{
	"dst_qpn":     {"0x11", "0x22", "0x33", "17", "0"},
	"psn":         {"5", "1000", "999", "1001"},
	"udp_sport":   {"50000", "50001", "49152"},
	"ttl":         {"9", "63", "64"},
	"pfc_quanta":  {"0", "0xffff", "1"},
	"frame":       {"7", "1"},
	"kind":        {`"roce"`, `"pfc"`, `"cnp"`},
	"opcode_name": {`"RC_ACKNOWLEDGE"`, `"RC_RDMA_WRITE_ONLY"`, `"RC_FETCH_ADD"`},
	"ackreq":      {"true", "false", "1", "0"},
	"se":          {"true", "false"},
	"src_ip":      {"10.0.0.1", "10.0.0.2", "fd00::1", "10.0.0.0/24", "fd00::/16"},
	"dst_ip":      {"10.0.0.2", "fd00::2", "10.0.0.0/8"},
	"src_mac":     {"02:00:00:00:00:01", "02:00:00:00:00:09"},
	"reth_va":     {"0x1000", "4096", "0x2000"},
}

var refNames = func() []string {
	var n []string
	for k := range refFields {
		n = append(n, k)
	}
	return n
}()

func genExpr(r *rand.Rand, depth int) *refExpr {
	if depth > 0 && r.IntN(3) > 0 {
		switch r.IntN(3) {
		case 0:
			return &refExpr{op: "&&", l: genExpr(r, depth-1), r: genExpr(r, depth-1)}
		case 1:
			return &refExpr{op: "||", l: genExpr(r, depth-1), r: genExpr(r, depth-1)}
		default:
			return &refExpr{op: "!", l: genExpr(r, depth-1)}
		}
	}
	names := refNames
	f := names[r.IntN(len(names))]
	vals := refFields[f]
	v := vals[r.IntN(len(vals))]
	rels := []string{"==", "!=", "<", "<=", ">", ">="}
	switch {
	case f == "ackreq" || f == "se" || strings.Contains(v, "/"):
		rels = []string{"==", "!="}
	}
	switch r.IntN(5) {
	case 0:
		return &refExpr{op: "present", field: f}
	case 1:
		if f == "ackreq" || f == "se" || strings.Contains(v, "/") {
			break
		}
		n := 1 + r.IntN(3)
		var in []string
		for range n {
			in = append(in, vals[r.IntN(len(vals))])
		}
		return &refExpr{op: "in", field: f, vals: in}
	}
	return &refExpr{op: "cmp", field: f, rel: rels[r.IntN(len(rels))], vals: []string{v}}
}

// refEval evaluates e over the JSON object of a packet.
func refEval(t *testing.T, e *refExpr, obj map[string]any) bool {
	switch e.op {
	case "&&":
		return refEval(t, e.l, obj) && refEval(t, e.r, obj)
	case "||":
		return refEval(t, e.l, obj) || refEval(t, e.r, obj)
	case "!":
		return !refEval(t, e.l, obj)
	}
	raw := obj[e.field]
	if raw == nil {
		return false
	}
	var elems []any
	if l, ok := raw.([]any); ok {
		elems = l
	} else {
		elems = []any{raw}
	}
	if e.op == "present" {
		return true
	}
	anyMatch := func(rel string, lit string) bool {
		for _, x := range elems {
			if refCompare(t, x, rel, lit) {
				return true
			}
		}
		return false
	}
	switch e.op {
	case "in":
		for _, v := range e.vals {
			if anyMatch("==", v) {
				return true
			}
		}
		return false
	}
	if e.rel == "!=" {
		return !anyMatch("==", e.vals[0])
	}
	return anyMatch(e.rel, e.vals[0])
}

// refCompare compares one JSON value with a literal.
func refCompare(t *testing.T, x any, rel, lit string) bool {
	c := 0
	switch v := x.(type) {
	case float64: // integers of the test packets are exact in a float64
		want, ok := parseUint(lit)
		if !ok {
			t.Fatalf("literal %q", lit)
		}
		c = cmpF(v, float64(want))
	case bool:
		want := lit == "true" || lit == "1"
		if v == want {
			return rel == "=="
		}
		return false
	case string:
		switch {
		case strings.HasPrefix(lit, `"`):
			c = strings.Compare(v, strings.Trim(lit, `"`))
		case strings.Count(lit, ":") == 5 && !strings.Contains(lit, "::"): // a MAC
			c = strings.Compare(v, lit)
		default:
			a := netip.MustParseAddr(v)
			if strings.Contains(lit, "/") {
				return netip.MustParsePrefix(lit).Masked().Contains(a)
			}
			b := netip.MustParseAddr(lit)
			if a.BitLen() != b.BitLen() {
				return false
			}
			c = a.Compare(b)
		}
	default:
		t.Fatalf("value %T", x)
	}
	return ordered(relNames[rel], c)
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestPropertyCompiledEqualsReference(t *testing.T) {
	ps := testPackets(t)
	objs := map[string]map[string]any{}
	for name, p := range ps {
		var obj map[string]any
		if err := json.Unmarshal(p.AppendJSON(nil, "a.pcap", ""), &obj); err != nil {
			t.Fatal(err)
		}
		objs[name] = obj
	}
	r := rand.New(rand.NewPCG(1, 2))
	checked, trues := 0, 0
	for i := range 3000 {
		e := genExpr(r, 3)
		text := e.String()
		f, err := Compile(text)
		if err != nil {
			t.Fatalf("%d: %s: %v", i, text, err)
		}
		for name, p := range ps {
			got := f.Match(p, &Frame{})
			want := refEval(t, e, objs[name])
			if got != want {
				t.Fatalf("%s on %s: compiled %v, reference %v", text, name, got, want)
			}
			checked++
			if got {
				trues++
			}
		}
	}
	// Both outcomes are common: the test is not one-sided.
	if trues < checked/10 || trues > checked*9/10 {
		t.Errorf("%d of %d pairs match", trues, checked)
	}
	t.Logf("%d expression-packet pairs, %d match", checked, trues)
}

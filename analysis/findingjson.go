package analysis

import (
	"strconv"

	"github.com/rocetrace/rocetrace/internal/jsonstr"
)

// appendJSON appends the finding as encoding/json writes it (HTML escaping
// off, as WriteJSON's encoder), or, with indent, as json.Indent(prefix
// "    ", indent "  ") lays that out: an element of the report's findings
// array. A report of a million frames holds thousands of findings, and
// encoding/json's reflection and the re-indentation cost ~8,000
// instructions each (issue 20: the JSON report's tail after the pipeline).
func (f *Finding) appendJSON(b []byte, indent bool) []byte {
	w := evWriter{b: b, indent: indent}
	if indent {
		w.b = append(w.b, '{')
		w.b = append(w.b, evIndentField...)
		w.b = append(w.b, `"severity": `...)
	} else {
		w.b = append(w.b, `{"severity":`...)
	}
	w.b = jsonstr.Append(w.b, string(f.Severity))
	w.str("code", &f.Code)
	w.str("message", &f.Message)
	w.str("flow", f.Flow)
	if w.null("timeout_k", f.TimeoutK == nil) {
		w.b = strconv.AppendInt(w.b, int64(*f.TimeoutK), 10)
	}
	w.int("idle_ns", f.IdleNs)
	if indent {
		w.b = append(w.b, evIndentClose...)
	}
	return append(w.b, '}')
}

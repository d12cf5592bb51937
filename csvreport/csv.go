// Package csvreport writes the tables of an analysis.Report as CSV for
// spreadsheets (`rocetrace report --csv DIR`, docs/interface.md): flows.csv,
// events.csv, findings.csv and pfc.csv, one row per element of
// Report.Flows, Events, Findings and PFC, in the Report's order.
//
// Columns are the JSON names of the row type's fields (the keys of
// `report --json`), in field order, read from the `json` struct tags, so a
// field added to FlowReport or EventReport becomes a column by itself. A
// header row comes first. Rules where the contract is silent:
//
//   - a null (nil pointer) is an empty cell; so is an event field its kind
//     does not have (events.csv has every EventReport column);
//   - booleans are true/false, integers exact decimal;
//   - a field of struct type spreads into columns "name.sub" (recursively);
//     any other composite value (a slice, a map) is its JSON in one cell;
//   - quoting is encoding/csv's (RFC 4180), lines end in "\n".
package csvreport

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/rocetrace/rocetrace/analysis"
)

// Files are the files of `report --csv DIR`, in the order they are written.
var Files = []string{"flows.csv", "events.csv", "findings.csv", "pfc.csv"}

// WriteFile writes the table that the file name (one of Files) holds.
func WriteFile(w io.Writer, name string, r *analysis.Report) error {
	var err error
	switch name {
	case "flows.csv":
		err = writeTable(w, r.Flows)
	case "events.csv":
		err = writeTable(w, r.Events)
	case "findings.csv":
		err = writeTable(w, r.Findings)
	case "pfc.csv":
		err = writeTable(w, r.PFC)
	default:
		return fmt.Errorf("csv: no table %q", name)
	}
	if err != nil {
		return fmt.Errorf("csv %s: %w", name, err)
	}
	return nil
}

// column is one CSV column: its name and the field index path.
type column struct {
	name  string
	index []int
}

// columns returns the columns of struct type t, prefix before each name.
func columns(t reflect.Type, prefix string, base []int) []column {
	var out []column
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		idx := append(append([]int(nil), base...), i)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, columns(f.Type, prefix+name+".", idx)...)
			continue
		}
		out = append(out, column{name: prefix + name, index: idx})
	}
	return out
}

// writeTable writes a header and one row per element of rows.
func writeTable[T any](w io.Writer, rows []T) error {
	cols := columns(reflect.TypeFor[T](), "", nil)
	cw := csv.NewWriter(w)
	rec := make([]string, len(cols))
	for i, c := range cols {
		rec[i] = c.name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		for j, c := range cols {
			s, err := cellOf(v.FieldByIndex(c.index))
			if err != nil {
				return fmt.Errorf("column %s: %w", c.name, err)
			}
			rec[j] = s
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// cellOf renders one value: empty for nil, decimal, true/false, the string
// itself, or JSON for anything else.
func cellOf(v reflect.Value) (string, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	}
	b, err := json.Marshal(v.Interface())
	return string(b), err
}

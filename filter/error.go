package filter

import (
	"fmt"
	"strings"
)

// Error is a filter that does not compile: it does not parse, names an
// unknown field, or compares a field with a value of another type.
type Error struct {
	Expr string // the whole expression
	Col  int    // 1-based column (byte) of the offending token; len(Expr)+1 for its end
	Msg  string // what is wrong, without the expression
}

func errAt(col int, format string, a ...any) *Error {
	return &Error{Col: col, Msg: fmt.Sprintf(format, a...)}
}

// Error returns "MESSAGE (column N)".
func (e *Error) Error() string { return fmt.Sprintf("%s (column %d)", e.Msg, e.Col) }

// Format returns the message as the command line prints it, for kind
// "display filter" or "read filter":
//
//	rocetrace: display filter: MESSAGE
//	  EXPR
//	  ^
//
// with the caret under the offending column. Tabs and newlines in the
// expression print as spaces so the caret stays aligned.
func (e *Error) Format(kind string) string {
	expr := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, e.Expr)
	col := max(e.Col, 1)
	return fmt.Sprintf("rocetrace: %s: %s\n  %s\n  %s^\n", kind, e.Msg, expr, strings.Repeat(" ", col-1))
}

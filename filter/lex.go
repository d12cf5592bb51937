package filter

import (
	"strings"
)

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tWord           // field name, keyword or unquoted literal (number, address, MAC, range)
	tString         // "quoted string" (text holds the unescaped value)
	tOp             // == != < <= > >=
	tAnd            // &&
	tOr             // ||
	tNot            // !
	tLParen
	tRParen
	tLBrace
	tRBrace
	tComma
)

// token is one lexical token; col is the 1-based column of its first byte.
type token struct {
	kind tokKind
	text string
	col  int
}

// isWordByte reports whether c may appear in a word: field names
// (letters, digits, '_', '.'), numbers, IPv4/IPv6 addresses with a /prefix,
// MACs and lo..hi ranges.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == ':' || c == '/' || c == '-'
}

// lex splits expr into tokens, ending with tEOF.
func lex(expr string) ([]token, *Error) {
	var toks []token
	i := 0
	for i < len(expr) {
		c := expr[i]
		col := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '"':
			s, n, err := lexString(expr, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tString, s, col})
			i += n
			continue
		case isWordByte(c):
			j := i
			for j < len(expr) && isWordByte(expr[j]) {
				j++
			}
			toks = append(toks, token{tWord, expr[i:j], col})
			i = j
			continue
		}
		two := ""
		if i+1 < len(expr) {
			two = expr[i : i+2]
		}
		switch {
		case two == "==" || two == "!=" || two == "<=" || two == ">=":
			toks = append(toks, token{tOp, two, col})
			i += 2
		case two == "&&":
			toks = append(toks, token{tAnd, two, col})
			i += 2
		case two == "||":
			toks = append(toks, token{tOr, two, col})
			i += 2
		case c == '<' || c == '>':
			toks = append(toks, token{tOp, expr[i : i+1], col})
			i++
		case c == '!':
			toks = append(toks, token{tNot, "!", col})
			i++
		case c == '(':
			toks = append(toks, token{tLParen, "(", col})
			i++
		case c == ')':
			toks = append(toks, token{tRParen, ")", col})
			i++
		case c == '{':
			toks = append(toks, token{tLBrace, "{", col})
			i++
		case c == '}':
			toks = append(toks, token{tRBrace, "}", col})
			i++
		case c == ',':
			toks = append(toks, token{tComma, ",", col})
			i++
		case c == '=':
			return nil, errAt(col, `unexpected "=" (use "==")`)
		default:
			return nil, errAt(col, "unexpected character %q", rune(c))
		}
	}
	toks = append(toks, token{tEOF, "", len(expr) + 1})
	return toks, nil
}

// lexString reads the quoted string starting at expr[i] ('"'); it returns
// the unescaped value and the number of bytes consumed.
func lexString(expr string, i int) (string, int, *Error) {
	var b strings.Builder
	j := i + 1
	for j < len(expr) {
		c := expr[j]
		switch c {
		case '"':
			return b.String(), j + 1 - i, nil
		case '\\':
			if j+1 >= len(expr) {
				return "", 0, errAt(i+1, "unterminated string")
			}
			e := expr[j+1]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '"':
				b.WriteByte(e)
			case 'x':
				if j+3 >= len(expr) || unhex(expr[j+2]) < 0 || unhex(expr[j+3]) < 0 {
					return "", 0, errAt(j+1, `invalid \x escape`)
				}
				b.WriteByte(byte(unhex(expr[j+2])<<4 | unhex(expr[j+3])))
				j += 2
			default:
				return "", 0, errAt(j+1, "invalid escape \\%c", e)
			}
			j += 2
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, errAt(i+1, "unterminated string")
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

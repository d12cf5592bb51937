// Package jsonstr appends strings as JSON string literals, byte for byte as
// encoding/json writes them with HTML escaping off
// (json.Encoder.SetEscapeHTML(false)): '"', '\\' and control characters
// are escaped (\b, \f, \n, \r, \t by name, the others as \u00XX), invalid
// UTF-8 bytes become \ufffd, and U+2028 and U+2029 are escaped as \u2028
// and \u2029; '<', '>' and '&' are written as they are. It has no
// dependencies beyond the standard library, so any package (decode,
// analysis) can use it.
package jsonstr

import "unicode/utf8"

const hex = "0123456789abcdef"

// Append appends s to b as a JSON string, quotes included, and returns the
// extended slice. A string of printable ASCII without '"' or '\\' is copied
// as it is, without allocating beyond growing b.
func Append(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return appendEscaped(b, s, i)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendEscaped is Append for a string whose byte i is the first that may
// need escaping.
func appendEscaped(b []byte, s string, i int) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is pending, written as it is
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendASCIIEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendASCIIEscape appends the escape of the ASCII byte c: '"', '\\' or a
// control character.
func appendASCIIEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

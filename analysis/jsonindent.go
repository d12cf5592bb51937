package analysis

import "bytes"

// appendIndented appends src, a compact JSON value as encoding/json writes
// it (no white space outside strings), to dst indented as json.Indent(dst,
// src, prefix, indent) would: the same bytes (TestAppendIndented), without
// json.Indent's scanner, which steps a state machine through a function
// call per byte and cost more than encoding the report's flows and
// findings. src must be valid compact JSON.
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	needIndent := false // after { or [: indent unless the next byte closes it
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			dst = appendNewline(dst, prefix, indent, depth)
		}
		switch c {
		case '"':
			j := stringEnd(src, i)
			dst = append(dst, src[i:j]...)
			i = j - 1
		case 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			j := i + 1 // a literal or number: up to the next punctuation
			for j < len(src) && !isPunct(src[j]) {
				j++
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendNewline(dst, prefix, indent, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent { // {} and [] stay as they are
				needIndent = false
			} else {
				depth--
				dst = appendNewline(dst, prefix, indent, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// isPunct reports whether c ends a literal or number in compact JSON.
func isPunct(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ':'
}

// stringEnd returns the index just past the JSON string that starts with
// the quote at src[i] (len(src) if it is not closed): the first quote
// after it preceded by an even number of backslashes.
func stringEnd(src []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(src[j:], '"')
		if k < 0 {
			return len(src)
		}
		q := j + k
		n := 0
		for b := q - 1; b > i && src[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// appendNewline appends a newline, prefix and depth times indent.
func appendNewline(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}

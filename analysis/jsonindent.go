package analysis

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

// stringEnd returns the index just past the JSON string that starts with
// the quote at src[i] (len(src) if it is not closed).
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++ // the escaped byte (\" or \\ among them)
		case '"':
			return j + 1
		}
	}
	return len(src)
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

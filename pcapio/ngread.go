package pcapio

import (
	"fmt"
	"io"
	"math"
	"math/bits"
)

// pcapng file format: a sequence of blocks, each type (4 bytes), total
// length (4), body, total length again (4), in the byte order of the section
// (set by each Section Header Block's byte-order magic).

const (
	ngBlockSHB    = 0x0A0D0D0A // Section Header Block
	ngBlockIDB    = 0x00000001 // Interface Description Block
	ngBlockPB     = 0x00000002 // Packet Block (obsolete)
	ngBlockSPB    = 0x00000003 // Simple Packet Block
	ngBlockEPB    = 0x00000006 // Enhanced Packet Block
	ngByteOrderBE = 0x1A2B3C4D // byte-order magic as read in the right order

	ngMinBlockLen = 12 // type, length, trailing length
	ngMinSHBLen   = 28 // + byte-order magic, version, section length

	ngOptEnd      = 0
	ngOptTsResol  = 9
	ngOptTsOffset = 14
)

// MaxBlockLen is the largest pcapng block total length accepted; a longer
// block is damage. It bounds the memory one block can make a Reader use.
const MaxBlockLen = 64 << 20

// Timestamp conversion modes of an interface.
const (
	tsMul   = iota // ns = ticks * factor (10^-n, n <= 9)
	tsDiv          // ns = ticks / factor (10^-n, 9 < n <= 28)
	tsZero         // ns = 0 (10^-n, n > 28: every uint64 tick count is under 1 ns)
	tsShift        // ns = ticks * 1e9 >> factor (2^-n)
)

// ngIface is one interface of the current pcapng section.
type ngIface struct {
	link     LinkType
	snaplen  uint32
	tsMode   uint8
	tsFactor uint64
	tsOffNs  int64 // if_tsoffset in nanoseconds
}

// isPcapngMagic reports whether b starts with the Section Header Block type.
func isPcapngMagic(b []byte) bool {
	return b[0] == 0x0A && b[1] == 0x0D && b[2] == 0x0D && b[3] == 0x0A
}

// byteOrderMagic reports the byte order the byte-order magic b[0:4] gives.
func byteOrderMagic(b []byte) (be, ok bool) {
	switch {
	case b[0] == 0x1A && b[1] == 0x2B && b[2] == 0x3C && b[3] == 0x4D:
		return true, true
	case b[0] == 0x4D && b[1] == 0x3C && b[2] == 0x2B && b[3] == 0x1A:
		return false, true
	}
	return false, false
}

// initPcapng checks the first Section Header Block's byte-order magic, then
// reads the blocks before the first packet block (so that LinkTypes knows the
// interfaces described up front). Damage there is kept for Next.
func (r *Reader) initPcapng() error {
	r.format = formatPcapng
	if !r.fill(12) {
		if r.rerr != nil {
			return r.readError(0)
		}
		return r.damage(0, "section header block cut short (need %d bytes, %d left)", ngMinSHBLen, r.avail())
	}
	bom := r.buf[r.r+8 : r.r+12]
	if _, ok := byteOrderMagic(bom); !ok {
		return &notCaptureError{r.name, fmt.Sprintf("%v (pcapng block type with byte-order magic 0x%02x%02x%02x%02x)",
			ErrNotCapture, bom[0], bom[1], bom[2], bom[3])}
	}
	for {
		before := r.offset()
		if _, err := r.ngBlock(nil); err != nil {
			if err != io.EOF {
				r.err = err // reported by Next
			}
			return nil
		}
		if r.offset() == before {
			return nil // stopped before a packet block
		}
	}
}

// nextPcapng reads blocks up to and including the next packet block.
func (r *Reader) nextPcapng(rec *Record) error {
	for {
		got, err := r.ngBlock(rec)
		if err != nil || got {
			return err
		}
	}
}

// ngBlock reads and handles one block. It reports whether the block was a
// packet block, read into rec. With rec nil it stops before a packet block,
// leaving it unread.
func (r *Reader) ngBlock(rec *Record) (bool, error) {
	off := r.offset()
	if r.w-r.r < 8 && !r.fill(8) {
		if r.avail() == 0 && r.rerr == nil {
			return false, io.EOF
		}
		return false, r.shortError(off, "block header", 8)
	}
	typ := r.u32(r.buf[r.r:])
	if rec == nil && (typ == ngBlockEPB || typ == ngBlockPB || typ == ngBlockSPB) {
		return false, nil // leave it for Next
	}
	if typ == ngBlockSHB {
		// The byte order of the new section must be known before its length.
		if !r.fill(12) {
			return false, r.shortError(off, "section header block", ngMinSHBLen)
		}
		be, ok := byteOrderMagic(r.buf[r.r+8:])
		if !ok {
			b := r.buf[r.r+8:]
			return false, r.damage(off, "section header block with unknown byte-order magic 0x%02x%02x%02x%02x", b[0], b[1], b[2], b[3])
		}
		r.be = be
	}
	total := r.u32(r.buf[r.r+4:])
	switch {
	case total < ngMinBlockLen:
		return false, r.damage(off, "block total length %d is less than %d", total, ngMinBlockLen)
	case total%4 != 0:
		return false, r.damage(off, "block total length %d is not a multiple of 4", total)
	case total > MaxBlockLen:
		return false, r.damage(off, "block total length %d exceeds the limit of %d bytes", total, MaxBlockLen)
	}
	n := int(total)
	if r.w-r.r < n && !r.fill(n) {
		return false, r.shortError(off, "block", int64(n))
	}
	blk := r.buf[r.r : r.r+n : r.r+n]
	if trail := r.u32(blk[n-4:]); trail != total {
		return false, r.damage(off, "trailing block length %d differs from the leading block length %d", trail, total)
	}
	body := blk[8 : n-4]
	got := false
	var err error
	switch typ {
	case ngBlockSHB:
		err = r.ngSHB(off, body)
	case ngBlockIDB:
		err = r.ngIDB(off, body)
	case ngBlockEPB, ngBlockPB:
		err = r.ngEPB(off, typ, body, rec)
		got = err == nil
	case ngBlockSPB:
		err = r.ngSPB(off, body, rec)
		got = err == nil
	}
	if err != nil {
		return false, err
	}
	r.r += n
	return got, nil
}

// ngSHB starts a new section (the byte order is already set).
func (r *Reader) ngSHB(off int64, body []byte) error {
	if len(body)+ngMinBlockLen < ngMinSHBLen {
		return r.damage(off, "section header block too short (%d bytes)", len(body)+ngMinBlockLen)
	}
	major, minor := r.u16(body[4:]), r.u16(body[6:])
	if major != 1 {
		return r.damage(off, "unsupported pcapng version %d.%d", major, minor)
	}
	r.ifaces = r.ifaces[:0]
	return nil
}

// ngIDB adds an interface to the section.
func (r *Reader) ngIDB(off int64, body []byte) error {
	if len(body) < 8 {
		return r.damage(off, "interface description block too short (%d bytes)", len(body)+ngMinBlockLen)
	}
	ifc := ngIface{
		link:     LinkType(r.u16(body[0:])),
		snaplen:  r.u32(body[4:]),
		tsMode:   tsMul,
		tsFactor: 1000, // default if_tsresol: 10^-6
	}
	opts := body[8:]
	for len(opts) >= 4 {
		code, olen := r.u16(opts[0:]), int(r.u16(opts[2:]))
		if code == ngOptEnd {
			break
		}
		padded := (olen + 3) &^ 3
		if 4+padded > len(opts) {
			return r.damage(off, "interface option %d (length %d) overruns its block", code, olen)
		}
		val := opts[4 : 4+olen]
		switch code {
		case ngOptTsResol:
			if olen >= 1 {
				ifc.tsMode, ifc.tsFactor = tsResolution(val[0])
			}
		case ngOptTsOffset:
			if olen == 8 {
				var v uint64
				if r.be {
					v = uint64(r.u32(val[0:]))<<32 | uint64(r.u32(val[4:]))
				} else {
					v = uint64(r.u32(val[4:]))<<32 | uint64(r.u32(val[0:]))
				}
				ifc.tsOffNs = mulSat(int64(v), 1e9)
			}
		}
		opts = opts[4+padded:]
	}
	r.ifaces = append(r.ifaces, ifc)
	r.addLinkType(ifc.link)
	return nil
}

// ngEPB reads an Enhanced Packet Block or an obsolete Packet Block (same
// layout, except a 16-bit interface id followed by a 16-bit drop count).
func (r *Reader) ngEPB(off int64, typ uint32, body []byte, rec *Record) error {
	if err := epbFields(r.be, typ, body, r.ifaces, rec); err != nil {
		return r.damage(off, "%s", err)
	}
	r.packet(rec, off)
	return nil
}

// ngSPB reads a Simple Packet Block (interface 0, no timestamp: it takes the
// previous packet record's).
func (r *Reader) ngSPB(off int64, body []byte, rec *Record) error {
	if err := spbFields(r.be, body, r.ifaces, rec); err != nil {
		return r.damage(off, "%s", err)
	}
	rec.TsNs = r.lastTs
	r.packet(rec, off)
	return nil
}

// epbFields reads the body of an Enhanced Packet Block or an obsolete
// Packet Block (same layout, except a 16-bit interface id followed by a
// 16-bit drop count) of a section with the given interfaces into rec: Data
// (a slice of body), TsNs, CapLen, Len and LinkType. It says what is wrong
// with a block that cannot be a packet record.
func epbFields(be bool, typ uint32, body []byte, ifaces []ngIface, rec *Record) error {
	if len(body) < 20 {
		return fmt.Errorf("packet block too short (%d bytes)", len(body)+ngMinBlockLen)
	}
	var id uint32
	if typ == ngBlockPB {
		id = uint32(order16(be, body[0:]))
	} else {
		id = order32(be, body[0:])
	}
	if id >= uint32(len(ifaces)) {
		return fmt.Errorf("packet block references undefined interface %d (%d defined in this section)", id, len(ifaces))
	}
	ifc := &ifaces[id]
	ticks := uint64(order32(be, body[4:]))<<32 | uint64(order32(be, body[8:]))
	capLen := order32(be, body[12:])
	wireLen := order32(be, body[16:])
	if capLen > uint32(len(body)-20) {
		return fmt.Errorf("captured length %d overruns its block (room for %d bytes)", capLen, len(body)-20)
	}
	end := 20 + int(capLen)
	rec.Data = body[20:end:end]
	rec.TsNs = ifc.ns(ticks)
	rec.CapLen = int(capLen)
	rec.Len = int(max(wireLen, capLen))
	rec.LinkType = ifc.link
	return nil
}

// spbFields reads the body of a Simple Packet Block (interface 0; it has no
// timestamp, so TsNs is left to the caller) into rec.
func spbFields(be bool, body []byte, ifaces []ngIface, rec *Record) error {
	if len(body) < 4 {
		return fmt.Errorf("simple packet block too short (%d bytes)", len(body)+ngMinBlockLen)
	}
	if len(ifaces) == 0 {
		return fmt.Errorf("simple packet block without an interface (0 defined in this section)")
	}
	ifc := &ifaces[0]
	wireLen := order32(be, body[0:])
	capLen := min(wireLen, uint32(len(body)-4))
	if ifc.snaplen != 0 {
		capLen = min(capLen, ifc.snaplen)
	}
	end := 4 + int(capLen)
	rec.Data = body[4:end:end]
	rec.CapLen = int(capLen)
	rec.Len = int(wireLen) // >= capLen
	rec.LinkType = ifc.link
	return nil
}

// packet fills in the fields common to every packet record.
func (r *Reader) packet(rec *Record, off int64) {
	r.frame++
	rec.Frame = r.frame
	rec.File = r.file
	rec.Offset = off
	r.lastTs = rec.TsNs
}

// pow10 holds 10^0 .. 10^19 (all that fit in a uint64).
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// tsResolution returns the conversion of an if_tsresol value.
func tsResolution(v uint8) (mode uint8, factor uint64) {
	if v&0x80 != 0 {
		return tsShift, uint64(v & 0x7F)
	}
	n := int(v)
	switch {
	case n <= 9:
		return tsMul, pow10[9-n]
	case n-9 < len(pow10):
		return tsDiv, pow10[n-9]
	}
	return tsZero, 0
}

// ns converts a timestamp in ticks of the interface's resolution to
// nanoseconds since the epoch, if_tsoffset included. Values that do not fit
// an int64 saturate.
func (ifc *ngIface) ns(ticks uint64) int64 {
	var v uint64
	switch ifc.tsMode {
	case tsMul:
		hi, lo := bits.Mul64(ticks, ifc.tsFactor)
		if hi != 0 {
			lo = math.MaxUint64
		}
		v = lo
	case tsDiv:
		v = ticks / ifc.tsFactor
	case tsShift:
		v = shiftNs(ticks, uint(ifc.tsFactor))
	}
	if v > math.MaxInt64 {
		v = math.MaxInt64
	}
	return addSat(int64(v), ifc.tsOffNs)
}

// shiftNs returns ticks * 1e9 / 2^n, truncated, with a 128-bit product;
// math.MaxUint64 when it does not fit a uint64.
func shiftNs(ticks uint64, n uint) uint64 {
	hi, lo := bits.Mul64(ticks, 1e9)
	switch {
	case n >= 128:
		return 0
	case n >= 64:
		return hi >> (n - 64)
	case n == 0:
		if hi != 0 {
			return math.MaxUint64
		}
		return lo
	}
	if hi>>n != 0 {
		return math.MaxUint64
	}
	return hi<<(64-n) | lo>>n
}

// addSat returns a+b, saturated to the int64 range.
func addSat(a, b int64) int64 {
	s := a + b
	if (s > a) != (b > 0) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// mulSat returns a*b (b > 0), saturated to the int64 range.
func mulSat(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	if a < math.MinInt64/b {
		return math.MinInt64
	}
	return a * b
}

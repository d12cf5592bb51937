package export

import (
	"io"
	"net/netip"
	"slices"
	"unsafe"

	"github.com/parquet-go/parquet-go/format"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/flows"
)

// Leaf columns of packets.parquet, in schema order (the order of PacketRow's
// fields; pfc_quanta is one leaf, its list element). TestPacketColumnIndexes
// checks them against the schema.
const (
	colFrame = iota
	colFile
	colTsNs
	colTs
	colLen
	colCapLen
	colKind
	colSrcMAC
	colDstMAC
	colVLANID
	colVLANPCP
	colSrcIP
	colDstIP
	colDSCP
	colECN
	colTTL
	colUDPSport
	colUDPDport
	colOpcode
	colOpcodeName
	colTransport
	colSE
	colMigReq
	colPad
	colTVer
	colPKey
	colFECN
	colBECN
	colDstQPN
	colAckReq
	colPSN
	colRETHVA
	colRETHRKey
	colRETHLen
	colAETHSyndrome
	colAETHMSN
	colDETHQKey
	colDETHSrcQPN
	colImm
	colIETHRKey
	colXRCSRQ
	colAtomicVA
	colAtomicRKey
	colAtomicSwapAdd
	colAtomicCompare
	colAtomicAckOrig
	colPayloadLen
	colICRC
	colICRCStatus
	colPFCEnable
	colPFCQuanta
	colPauseQuanta
	colFlow
	colTruncated
	colMalformed
	colEncap
	colCMAttr
	colCMLocalCommID
	colCMRemoteCommID
	colCMLocalQPN
	numPacketColumns
)

// packetWriter writes packets.parquet with the columnar writer of
// colwriter.go: each frame stores one typed value per column (eight for a
// PFC frame's pfc_quanta) and one definition level per group of columns
// null together at its row of the current pageSet's planes; a full pageSet
// goes to the worker goroutine, which encodes and compresses it while the
// next one fills. String columns are
// dictionary-encoded with a dictionary per row group whose indexes come
// from the enum codes (kind, opcode_name, transport, icrc_status, encap),
// the binary MAC and IP addresses, the flow's pointer or the file name, so
// that no string is hashed or formatted for a value already seen. Nothing
// is allocated per row.
type packetWriter struct {
	layout  *packetLayout
	pipe    *pipeline
	cur     *pageSet
	inGroup int64 // rows in the current row group, cur included
	groupN  int64 // rows per row group
	rows    int64
	kv      map[string]string
	err     error

	file                            lastDict
	kind, opName, transport, status enumDict
	encap                           enumDict
	srcMAC, dstMAC                  macDict
	srcIP, dstIP                    addrDict
	flow                            flowDict
	noFlow                          flowSlot // the last addresses of rows without a flow
}

func newPacketWriter(w io.Writer, opts WriterOptions) (*packetWriter, error) {
	codec, err := Codec(opts.Compression)
	if err != nil {
		return nil, err
	}
	l, err := packetLayoutOnce()
	if err != nil {
		return nil, err
	}
	pw := &packetWriter{layout: l, groupN: opts.RowGroupRows, kv: make(map[string]string)}
	if pw.groupN <= 0 {
		pw.groupN = DefaultRowGroupRows
	}
	for k, v := range opts.Metadata {
		pw.kv[k] = v
	}
	enc := newColEncoder(w, l, codec)
	if err := enc.write([]byte("PAR1")); err != nil {
		return nil, err
	}
	pw.pipe, pw.cur = startPipeline(enc)
	pw.resetDicts()
	return pw, nil
}

// setMetadata sets a footer key/value pair.
func (w *packetWriter) setMetadata(k, v string) { w.kv[k] = v }

// b2u is 1 for true, 0 for false: a definition level.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// add appends the row of p, with the null rules of `packets --json`
// (decode.Packet.AppendJSON). file is the capture's name, flow the flow id
// ("" for null).
func (w *packetWriter) add(p *decode.Packet, file, flow string) error {
	return w.addRow(p, file, nil, flow)
}

// addFlow is add with the flow given as a *flows.Flow (nil for null): its
// dictionary index is found by pointer.
func (w *packetWriter) addFlow(p *decode.Packet, file string, f *flows.Flow) error {
	return w.addRow(p, file, f, "")
}

func (w *packetWriter) addRow(p *decode.Packet, file string, f *flows.Flow, flow string) error {
	if w.err != nil {
		return w.err
	}
	// Every column gets a value and every group of optional columns a
	// level at row r of its plane: fixed offsets from s, no bounds checks
	// (r < pageRows). The values of null rows are left as they come (the
	// worker drops them), so most fields are stored without a branch; only
	// dictionary lookups wait for a present value.
	s := w.cur
	r := s.n & (pageRows - 1)
	i32, i64, def := &s.i32, &s.i64, &s.def
	i64[i64Frame][r] = int64(p.Frame)
	i32[i32File][r] = w.file.index(file)
	i64[i64TsNs][r] = p.TsNs // and ts
	i32[i32Len][r] = int32(p.Len)
	i32[i32CapLen][r] = int32(p.CapLen)
	i32[i32Kind][r] = w.kind.index(uint8(p.Kind), &kindNames)
	// The flow's slot, or the one of the rows without a flow.
	fs := &w.noFlow
	if f != nil {
		if sl := w.flow.slotOf(f); sl != nil {
			fs = sl
		}
	}
	def[dSrcMAC][r] = b2u(p.HasMAC)
	if p.HasMAC {
		i32[i32SrcMAC][r] = macIndex(&w.srcMAC, p.SrcMAC, &fs.srcMAC, &fs.iSrcMAC)
	}
	hasDst := p.HasMAC && p.DstMAC != [6]byte{}
	def[dDstMAC][r] = b2u(hasDst)
	if hasDst {
		i32[i32DstMAC][r] = macIndex(&w.dstMAC, p.DstMAC, &fs.dstMAC, &fs.iDstMAC)
	}
	def[dVLAN][r] = b2u(p.VLANCount > 0)
	if p.VLANCount > 0 {
		i32[i32VLANID][r] = int32(p.VLANID)
		i32[i32VLANPCP][r] = int32(p.VLANPCP)
	}
	def[dSrcIP][r] = b2u(p.SrcIP.IsValid())
	if p.SrcIP.IsValid() {
		i32[i32SrcIP][r] = addrIndex(&w.srcIP, p.SrcIP, &fs.srcIP, &fs.iSrcIP)
	}
	def[dDstIP][r] = b2u(p.DstIP.IsValid())
	if p.DstIP.IsValid() {
		i32[i32DstIP][r] = addrIndex(&w.dstIP, p.DstIP, &fs.dstIP, &fs.iDstIP)
	}
	def[dIP][r] = b2u(p.IPVersion != 0)
	i32[i32DSCP][r] = int32(p.DSCP)
	i32[i32ECN][r] = int32(p.ECN)
	i32[i32TTL][r] = int32(p.TTL)
	def[dUDP][r] = b2u(p.HasUDP)
	i32[i32UDPSport][r] = int32(p.SrcPort)
	i32[i32UDPDport][r] = int32(p.DstPort)

	h := p.HasBTH
	def[dBTH][r] = b2u(h) // the BTH columns and icrc_status
	b := &p.BTH
	op := uint8(b.Opcode)
	if h {
		i32[i32OpcodeName][r] = w.opName.index(op, &opcodeNames)
		i32[i32Transport][r] = w.transport.index(uint8(b.Opcode.Transport()), &transportCodeNames)
		i32[i32ICRCStatus][r] = w.status.index(uint8(p.ICRCStatus), &icrcNames)
	}
	i32[i32Opcode][r] = int32(op)
	i32[i32Pad][r] = int32(b.Pad)
	i32[i32TVer][r] = int32(b.TVer)
	i32[i32PKey][r] = int32(b.PKey)
	i32[i32DstQPN][r] = int32(b.DestQP)
	i32[i32PSN][r] = int32(b.PSN)
	bl := &s.b
	bl[bSE][r] = b2u(b.SE)
	bl[bMigReq][r] = b2u(b.MigReq)
	bl[bFECN][r] = b2u(b.FECN)
	bl[bBECN][r] = b2u(b.BECN)
	bl[bAckReq][r] = b2u(b.AckReq)
	bl[bTruncated][r] = b2u(p.Truncated)
	bl[bMalformed][r] = b2u(p.Malformed)

	ext := p.Ext
	def[dRETH][r] = b2u(ext&decode.ExtRETH != 0)
	i64[i64RETHVA][r] = int64(p.RETH.VA)
	i32[i32RETHRKey][r] = int32(p.RETH.RKey)
	i32[i32RETHLen][r] = int32(p.RETH.DMALen)
	def[dAETH][r] = b2u(ext&decode.ExtAETH != 0)
	i32[i32AETHSyndrome][r] = int32(p.AETH.Syndrome)
	i32[i32AETHMSN][r] = int32(p.AETH.MSN)
	// The rarer headers' values are stored only when present: their
	// planes' cache lines are not written for nothing.
	def[dDETH][r] = b2u(ext&decode.ExtDETH != 0)
	def[dImm][r] = b2u(ext&decode.ExtImmDt != 0)
	def[dIETH][r] = b2u(ext&decode.ExtIETH != 0)
	def[dXRC][r] = b2u(ext&decode.ExtXRCETH != 0)
	def[dAtomic][r] = b2u(ext&decode.ExtAtomicETH != 0)
	def[dAtomicAck][r] = b2u(ext&decode.ExtAtomicAckETH != 0)
	if ext&(decode.ExtDETH|decode.ExtImmDt|decode.ExtIETH|decode.ExtXRCETH|decode.ExtAtomicETH|decode.ExtAtomicAckETH) != 0 {
		i32[i32DETHQKey][r] = int32(p.DETH.QKey)
		i32[i32DETHSrcQPN][r] = int32(p.DETH.SrcQP)
		i32[i32Imm][r] = int32(p.Imm)
		i32[i32IETHRKey][r] = int32(p.IETHRKey)
		i32[i32XRCSRQ][r] = int32(p.XRCSRQ)
		i64[i64AtomicVA][r] = int64(p.AtomicETH.VA)
		i32[i32AtomicRKey][r] = int32(p.AtomicETH.RKey)
		i64[i64AtomicSwapAdd][r] = int64(p.AtomicETH.SwapAdd)
		i64[i64AtomicCompare][r] = int64(p.AtomicETH.Compare)
		i64[i64AtomicAckOrig][r] = int64(p.AtomicAckOrig)
	}

	def[dPayloadLen][r] = b2u(h && p.HasPayloadLen)
	i32[i32PayloadLen][r] = int32(p.PayloadLen)
	def[dICRC][r] = b2u(h && p.ICRCStatus != decode.ICRCUnchecked)
	i32[i32ICRC][r] = int32(p.ICRC)

	pfc := p.Kind == decode.KindPFC
	def[dPFC][r] = b2u(pfc) // pfc_enable and pfc_quanta
	if pfc {
		i32[i32PFCEnable][r] = int32(p.PFCEnable)
		for _, x := range p.PFCQuanta {
			s.pfcQuanta = append(s.pfcQuanta, int32(x))
		}
	}
	def[dPause][r] = b2u(p.Kind == decode.KindPause)
	if p.Kind == decode.KindPause {
		i32[i32PauseQuanta][r] = int32(p.PauseQuanta)
	}
	def[dFlow][r] = 1
	switch {
	case fs != &w.noFlow:
		i32[i32Flow][r] = fs.idx
	case f != nil:
		i32[i32Flow][r] = w.flow.index(f.ID())
	case flow != "":
		i32[i32Flow][r] = w.flow.index(flow)
	default:
		def[dFlow][r] = 0
	}
	def[dEncap][r] = b2u(p.Encap != decode.EncapNone)
	if p.Encap != decode.EncapNone {
		i32[i32Encap][r] = w.encap.index(uint8(p.Encap), &encapNames)
	}
	def[dCM][r] = b2u(p.CM.Attr != 0)
	if p.CM.Attr != 0 {
		i32[i32CMAttr][r] = int32(p.CM.Attr)
		i32[i32CMLocalCommID][r] = int32(p.CM.LocalCommID)
		i32[i32CMRemoteCommID][r] = int32(p.CM.RemoteCommID)
		i32[i32CMLocalQPN][r] = int32(p.CM.LocalQPN)
	}

	s.n++
	w.rows++
	w.inGroup++
	switch {
	case w.inGroup == w.groupN:
		return w.send(true)
	case s.n == pageRows:
		return w.send(false)
	}
	return nil
}

// macIndex returns the dictionary index of a MAC address, from a flow's
// slot (last, idx) when the flow's previous row had the same address.
func macIndex(d *macDict, mac [6]byte, last *[6]byte, idx *int32) int32 {
	if *idx >= 0 && *last == mac {
		return *idx
	}
	i := d.index(mac)
	*last, *idx = mac, i
	return i
}

// addrIndex is macIndex for IP addresses.
func addrIndex(d *addrDict, a netip.Addr, last *netip.Addr, idx *int32) int32 {
	if *idx >= 0 && *last == a {
		return *idx
	}
	i := d.index(a)
	*last, *idx = a, i
	return i
}

// send hands the current pageSet to the worker, with the row group's
// dictionaries, which start afresh if the set ends the group.
func (w *packetWriter) send(endGroup bool) error {
	s := w.cur
	s.endGroup = endGroup
	d := &s.dicts
	d[colFile], d[colKind], d[colOpcodeName], d[colTransport] = w.file.vals, w.kind.vals, w.opName.vals, w.transport.vals
	d[colICRCStatus], d[colEncap], d[colFlow] = w.status.vals, w.encap.vals, w.flow.vals
	d[colSrcMAC], d[colDstMAC], d[colSrcIP], d[colDstIP] = w.srcMAC.vals, w.dstMAC.vals, w.srcIP.vals, w.dstIP.vals
	if endGroup {
		w.inGroup = 0
		w.resetDicts()
	}
	var err error
	if w.cur, err = w.pipe.send(s); err != nil {
		w.err = err
	}
	return err
}

// resetDicts starts new dictionaries (for a new row group). The old
// values slices stay with the worker, unchanged.
func (w *packetWriter) resetDicts() {
	w.file.reset()
	for _, d := range []*enumDict{&w.kind, &w.opName, &w.transport, &w.status, &w.encap} {
		d.reset()
	}
	w.srcMAC.reset()
	w.dstMAC.reset()
	w.srcIP.reset()
	w.dstIP.reset()
	w.flow.reset()
	w.noFlow = flowSlot{iSrcIP: -1, iDstIP: -1, iSrcMAC: -1, iDstMAC: -1}
}

// Close writes the last rows and the footer.
func (w *packetWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.inGroup > 0 {
		if err := w.send(true); err != nil {
			w.abort()
			return err
		}
	}
	if err := w.pipe.stop(); err != nil {
		w.err = err
		return err
	}
	keys := make([]string, 0, len(w.kv))
	for k := range w.kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	kv := make([]format.KeyValue, len(keys))
	for i, k := range keys {
		kv[i] = format.KeyValue{Key: k, Value: w.kv[k]}
	}
	if err := w.pipe.enc.writeFooter(kv); err != nil {
		w.err = err
		return err
	}
	w.err = errClosed
	return nil
}

// release drops the writer's buffers once it is closed or aborted, so that
// the memory is free for what follows (the analysis, the other tables).
func (w *packetWriter) release() {
	w.cur = nil
	if w.pipe != nil {
		w.pipe.enc = nil
		for len(w.pipe.free) > 0 {
			<-w.pipe.free
		}
	}
	w.file, w.srcMAC, w.dstMAC, w.srcIP, w.dstIP, w.flow = lastDict{}, macDict{}, macDict{}, addrDict{}, addrDict{}, flowDict{}
}

// abort stops the worker without completing the file. It is safe to call
// more than once and after Close.
func (w *packetWriter) abort() {
	_ = w.pipe.stop()
	if w.err == nil {
		w.err = errClosed
	}
}

// Rows returns the number of rows added.
func (w *packetWriter) Rows() int64 { return w.rows }

// enumDict is the dictionary of a string column whose values are the names
// of an 8-bit enum: the code is the key, an array lookup.
type enumDict struct {
	slot [256]int32 // index+1; 0: not in the dictionary yet
	vals []string
}

func (d *enumDict) index(code uint8, names *[256]string) int32 {
	if s := d.slot[code]; s != 0 {
		return s - 1
	}
	d.vals = append(d.vals, names[code])
	d.slot[code] = int32(len(d.vals))
	return int32(len(d.vals) - 1)
}

func (d *enumDict) reset() { d.slot, d.vals = [256]int32{}, nil }

// lastDict is the dictionary of the file column: the name is nearly always
// the previous one, compared by pointer first.
type lastDict struct {
	last  string
	lastI int32
	m     map[string]int32
	vals  []string
}

func (d *lastDict) index(s string) int32 {
	if len(s) == len(d.last) && (unsafe.StringData(s) == unsafe.StringData(d.last) || s == d.last) && len(d.vals) > 0 {
		return d.lastI
	}
	i, ok := d.m[s]
	if !ok {
		i = int32(len(d.vals))
		d.vals = append(d.vals, s)
		d.m[s] = i
	}
	d.last, d.lastI = s, i
	return i
}

func (d *lastDict) reset() {
	d.last, d.lastI, d.vals = "", 0, nil
	if d.m == nil {
		d.m = make(map[string]int32)
	}
	clear(d.m)
}

// maxInterned bounds the address texts kept for the whole file.
const maxInterned = 1 << 16

// Direct-mapped caches in front of the address dictionaries' maps: an
// entry is valid when its gen is the dictionary's (a new row group bumps
// gen), and a miss goes to the map and takes the slot.
const cacheBits = 10

func cacheSlot(x uint64) uint64 { return (x * 0x9E3779B97F4A7C15) >> (64 - cacheBits) }

// macDict is the dictionary of a MAC address column, keyed by the address.
type macDict struct {
	cache [1 << cacheBits]struct {
		key uint64
		idx int32
		gen uint32
	}
	gen   uint32
	m     map[[6]byte]int32
	vals  []string
	texts map[[6]byte]string
	buf   []byte
}

func (d *macDict) index(mac [6]byte) int32 {
	key := uint64(mac[0]) | uint64(mac[1])<<8 | uint64(mac[2])<<16 | uint64(mac[3])<<24 | uint64(mac[4])<<32 | uint64(mac[5])<<40
	e := &d.cache[cacheSlot(key)]
	if e.gen == d.gen && e.key == key {
		return e.idx
	}
	i, ok := d.m[mac]
	if !ok {
		i = int32(len(d.vals))
		d.vals = append(d.vals, d.text(mac))
		d.m[mac] = i
	}
	e.key, e.idx, e.gen = key, i, d.gen
	return i
}

// text returns the text of mac, formatted once per file (up to
// maxInterned addresses), not once per row group.
func (d *macDict) text(mac [6]byte) string {
	if s, ok := d.texts[mac]; ok {
		return s
	}
	d.buf = decode.AppendMAC(d.buf[:0], mac)
	s := string(d.buf)
	if d.texts == nil {
		d.texts = make(map[[6]byte]string)
	}
	if len(d.texts) < maxInterned {
		d.texts[mac] = s
	}
	return s
}

func (d *macDict) reset() {
	d.vals = nil
	d.gen++
	if d.m == nil {
		d.m = make(map[[6]byte]int32)
	}
	clear(d.m)
}

// addrDict is the dictionary of an IP address column, keyed by the
// address; the text of an address is formatted once per row group.
type addrDict struct {
	cache [1 << cacheBits]struct {
		key netip.Addr
		idx int32
		gen uint32
	}
	gen   uint32
	m     map[netip.Addr]int32
	vals  []string
	texts map[netip.Addr]string // formatted once per file (up to maxInterned)
}

func (d *addrDict) index(a netip.Addr) int32 {
	b := a.As16()
	lo := uint64(b[8]) | uint64(b[9])<<8 | uint64(b[10])<<16 | uint64(b[11])<<24 | uint64(b[12])<<32 | uint64(b[13])<<40 | uint64(b[14])<<48 | uint64(b[15])<<56
	hi := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	e := &d.cache[cacheSlot(lo^hi*31)]
	if e.gen == d.gen && e.key == a {
		return e.idx
	}
	i, ok := d.m[a]
	if !ok {
		s, ok := d.texts[a]
		if !ok {
			s = a.String()
			if d.texts == nil {
				d.texts = make(map[netip.Addr]string)
			}
			if len(d.texts) < maxInterned {
				d.texts[a] = s
			}
		}
		i = int32(len(d.vals))
		d.vals = append(d.vals, s)
		d.m[a] = i
	}
	e.key, e.idx, e.gen = a, i, d.gen
	return i
}

func (d *addrDict) reset() {
	d.vals = nil
	d.gen++
	if d.m == nil {
		d.m = make(map[netip.Addr]int32)
	}
	clear(d.m)
}

// flowDict is the dictionary of the flow column, keyed by the flow's
// first-seen index (Export.Packet: an array lookup) or by its id (add).
type flowDict struct {
	slot []flowSlot // by flows.Flow.Index
	gen  uint32
	byID map[string]int32
	vals []string
}

// flowSlot is what a flow's previous row looked up: its flow dictionary
// index and, for each address column, the address and its index. A
// flow's frames nearly always carry the same addresses, so a row of a
// known flow costs comparisons, not hashing.
type flowSlot struct {
	idx              int32
	gen              uint32
	srcIP, dstIP     netip.Addr
	srcMAC, dstMAC   [6]byte
	iSrcIP, iDstIP   int32 // -1: not looked up yet
	iSrcMAC, iDstMAC int32
}

// slotOf returns the flowSlot of f for the current row group, or nil.
func (d *flowDict) slotOf(f *flows.Flow) *flowSlot {
	n := f.Index()
	if n < 0 {
		return nil
	}
	if n >= len(d.slot) {
		m := max(n+1, 2*len(d.slot))
		d.slot = slices.Grow(d.slot, m-len(d.slot))[:m]
	}
	s := &d.slot[n]
	if s.gen != d.gen {
		*s = flowSlot{idx: d.index(f.ID()), gen: d.gen, iSrcIP: -1, iDstIP: -1, iSrcMAC: -1, iDstMAC: -1}
	}
	return s
}

func (d *flowDict) index(id string) int32 {
	if i, ok := d.byID[id]; ok {
		return i
	}
	i := int32(len(d.vals))
	d.vals = append(d.vals, id)
	d.byID[id] = i
	return i
}

func (d *flowDict) reset() {
	d.vals = nil
	d.gen++
	if d.byID == nil {
		d.byID = make(map[string]int32)
	}
	clear(d.byID)
}

// Names of the enum codes, computed once so that unknown values (whose
// String allocates) cost nothing per packet.
var (
	kindNames          = enumNames(func(i int) string { return decode.Kind(i).String() })
	icrcNames          = enumNames(func(i int) string { return decode.ICRCStatus(i).String() })
	encapNames         = enumNames(func(i int) string { return decode.Encap(i).String() })
	transportCodeNames = enumNames(func(i int) string { return decode.Transport(i).String() })
)

func enumNames(name func(int) string) (a [256]string) {
	for i := range a {
		a[i] = name(i)
	}
	return a
}

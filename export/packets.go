package export

import (
	"io"
	"net/netip"
	"slices"

	"github.com/parquet-go/parquet-go/format"

	"github.com/rocetrace/rocetrace/decode"
	"github.com/rocetrace/rocetrace/export/internal/colenc"
	"github.com/rocetrace/rocetrace/flows"
)

// packetWriter writes packets.parquet with the columnar writer of package
// colenc: each frame stores one typed value per column (eight for a PFC
// frame's pfc_quanta) and one definition level per group of columns null
// together at its row of the current pageSet's planes (packetColumns says
// which); a full pageSet goes to the worker goroutine, which encodes and
// compresses it while the next one fills. String columns are
// dictionary-encoded with a dictionary per row group whose indexes come
// from the enum codes (kind, opcode_name, transport, icrc_status, encap),
// the binary MAC and IP addresses, the flow's pointer or the file name, so
// that no string is hashed or formatted for a value already seen. Nothing
// is allocated per row.
type packetWriter struct {
	pipe    *colenc.Pipeline[*pageSet]
	cur     *pageSet
	inGroup int64 // rows in the current row group, cur included
	groupN  int64 // rows per row group
	rows    int64
	kv      map[string]string
	err     error

	file                            lastDict
	kind, opName, transport, status enumDict
	encap                           enumDict
	srcMAC, dstMAC                  addrDict[[6]byte]
	srcIP, dstIP                    addrDict[netip.Addr]
	flow                            flowDict
	noFlow                          flowSlot // the last addresses of rows without a flow

	point    lastDict // capture points (--point)
	curPoint string   // the point of the rows added now ("": null)
}

func newPacketWriter(w io.Writer, opts WriterOptions) (*packetWriter, error) {
	codec, err := Codec(opts.Compression)
	if err != nil {
		return nil, err
	}
	l, err := packetLayout()
	if err != nil {
		return nil, err
	}
	pw := &packetWriter{groupN: opts.RowGroupRows, kv: make(map[string]string)}
	pw.srcMAC, pw.dstMAC, pw.srcIP, pw.dstIP = newMACDict(), newMACDict(), newIPDict(), newIPDict()
	if pw.groupN <= 0 {
		pw.groupN = DefaultRowGroupRows
	}
	for k, v := range opts.Metadata {
		pw.kv[k] = v
	}
	enc, err := colenc.NewEncoder(w, l, codec)
	if err != nil {
		return nil, err
	}
	pw.pipe, pw.cur = colenc.StartPipeline(enc, newPageSet)
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
	return w.addRow(p, file, nil, flow, 0)
}

// addFlow is add with the flow given as a *flows.Flow (nil for null): its
// dictionary index is found by pointer; ev is the frame's events.
func (w *packetWriter) addFlow(p *decode.Packet, file string, f *flows.Flow, ev flows.EventMask) error {
	return w.addRow(p, file, f, "", ev)
}

// addRow stores the row of p at the current page set's next row, and hands
// the set to the worker when it is full or ends the row group.
func (w *packetWriter) addRow(p *decode.Packet, file string, f *flows.Flow, flow string, ev flows.EventMask) error {
	if w.err != nil {
		return w.err
	}
	// Every column gets a value and every group of optional columns a
	// level at row r of its plane: fixed offsets from s, no bounds checks
	// (r < pageRows). The values of null rows are left as they come (the
	// worker drops them), so most fields are stored without a branch; only
	// dictionary lookups wait for a present value.
	s := w.cur
	r := s.pages.N & (pageRows - 1)
	i32, i64, def := &s.i32, &s.i64, &s.def
	i64[i64Frame][r] = int64(p.Frame)
	i32[i32File][r] = w.file.index(file)
	i64[i64TsNs][r] = p.TsNs // and ts
	i32[i32Len][r] = int32(p.Len)
	i32[i32CapLen][r] = int32(p.CapLen)
	i32[i32Kind][r] = w.kind.index(uint8(p.Kind), &kindNames)
	i32[i32Events][r], def[dEvents][r] = int32(ev), b2u(ev != 0)
	// The flow's slot, or the one of the rows without a flow.
	fs := &w.noFlow
	if f != nil {
		if sl := w.flow.slotOf(f); sl != nil {
			fs = sl
		}
	}
	def[dSrcMAC][r] = b2u(p.HasMAC)
	if p.HasMAC {
		i32[i32SrcMAC][r] = macIndex(&w.srcMAC, p.SrcMAC, &fs.srcMAC)
	}
	hasDst := p.HasMAC && p.DstMAC != [6]byte{}
	def[dDstMAC][r] = b2u(hasDst)
	if hasDst {
		i32[i32DstMAC][r] = macIndex(&w.dstMAC, p.DstMAC, &fs.dstMAC)
	}
	def[dVLAN][r] = b2u(p.VLANCount > 0)
	if p.VLANCount > 0 {
		i32[i32VLANID][r] = int32(p.VLANID)
		i32[i32VLANPCP][r] = int32(p.VLANPCP)
	}
	def[dSrcIP][r] = b2u(p.SrcIP.IsValid())
	if p.SrcIP.IsValid() {
		i32[i32SrcIP][r] = addrIndex(&w.srcIP, p.SrcIP, &fs.srcIP)
	}
	def[dDstIP][r] = b2u(p.DstIP.IsValid())
	if p.DstIP.IsValid() {
		i32[i32DstIP][r] = addrIndex(&w.dstIP, p.DstIP, &fs.dstIP)
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
	w.storeRest(s, r, p)
	def[dPoint][r] = b2u(w.curPoint != "")
	if w.curPoint != "" {
		i32[i32Point][r] = w.point.index(w.curPoint)
	}

	s.pages.N++
	w.rows++
	w.inGroup++
	switch {
	case w.inGroup == w.groupN:
		return w.send(true)
	case s.pages.N == pageRows:
		return w.send(false)
	}
	return nil
}

// storeRest stores row r's flags, extended transport header, PFC, PAUSE,
// encapsulation and CM columns: addRow's second half.
func (w *packetWriter) storeRest(s *pageSet, r int, p *decode.Packet) {
	r &= pageRows - 1 // bounds checks eliminated
	i32, i64, def := &s.i32, &s.i64, &s.def
	b, bl := &p.BTH, &s.b
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
	def[dPayloadLen][r] = b2u(p.HasBTH && p.HasPayloadLen)
	i32[i32PayloadLen][r] = int32(p.PayloadLen)
	def[dICRC][r] = b2u(p.HasBTH && p.ICRCStatus.Checked())
	i32[i32ICRC][r] = int32(p.ICRC)

	pfc := p.Kind == decode.KindPFC
	def[dPFC][r] = b2u(pfc) // pfc_enable and pfc_quanta
	if pfc {
		i32[i32PFCEnable][r] = int32(p.PFCEnable)
		for _, x := range p.PFCQuanta {
			s.pages.List = append(s.pages.List, int32(x))
		}
	}
	def[dPause][r] = b2u(p.Kind == decode.KindPause)
	if p.Kind == decode.KindPause {
		i32[i32PauseQuanta][r] = int32(p.PauseQuanta)
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
}

// macIndex returns the dictionary index of a MAC address, from a flow's
// slot when the flow's previous row in the row group had the same address.
func macIndex(d *addrDict[[6]byte], mac [6]byte, s *addrSlot[[6]byte]) int32 {
	if s.idx >= 0 && s.key == mac {
		return s.idx
	}
	return macIndexMiss(d, mac, s)
}

// macIndexMiss is macIndex's lookup in the dictionary (a function of its
// own, so that macIndex's comparison inlines).
//
//go:noinline
func macIndexMiss(d *addrDict[[6]byte], mac [6]byte, s *addrSlot[[6]byte]) int32 {
	return d.lookup(s, mac)
}

// addrIndex is macIndex for IP addresses.
func addrIndex(d *addrDict[netip.Addr], a netip.Addr, s *addrSlot[netip.Addr]) int32 {
	if s.idx >= 0 && s.key == a {
		return s.idx
	}
	return addrIndexMiss(d, a, s)
}

// addrIndexMiss is macIndexMiss for IP addresses.
//
//go:noinline
func addrIndexMiss(d *addrDict[netip.Addr], a netip.Addr, s *addrSlot[netip.Addr]) int32 {
	return d.lookup(s, a)
}

// eventNames is the events column's dictionary: the mask's bit names.
var eventNames = flows.EventMaskNames[:]

// send hands the current pageSet to the worker, with the row group's
// dictionaries, which start afresh if the set ends the group.
func (w *packetWriter) send(endGroup bool) error {
	s := w.cur
	s.pages.EndGroup = endGroup
	d := s.pages.Dicts // by the string columns' slots
	d[i32File], d[i32Kind], d[i32OpcodeName], d[i32Transport] = w.file.vals, w.kind.vals, w.opName.vals, w.transport.vals
	d[i32ICRCStatus], d[i32Encap], d[i32Flow] = w.status.vals, w.encap.vals, w.flow.vals
	d[i32Point] = w.point.vals
	d[i32SrcMAC], d[i32DstMAC], d[i32SrcIP], d[i32DstIP] = w.srcMAC.vals, w.dstMAC.vals, w.srcIP.vals, w.dstIP.vals
	d[i32Events] = eventNames
	if endGroup {
		w.inGroup = 0
		w.resetDicts()
	}
	var err error
	if w.cur, err = w.pipe.Send(s); err != nil {
		w.err = err
	}
	return err
}

// resetDicts starts new dictionaries (for a new row group). The old
// values slices stay with the worker, unchanged.
func (w *packetWriter) resetDicts() {
	w.file.reset()
	w.point.reset()
	for _, d := range []*enumDict{&w.kind, &w.opName, &w.transport, &w.status, &w.encap} {
		d.reset()
	}
	w.srcMAC.reset()
	w.dstMAC.reset()
	w.srcIP.reset()
	w.dstIP.reset()
	w.flow.reset()
	w.noFlow.newGroup(w.flow.gen)
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
	if err := w.pipe.Stop(); err != nil {
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
	if err := w.pipe.Encoder().WriteFooter(kv); err != nil {
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
		w.pipe.Release()
	}
	w.file, w.srcMAC, w.dstMAC, w.srcIP, w.dstIP, w.flow = lastDict{}, newMACDict(), newMACDict(), newIPDict(), newIPDict(), flowDict{}
	w.point = lastDict{}
}

// abort stops the worker without completing the file. It is safe to call
// more than once and after Close.
func (w *packetWriter) abort() {
	_ = w.pipe.Stop()
	if w.err == nil {
		w.err = errClosed
	}
}

// Rows returns the number of rows added.
func (w *packetWriter) Rows() int64 { return w.rows }

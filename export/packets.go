package export

import (
	"io"
	"net/netip"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/rocetrace/rocetrace/decode"
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

// packetWriter writes packets.parquet column by column: each frame appends
// one value (eight for a PFC frame's pfc_quanta) to every column's batch,
// and full batches go to parquet-go's column writers, which encode,
// compress and buffer pages until the row group is flushed. The schema is
// PacketRow's. Nothing is allocated per row: the batches are reused and
// strings are passed by reference (the column buffers copy them).
type packetWriter struct {
	pw      *parquet.GenericWriter[PacketRow]
	cols    [numPacketColumns][]parquet.Value
	n       int   // rows in the batch
	inGroup int64 // rows in the current row group, batch included
	groupN  int64 // rows per row group
	rows    int64
	cache   *stringCache
	err     error
}

func newPacketWriter(w io.Writer, opts WriterOptions) (*packetWriter, error) {
	gw, err := NewWriter[PacketRow](w, opts)
	if err != nil {
		return nil, err
	}
	pw := &packetWriter{pw: gw.pw, groupN: opts.RowGroupRows, cache: newStringCache()}
	if pw.groupN <= 0 {
		pw.groupN = DefaultRowGroupRows
	}
	for i := range pw.cols {
		n := batchRows
		if i == colPFCQuanta {
			n = 8 * batchRows
		}
		pw.cols[i] = make([]parquet.Value, 0, n)
	}
	return pw, nil
}

// Values for one column: required (definition level 0), optional present
// (1) or null (0). The in-place setters inline, unlike Value.Level.
func (w *packetWriter) put(c int, v parquet.Value) {
	v.SetColumnIndex(c)
	w.cols[c] = append(w.cols[c], v)
}

func (w *packetWriter) opt(c int, v parquet.Value) {
	v.SetDefinitionLevel(1)
	v.SetColumnIndex(c)
	w.cols[c] = append(w.cols[c], v)
}

func (w *packetWriter) null(c int) {
	var v parquet.Value
	v.SetColumnIndex(c)
	w.cols[c] = append(w.cols[c], v)
}

func u32(v uint32) parquet.Value { return parquet.Int32Value(int32(v)) }
func u64(v uint64) parquet.Value { return parquet.Int64Value(int64(v)) }

// str returns a BYTE_ARRAY value that refers to s without copying it.
func str(s string) parquet.Value {
	return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (w *packetWriter) optU32(c int, ok bool, v uint32) {
	if ok {
		w.opt(c, u32(v))
	} else {
		w.null(c)
	}
}

func (w *packetWriter) optU64(c int, ok bool, v uint64) {
	if ok {
		w.opt(c, u64(v))
	} else {
		w.null(c)
	}
}

func (w *packetWriter) optBool(c int, ok, v bool) {
	if ok {
		w.opt(c, parquet.BooleanValue(v))
	} else {
		w.null(c)
	}
}

func (w *packetWriter) optStr(c int, ok bool, v string) {
	if ok {
		w.opt(c, str(v))
	} else {
		w.null(c)
	}
}

func (w *packetWriter) optAddr(c int, a netip.Addr) {
	if a.IsValid() {
		w.opt(c, str(w.cache.addr(a)))
	} else {
		w.null(c)
	}
}

// add appends the row of p, with the null rules of `packets --json`
// (decode.Packet.AppendJSON). file is the capture's name, flow the flow id
// ("" for null).
func (w *packetWriter) add(p *decode.Packet, file, flow string) error {
	if w.err != nil {
		return w.err
	}
	w.put(colFrame, parquet.Int64Value(int64(p.Frame)))
	w.put(colFile, str(file))
	w.put(colTsNs, parquet.Int64Value(p.TsNs))
	w.put(colTs, parquet.Int64Value(p.TsNs))
	w.put(colLen, parquet.Int32Value(int32(p.Len)))
	w.put(colCapLen, parquet.Int32Value(int32(p.CapLen)))
	w.put(colKind, str(p.Kind.String()))
	if p.HasMAC {
		w.opt(colSrcMAC, str(w.cache.mac(p.SrcMAC)))
	} else {
		w.null(colSrcMAC)
	}
	if p.HasMAC && p.DstMAC != [6]byte{} {
		w.opt(colDstMAC, str(w.cache.mac(p.DstMAC)))
	} else {
		w.null(colDstMAC)
	}
	vlan := p.VLANCount > 0
	w.optU32(colVLANID, vlan, uint32(p.VLANID))
	w.optU32(colVLANPCP, vlan, uint32(p.VLANPCP))
	w.optAddr(colSrcIP, p.SrcIP)
	w.optAddr(colDstIP, p.DstIP)
	ip := p.IPVersion != 0
	w.optU32(colDSCP, ip, uint32(p.DSCP))
	w.optU32(colECN, ip, uint32(p.ECN))
	w.optU32(colTTL, ip, uint32(p.TTL))
	w.optU32(colUDPSport, p.HasUDP, uint32(p.SrcPort))
	w.optU32(colUDPDport, p.HasUDP, uint32(p.DstPort))

	b, h := &p.BTH, p.HasBTH
	w.optU32(colOpcode, h, uint32(b.Opcode))
	w.optStr(colOpcodeName, h, opcodeNames[b.Opcode])
	w.optStr(colTransport, h, transportNames[b.Opcode])
	w.optBool(colSE, h, b.SE)
	w.optBool(colMigReq, h, b.MigReq)
	w.optU32(colPad, h, uint32(b.Pad))
	w.optU32(colTVer, h, uint32(b.TVer))
	w.optU32(colPKey, h, uint32(b.PKey))
	w.optBool(colFECN, h, b.FECN)
	w.optBool(colBECN, h, b.BECN)
	w.optU32(colDstQPN, h, b.DestQP)
	w.optBool(colAckReq, h, b.AckReq)
	w.optU32(colPSN, h, b.PSN)

	reth := p.Ext&decode.ExtRETH != 0
	w.optU64(colRETHVA, reth, p.RETH.VA)
	w.optU32(colRETHRKey, reth, p.RETH.RKey)
	w.optU32(colRETHLen, reth, p.RETH.DMALen)
	aeth := p.Ext&decode.ExtAETH != 0
	w.optU32(colAETHSyndrome, aeth, uint32(p.AETH.Syndrome))
	w.optU32(colAETHMSN, aeth, p.AETH.MSN)
	deth := p.Ext&decode.ExtDETH != 0
	w.optU32(colDETHQKey, deth, p.DETH.QKey)
	w.optU32(colDETHSrcQPN, deth, p.DETH.SrcQP)
	w.optU32(colImm, p.Ext&decode.ExtImmDt != 0, p.Imm)
	w.optU32(colIETHRKey, p.Ext&decode.ExtIETH != 0, p.IETHRKey)
	w.optU32(colXRCSRQ, p.Ext&decode.ExtXRCETH != 0, p.XRCSRQ)
	at := p.Ext&decode.ExtAtomicETH != 0
	w.optU64(colAtomicVA, at, p.AtomicETH.VA)
	w.optU32(colAtomicRKey, at, p.AtomicETH.RKey)
	w.optU64(colAtomicSwapAdd, at, p.AtomicETH.SwapAdd)
	w.optU64(colAtomicCompare, at, p.AtomicETH.Compare)
	w.optU64(colAtomicAckOrig, p.Ext&decode.ExtAtomicAckETH != 0, p.AtomicAckOrig)

	if h && p.HasPayloadLen {
		w.opt(colPayloadLen, parquet.Int32Value(int32(p.PayloadLen)))
	} else {
		w.null(colPayloadLen)
	}
	w.optU32(colICRC, h && p.ICRCStatus != decode.ICRCUnchecked, p.ICRC)
	w.optStr(colICRCStatus, h, p.ICRCStatus.String())

	pfc := p.Kind == decode.KindPFC
	w.optU32(colPFCEnable, pfc, uint32(p.PFCEnable))
	if pfc {
		// A list of 8: the first element starts the row (repetition level
		// 0), the others repeat it (1); all are defined (level 2).
		q := w.cols[colPFCQuanta]
		for i, x := range p.PFCQuanta {
			v := parquet.Int32Value(int32(x))
			v.SetRepetitionLevel(min(i, 1))
			v.SetDefinitionLevel(2)
			v.SetColumnIndex(colPFCQuanta)
			q = append(q, v)
		}
		w.cols[colPFCQuanta] = q
	} else {
		w.null(colPFCQuanta)
	}
	w.optU32(colPauseQuanta, p.Kind == decode.KindPause, uint32(p.PauseQuanta))
	w.optStr(colFlow, flow != "", flow)
	w.put(colTruncated, parquet.BooleanValue(p.Truncated))
	w.put(colMalformed, parquet.BooleanValue(p.Malformed))
	w.optStr(colEncap, p.Encap != decode.EncapNone, p.Encap.String())
	cm := p.CM.Attr != 0
	w.optU32(colCMAttr, cm, uint32(p.CM.Attr))
	w.optU32(colCMLocalCommID, cm, p.CM.LocalCommID)
	w.optU32(colCMRemoteCommID, cm, p.CM.RemoteCommID)
	w.optU32(colCMLocalQPN, cm, p.CM.LocalQPN)

	w.n++
	w.rows++
	w.inGroup++
	switch {
	case w.inGroup == w.groupN:
		if err := w.flushBatch(); err != nil {
			return err
		}
		if err := w.pw.Flush(); err != nil { // ends the row group
			w.err = err
			return err
		}
		w.inGroup = 0
	case w.n == batchRows:
		return w.flushBatch()
	}
	return nil
}

// flushBatch hands the batch to the column writers.
func (w *packetWriter) flushBatch() error {
	if w.n == 0 {
		return w.err
	}
	for i, cw := range w.pw.ColumnWriters() {
		if _, err := cw.WriteRowValues(w.cols[i]); err != nil {
			w.err = err
			return err
		}
		w.cols[i] = w.cols[i][:0]
	}
	w.n = 0
	return nil
}

// Close writes the last rows and the footer.
func (w *packetWriter) Close() error {
	if err := w.flushBatch(); err != nil {
		return err
	}
	if err := w.pw.Close(); err != nil {
		w.err = err
		return err
	}
	w.err = errClosed
	return nil
}

// Rows returns the number of rows added.
func (w *packetWriter) Rows() int64 { return w.rows }

// stringCache interns the text forms of MACs and IP addresses so that a row
// costs no allocation once an address has been seen. It is bounded: past
// maxInterned distinct values each new one is formatted afresh.
type stringCache struct {
	macs  map[[6]byte]string
	addrs map[netip.Addr]string
	buf   []byte
}

const maxInterned = 1 << 16

func newStringCache() *stringCache {
	return &stringCache{macs: make(map[[6]byte]string), addrs: make(map[netip.Addr]string)}
}

func (c *stringCache) mac(m [6]byte) string {
	if s, ok := c.macs[m]; ok {
		return s
	}
	c.buf = decode.AppendMAC(c.buf[:0], m)
	s := string(c.buf)
	if len(c.macs) < maxInterned {
		c.macs[m] = s
	}
	return s
}

func (c *stringCache) addr(a netip.Addr) string {
	if s, ok := c.addrs[a]; ok {
		return s
	}
	s := a.String()
	if len(c.addrs) < maxInterned {
		c.addrs[a] = s
	}
	return s
}

package capture

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// EtherTypes, IP protocols and GRE protocol types the kernel filter knows.
const (
	etherTypeIPv4       = 0x0800
	etherTypeIPv6       = 0x86DD
	etherTypeVLAN       = 0x8100
	etherTypeQinQ       = 0x88A8
	etherTypeQinQOld    = 0x9100
	etherTypeMACControl = 0x8808
	greProtoERSPAN12    = 0x88BE
	greProtoERSPAN3     = 0x22EB
	greProtoTEB         = 0x6558
	ipProtoUDP          = 17
	ipProtoGRE          = 47
)

// maxInstructions is the kernel's limit on a classic BPF program
// (BPF_MAXINSNS).
const maxInstructions = 4096

// MaxFilterVLANTags is the number of stacked VLAN tags (802.1Q, 802.1ad or
// 0x9100) the kernel filter looks through. A tag that the NIC or the kernel
// took out of the frame (VLAN acceleration) does not count: the filter sees
// the frame without it.
const MaxFilterVLANTags = 4

// DefaultSnaplen is the number of bytes kept of each frame unless
// Options.Snaplen says otherwise.
const DefaultSnaplen = 262144

// FilterProgram returns the classic BPF program that keeps only what
// rocetrace analyses, each accepted frame cut to snaplen bytes (0:
// DefaultSnaplen):
//
//   - UDP to rocePort (0: 4791) over IPv4 (first fragments only) or IPv6
//     (UDP as the first next header);
//   - MAC Control frames (EtherType 0x8808: PFC and 802.3x PAUSE);
//   - GRE over IPv4 or IPv6 whose protocol type is ERSPAN I/II (0x88BE),
//     ERSPAN III (0x22EB) or transparent Ethernet bridging (0x6558): mirror
//     traffic, kept whole because what it wraps is decoded later.
//
// Each of these may sit behind up to MaxFilterVLANTags VLAN tags. The
// program uses no Linux extensions, so golang.org/x/net/bpf's VM runs it
// exactly as the kernel does.
func FilterProgram(rocePort uint16, snaplen int) []bpf.Instruction {
	if rocePort == 0 {
		rocePort = 4791
	}
	keep := uint32(DefaultSnaplen)
	if snaplen > 0 {
		keep = uint32(snaplen)
	}
	var a assembler
	// X holds the offset added by VLAN tags; A the EtherType at 12+X.
	a.emit(bpf.LoadConstant{Dst: bpf.RegX, Val: 0})
	for range MaxFilterVLANTags {
		a.emit(bpf.LoadIndirect{Off: 12, Size: 2})
		a.jeq(etherTypeVLAN, "tag", "")
		a.jeq(etherTypeQinQ, "tag", "")
		a.jeq(etherTypeQinQOld, "tag", "l3")
		a.label("tag")
		a.emit(bpf.TXA{})
		a.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 4})
		a.emit(bpf.TAX{})
	}
	a.emit(bpf.LoadIndirect{Off: 12, Size: 2})
	a.label("l3")
	a.jeq(etherTypeMACControl, "accept", "")
	a.jeq(etherTypeIPv4, "ip4", "")
	a.jeq(etherTypeIPv6, "ip6", "drop")

	// IPv4: protocol at 14+9; a non-first fragment has no L4 header.
	a.label("ip4")
	a.emit(bpf.LoadIndirect{Off: 14 + 6, Size: 2})
	a.jset(0x1FFF, "drop", "")
	a.emit(bpf.LoadIndirect{Off: 14 + 9, Size: 1})
	a.jeq(ipProtoUDP, "", "ip4gre")
	a.ip4HeaderToX()
	a.emit(bpf.LoadIndirect{Off: 14 + 2, Size: 2}) // UDP destination port
	a.jeq(uint32(rocePort), "accept", "drop")
	a.label("ip4gre")
	a.jeq(ipProtoGRE, "", "drop")
	a.ip4HeaderToX()
	a.emit(bpf.LoadIndirect{Off: 14 + 2, Size: 2}) // GRE protocol type
	a.jmp("gre")

	// IPv6: next header at 14+6; the L4 header right after the 40 bytes.
	a.label("ip6")
	a.emit(bpf.LoadIndirect{Off: 14 + 6, Size: 1})
	a.jeq(ipProtoUDP, "", "ip6gre")
	a.emit(bpf.LoadIndirect{Off: 14 + 40 + 2, Size: 2})
	a.jeq(uint32(rocePort), "accept", "drop")
	a.label("ip6gre")
	a.jeq(ipProtoGRE, "", "drop")
	a.emit(bpf.LoadIndirect{Off: 14 + 40 + 2, Size: 2})

	a.label("gre")
	a.jeq(greProtoERSPAN12, "accept", "")
	a.jeq(greProtoERSPAN3, "accept", "")
	a.jeq(greProtoTEB, "accept", "drop")

	a.label("drop")
	a.emit(bpf.RetConstant{Val: 0})
	a.label("accept")
	a.emit(bpf.RetConstant{Val: keep})
	prog, err := a.resolve()
	if err != nil {
		panic(err) // the program is fixed: an error is a bug caught by the tests
	}
	return prog
}

// AcceptAllProgram returns the program used with --all: keep every frame,
// cut to snaplen bytes (0: DefaultSnaplen).
func AcceptAllProgram(snaplen int) []bpf.Instruction {
	keep := uint32(DefaultSnaplen)
	if snaplen > 0 {
		keep = uint32(snaplen)
	}
	return []bpf.Instruction{bpf.RetConstant{Val: keep}}
}

// FilterDescription says in words what FilterProgram keeps.
func FilterDescription(rocePort uint16) string {
	if rocePort == 0 {
		rocePort = 4791
	}
	return fmt.Sprintf("UDP dst port %d, MAC Control (PFC/PAUSE), GRE/ERSPAN", rocePort)
}

// assembler builds a classic BPF program with symbolic jump targets.
// Labels are local: a jump goes to the next definition of its label after
// the jump (so unrolled loops can reuse names), and "" is the next
// instruction.
type assembler struct {
	ins    []bpf.Instruction
	labels map[int]string // instruction index -> label defined before it
	fix    []fixup
}

type fixup struct {
	at          int
	true, false string // JumpIf targets, or true alone for Jump
}

func (a *assembler) emit(i bpf.Instruction) { a.ins = append(a.ins, i) }

func (a *assembler) label(name string) {
	if a.labels == nil {
		a.labels = map[int]string{}
	}
	if old, ok := a.labels[len(a.ins)]; ok {
		name = old + "," + name
	}
	a.labels[len(a.ins)] = name
}

func (a *assembler) jeq(v uint32, t, f string) {
	a.fix = append(a.fix, fixup{at: len(a.ins), true: t, false: f})
	a.emit(bpf.JumpIf{Cond: bpf.JumpEqual, Val: v})
}

func (a *assembler) jset(v uint32, t, f string) {
	a.fix = append(a.fix, fixup{at: len(a.ins), true: t, false: f})
	a.emit(bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: v})
}

func (a *assembler) jmp(t string) {
	a.fix = append(a.fix, fixup{at: len(a.ins), true: t})
	a.emit(bpf.Jump{})
}

// ip4HeaderToX adds the IPv4 header length (14+X: IHL*4) to X, so that
// 14+X addresses the L4 header.
func (a *assembler) ip4HeaderToX() {
	a.emit(bpf.LoadIndirect{Off: 14, Size: 1})
	a.emit(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0x0F})
	a.emit(bpf.ALUOpConstant{Op: bpf.ALUOpShiftLeft, Val: 2})
	a.emit(bpf.ALUOpX{Op: bpf.ALUOpAdd})
	a.emit(bpf.TAX{})
}

// target returns the index of the first definition of name after from.
func (a *assembler) target(from int, name string) (int, error) {
	if name == "" {
		return from + 1, nil
	}
	for i := from + 1; i <= len(a.ins); i++ {
		for _, l := range splitLabels(a.labels[i]) {
			if l == name {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("bpf: label %q not defined after instruction %d", name, from)
}

func splitLabels(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func (a *assembler) resolve() ([]bpf.Instruction, error) {
	for _, f := range a.fix {
		t, err := a.target(f.at, f.true)
		if err != nil {
			return nil, err
		}
		skipT := t - f.at - 1
		switch ins := a.ins[f.at].(type) {
		case bpf.Jump:
			ins.Skip = uint32(skipT)
			a.ins[f.at] = ins
		case bpf.JumpIf:
			e, err := a.target(f.at, f.false)
			if err != nil {
				return nil, err
			}
			skipF := e - f.at - 1
			if skipT > 255 || skipF > 255 {
				return nil, fmt.Errorf("bpf: jump too long at instruction %d", f.at)
			}
			ins.SkipTrue, ins.SkipFalse = uint8(skipT), uint8(skipF)
			a.ins[f.at] = ins
		}
	}
	if len(a.ins) > maxInstructions {
		return nil, fmt.Errorf("bpf: program of %d instructions is too long", len(a.ins))
	}
	return a.ins, nil
}

// assemble converts a program to the raw form the kernel takes.
func assemble(prog []bpf.Instruction) ([]bpf.RawInstruction, error) {
	return bpf.Assemble(prog)
}

#include "textflag.h"

// func maskBlocks(src []byte, sepw, quotew uint64, sep, quote, high []uint64)
//
// For each 64-byte block of src: PCMPEQB against the delimiter and the
// quote (broadcast from sepw and quotew) and PMOVMSKB of the compare and
// of the bytes themselves (their high bits), sixteen bytes at a time,
// the four 16-bit masks joined into one word per slice.
TEXT ·maskBlocks(SB), NOSPLIT, $0-112
	MOVQ src_base+0(FP), SI
	MOVQ src_len+8(FP), CX
	SHRQ $6, CX
	MOVQ sepw+24(FP), X0
	PUNPCKLQDQ X0, X0
	MOVQ quotew+32(FP), X1
	PUNPCKLQDQ X1, X1
	MOVQ sep_base+40(FP), DI
	MOVQ quote_base+64(FP), R8
	MOVQ high_base+88(FP), R9
	TESTQ CX, CX
	JZ done

loop:
	// bytes 0-15
	MOVOU (SI), X2
	MOVOU X2, X3
	PCMPEQB X0, X3
	PMOVMSKB X3, AX
	MOVOU X2, X4
	PCMPEQB X1, X4
	PMOVMSKB X4, BX
	PMOVMSKB X2, DX
	// bytes 16-31
	MOVOU 16(SI), X2
	MOVOU X2, X3
	PCMPEQB X0, X3
	PMOVMSKB X3, R10
	SHLQ $16, R10
	ORQ R10, AX
	MOVOU X2, X4
	PCMPEQB X1, X4
	PMOVMSKB X4, R11
	SHLQ $16, R11
	ORQ R11, BX
	PMOVMSKB X2, R12
	SHLQ $16, R12
	ORQ R12, DX
	// bytes 32-47
	MOVOU 32(SI), X2
	MOVOU X2, X3
	PCMPEQB X0, X3
	PMOVMSKB X3, R10
	SHLQ $32, R10
	ORQ R10, AX
	MOVOU X2, X4
	PCMPEQB X1, X4
	PMOVMSKB X4, R11
	SHLQ $32, R11
	ORQ R11, BX
	PMOVMSKB X2, R12
	SHLQ $32, R12
	ORQ R12, DX
	// bytes 48-63
	MOVOU 48(SI), X2
	MOVOU X2, X3
	PCMPEQB X0, X3
	PMOVMSKB X3, R10
	SHLQ $48, R10
	ORQ R10, AX
	MOVOU X2, X4
	PCMPEQB X1, X4
	PMOVMSKB X4, R11
	SHLQ $48, R11
	ORQ R11, BX
	PMOVMSKB X2, R12
	SHLQ $48, R12
	ORQ R12, DX
	MOVQ AX, (DI)
	MOVQ BX, (R8)
	MOVQ DX, (R9)
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, R8
	ADDQ $8, R9
	DECQ CX
	JNZ loop

done:
	RET

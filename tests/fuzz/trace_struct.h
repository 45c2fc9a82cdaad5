/* The structured input of fuzz_trace_struct: what a picavk trace holds,
 * uncompressed and without length fields, so that byte mutations change what
 * the trace does instead of breaking its zstd stream.  fuzz_trace_struct.c
 * turns it into a real trace file; gen_seeds.c writes it from real traces.
 *
 * Little endian.  Byte 0 is TS_FLAG_*; then operations until the input ends,
 * each an opcode byte (taken modulo TS_OP_COUNT) and its fields.  A field cut
 * off by the end of the input reads as 0 and a byte run as what is left, so
 * every input is valid.  Every trace starts with the register-file snapshots
 * of a fresh context, as a recorder starting on one writes them. */
#ifndef PVK_TRACE_STRUCT_H
#define PVK_TRACE_STRUCT_H

enum {
    TS_FLAG_VERSION1 = 1,   /* a format-1 file (internal snapshot without its version word) */
    TS_FLAG_NEW3DS = 2,     /* header says New 3DS (the fuzz context is an Old 3DS) */
    TS_FLAG_NO_END = 4,     /* no end record: the reader must call it truncated */
    TS_FLAG_BAD_FRAMES = 8, /* the end record counts one frame too many */
    TS_FLAG_CUT = 16,       /* the compressed stream loses its last bytes */
};

enum {
    TS_MMIO,     /* u16 offset from 0x10400000 (masked to 0x1FFC), u32 value */
    TS_MMIO_RAW, /* u32 address, u32 value */
    TS_MEMORY,   /* u8 region, u32 offset, u16 length, bytes */
    TS_FILL,     /* u8 region, u32 offset, u16 length, u32 value: a memory record repeating it */
    TS_CMDLIST,  /* u8 region, u32 offset, u8 pairs, 8 bytes a pair: written, then run */
    TS_VBLANK,   /* nothing */
    TS_INTERNAL, /* u16 patches, each u16 word index, u32 value: the fresh snapshot, patched */
    TS_EXTERNAL, /* u16 patches, each u16 word index, u32 value (registers, then both LUTs) */
    TS_RAW,      /* u8 type, u16 length, bytes: any record, lengths unchecked */
    TS_OP_COUNT,
};

/* Record types of runtime/trace.c's format (private there). */
enum { TS_REC_EXTERNAL = 1, TS_REC_INTERNAL, TS_REC_MMIO, TS_REC_MEMORY, TS_REC_VBLANK, TS_REC_END };

/* Region byte: 0 VRAM, 1 FCRAM, 2 AXI WRAM (offset modulo its size), 3 the
 * offset is a raw physical address (mostly outside guest memory). */
#define TS_REGIONS 4

#endif

/* tools/: the PICA200 shader assembler.  Accepts the common subset of
 * devkitPro picasso's syntax (see asm.c for what is and is not supported)
 * and produces what a 3DS program uploads to a shader unit: program words,
 * operand descriptors, entry point, output map and constant uniforms.
 * Never calls Vulkan. */
#ifndef PVK_ASM_H
#define PVK_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "picavk/picavk.h"
#include "translator/sh_isa.h"

#define PVK_SHBIN_MAX_OUTPUTS 16
#define PVK_SHBIN_MAX_UNIFORMS 64
#define PVK_SHBIN_NAME_LEN 64
#define PVK_SHBIN_MAX_ENTRIES 32 /* DVLEs in one file (sources of one asm) */

/* .out semantics: the DVLE output types (3dbrew "SHBIN"). */
typedef enum pvk_shbin_out_type {
    PVK_SHBIN_OUT_POSITION = 0,
    PVK_SHBIN_OUT_NORMALQUAT = 1,
    PVK_SHBIN_OUT_COLOR = 2,
    PVK_SHBIN_OUT_TEXCOORD0 = 3,
    PVK_SHBIN_OUT_TEXCOORD0W = 4,
    PVK_SHBIN_OUT_TEXCOORD1 = 5,
    PVK_SHBIN_OUT_TEXCOORD2 = 6,
    PVK_SHBIN_OUT_VIEW = 8,
    PVK_SHBIN_OUT_DUMMY = 9,
} pvk_shbin_out_type;

/* One assembled shader: a DVLE and the DVLP it runs from (the program's
 * code and operand descriptors, shared by every DVLE of its file). */
typedef struct pvk_shbin {
    uint32_t code[PVK_SH_CODE_WORDS];
    uint32_t code_len;
    uint32_t opdesc[PVK_SH_OPDESCS];
    uint32_t opdesc_len;
    uint32_t entry, entry_end;   /* main: first instruction, one past its last */

    /* Output map, derived from `out` (pvk_shbin_build_outmap). */
    uint32_t outmap[7];          /* SH_OUTMAP_O0-6: semantic per component, 0x1F unused */
    uint32_t outmap_total;       /* SH_OUTMAP_TOTAL: registers set in outmap_mask */
    uint32_t outmap_mask;        /* VSH_OUTMAP_MASK: bit i = oi written */
    uint32_t input_mask;         /* bit i = vi declared with .in (as picasso sets it) */

    uint32_t out_count;          /* the .out table */
    struct {
        uint8_t type;            /* pvk_shbin_out_type */
        uint8_t reg;             /* o0-o15 */
        uint8_t mask;            /* bit 0 = x ... bit 3 = w */
    } out[PVK_SHBIN_MAX_OUTPUTS];

    /* Constant uniforms (.constf/.setf, .consti/.seti, .setb), in source
     * order.  seq orders the three lists into the one DVLE constant table
     * (equal seq: bool, int, float). */
    uint32_t fconst_count;
    struct {
        uint8_t reg;             /* c0-c95 */
        uint16_t seq;
        uint32_t f24[4];         /* x y z w as float1.7.16 */
    } fconst[PVK_SH_FLOAT_UNIFORMS];
    uint32_t iconst_count;
    struct {
        uint8_t reg;             /* i0-i3 */
        uint16_t seq;
        uint8_t v[4];            /* x y z w */
    } iconst[8];
    uint32_t bconst_count;
    struct {
        uint8_t reg;             /* b0-b15 */
        uint16_t seq;
        uint8_t value;
    } bconst[32];

    /* Named uniforms (.fvec/.ivec/.bool/.in) in the DVLE register space:
     * 0x00-0x0F v0-v15, 0x10-0x6F c0-c95, 0x70-0x73 i0-i3, 0x78-0x87 b0-b15. */
    uint32_t uniform_count;
    struct pvk_shbin_uniform {
        char name[PVK_SHBIN_NAME_LEN];
        uint16_t first, last;
    } uniform[PVK_SHBIN_MAX_UNIFORMS];

    /* A geometry shader (.gsh): the DVLE fields libctru reads (DVLE bytes
     * 6 and 0x14-0x17) and shaderProgramConfigure turns into GSH_MISC0/1. */
    bool geometry;
    bool gsh_explicit;           /* .gsh with a mode (not the legacy bare form) */
    bool merge_outmaps;          /* a dummy output: VS and GS output maps are merged */
    uint8_t gsh_mode;            /* 0 point, 1 variable-size, 2 fixed-size primitives */
    uint8_t gsh_fixed_start;     /* fixed: first float uniform of the vertex array */
    uint8_t gsh_variable_num;    /* variable: vertices with all their outputs */
    uint8_t gsh_fixed_num;       /* fixed: vertices per primitive */
} pvk_shbin;

/* Assemble `len` bytes of picasso-syntax source into `out`.  On failure
 * returns PVK_ERROR_BAD_DATA and writes "line N: what" to `err` (may be NULL). */
pvk_result pvk_pica_asm(const char *src, size_t len, pvk_shbin *out, char *err, size_t err_len);

/* Assemble `n` sources into one program, as picasso does with several
 * files: source k's code follows source k-1's in one code blob, operand
 * descriptors are allocated over the whole program (shared where they agree),
 * procedures are the program's (a source calls its own or an earlier
 * source's; a name is defined once), and .fvec/.ivec/.bool continue from the
 * earlier sources' registers (one of the same name and size is the same
 * register), except in a .gsh with a mode, which has its own.  out[k] (n of
 * them) gets the whole code and descriptor table and source k's entry point
 * (absolute), outputs, constants and uniforms.  On failure returns
 * PVK_ERROR_BAD_DATA, "line N: what" in `err` and the failing source in *bad
 * (may be NULL). */
pvk_result pvk_pica_asm_files(uint32_t n, const char *const *src, const size_t *len, pvk_shbin *out, uint32_t *bad,
                              char *err, size_t err_len);

/* Recompute outmap, outmap_total and outmap_mask from the .out table (the
 * rule libctru applies when it loads a DVLE). */
void pvk_shbin_build_outmap(pvk_shbin *sh);

/* One write to a PICA internal register (command-processor id). */
typedef struct pvk_reg_write {
    uint32_t id, value;
} pvk_reg_write;

/* Upper bound of pvk_shbin_upload's count for any shbin. */
#define PVK_SHBIN_UPLOAD_MAX \
    (PVK_SH_CODE_WORDS + PVK_SH_OPDESCS + 4 * PVK_SH_FLOAT_UNIFORMS + 8 + 32 + 16)

/* The register writes a 3DS program makes to load `sh` into the vertex
 * shader unit: code (CODETRANSFER_CONFIG/DATA/END), operand descriptors,
 * constant float uniforms (f24 mode, three words each), int and bool
 * constants, entry point, output mask and map.  Stores at most `cap` writes
 * in `out` (may be NULL) and returns how many there are. */
uint32_t pvk_shbin_upload(const pvk_shbin *sh, pvk_reg_write *out, uint32_t cap);

/* Upper bound of pvk_shbin_upload_program's count. */
#define PVK_SHBIN_PROGRAM_UPLOAD_MAX (2 * PVK_SHBIN_UPLOAD_MAX + 16)

/* The register writes libctru's shaderProgramConfigure + shaderProgramUse
 * make for a vertex shader `vsh` with a geometry shader `gsh` (.gsh):
 * GEOSTAGE_CONFIG = 2 (bit 31 in the variable mode), GEOSTAGE_CONFIG2 = 0,
 * VSH_COM_MODE = 1, both units' code, descriptors, constants (the bool
 * uniforms always, b15 clear), entry points and output masks, the VS output
 * count into VSH_OUTMAP_TOTAL1/2, the GS output map (merged with the VS's
 * when the GS has dummy outputs) into SH_OUTMAP_*, GSH_MISC0/1,
 * GSH_INPUTBUFFER_CONFIG and the identity GS input permutation.  `stride`
 * is shaderProgramSetGsh's: VS outputs per vertex, 0 for the VS's output
 * count.  libctru's byte-masked writes of GEOSTAGE_CONFIG, GEOSTAGE_CONFIG2
 * and VSH_COM_MODE are whole-word writes here; PRIMITIVE_CONFIG is left to
 * the draw. */
uint32_t pvk_shbin_upload_program(const pvk_shbin *vsh, const pvk_shbin *gsh, uint32_t stride, pvk_reg_write *out,
                                  uint32_t cap);

/* The SHBIN file (DVLB + DVLP + one DVLE, 3dbrew "SHBIN", as picasso writes
 * it): a malloc'd image in *data, free() it. */
pvk_result pvk_shbin_write(const pvk_shbin *sh, uint8_t **data, size_t *size);
/* The same with `n` DVLEs (1..PVK_SHBIN_MAX_ENTRIES) in the order given,
 * sharing one DVLP: the entries must have the same code and descriptors
 * (pvk_pica_asm_files gives them that), else PVK_ERROR_INVALID_ARGUMENT. */
pvk_result pvk_shbin_write_entries(const pvk_shbin *sh, uint32_t n, uint8_t **data, size_t *size);
/* How many DVLEs a SHBIN file says it has (0: not a SHBIN). */
uint32_t pvk_shbin_entries(const uint8_t *data, size_t size);
/* Load DVLE `index` of a SHBIN file with the whole DVLP, as libctru's
 * DVLB_ParseFile does: PVK_ERROR_BAD_DATA if malformed,
 * PVK_ERROR_INVALID_ARGUMENT for an index past the last entry. */
pvk_result pvk_shbin_read_entry(const uint8_t *data, size_t size, uint32_t index, pvk_shbin *out);
/* Load the first DVLE of a SHBIN file; PVK_ERROR_BAD_DATA if malformed. */
pvk_result pvk_shbin_read(const uint8_t *data, size_t size, pvk_shbin *out);

#endif

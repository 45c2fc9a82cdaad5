/* translator/: the compute pre-pass of draws whose vertex and geometry
 * programs both run on the GPU (pvk_gs_draw, runtime/gs_draw.c runs it).
 *
 * Pass A, one invocation per vertex the draw reads: load the attributes
 * from the draw's copy of guest memory (the runtime's ring, bound whole as
 * words: s8/u8/s16 unpacked here, f32 as bits; the components a format
 * lacks read 0, 0, 0, 1 as the vertex input stage gives them), run the
 * vertex program (glsl_vs.c) and store the output registers the geometry
 * unit reads, in order, plus the program's status.
 *
 * Pass B, one invocation per geometry-program invocation: gather its
 * vertices' entries into v0-v15 through the input permutation (point mode)
 * or the float uniforms (fixed and variable-size primitive modes: a private
 * copy of c0-c95 per invocation), run the geometry program (glsl_vs.c with
 * PVK_GLSL_VS_GS) and turn what it emits into triangles as translator/gs.c
 * does: EMIT stores the output map's vertex of o0-o15 in slot SETEMIT.vtxid
 * (0-2), and with SETEMIT's primitive flag writes the triangle of slots 0, 1,
 * 2 (in PRIMITIVE_CONFIG mode 3 with the winding flag: 1, 0, 2) into the
 * invocation's next triangle slot.  An invocation has pica_tri_slots of
 * them; further triangles are counted (pica_cnt[0]) and not drawn, the most
 * triangles one invocation wanted is kept (pica_cnt[2]) so the runtime can
 * give later draws room, and invocations that did not end (runaway, bad
 * instruction, a vertex whose program did not end) are counted in
 * pica_cnt[1] and draw nothing.  Unused slots get NaN positions: no pixel.
 * Every invocation starts from zeros (the unit keeps its registers from one
 * invocation to the next; translator/vertex.c sends only programs that
 * never read them, pvk_gs_program_stateless) and b15 reads true from the
 * second invocation of a draw on (the unit sets it after every invocation;
 * the first sees the register's value). */
#include <stdlib.h>
#include <string.h>

#include "translator/geometry.h"

static const char common_head[] =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, set = 0, binding = 0) readonly buffer PicaRing { uint pica_ring[]; };\n"
    "layout(push_constant) uniform PicaPush {\n"
    "  uint pica_n, pica_idx_word; int pica_vertex_offset; uint pica_indexed;\n"
    "  uint pica_table_word, pica_tri_slots, pica_light, pica_pad2;\n"
    "  uint pica_boff[12]; };\n";

/* ---- pass A: the vertex program ---- */

pvk_result pvk_glsl_gs_vertex_pass(const pvk_gs_key *key, const uint32_t *code, const uint32_t *opdesc, char **out)
{
    *out = NULL;
    const pvk_vs_key *k = &key->vs;
    pvk_vs_program prog = {code, opdesc, k->entry, key->flags & PVK_GLSL_VS_F64};
    char *body = NULL;
    pvk_glsl_vs_stats st;
    pvk_result r = pvk_glsl_program_whole(&prog, &body, &st);
    if (r)
        return r;
    pvk_text b = {0};
    pvk_text_put(&b, "%s", common_head);
    pvk_text_put(&b,
                 "layout(std430, set = 0, binding = 1) readonly buffer PicaVs {\n"
                 "  vec4 pica_fu[96]; uvec4 pica_ints; uint pica_bools; uint pica_max_steps; uint pica_pad0, pica_pad1;\n"
                 "  vec4 pica_fixed[12]; };\n"
                 "layout(std430, set = 0, binding = 2) writeonly buffer PicaVso { vec4 pica_vso[]; };\n"
                 "float pica_c(uint t, uint a) {\n" /* one component of type t at byte a */
                 "  uint w = pica_ring[a >> 2u], s = (a & 3u) * 8u;\n"
                 "  if (t == 0u) return float(bitfieldExtract(int(w), int(s), 8));\n"
                 "  if (t == 1u) return float(bitfieldExtract(w, int(s), 8));\n"
                 "  if (t == 2u) return float(bitfieldExtract(int(w), int(s), 16));\n"
                 "  return uintBitsToFloat(w);\n"
                 "}\n");
    pvk_text_put(&b, "%s", body);
    free(body);
    pvk_text_put(&b, "void main() {\n"
                     "  uint id = gl_GlobalInvocationID.x;\n"
                     "  if (id >= pica_n) return;\n"
                     "  for (int i = 0; i < 16; i++) { pica_v[i] = vec4(0.0); pica_o[i] = vec4(0.0); }\n");
    static const uint8_t size[4] = {1, 1, 2, 4};
    for (unsigned i = 0; i < 12; i++) { /* in attribute order: a later one mapped to the same register wins */
        if (k->fmt[i]) {
            uint32_t t = (k->fmt[i] - 1u) % 4u, n = (k->fmt[i] - 1u) / 4u + 1u;
            pvk_text_put(&b, "  { uint a = pica_boff[%u] + id * %uu + %uu;\n    pica_v[%u] = vec4(", k->binding[i],
                         k->stride[k->binding[i]], k->offset[i], k->reg[i] & 15u);
            for (unsigned c = 0; c < 4; c++)
                if (c < n)
                    pvk_text_put(&b, "%spica_c(%uu, a + %uu)", c ? ", " : "", t, c * size[t]);
                else
                    pvk_text_put(&b, "%s%s", c ? ", " : "", c == 3 ? "1.0" : "0.0");
            pvk_text_put(&b, "); }\n");
        } else if (k->fixed & (1u << i)) {
            pvk_text_put(&b, "  pica_v[%u] = pica_fixed[%u];\n", k->reg[i] & 15u, i);
        }
    }
    pvk_text_put(&b, "  uint st = pica_main();\n  uint base = id * %uu;\n", key->vs_outputs + 1u);
    for (unsigned j = 0; j < key->vs_outputs && j < 16; j++) /* entries past the enabled outputs: zeros */
        if (key->vs_out_reg[j])
            pvk_text_put(&b, "  pica_vso[base + %uu] = pica_o[%u];\n", j, (key->vs_out_reg[j] - 1u) & 15u);
        else
            pvk_text_put(&b, "  pica_vso[base + %uu] = vec4(0.0);\n", j);
    pvk_text_put(&b, "  pica_vso[base + %uu] = vec4(uintBitsToFloat(st), 0.0, 0.0, 0.0);\n}\n", key->vs_outputs);
    return pvk_text_take(&b, out);
}

/* ---- pass B: the geometry program ---- */

/* pvk_vertex's floats by output-map semantic (its layout in translator.h):
 * pos 0-3, quat 4-7, colour 8-11, tc0 12-13, tc1 14-15, tc2 16-17, tc0.w 18,
 * view 19-21; -1: semantics nothing reads. */
static const int8_t sem_float[24] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                     12, 13, 14, 15, 18, -1, 19, 20, 21, -1, 16, 17};

pvk_result pvk_glsl_gs_geometry_pass(const pvk_gs_key *key, const uint32_t *code, const uint32_t *opdesc, char **out)
{
    *out = NULL;
    pvk_vs_program prog = {code, opdesc, key->entry, (key->flags & PVK_GLSL_VS_F64) | PVK_GLSL_VS_GS};
    char *body = NULL;
    pvk_glsl_vs_stats st;
    pvk_result r = pvk_glsl_program_whole(&prog, &body, &st);
    if (r)
        return r;
    if (st.emit_sites > PVK_GLSL_GS_MAX_EMIT_SITES) {
        free(body);
        return PVK_ERROR_MISSING_FEATURE;
    }
    bool to_uniforms = key->mode != PVK_GS_MODE_POINT;
    uint32_t o = key->vs_outputs;
    pvk_text b = {0};
    pvk_text_put(&b, "%s", common_head);
    pvk_text_put(&b,
                 "layout(std430, set = 0, binding = 1) readonly buffer PicaGs {\n"
                 "  vec4 %s[96]; uvec4 pica_ints; uint pica_ubools; uint pica_max_steps; };\n"
                 "layout(std430, set = 0, binding = 2) readonly buffer PicaVso { vec4 pica_vso[]; };\n"
                 "layout(std430, set = 0, binding = 3) writeonly buffer PicaTri { float pica_tri[]; };\n"
                 "layout(std430, set = 0, binding = 4) buffer PicaCnt { uint pica_cnt[]; };\n"
                 "uint pica_bools;\n",
                 to_uniforms ? "pica_ufu" : "pica_fu");
    if (to_uniforms) /* the inputs land in the uniforms: a private copy per invocation */
        pvk_text_put(&b, "vec4 pica_fu[96];\n");
    pvk_text_put(&b, "%s", body);
    free(body);
    /* A vertex as six vec4 (pvk_vertex's 22 floats in order, then two
     * zeros); the emit slots are three variables indexed only by constants
     * (private arrays with run-time indices are slow on CPU devices). */
    pvk_text_put(&b, "vec4 pica_s0[6], pica_s1[6], pica_s2[6];\n"
                     "uint pica_ntri, pica_want;\n"
                     "void pica_put(uint at, vec4 m[6]) {\n");
    for (unsigned i = 0; i < 22; i++) /* unrolled: constant indices */
        pvk_text_put(&b, "  pica_tri[at + %uu] = m[%u].%c;\n", i, i / 4, "xyzw"[i % 4]);
    pvk_text_put(&b, "}\n"
                     "void pica_emit(uint vtxid, bool prim, bool winding) {\n"
                     "  vec4 m[6] = vec4[6](vec4(0.0, 0.0, 0.0, 1.0), vec4(0.0), vec4(0.0, 0.0, 0.0, 1.0), vec4(0.0),\n"
                     "                      vec4(0.0), vec4(0.0));\n");
    for (unsigned s = 0; s < 24; s++)
        if (sem_float[s] >= 0 && key->sem_src[s] != PVK_VS_SEM_NONE)
            pvk_text_put(&b, "  m[%d].%c = pica_o[%u].%c;\n", sem_float[s] / 4, "xyzw"[sem_float[s] % 4],
                         (key->sem_src[s] >> 2) & 15u, "xyzw"[key->sem_src[s] & 3u]);
    /* colours: absolute value, saturated, NaN kept (pvk_vs_outmap) */
    pvk_text_put(&b, "  vec4 a = abs(m[2]);\n"
                     "  m[2] = vec4(a.x > 1.0 ? 1.0 : a.x, a.y > 1.0 ? 1.0 : a.y, a.z > 1.0 ? 1.0 : a.z, a.w > 1.0 ? 1.0 : a.w);\n"
                     "  if (vtxid == 0u) pica_s0 = m; else if (vtxid == 1u) pica_s1 = m; else if (vtxid == 2u) pica_s2 = m;\n"
                     "  if (!prim) return;\n"
                     "  pica_want++;\n"
                     "  if (pica_ntri >= pica_tri_slots) { atomicAdd(pica_cnt[0], 1u); return; }\n"
                     "  uint t = (gl_GlobalInvocationID.x * pica_tri_slots + pica_ntri++) * 66u;\n"
                     "  bool sw = winding && %s;\n"
                     "  vec4 v0[6] = sw ? pica_s1 : pica_s0, v1[6] = sw ? pica_s0 : pica_s1, v2[6] = pica_s2;\n"
                     /* q and -q are one rotation: the shorter arc from the first vertex (draw.c's rule) */
                     "  if (pica_light != 0u) {\n"
                     "    vec4 q = v0[1];\n"
                     "    precise float d1 = q.x * v1[1].x; d1 = d1 + q.y * v1[1].y; d1 = d1 + q.z * v1[1].z; d1 = d1 + q.w * v1[1].w;\n"
                     "    precise float d2 = q.x * v2[1].x; d2 = d2 + q.y * v2[1].y; d2 = d2 + q.z * v2[1].z; d2 = d2 + q.w * v2[1].w;\n"
                     "    if (d1 < 0.0) v1[1] = -v1[1];\n"
                     "    if (d2 < 0.0) v2[1] = -v2[1];\n"
                     "  }\n"
                     "  pica_put(t, v0); pica_put(t + 22u, v1); pica_put(t + 44u, v2);\n"
                     "}\n",
                     key->winding_swaps ? "true" : "false");
    pvk_text_put(&b, "uint pica_index(uint e) {\n"
                     "  if (pica_indexed == 0u) return e;\n"
                     "  uint w = pica_ring[pica_idx_word + (e >> 1u)];\n"
                     "  return uint(int((w >> ((e & 1u) * 16u)) & 0xFFFFu) + pica_vertex_offset);\n"
                     "}\n"
                     "void main() {\n"
                     "  uint g = gl_GlobalInvocationID.x;\n"
                     "  if (g >= pica_n) return;\n"
                     "  pica_ntri = 0u; pica_want = 0u;\n"
                     "  for (int i = 0; i < 16; i++) { pica_v[i] = vec4(0.0); pica_o[i] = vec4(0.0); }\n"
                     "  for (int i = 0; i < 6; i++) pica_s0[i] = pica_s1[i] = pica_s2[i] = vec4(0.0);\n");
    if (to_uniforms)
        pvk_text_put(&b, "  for (int i = 0; i < 96; i++) pica_fu[i] = pica_ufu[i];\n");
    if (key->mode == PVK_GS_MODE_VARIABLE)
        pvk_text_put(&b, "  uint first = pica_ring[pica_table_word + 2u * g], count = pica_ring[pica_table_word + 2u * g + 1u];\n"
                         "  pica_fu[0] = vec4(float(count));\n"
                         "  uint next = 1u;\n");
    else
        pvk_text_put(&b, "  uint first = g * %uu, count = %uu;\n", key->vertices, key->vertices);
    if (key->mode == PVK_GS_MODE_POINT) {
        pvk_text_put(&b, "  const uint pica_perm[16] = uint[16](");
        for (unsigned i = 0; i < 16; i++)
            pvk_text_put(&b, "%s%uu", i ? ", " : "", (unsigned)(key->gs_perm >> (4 * i)) & 15u);
        pvk_text_put(&b, ");\n");
    }
    pvk_text_put(&b, "  bool ok = true;\n"
                     "  for (uint k = 0u; k < count; k++) {\n"
                     "    uint base = pica_index(first + k) * %uu;\n"
                     "    if (floatBitsToUint(pica_vso[base + %uu].x) != PICA_OK) ok = false;\n",
                 o + 1, o);
    switch (key->mode) {
    case PVK_GS_MODE_POINT:
        pvk_text_put(&b, "    for (uint j = 0u; j < %uu; j++) { uint i = k * %uu + j;\n"
                         "      if (i < 16u) pica_v[pica_perm[i]] = pica_vso[base + j]; }\n",
                     o, o);
        break;
    case PVK_GS_MODE_FIXED:
        pvk_text_put(&b, "    for (uint j = 0u; j < %uu; j++) { uint c = %uu + k * %uu + j; if (c < 96u) pica_fu[c] = pica_vso[base + j]; }\n",
                     o < key->stride ? o : key->stride, key->uniform_start, key->stride);
        break;
    default:
        pvk_text_put(&b, "    uint m = k < %uu ? %uu : 1u;\n"
                         "    for (uint j = 0u; j < m; j++) { if (next < 96u) pica_fu[next] = pica_vso[base + j]; next++; }\n",
                     key->main_vertices, o);
        break;
    }
    pvk_text_put(&b, "  }\n"
                     "  pica_bools = g == 0u ? pica_ubools : pica_ubools | 0x8000u;\n"
                     "  uint st = ok ? pica_main() : PICA_BAD;\n"
                     "  if (st != PICA_OK) atomicAdd(pica_cnt[1], 1u);\n"
                     "  atomicMax(pica_cnt[2], pica_want);\n"
                     "  for (uint t = st == PICA_OK ? pica_ntri : 0u; t < pica_tri_slots; t++)\n"
                     "    for (uint j = 0u; j < 3u; j++) pica_tri[(g * pica_tri_slots + t) * 66u + j * 22u] = uintBitsToFloat(0x7FC00000u);\n"
                     "}\n");
    return pvk_text_take(&b, out);
}

/* ---- how many triangles an invocation can emit ---- */

uint32_t pvk_gs_emit_bound(const uint32_t *code, uint32_t entry)
{
    /* Forward-only code (no LOOP, CALL or BREAK, every jump forward) runs
     * each instruction at most once, and every path into an instruction
     * comes from below it: one pass in PC order finds which primitive flags
     * SETEMIT may have left at each EMIT (bit 0: clear, bit 1: set), and
     * the EMITs that may make a triangle bound the triangles.  An IF part's
     * end goes on after the ELSE part: whatever reaches the ELSE part's
     * start (the IF part's end falling into it included) is taken to reach
     * its end too (a superset).  Anything else: unknown (0). */
    uint8_t flags[PVK_SH_CODE_WORDS + 1] = {0}; /* 0: not reached */
    uint16_t else_end[PVK_SH_CODE_WORDS + 1] = {0}; /* at an ELSE part's start: where its IF goes on, 0 none */
    uint32_t tris = 0;
    if (entry >= PVK_SH_CODE_WORDS)
        return 0;
    flags[entry] = 1;
    for (uint32_t pc = entry; pc < PVK_SH_CODE_WORDS; pc++) {
        uint8_t f = flags[pc];
        if (!f)
            continue;
        if (else_end[pc])
            flags[else_end[pc]] |= f;
        uint32_t w = code[pc], op = pvk_sh_opcode(w);
        uint32_t dst = pvk_sh_f2_dst(w), num = pvk_sh_f2_num(w);
        switch (op) {
        case PVK_SH_END:
            continue;
        case PVK_SH_SETEMIT:
            f = pvk_sh_f4_prim(w) ? 2 : 1;
            break;
        case PVK_SH_EMIT:
            tris += (f & 2) != 0;
            break;
        case PVK_SH_LOOP: case PVK_SH_CALL: case PVK_SH_CALLC: case PVK_SH_CALLU: case PVK_SH_BREAK: case PVK_SH_BREAKC:
            return 0;
        case PVK_SH_IFU: case PVK_SH_IFC:
            if (dst <= pc + 1 || dst + num >= PVK_SH_CODE_WORDS || (else_end[dst] && else_end[dst] != dst + num))
                return 0; /* an empty IF part, past code memory, or IFs of one ELSE start and different ends */
            flags[dst] |= f;
            flags[dst + num] |= f;
            else_end[dst] = (uint16_t)(dst + num);
            break;
        case PVK_SH_JMPC: case PVK_SH_JMPU:
            if (dst <= pc)
                return 0;
            flags[dst] |= f;
            break;
        default:
            break;
        }
        flags[pc + 1] |= f;
    }
    return tris;
}

/* ---- what an invocation reads of the last one ---- */

/* The geometry unit keeps its registers between invocations (translator/
 * gs.c), while the GPU runs invocations side by side, each from zero.  The
 * two agree when no invocation reads anything before writing it in that
 * same invocation: temporaries (per component), a0, aL, the condition flags,
 * SETEMIT's state, the output components the output map takes at an EMIT,
 * the emit slots a triangle takes, and input registers the draw does not
 * fill (`v_defined`).  A "must be written" analysis over a superset of the
 * control flow (calls may return to any caller, IF ends may jump, BREAK may
 * leave to any loop end) decides it conservatively; it also refuses EMIT of
 * vertex id 3, which the CPU path logs per EMIT. */
typedef struct defs {
    uint64_t r, o;  /* bit 4 * reg + component (x = 0) */
    uint8_t misc;   /* D_* */
    uint8_t vtx;    /* SETEMIT vertex ids that may hold (bit per id), with prim: bit 4 + id */
} defs;
enum { D_A0X = 1, D_A0Y = 2, D_AL = 4, D_CMP = 8, D_EMIT = 16, D_SLOT0 = 32 /* 32, 64, 128 */ };

static bool defs_eq(const defs *a, const defs *b)
{
    return a->r == b->r && a->o == b->o && a->misc == b->misc && a->vtx == b->vtx;
}

/* components a source slot of descriptor d reads: `all` or those under the destination mask */
static uint32_t read_comps(uint32_t d, unsigned slot, bool all)
{
    uint32_t sel = pvk_sh_desc_swizzle(d, slot), mask = pvk_sh_desc_mask(d), c = 0;
    for (unsigned i = 0; i < 4; i++)
        if (all || (mask & (8u >> i)))
            c |= 1u << ((sel >> (6 - 2 * i)) & 3u);
    return c;
}

/* a source: false when it reads something not written */
static bool read_ok(const defs *s, uint32_t reg, uint32_t idx, uint32_t comps, uint16_t v_defined)
{
    if (reg < 0x10 && ((v_defined >> reg) & 1u) == 0)
        return false;
    if (reg >= 0x10 && reg < 0x20 && (((s->r >> (4 * (reg - 0x10))) & 0xFu) & comps) != comps)
        return false;
    if (reg >= 0x20 && idx) {
        uint8_t need = idx == 1 ? D_A0X : idx == 2 ? D_A0Y : D_AL;
        if (!(s->misc & need))
            return false;
    }
    return true;
}

static void write_dst(defs *s, uint32_t reg, uint32_t mask)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < 4; i++)
        if (mask & (8u >> i))
            m |= 1ull << i;
    if (reg < 0x10)
        s->o |= m << (4 * reg);
    else if (reg < 0x20)
        s->r |= m << (4 * (reg - 0x10));
}

/* One instruction on state *s (in place); false: it reads what is not written. */
static bool step(const uint32_t *opdesc, uint32_t w, defs *s, uint16_t v_defined, const uint8_t sem_src[24])
{
    uint32_t op = pvk_sh_opcode(w);
    if (pvk_sh_is_mad(op)) {
        bool inv = pvk_sh_is_inverted(op);
        uint32_t d = opdesc[pvk_sh_f5_desc(w)], idx = pvk_sh_f5_idx(w);
        if (!read_ok(s, pvk_sh_f5_src1(w), 0, read_comps(d, 0, false), v_defined) ||
            !read_ok(s, inv ? pvk_sh_f5i_src2(w) : pvk_sh_f5_src2(w), inv ? 0 : idx, read_comps(d, 1, false),
                     v_defined) ||
            !read_ok(s, inv ? pvk_sh_f5i_src3(w) : pvk_sh_f5_src3(w), inv ? idx : 0, read_comps(d, 2, false),
                     v_defined))
            return false;
        write_dst(s, pvk_sh_f5_dst(w), pvk_sh_desc_mask(d));
        return true;
    }
    uint32_t d = opdesc[pvk_sh_f1_desc(w) & (PVK_SH_OPDESCS - 1)], idx = pvk_sh_f1_idx(w);
    if (pvk_sh_is_cmp(op)) {
        if (!read_ok(s, pvk_sh_f1_src1(w), idx, read_comps(d, 0, true), v_defined) ||
            !read_ok(s, pvk_sh_f1_src2(w), 0, read_comps(d, 1, true), v_defined))
            return false;
        s->misc |= D_CMP;
        return true;
    }
    bool alu = op <= PVK_SH_RSQ || op == PVK_SH_MOVA || op == PVK_SH_MOV || (op >= PVK_SH_DPHI && op <= PVK_SH_SLTI);
    if (alu) {
        bool wise = op == PVK_SH_ADD || op == PVK_SH_MUL || op == PVK_SH_SGE || op == PVK_SH_SLT || op == PVK_SH_FLR ||
                    op == PVK_SH_MAX || op == PVK_SH_MIN || op == PVK_SH_MOV || op == PVK_SH_MOVA ||
                    op == PVK_SH_SGEI || op == PVK_SH_SLTI;
        bool one = op == PVK_SH_EX2 || op == PVK_SH_LG2 || op == PVK_SH_LITP || op == PVK_SH_FLR ||
                   op == PVK_SH_RCP || op == PVK_SH_RSQ || op == PVK_SH_MOV || op == PVK_SH_MOVA;
        uint32_t s1 = pvk_sh_is_inverted(op) ? pvk_sh_f1i_src1(w) : pvk_sh_f1_src1(w);
        uint32_t s2 = pvk_sh_is_inverted(op) ? pvk_sh_f1i_src2(w) : pvk_sh_f1_src2(w);
        if (!read_ok(s, s1, pvk_sh_is_inverted(op) ? 0 : idx, read_comps(d, 0, !wise), v_defined))
            return false;
        if (!one && !read_ok(s, s2, pvk_sh_is_inverted(op) ? idx : 0, read_comps(d, 1, !wise), v_defined))
            return false;
        if (op == PVK_SH_MOVA)
            s->misc |= (pvk_sh_desc_mask(d) & 8u ? D_A0X : 0) | (pvk_sh_desc_mask(d) & 4u ? D_A0Y : 0);
        else
            write_dst(s, pvk_sh_f1_dst(w), pvk_sh_desc_mask(d));
        return true;
    }
    switch (op) {
    case PVK_SH_SETEMIT: {
        uint32_t vtx = pvk_sh_f4_vtx(w);
        if (vtx == 3)
            return false;
        s->misc |= D_EMIT;
        s->vtx = (uint8_t)(1u << (vtx + (pvk_sh_f4_prim(w) ? 4 : 0)));
        return true;
    }
    case PVK_SH_EMIT: {
        if (!(s->misc & D_EMIT))
            return false;
        for (unsigned k = 0; k < 24; k++) /* the vertex the output map takes */
            if (sem_src[k] != PVK_VS_SEM_NONE && !((s->o >> sem_src[k]) & 1u))
                return false;
        uint8_t ids = (s->vtx | s->vtx >> 4) & 0xFu;
        if (ids & 8u)
            return false;
        if (ids == 1u || ids == 2u || ids == 4u) /* one slot for sure */
            s->misc |= (uint8_t)(D_SLOT0 * ids);
        if ((s->vtx >> 4) && (s->misc & (D_SLOT0 * 7u)) != D_SLOT0 * 7u)
            return false; /* a triangle of a slot this invocation did not fill */
        return true;
    }
    case PVK_SH_IFC: case PVK_SH_JMPC: case PVK_SH_CALLC: case PVK_SH_BREAKC:
        return (s->misc & D_CMP) != 0;
    case PVK_SH_LOOP:
        s->misc |= D_AL;
        return true;
    default:
        return true;
    }
}

static bool defined_op(uint32_t op)
{
    return pvk_sh_is_mad(op) || pvk_sh_is_cmp(op) || op <= PVK_SH_RSQ || op == PVK_SH_MOVA || op == PVK_SH_MOV ||
           (op >= PVK_SH_DPHI && op <= PVK_SH_SLTI) || (op >= PVK_SH_BREAK && op <= PVK_SH_JMPU);
}

bool pvk_gs_program_stateless(const uint32_t *code, const uint32_t *opdesc, uint32_t entry, uint16_t v_defined,
                              const uint8_t sem_src[24])
{
    enum { N = PVK_SH_CODE_WORDS };
    if (entry >= N)
        return false;
    defs *in = malloc(sizeof *in * N);
    uint8_t *seen = calloc(N, 1), *queued = calloc(N, 1);
    uint16_t *work = malloc(sizeof *work * N);
    /* the superset's extra edges, from every such word in code memory: the
     * end of a CALL's range -> its return address, the end of an IF part ->
     * past the else part, a LOOP's last instruction -> its first; BREAK ->
     * every loop's end */
    int32_t *first = malloc(sizeof *first * N), *next = malloc(sizeof *next * 2 * N);
    uint16_t *to = malloc(sizeof *to * 2 * N);
    uint8_t *loop_end = calloc(N, 1);
    bool ok = in && seen && queued && work && first && next && to && loop_end;
    uint32_t edges = 0;
    if (ok)
        for (uint32_t q = 0; q < N; q++)
            first[q] = -1;
    for (uint32_t q = 0; ok && q < N; q++) {
        uint32_t qw = code[q], qop = pvk_sh_opcode(qw), qd = pvk_sh_f2_dst(qw), qn = pvk_sh_f2_num(qw);
        uint32_t from = N, target = N;
        if (qop == PVK_SH_CALL || qop == PVK_SH_CALLC || qop == PVK_SH_CALLU)
            from = qd + qn - 1, target = q + 1;
        else if (qop == PVK_SH_IFU || qop == PVK_SH_IFC)
            from = qd - 1, target = qd + qn;
        else if (qop == PVK_SH_LOOP)
            from = qd, target = q + 1, loop_end[qd + 1 < N ? qd + 1 : 0] |= qd + 1 < N;
        if (from < N && target < N && edges < 2 * N) {
            to[edges] = (uint16_t)target;
            next[edges] = first[from];
            first[from] = (int32_t)edges++;
        }
    }
    uint32_t head = 0, tail = 0, steps = 0;
    if (ok) {
        in[entry] = (defs){0};
        seen[entry] = queued[entry] = 1;
        work[tail++ % N] = (uint16_t)entry;
    }
#define FLOW(t)                                                                          \
    do {                                                                                 \
        uint32_t t_ = (t);                                                               \
        if (t_ >= N)                                                                     \
            break;                                                                       \
        defs m = out;                                                                    \
        if (seen[t_]) {                                                                  \
            m.r &= in[t_].r, m.o &= in[t_].o, m.misc &= in[t_].misc, m.vtx |= in[t_].vtx; \
            if (defs_eq(&m, &in[t_]))                                                    \
                break;                                                                   \
        }                                                                                \
        in[t_] = m;                                                                      \
        seen[t_] = 1;                                                                    \
        if (!queued[t_]) {                                                               \
            queued[t_] = 1;                                                              \
            work[tail++ % N] = (uint16_t)t_;                                             \
        }                                                                                \
    } while (0)
    while (ok && head != tail) {
        if (++steps > 64u * N) { /* the lattice is finite; a guard, not a limit */
            ok = false;
            break;
        }
        uint32_t pc = work[head++ % N];
        queued[pc] = 0;
        uint32_t w = code[pc], op = pvk_sh_opcode(w);
        defs out = in[pc];
        if (!defined_op(op) || !step(opdesc, w, &out, v_defined, sem_src)) {
            ok = false; /* reads the last invocation's state, or the CPU path logs it */
            break;
        }
        uint32_t dst = pvk_sh_f2_dst(w);
        if (op == PVK_SH_END)
            continue;
        if (op != PVK_SH_BREAK)
            FLOW(pc + 1);
        if (op == PVK_SH_CALL || op == PVK_SH_CALLC || op == PVK_SH_CALLU || op == PVK_SH_IFU || op == PVK_SH_IFC ||
            op == PVK_SH_JMPC || op == PVK_SH_JMPU)
            FLOW(dst);
        if (op == PVK_SH_BREAK || op == PVK_SH_BREAKC)
            for (uint32_t t = 0; t < N; t++)
                if (loop_end[t])
                    FLOW(t);
        for (int32_t e = first[pc]; e >= 0; e = next[e])
            FLOW(to[e]);
    }
#undef FLOW
    free(in);
    free(seen);
    free(queued);
    free(work);
    free(first);
    free(next);
    free(to);
    free(loop_end);
    return ok;
}

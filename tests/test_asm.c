/* The PICA shader assembler: instruction words hand-encoded from 3dbrew's
 * "GPU/Shader Instruction Set" formats, operand descriptors, flow control,
 * directives, the output map, errors with line numbers, the SHBIN file and
 * the register writes that upload a shader, checked against the vertex
 * shader unit they land in (MMIO and command list). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tools/tools.h"
#include "runtime/runtime.h"
#include "tools/asm.h"
#include "translator/geometry.h"

static pvk_shbin *g_sh; /* large: one on the heap */
static char g_err[512];

static pvk_result assemble(const char *src)
{
    return pvk_pica_asm(src, strlen(src), g_sh, g_err, sizeof g_err);
}

/* One instruction (with a `.fvec` block for uniforms when needed): word 0. */
static uint32_t one(const char *line)
{
    char src[512];
    snprintf(src, sizeof src, ".fvec arr[4]\n%s\n", line);
    pvk_result r = assemble(src);
    if (r) {
        fprintf(stderr, "'%s': %s\n", line, g_err);
        return 0xDEADBEEF;
    }
    return g_sh->code[0];
}

#define WORD(line, expect)                                                                        \
    do {                                                                                          \
        uint32_t w_ = one(line);                                                                  \
        if (w_ != (uint32_t)(expect))                                                             \
            fprintf(stderr, "  '%s' -> 0x%08X, want 0x%08X\n", line, w_, (uint32_t)(expect)); \
        CHECK_EQ(w_, expect);                                                                     \
    } while (0)

/* Registers used below: r1 = 0x11, r2 = 0x12, v3 = 0x03, o2 = 0x02, c5 = 0x25. */
static void test_formats(void)
{
    /* format 1: op<<26 | dst<<21 | idx<<19 | src1(7)<<12 | src2(5)<<7 | desc */
    WORD("add r1, c5, r2", 0x02225900);
    WORD("dp3 r1, c5, r2", 0x06225900);
    WORD("dp4 o2, v3, r2", 0x08403900);
    WORD("dph r1, c5, r2", 0x0E225900);
    WORD("dst r1, c5, r2", 0x12225900);
    WORD("mul r1, c5, r2", 0x22225900);
    WORD("sge r1, c5, r2", 0x26225900);
    WORD("slt r1, c5, r2", 0x2A225900);
    WORD("max r1, c5, r2", 0x32225900);
    WORD("min r1, c5, r2", 0x36225900);
    /* format 1i: the uniform in src2 picks DPHI/DSTI/SGEI/SLTI: src1(5)<<14, src2(7)<<7 */
    WORD("dph r1, r2, c5", 0x62249280);
    WORD("dphi r1, r2, c5", 0x62249280);
    WORD("dsti r1, r2, c5", 0x66249280);
    WORD("sge r1, r2, c5", 0x6A249280);
    WORD("slt r1, r2, c5", 0x6E249280);
    WORD("dphi r1, r2, v3", 0x62248180); /* forced inverted form */
    /* format 1u */
    WORD("ex2 r1, c5", 0x16225000);
    WORD("lg2 r1, c5", 0x1A225000);
    WORD("litp r1, c5", 0x1E225000);
    WORD("flr r1, c5", 0x2E225000);
    WORD("rcp r1, c5", 0x3A225000);
    WORD("rsq r1, c5", 0x3E225000);
    WORD("mov r1, c5", 0x4E225000);
    WORD("mov o6, v15", 0x4CC0F000);
    WORD("mov r15, c95", 0x4FE7F000);
    WORD("mova a0.xy, c5", 0x48025000);
    WORD("mova a0, r2", 0x48012000);
    /* format 0 */
    WORD("break", 0x80000000);
    WORD("nop", 0x84000000);
    WORD("end", 0x88000000);
    WORD("emit", 0xA8000000);
    /* format 1c: 0x2E<<26 | cmpx<<24 | cmpy<<21 | ... (eq ne lt le gt ge = 0..5) */
    WORD("cmp c5, lt, ge, r2", 0xBAA25900);
    WORD("cmp v3, eq, ne, r1", 0xB8203880);
    WORD("cmp r1, ge, gt, r2", 0xBD811900);
    /* format 5: 0b111<<29 | dst<<24 | idx<<22 | src1(5)<<17 | src2(7)<<10 | src3(5)<<5 | desc(5) */
    WORD("mad r1, v3, c5, r2", 0xF1069640);
    /* format 5i (MADI): src2(5)<<12 | src3(7)<<5 */
    WORD("mad r1, v3, r2, c5", 0xD10724A0);
    WORD("madi r1, v3, r2, r2", 0xD1072240);
    /* format 4 */
    WORD("setemit 1, prim inv", 0xADC00000);
    WORD("setemit 2", 0xAE000000);
    /* relative addressing: idx 1 a0.x, 2 a0.y, 3 aL */
    WORD("mov r1, c[a0.x + 3]", 0x4E2A3000);
    WORD("mov r1, c[3+a0]", 0x4E2A3000);
    WORD("mov r1, arr[lcnt+2]", 0x4E3A2000);
    WORD("mov r1, arr[aL]", 0x4E3A0000);
    WORD("add r1, c[a0.y], r2", 0x02320900);
    WORD("add r1, c[a1 + 5], r2", 0x02325900);
    WORD("mad r1, v3, c[a0.x+2], r2", 0xF1468A40);
    WORD("mad r1, v3, r2, c[a2+2]", 0xD1C72440);
    WORD("dph r1, r2, c[a0.y + 1]", 0x62349080);
    /* indexing */
    WORD("mov r1, c8[4]", 0x4E22C000);
    WORD("mov r1, r4[-2]", 0x4E212000);
}

static void test_opdescs(void)
{
    /* mask bit 3 = x; src1 neg bit 4, swizzle 12:5; src2 neg 13, swizzle 21:14;
     * src3 neg 22, swizzle 30:23; xyzw = 0x1B */
    CHECK_EQ(assemble("mov r0, v0\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 1);
    CHECK_EQ(g_sh->opdesc[0], 0x36F);
    CHECK_EQ(assemble("add r0, c0, r1\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0x6C36F);
    CHECK_EQ(assemble("mov r1.xz, -c5.wzyx\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0xA | 0x10 | 0xE4 << 5);
    CHECK_EQ(assemble("add r0.y, -r1.xxyy, -r2.w\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0x4 | 0x10 | 0x05 << 5 | 1u << 13 | 0xFFu << 14);
    CHECK_EQ(assemble("mov r0, c0.xy\n"), PVK_SUCCESS); /* short swizzles repeat the last letter */
    CHECK_EQ(g_sh->opdesc[0], 0xF | 0x15 << 5);
    CHECK_EQ(assemble("mad r0.w, -v0.x, c1.y, -r2.z\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0x1 | 0x10 | 0x00 << 5 | 0x55u << 14 | 1u << 22 | 0xAAu << 23);
    CHECK_EQ(assemble("cmp c0.yx, lt, lt, r1.wz\n"), PVK_SUCCESS); /* no destination mask */
    CHECK_EQ(g_sh->opdesc[0], 0x40u << 5 | 0xEAu << 14);
    CHECK_EQ(g_sh->opdesc[0] & 0xF, 0);
    /* picasso's other letter sets: rgba and stpq name x y z w too, mixed freely */
    CHECK_EQ(assemble("mov r1.st, c5.pq\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0xC | 0xBF << 5);
    CHECK_EQ(assemble("mov r1.rgba, -c5.abgr\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0xF | 0x10 | 0xE4 << 5);
    CHECK_EQ(assemble("add r0.xgp, c0.sYb, r1.Qx\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0xE | 0x1A << 5 | 0xC0u << 14);
    CHECK_EQ(assemble(".out t texcoord0.st\n.out c color.rgb\nmov t, v0\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->out[0].mask, 0x3);
    CHECK_EQ(g_sh->out[1].mask, 0x7);
    CHECK_EQ(assemble("mov r0, c0.xyzu\n"), PVK_ERROR_BAD_DATA);
    /* an alias's swizzle composes with the operand's */
    CHECK_EQ(assemble(".alias foo c5.wzyx\n.alias nfoo -c5\nmov r0, foo.xxyy\nmov r1, -nfoo.y\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc[0], 0xF | 0xFAu << 5);
    CHECK_EQ(g_sh->opdesc[1], 0xF | 0x55u << 5); /* -(-c5) */
    CHECK_EQ(g_sh->code[0], 0x4E025000);
    CHECK_EQ(g_sh->code[1], 0x4E225001);

    /* sharing: equal fields, and fields an instruction ignores */
    CHECK_EQ(assemble("mov r0, v0\nmov r1, v1\nmov o0, c4\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 1);
    CHECK_EQ(g_sh->code[2] & 0x7F, 0);
    CHECK_EQ(assemble("rcp r0, c0.x\nrcp r1, c1.xyzw\nrsq r2, c2.xwzy\n"), PVK_SUCCESS); /* only lane 0 counts */
    CHECK_EQ(g_sh->opdesc_len, 1);
    CHECK_EQ(assemble("mov r0.x, c0.xyzw\nmov r1.x, c1.xwww\nmov r1.y, c1.xwww\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 2);
    CHECK_EQ(g_sh->code[2] & 0x7F, 1);
    CHECK_EQ(assemble("mov r0, v0\nmov r0.x, v0\n"), PVK_SUCCESS); /* the mask always counts */
    CHECK_EQ(g_sh->opdesc_len, 2);
    CHECK_EQ(assemble("mov r0, c0\nadd r0, c0, r1.wwww\nadd r1, c1, r2.wwww\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 1); /* the unary one takes src2 from the later user */
    CHECK_EQ(g_sh->opdesc[0], 0xF | 0x1B << 5 | 0xFFu << 14);

    /* CMP: picasso frees src1 lanes z w only; src2's still count */
    CHECK_EQ(assemble("cmp c0.xyzw, lt, lt, r1\ncmp c0.xyxy, lt, lt, r1\ncmp c0, lt, lt, r1.xyxy\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 2);
    CHECK_EQ(g_sh->code[1] & 0x7F, 0);
    CHECK_EQ(g_sh->code[2] & 0x7F, 1);

    /* descriptors are allocated in program order, as picasso allocates them */
    CHECK_EQ(assemble("mov r0, c0.yxzw\nmad r0, v0, c1, r1\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 2);
    CHECK_EQ(g_sh->code[0] & 0x7F, 0);
    CHECK_EQ(g_sh->code[1] & 0x1F, 1);
    CHECK_EQ(g_sh->opdesc[0], 0xF | 0x4B << 5);
    CHECK_EQ(g_sh->opdesc[1], 0xF | 0x1B << 5 | 0x1Bu << 14 | 0x1Bu << 23);

    /* MAD indexes descriptors with 5 bits: a MAD descriptor past 31 trades
     * places with the first one below 32 no MAD uses (picasso's swap) */
    char src[8192] = "";
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(src + n, sizeof src - n, "mov r0, c0.%c%c%c%c\n", "xyzw"[i & 3], "xyzw"[i >> 2 & 3],
                              "xyzw"[i >> 4 & 3], "xyzw"[3]);
    snprintf(src + n, sizeof src - n, "mad r0, v0, c1, r1.wzyx\n");
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 40); /* mov c0.xyzw (the 37th) shares the MAD one */
    CHECK_EQ(g_sh->code[40] & 0x1F, 0);
    CHECK_EQ(g_sh->code[36] & 0x7F, 0);
    CHECK_EQ(g_sh->opdesc[0], 0xF | 0x1B << 5 | 0x1Bu << 14 | 0xE4u << 23);
    CHECK_EQ(g_sh->code[0] & 0x7F, 36); /* the first mov's descriptor moved up */
    CHECK_EQ(g_sh->opdesc[36], 0xF | 0x03 << 5);
    CHECK_EQ(g_sh->code[1] & 0x7F, 1);
}

static void test_flow(void)
{
    const char *src =
        ".proc main\n"          /* line 1 */
        "    call sub\n"        /* 0 */
        "    ifu b1\n"          /* 1 */
        "        mov r0, v0\n"  /* 2 */
        "    .else\n"
        "        mov r1, v0\n"  /* 3 */
        "    .end\n"
        "    for i2\n"          /* 4 */
        "        add r0, c0, r1\n" /* 5 */
        "    .end\n"
        "    jmpc !cmp.x, done\n" /* 6 */
        "    mov r3, v0\n"      /* 7 */
        "done:\n"
        "    end\n"             /* 8 */
        ".end\n"
        ".proc sub\n"
        "    mov r2, v1\n"      /* 9 */
        ".end\n";
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    CHECK_EQ(g_sh->code_len, 10);
    CHECK_EQ(g_sh->code[0], 0x90002401);      /* CALL dst 9 num 1 */
    CHECK_EQ(g_sh->code[1], 0x9C400C01);      /* IFU b1 dst 3 (else) num 1 */
    CHECK_EQ(g_sh->code[4], 0xA4801400);      /* LOOP i2, last instruction 5 */
    CHECK_EQ(g_sh->code[6], 0xB1802000);      /* JMPC refx 0, condop 2 (x), dst 8 */
    CHECK_EQ(g_sh->code[8], 0x88000000);
    CHECK_EQ(g_sh->entry, 0);
    CHECK_EQ(g_sh->entry_end, 9);

    src = ".proc sub\n  mov r2, v1\n  mov r3, v1\n.end\n"
          ".proc main\n"
          "  callc cmp.x && !cmp.y, sub\n"   /* 2 */
          "  callu b3, sub\n"                /* 3 */
          "  jmpu !b4, skip\n"               /* 4 */
          "  jmpu b5, skip\n"                /* 5 */
          "  ifc cmp.y\n"                    /* 6 */
          "    mov r0, v0\n"                 /* 7 */
          "  .end\n"
          "  ifc !cmp.x | cmp.y\n"           /* 8 */
          "    mov r0, v0\n"                 /* 9 */
          "  .end\n"
          "skip: for i0\n"                   /* 10 */
          "    breakc cmp.x || cmp.y\n"      /* 11, then a padding NOP (12) */
          "  .end\n"
          "  break\n"                        /* 13 */
          "  end\n"                          /* 14 */
          ".end\n";
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    CHECK_EQ(g_sh->entry, 2);
    CHECK_EQ(g_sh->entry_end, 15);
    CHECK_EQ(g_sh->code[2], 0x96400002);          /* CALLC refx 1 refy 0 AND, dst 0 num 2 */
    CHECK_EQ(g_sh->code[3], 0x98C00002);          /* CALLU b3 */
    CHECK_EQ(g_sh->code[4], 0xB5000001 | 10 << 10); /* JMPU !b4: num bit 0 set */
    CHECK_EQ(g_sh->code[5], 0xB5400000 | 10 << 10);
    CHECK_EQ(g_sh->code[6], 0xA3C00000 | 8 << 10); /* IFC y only, dst after the body */
    CHECK_EQ(g_sh->code[8], 0xA1000000 | 10 << 10); /* refx 0 refy 1 OR */
    CHECK_EQ(g_sh->code[10], 0xA4000000 | 12 << 10);
    CHECK_EQ(g_sh->code[11], 0x8F000000);
    CHECK_EQ(g_sh->code[12], 0x84000000);
    CHECK_EQ(g_sh->code[13], 0x80000000);

    /* nested ends: a NOP keeps the outer block from ending where the inner does */
    CHECK_EQ(assemble("ifu b0\n ifu b1\n  mov r0, v0\n .end\n.end\nend\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->code_len, 5);
    CHECK_EQ(g_sh->code[0], 0x9C001000);
    CHECK_EQ(g_sh->code[1], 0x9C400C00);
    CHECK_EQ(g_sh->code[3], 0x84000000);
    /* empty bodies and a block ending in a call are padded */
    CHECK_EQ(assemble(".proc f\n.end\n.proc main\n ifu b0\n .end\n ifu b1\n  call f\n .end\n end\n.end\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->code_len, 7);
    CHECK_EQ(g_sh->code[0], 0x84000000); /* f: a NOP */
    CHECK_EQ(g_sh->code[1], 0x9C000C00); /* ifu b0 -> 3 */
    CHECK_EQ(g_sh->code[2], 0x84000000);
    CHECK_EQ(g_sh->code[3], 0x9C400000 | 6 << 10);
    CHECK_EQ(g_sh->code[4], 0x90000001);
    CHECK_EQ(g_sh->code[5], 0x84000000);
    /* .entry picks another procedure; labels as jump targets inside main */
    CHECK_EQ(assemble(".entry vmain\n.proc other\n end\n.end\n.proc vmain\nloop: nop\n jmpc cmp.x, loop\n end\n.end\n"),
             PVK_SUCCESS);
    CHECK_EQ(g_sh->entry, 1);
    CHECK_EQ(g_sh->entry_end, 4);
    CHECK_EQ(g_sh->code[2], 0xB3800000 | 1 << 10); /* refy stays 1 for an x-only test */
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_directives(void)
{
    const char *src =
        "; uniforms, constants, outputs\n"
        ".fvec m[4], scale\n"
        ".ivec counts\n"
        ".bool flags[2], _private\n"
        ".constf one(1.0, -2.5, 0.0, 0.125)\n"
        ".constf two(2, 0.5, -0, 1e3)\n"
        ".consti loops(4, 0, 1, 255)\n"
        ".setf c10(0.25, 0.25, 0.25, 0.25)\n"
        ".seti i0(1, 2, 3, -1)\n"
        ".setb b2 true\n"
        ".setb b7 off\n"
        ".in pos\n"
        ".in nrm v5\n"
        ".out opos position\n"
        ".out oclr color\n"
        ".out otc texcoord0.xy\n"
        ".out - texcoord0w o2.z\n"
        ".out oq normalquat\n"
        ".out ov view.xyz\n"
        ".out otc1 tcoord1\n"
        ".out otc2 texcoord2.xy\n"
        ".out - dummy o7\n"
        ".alias zero two.yyyy\n"
        ".proc main\n"
        "  mov opos, m[2]\n"
        "  mov oclr, scale\n"
        "  mov otc, one\n"
        "  mov ov.w, two\n"
        "  mov r0, nrm\n"
        "  dp4 oq, pos, r0\n"
        "  for loops\n"
        "   nop\n"
        "  .end\n"
        "  ifu flags[1]\n"
        "   mov otc2, zero\n"
        "  .end\n"
        "  end\n"
        ".end\n";
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    if (g_err[0])
        fprintf(stderr, "%s\n", g_err);
    const pvk_shbin *s = g_sh;
    CHECK_EQ(s->code[0], 0x4C022000);           /* m[2] = c2 -> o0 */
    CHECK_EQ(s->code[1], 0x4C224000);           /* scale = c4 -> o1 */
    CHECK_EQ(s->code[2], 0x4C47F000);           /* one = c95 -> o2 */
    CHECK_EQ(s->code[3] & ~0x7Fu, 0x4C87E000);  /* two = c94 -> o4.w */
    CHECK_EQ(s->code[4], 0x4E005000);           /* nrm = v5 */
    CHECK_EQ(s->code[5] & ~0x7Fu, 0x08600800);  /* pos = v0, o3 */
    CHECK_EQ(s->code[6] >> 22, 0x29u << 4 | 3); /* loops = i3 */
    CHECK_EQ(s->code[8] >> 22, 0x27u << 4 | 1); /* flags[1] = b1 */
    CHECK_EQ(s->input_mask, 0x21);
    /* constants: f24 = sign:1 exponent(bias 63):7 mantissa:16 */
    CHECK_EQ(s->fconst_count, 3);
    CHECK_EQ(s->fconst[0].reg, 95);
    CHECK_EQ(s->fconst[0].f24[0], 0x3F0000);
    CHECK_EQ(s->fconst[0].f24[1], 0xC04000);
    CHECK_EQ(s->fconst[0].f24[2], 0x000000);
    CHECK_EQ(s->fconst[0].f24[3], 0x3C0000);
    CHECK_EQ(s->fconst[1].reg, 94);
    CHECK_EQ(s->fconst[1].f24[0], 0x400000);
    CHECK_EQ(s->fconst[1].f24[1], 0x3E0000);
    CHECK_EQ(s->fconst[1].f24[2], 0x800000); /* -0 keeps its sign */
    CHECK_EQ(s->fconst[1].f24[3], 0x48F400); /* 1000 = 1.953125 * 2^9 */
    CHECK_EQ(s->fconst[2].reg, 10);
    CHECK_EQ(s->fconst[2].f24[3], 0x3D0000);
    CHECK_EQ(s->iconst_count, 2);
    CHECK_EQ(s->iconst[0].reg, 3);
    CHECK(!memcmp(s->iconst[0].v, "\x04\x00\x01\xFF", 4));
    CHECK_EQ(s->iconst[1].reg, 0);
    CHECK(!memcmp(s->iconst[1].v, "\x01\x02\x03\xFF", 4));
    CHECK_EQ(s->bconst_count, 2);
    CHECK_EQ(s->bconst[0].reg, 2);
    CHECK_EQ(s->bconst[0].value, 1);
    CHECK_EQ(s->bconst[1].reg, 7);
    CHECK_EQ(s->bconst[1].value, 0);
    /* uniforms in the DVLE register space, sorted by register as picasso
     * sorts them; _private is left out */
    CHECK_EQ(s->uniform_count, 6);
    CHECK(!strcmp(s->uniform[0].name, "pos"));
    CHECK_EQ(s->uniform[0].first, 0x00);
    CHECK_EQ(s->uniform[1].first, 0x05);
    CHECK(!strcmp(s->uniform[2].name, "m"));
    CHECK_EQ(s->uniform[2].first, 0x10);
    CHECK_EQ(s->uniform[2].last, 0x13);
    CHECK_EQ(s->uniform[3].first, 0x14);
    CHECK_EQ(s->uniform[4].first, 0x70);
    CHECK_EQ(s->uniform[5].first, 0x78);
    CHECK_EQ(s->uniform[5].last, 0x79);
    /* output map: position 0-3, quaternion 4-7, colour 8-11, texcoord0 12-13,
     * texcoord1 14-15, texcoord0.w 16, view 18-20, texcoord2 22-23, unused 0x1F */
    CHECK_EQ(s->outmap[0], 0x03020100);
    CHECK_EQ(s->outmap[1], 0x0B0A0908);
    CHECK_EQ(s->outmap[2], 0x1F100D0C);
    CHECK_EQ(s->outmap[3], 0x07060504);
    CHECK_EQ(s->outmap[4], 0x1F141312);
    CHECK_EQ(s->outmap[5], 0x1F1F0F0E); /* texcoord1 with the default mask xyzw */
    CHECK_EQ(s->outmap[6], 0x1F1F1716);
    CHECK_EQ(s->outmap_mask, 0xFF);
    CHECK_EQ(s->outmap_total, 8);
    CHECK_EQ(s->out_count, 9);
    CHECK_EQ(s->out[3].type, PVK_SHBIN_OUT_TEXCOORD0W);
    CHECK_EQ(s->out[3].reg, 2);
    CHECK_EQ(s->out[3].mask, 0x4);

    /* the DVLE input mask lists the .in registers only (picasso), whatever the code reads */
    CHECK_EQ(assemble(".in a v3\n.in b\nmov r0, v5\nmad r1, r2, c0, r3\nadd o0, a, r4\nmov o1, b\n"),
             PVK_SUCCESS);
    CHECK_EQ(g_sh->input_mask, 0x9);
    CHECK_EQ(g_sh->code[3] >> 12 & 0x7F, 0); /* b took the first free input, v0 */
    CHECK_EQ(assemble("mov r0, v5\nmov o0, r1\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->input_mask, 0);
    CHECK_EQ(assemble(".in x v0\n.in y\nmov o0, y\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->code[0] >> 12 & 0x7F, 1); /* the first register no .in has taken */
    CHECK_EQ(g_sh->input_mask, 0x3);

    /* the uniform table and its symbols in register order; '$' in a name is
     * written as '.'; an .in is exported even when its name starts with '_' */
    {
        const char *u = ".in pos v2\n.bool flag\n.fvec m[2]\n.ivec cnt\n.in _tex v0\n.fvec my$x, _hid\n"
                        "mov o0, my$x\n";
        CHECK_EQ(assemble(u), PVK_SUCCESS);
        static const struct { const char *name; uint16_t first, last; } want[] = {
            {"_tex", 0x00, 0x00}, {"pos", 0x02, 0x02}, {"m", 0x10, 0x11},
            {"my.x", 0x12, 0x12}, {"cnt", 0x70, 0x70}, {"flag", 0x78, 0x78},
        };
        CHECK_EQ(g_sh->uniform_count, 6);
        for (uint32_t i = 0; i < 6 && i < g_sh->uniform_count; i++) {
            CHECK(!strcmp(g_sh->uniform[i].name, want[i].name));
            CHECK_EQ(g_sh->uniform[i].first, want[i].first);
            CHECK_EQ(g_sh->uniform[i].last, want[i].last);
        }
        CHECK_EQ(g_sh->code[0] >> 12 & 0x7F, 0x22); /* my$x is c2 */
        uint8_t *f = NULL;
        size_t fsize = 0;
        CHECK_EQ(pvk_shbin_write(g_sh, &f, &fsize), PVK_SUCCESS);
        const uint8_t *e = f + rd32(f + 8);
        static const char syms[] = "_tex\0pos\0m\0my.x\0cnt\0flag";
        CHECK_EQ(rd32(e + 0x3C), sizeof syms);
        CHECK(!memcmp(e + rd32(e + 0x38), syms, sizeof syms));
        const uint32_t offs[6] = {0, 5, 9, 11, 16, 20};
        for (int i = 0; i < 6; i++) {
            const uint8_t *t = e + rd32(e + 0x30) + 8 * i;
            CHECK_EQ(rd32(t), offs[i]);
            CHECK_EQ(rd32(t + 4), (uint32_t)want[i].first | (uint32_t)want[i].last << 16);
        }
        free(f);
    }

    /* the DVLE constant table in source order whatever the types (picasso
     * keeps one list): 20-byte entries, type 0 bool / 1 int / 2 float */
    {
        CHECK_EQ(assemble(".setb b1 on\n.constf k(1, 2, 3, 4)\n.consti n(5, 6, 7, 8)\n.setb b0 0\n"
                          ".setf c3(0.1, 0, 0, 0)\nmov o0, k\n"),
                 PVK_SUCCESS);
        uint8_t *f = NULL;
        size_t fsize = 0;
        CHECK_EQ(pvk_shbin_write(g_sh, &f, &fsize), PVK_SUCCESS);
        const uint8_t *e = f + rd32(f + 8);
        CHECK_EQ(rd32(e + 0x1C), 5);
        static const uint32_t want[5][5] = {
            {0x00010000, 1, 0, 0, 0},                                  /* .setb b1 on */
            {0x005F0002, 0x3F0000, 0x400000, 0x408000, 0x410000},      /* .constf c95 */
            {0x00030001, 0x08070605, 0, 0, 0},                         /* .consti i3 */
            {0x00000000, 0, 0, 0, 0},                                  /* .setb b0 0 */
            {0x00030002, 0x3B9999, 0, 0, 0},                           /* .setf c3: 0.1 truncated */
        };
        for (int i = 0; i < 5; i++)
            for (int w = 0; w < 5; w++)
                CHECK_EQ(rd32(e + rd32(e + 0x18) + 20 * i + 4 * w), want[i][w]);
        pvk_shbin *back = malloc(sizeof *back); /* a read file writes back the same */
        CHECK_EQ(pvk_shbin_read(f, fsize, back), PVK_SUCCESS);
        uint8_t *f2 = NULL;
        size_t fsize2 = 0;
        CHECK_EQ(pvk_shbin_write(back, &f2, &fsize2), PVK_SUCCESS);
        CHECK(fsize2 == fsize && !memcmp(f, f2, fsize));
        free(f2);
        free(back);
        free(f);
    }

    /* unmapped registers stay 0x1F; the mask says which are written */
    CHECK_EQ(assemble(".out p position\n.out c color o3\nmov p, v0\nmov c, v1\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->outmap[0], 0x03020100);
    CHECK_EQ(g_sh->outmap[1], 0x1F1F1F1F);
    CHECK_EQ(g_sh->outmap[3], 0x0B0A0908);
    CHECK_EQ(g_sh->outmap_mask, 0x9);
    CHECK_EQ(g_sh->outmap_total, 2);
    CHECK_EQ(g_sh->code[1] >> 21 & 0x1F, 3);
    /* comments, CRLF, labels on their own line, case */
    CHECK_EQ(assemble("; header\r\n\r\n  MOV r0, V0 ; trailing\r\nL1:\r\n  End\r\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->code_len, 2);
    CHECK_EQ(g_sh->code[1], 0x88000000);
}

static void expect_error(const char *src, const char *want)
{
    pvk_result r = assemble(src);
    CHECK_EQ(r, PVK_ERROR_BAD_DATA);
    bool ok = strstr(g_err, want) != NULL;
    if (!ok)
        fprintf(stderr, "  error '%s' lacks '%s'\n", g_err, want);
    CHECK(ok);
    CHECK_EQ(g_sh->code_len, 0); /* nothing half-assembled is left */
}

static void test_errors(void)
{
    expect_error("mov r0, v0\nfrob r1, r2\n", "line 2: unknown instruction 'frob'");
    expect_error("\n\nmov r0, r16\n", "line 3: invalid register");
    expect_error("mov r0, x3\n", "line 1: invalid register 'x3'");
    expect_error("mov c0, r1\n", "line 1: invalid destination register 'c0'");
    expect_error("mov r0, c96\n", "line 1: invalid register");
    expect_error("add r0, r1, c2\n", "line 1: invalid register for src2");
    expect_error("mad r0, c1, r1, r2\n", "line 1: invalid register for src1");
    expect_error("add r0, v0, v1\n", "line 1: source operands must not be different input registers");
    expect_error("mov r0, r1.xyzwx\n", "line 1: invalid swizzle");
    expect_error("mov r0\n", "line 1: mov takes 2 operands, not 1");
    expect_error("ifu b0\nmov r0, v0\n", "line 1: block not closed");
    expect_error(".else\n", "line 1: .else without");
    expect_error(".end\n", "line 1: .end without");
    expect_error("nop\n\njmpc cmp.x, nowhere\nend\n", "line 3: undefined label 'nowhere'");
    expect_error("call nope\n", "line 1: undefined procedure 'nope'");
    expect_error("ifc cmp.z\n.end\n", "line 1: invalid condition");
    expect_error("for b0\n.end\n", "line 1: invalid integer uniform");
    expect_error("ifu !b0\n.end\n", "line 1: ifu cannot test a negated boolean");
    expect_error(".entry start\nnop\n", "line 1: entry point 'start' is undefined");
    expect_error("", "entry point 'main' is undefined");
    expect_error(".alias x r0\n.alias x r1\n", "line 2: 'x' is already defined");
    expect_error(".out a position\n.out b color o0\n", "line 2: output o0.xyzw collides");
    expect_error(".out a texture\n", "line 1: unknown output type 'texture'");
    expect_error(".out a color o7\n", "line 1: o7 can only be a dummy output");
    expect_error(".constf k(1, 2, 3)\n", "line 1: expected four values");
    expect_error(".constf k(1, 2, 3, x)\n", "line 1: invalid number 'x'");
    expect_error(".fvec a[90]\n.fvec b[7]\n", "line 2: not enough uniform registers");
    expect_error(".gsh triangle c0\n", "line 1: invalid geometry shader mode 'triangle'");
    expect_error(".gsh point\n", "line 1: expected .gsh point firstReg");
    expect_error(".gsh point c0 3\n", "line 1: expected .gsh point firstReg");
    expect_error(".gsh variable c48\n", "line 1: expected .gsh variable firstReg vtxNum");
    expect_error(".gsh variable c48 256\n", "line 1: invalid vertex count '256'");
    expect_error(".gsh fixed c48 4\n", "line 1: expected .gsh fixed firstReg arrayStartReg vtxNum");
    expect_error(".gsh fixed c8 c8 4\n", "line 1: the vertex array c8 overlaps the uniform pool from c8");
    expect_error(".gsh point r0\n", "line 1: invalid float uniform register 'r0'");
    expect_error(".gsh point c0\n.gsh point c0\n", "line 2: .gsh had already been used");
    expect_error(".fvec m[4]\n.gsh point c0\n", "line 2: .gsh must come before any constant, uniform or output");
    expect_error(".gsh variable c90 3\n.fvec m[7]\n", "line 2: not enough uniform registers");
    expect_error("mov r0, c[a0.x + a0.y]\n", "line 1: bad index register use");
    expect_error("add r0, c0, r[a0]\n", "line 1: invalid register");

    /* 129 different operand descriptors */
    char *src = malloc(1 << 16);
    size_t n = 0;
    for (int i = 0; i < 129; i++)
        n += (size_t)snprintf(src + n, (1 << 16) - n, "mov r0, c0.%c%c%c%c\n", "xyzw"[i & 3], "xyzw"[i >> 2 & 3],
                              "xyzw"[i >> 4 & 3], "xyzw"[i >> 6 & 3]);
    expect_error(src, "line 129: too many operand descriptors (limit 128)");
    n = 0;
    for (int i = 0; i < 128; i++)
        n += (size_t)snprintf(src + n, (1 << 16) - n, "mov r0, c0.%c%c%c%c\n", "xyzw"[i & 3], "xyzw"[i >> 2 & 3],
                              "xyzw"[i >> 4 & 3], "xyzw"[i >> 6 & 3]);
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    CHECK_EQ(g_sh->opdesc_len, 128);
    /* 33 different MAD descriptors */
    n = 0;
    for (int i = 0; i < 33; i++)
        n += (size_t)snprintf(src + n, (1 << 16) - n, "mad r0, v0, c0.%c%c%c%c, r1\n", "xyzw"[i & 3],
                              "xyzw"[i >> 2 & 3], "xyzw"[i >> 4 & 3], "xyzw"[3]);
    expect_error(src, "line 33: too many operand descriptors for MAD");
    /* 4097 instructions */
    n = 0;
    for (int i = 0; i < 4097; i++)
        n += (size_t)snprintf(src + n, (1 << 16) - n, "nop\n");
    expect_error(src, "line 4097: program too long (limit 4096 instructions)");
    src[n - 4] = 0;
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    CHECK_EQ(g_sh->code_len, 4096);
    /* a procedure too long to CALL (NUM is 8 bits) */
    n = (size_t)snprintf(src, 1 << 16, ".proc big\n");
    for (int i = 0; i < 256; i++)
        n += (size_t)snprintf(src + n, (1 << 16) - n, "nop\n");
    snprintf(src + n, (1 << 16) - n, ".end\n.proc main\ncall big\nend\n.end\n");
    expect_error(src, "line 260: procedure 'big' is too long to call");
    free(src);

    /* garbage never crashes: mutate a valid source at random */
    const char *base = ".fvec m[4]\n.out p position\n.proc main\n dp4 p.x, m[0], v0\n ifu b0\n mov r0.xy, -c[a0.x+1].wz\n"
                       " .else\n for i0\n breakc !cmp.x && cmp.y\n .end\n .end\n end\n.end\n";
    size_t blen = strlen(base);
    char buf[256];
    static const char junk[] = "[]().,-+!;:&|\n xyzwrcvob0123456789";
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(buf, base, blen);
        for (int k = 0; k < 3; k++)
            buf[th_rand() % blen] = junk[th_rand() % (sizeof junk - 1)];
        pvk_result r = pvk_pica_asm(buf, blen, g_sh, g_err, sizeof g_err);
        CHECK(r == PVK_SUCCESS || (r == PVK_ERROR_BAD_DATA && !strncmp(g_err, "line ", 5)) ||
              (r == PVK_ERROR_BAD_DATA && strstr(g_err, "entry point")));
    }
    CHECK_EQ(pvk_pica_asm(NULL, 4, g_sh, NULL, 0), PVK_ERROR_INVALID_ARGUMENT);
}

static const char *g_full =
    ".fvec proj[4]\n"
    ".constf k(1.0, 0.5, -3.25, 100.0)\n"
    ".constf k2(0.0, 0.0, 0.0, 1.0)\n"
    ".consti lp(3, 0, 1, 0)\n"
    ".setb b3 1\n"
    ".setb b9 true\n"
    ".out opos position\n"
    ".out oclr color\n"
    ".out otc texcoord0.xy\n"
    ".proc main\n"
    "  mov r0, v0\n"
    "  mov r0.w, k.x\n"
    "  dp4 opos.x, proj[0], r0\n"
    "  dp4 opos.y, proj[1], r0\n"
    "  dp4 opos.z, proj[2], r0\n"
    "  dp4 opos.w, proj[3], r0\n"
    "  mad oclr, v1, k.yyyy, r1\n"
    "  for lp\n"
    "   add r1, k, r1\n"
    "  .end\n"
    "  mov otc, v2\n"
    "  end\n"
    ".end\n";

static void test_shbin_file(void)
{
    CHECK_EQ(assemble(g_full), PVK_SUCCESS);
    pvk_shbin *back = malloc(sizeof *back);
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK_EQ(pvk_shbin_write(g_sh, &data, &size), PVK_SUCCESS);
    CHECK(data && size > 0x40);
    CHECK(!memcmp(data, "DVLB", 4));
    CHECK_EQ(data[4], 1);
    CHECK(!memcmp(data + 12, "DVLP", 4));
    uint32_t dvle = data[8] | data[9] << 8;
    CHECK(!memcmp(data + dvle, "DVLE", 4));
    /* the header words picasso writes: DVLE version 0x1002, vertex shader,
     * no merge; DVLP words 0x1C-0x24 zero (only 0x18 points past the tables) */
    CHECK_EQ(rd32(data + dvle + 4), 0x1002);
    CHECK_EQ(rd32(data + 12 + 0x18), dvle - 12);
    CHECK_EQ(rd32(data + 12 + 0x1C), 0);
    CHECK_EQ(rd32(data + 12 + 0x20), 0);
    CHECK_EQ(rd32(data + 12 + 0x24), 0);
    CHECK_EQ(pvk_shbin_read(data, size, back), PVK_SUCCESS);
    CHECK_EQ(back->code_len, g_sh->code_len);
    CHECK(!memcmp(back->code, g_sh->code, 4 * g_sh->code_len));
    CHECK_EQ(back->opdesc_len, g_sh->opdesc_len);
    CHECK(!memcmp(back->opdesc, g_sh->opdesc, 4 * g_sh->opdesc_len));
    CHECK_EQ(back->entry, g_sh->entry);
    CHECK_EQ(back->entry_end, g_sh->entry_end);
    CHECK(!memcmp(back->outmap, g_sh->outmap, sizeof back->outmap));
    CHECK_EQ(back->outmap_mask, g_sh->outmap_mask);
    CHECK_EQ(back->input_mask, g_sh->input_mask);
    CHECK_EQ(back->fconst_count, g_sh->fconst_count);
    CHECK(!memcmp(back->fconst, g_sh->fconst, sizeof back->fconst[0] * back->fconst_count));
    CHECK_EQ(back->iconst_count, 1);
    CHECK_EQ(back->bconst_count, 2);
    CHECK_EQ(back->uniform_count, 1);
    CHECK(!strcmp(back->uniform[0].name, "proj"));

    /* the public API writes the same file */
    void *pub = NULL;
    size_t pub_size = 0;
    CHECK_EQ(pvk_shader_assemble(g_full, strlen(g_full), &pub, &pub_size, g_err, sizeof g_err), PVK_SUCCESS);
    CHECK(pub_size == size && !memcmp(pub, data, size));
    free(pub);
    CHECK_EQ(pvk_shader_assemble("bogus\n", 6, &pub, &pub_size, g_err, sizeof g_err), PVK_ERROR_BAD_DATA);
    CHECK(pub == NULL);
    CHECK(!strcmp(g_err, "line 1: unknown instruction 'bogus'"));

    /* truncated or corrupted files are refused, never read out of bounds */
    for (size_t cut = 0; cut < size; cut++) {
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, data, cut);
        pvk_result r = pvk_shbin_read(t, cut, back);
        CHECK(r == PVK_ERROR_BAD_DATA || cut + 3 >= size); /* only symbol padding may go */
        free(t);
    }
    for (int iter = 0; iter < 2000; iter++) {
        uint8_t *t = malloc(size);
        memcpy(t, data, size);
        t[th_rand() % size] ^= (uint8_t)(1u << (th_rand() % 8));
        pvk_result r = pvk_shbin_read(t, size, back);
        CHECK(r == PVK_SUCCESS || r == PVK_ERROR_BAD_DATA);
        free(t);
    }
    free(data);
    free(back);
}

/* Real shaders, assembled to the file picasso writes for them.  The expected
 * words are derived by hand from picasso's source (v2.6+: program-order
 * descriptor allocation, DVLE version 0x1002, .in input mask, uniforms sorted
 * by register, constants in source order), not from this assembler. */

/* devkitPro 3ds-examples simple_tri/source/vshader.v.pica (Public Domain Mark). */
static const char g_simple_tri[] =
    "; Example PICA200 vertex shader\n\n; Uniforms\n.fvec projection[4]\n\n; Constants\n"
    ".constf myconst(0.0, 1.0, -1.0, 0.1)\n.constf myconst2(0.3, 0.0, 0.0, 0.0)\n"
    ".alias  zeros myconst.xxxx ; Vector full of zeros\n.alias  ones  myconst.yyyy ; Vector full of ones\n\n"
    "; Outputs\n.out outpos position\n.out outclr color\n\n"
    "; Inputs (defined as aliases for convenience)\n.alias inpos v0\n\n.bool test\n\n"
    ".proc main\n\t; Force the w component of inpos to be 1.0\n\tmov r0.xyz, inpos\n\tmov r0.w,   ones\n\n"
    "\t; outpos = projectionMatrix * inpos\n\tdp4 outpos.x, projection[0], r0\n"
    "\tdp4 outpos.y, projection[1], r0\n\tdp4 outpos.z, projection[2], r0\n"
    "\tdp4 outpos.w, projection[3], r0\n\n\t; outclr = solid white color\n\tmov outclr, ones\n\n"
    "\t; We're finished\n\tend\n.end\n";

static const uint32_t g_simple_tri_words[] = {
    0x424C5644, 1, 0x8C, /* DVLB: one DVLE at 12 + DVLP size */
    /* DVLP: version 0, code at 0x28 (8 words), descriptors at 0x48 (7), size 0x80 */
    0x504C5644, 0, 0x28, 8, 0x48, 7, 0x80, 0, 0, 0,
    0x4E000000, /* mov r0.xyz, v0          desc 0 */
    0x4E07F001, /* mov r0.w, c95.yyyy      desc 1 */
    0x08020802, /* dp4 o0.x, c0, r0        desc 2 */
    0x08021803, /* dp4 o0.y, c1, r0        desc 3 */
    0x08022804, /* dp4 o0.z, c2, r0        desc 4 */
    0x08023805, /* dp4 o0.w, c3, r0        desc 5 */
    0x4C27F006, /* mov o1, c95.yyyy        desc 6 (the mask differs from desc 1) */
    0x88000000, /* end */
    0x36E, 0, 0xAA1, 0, 0x6C368, 0, 0x6C364, 0, 0x6C362, 0, 0x6C361, 0, 0xAAF, 0,
    /* DVLE: version 0x1002, vertex; main 0-8; no .in; outputs o0 o1 */
    0x454C5644, 0x1002, 0, 8, 0x00030000, 0,
    0x40, 2, 0x68, 0, 0x68, 2, 0x78, 2, 0x88, 16,
    0x005F0002, 0x000000, 0x3F0000, 0xBF0000, 0x3B9999, /* myconst c95 */
    0x005E0002, 0x3D3333, 0, 0, 0,                       /* myconst2 c94 */
    0x00000000, 0xF, 0x00010002, 0xF,                    /* position o0, color o1 */
    0, 0x00130010, 11, 0x00780078,                       /* projection c0-c3, test b0 */
};
static const char g_simple_tri_syms[] = "projection\0test"; /* 16 bytes with the last NUL */

/* citro2d source/render2d.v.pica.  Copyright (C) 2017-2018 fincs.  zlib
 * licence: This software is provided 'as-is', without any express or implied
 * warranty.  In no event will the authors be held liable for any damages
 * arising from the use of this software.  Permission is granted to anyone to
 * use this software for any purpose, including commercial applications, and
 * to alter it and redistribute it freely, subject to the following
 * restrictions: 1. The origin of this software must not be misrepresented;
 * you must not claim that you wrote the original software. If you use this
 * software in a product, an acknowledgment in the product documentation would
 * be appreciated but is not required. 2. Altered source versions must be
 * plainly marked as such, and must not be misrepresented as being the
 * original software. 3. This notice may not be removed or altered from any
 * source distribution.  (Unaltered; comments kept.) */
static const char g_render2d[] =
    "; PICA200 vertex shader for citro2d\n\n; Uniforms\n.fvec mdlvMtx[4], projMtx[4]\n\n; Constants\n"
    ".constf common_const(0.0, 1.0, 0.5, 0.003921568393707275390625)\n"
    ".alias  zeros  common_const.xxxx ; Vector full of 0.0\n"
    ".alias  ones   common_const.yyyy ; Vector full of 1.0\n"
    ".alias  halves common_const.zzzz ; Vector full of 0.5\n"
    ".alias  clrdiv common_const.wwww ; Vector full of 1/255 (float24 approximation)\n\n"
    "; Outputs\n.out oPosition  position\n.out oTexCoord0 texcoord0\n.out oTexCoord1 texcoord1\n"
    ".out oColor     color\n\n; Inputs\n.in iPosition v0\n.in iTexCoord v1\n.in iBlend    v2\n"
    ".in iColor    v3\n\n; Main procedure\n.entry render2d_main\n.proc render2d_main\n"
    "\t; r0 = vec4(iPosition, 1.0)\n\tmov r0.xyz, iPosition\n\tmov r0.w,   ones\n\n"
    "\t; r1 = mdlvMtx * r0\n\tdp4 r1.x, mdlvMtx[0], r0\n\tdp4 r1.y, mdlvMtx[1], r0\n"
    "\tdp4 r1.z, mdlvMtx[2], r0\n\tdp4 r1.w, mdlvMtx[3], r0\n\n"
    "\t; oPosition = projMtx * r1\n\tdp4 oPosition.x, projMtx[0], r1\n\tdp4 oPosition.y, projMtx[1], r1\n"
    "\tdp4 oPosition.z, projMtx[2], r1\n\tdp4 oPosition.w, projMtx[3], r1\n\n"
    "\t; oTexCoord0 = iTexCoord\n\tmov oTexCoord0, iTexCoord\n\n"
    "\t; oTexCoord1 = iBlend\n\tmov oTexCoord1, iBlend\n\n"
    "\t; oColor = iColor / 255\n\tmul oColor, clrdiv, iColor\n\n\tend\n.end\n";

static const uint32_t g_render2d_words[] = {
    0x424C5644, 1, 0xAC,
    0x504C5644, 0, 0x28, 14, 0x60, 8, 0xA0, 0, 0, 0,
    0x4E000000, /* mov r0.xyz, v0          desc 0 */
    0x4E07F001, /* mov r0.w, c95.yyyy      desc 1 */
    0x0A220802, /* dp4 r1.x, c0, r0        desc 2 */
    0x0A221803, /* dp4 r1.y, c1, r0        desc 3 */
    0x0A222804, /* dp4 r1.z, c2, r0        desc 4 */
    0x0A223805, /* dp4 r1.w, c3, r0        desc 5 */
    0x08024882, /* dp4 o0.x, c4, r1        shares desc 2 */
    0x08025883, /* dp4 o0.y, c5, r1        desc 3 */
    0x08026884, /* dp4 o0.z, c6, r1        desc 4 */
    0x08027885, /* dp4 o0.w, c7, r1        desc 5 */
    0x4C201006, /* mov o1, v1              desc 6 */
    0x4C402006, /* mov o2, v2              desc 6 */
    0x2067F187, /* mul o3, c95.wwww, v3    desc 7 */
    0x88000000, /* end */
    0x36E, 0, 0xAA1, 0, 0x6C368, 0, 0x6C364, 0, 0x6C362, 0, 0x6C361, 0, 0x36F, 0, 0x6DFEF, 0,
    /* DVLE: main 0-14; .in v0-v3; outputs o0-o3 */
    0x454C5644, 0x1002, 0, 14, 0x000F000F, 0,
    0x40, 1, 0x54, 0, 0x54, 4, 0x74, 6, 0xA4, 50,
    0x005F0002, 0, 0x3F0000, 0x3E0000, 0x370101,  /* common_const c95 */
    0x00000000, 0xF, 0x00010003, 0xF,              /* position o0, texcoord0 o1 */
    0x00020005, 0xF, 0x00030002, 0xF,              /* texcoord1 o2, color o3 */
    0, 0x00000000, 10, 0x00010001, 20, 0x00020002, /* iPosition, iTexCoord, iBlend */
    27, 0x00030003, 34, 0x00130010, 42, 0x00170014, /* iColor, mdlvMtx c0-c3, projMtx c4-c7 */
};
static const char g_render2d_syms[] = "iPosition\0iTexCoord\0iBlend\0iColor\0mdlvMtx\0projMtx"; /* 50 */

static void check_file(const char *src, const uint32_t *words, size_t nwords, const char *syms, size_t nsyms)
{
    void *data = NULL;
    size_t size = 0;
    CHECK_EQ(pvk_shader_assemble(src, strlen(src), &data, &size, g_err, sizeof g_err), PVK_SUCCESS);
    if (!data) {
        fprintf(stderr, "  %s\n", g_err);
        return;
    }
    const uint8_t *d = data;
    size_t want = (4 * nwords + nsyms + 3) & ~(size_t)3;
    CHECK_EQ(size, want);
    for (size_t i = 0; i < nwords && 4 * i + 4 <= size; i++)
        if (rd32(d + 4 * i) != words[i]) {
            fprintf(stderr, "  word %zu (byte 0x%zX): 0x%08X, want 0x%08X\n", i, 4 * i, rd32(d + 4 * i), words[i]);
            CHECK(0);
        }
    if (size == want) {
        CHECK(!memcmp(d + 4 * nwords, syms, nsyms));
        for (size_t i = 4 * nwords + nsyms; i < size; i++)
            CHECK_EQ(d[i], 0);
    }
    free(data);
}

static void test_picasso_files(void)
{
    check_file(g_simple_tri, g_simple_tri_words, sizeof g_simple_tri_words / 4, g_simple_tri_syms,
               sizeof g_simple_tri_syms);
    check_file(g_render2d, g_render2d_words, sizeof g_render2d_words / 4, g_render2d_syms, sizeof g_render2d_syms);
}

/* Compare the vertex unit with the assembled shader. */
static void check_unit(pvk_context *ctx, const pvk_shbin *s)
{
    const pvk_shader_unit *u = &ctx->pica.sh[1];
    CHECK(!memcmp(u->code, s->code, 4 * s->code_len));
    CHECK(!memcmp(u->opdesc, s->opdesc, 4 * s->opdesc_len));
    for (uint32_t i = 0; i < s->fconst_count; i++)
        for (int c = 0; c < 4; c++)
            CHECK_EQ(u->f[s->fconst[i].reg][c], s->fconst[i].f24[c]);
    CHECK_EQ(u->i[3], 3u | 0u << 8 | 1u << 16 | 0u << 24);
    CHECK_EQ(u->b, 1u << 3 | 1u << 9);
    const uint32_t *regs = ctx->pica.regs;
    CHECK_EQ(regs[PVK_GPUREG_VSH_ENTRYPOINT] & 0xFFFF, s->entry);
    CHECK_EQ(regs[PVK_GPUREG_VSH_OUTMAP_MASK], 0x7);
    CHECK_EQ(regs[PVK_GPUREG_SH_OUTMAP_TOTAL], 3);
    CHECK_EQ(regs[PVK_GPUREG_VSH_OUTMAP_TOTAL1], 2);
    CHECK_EQ(regs[PVK_GPUREG_SH_OUTMAP_O0], 0x03020100);
    CHECK_EQ(regs[PVK_GPUREG_SH_OUTMAP_O1], 0x0B0A0908);
    CHECK_EQ(regs[PVK_GPUREG_SH_OUTMAP_O2], 0x1F1F0D0C);
    CHECK_EQ(regs[PVK_GPUREG_SH_OUTMAP_O3], 0x1F1F1F1F);
}

static void test_upload(void)
{
    CHECK_EQ(assemble(g_full), PVK_SUCCESS);
    const pvk_shbin *s = g_sh;
    CHECK_EQ(s->fconst_count, 2);
    CHECK_EQ(s->fconst[0].reg, 95);
    CHECK_EQ(s->fconst[0].f24[2], 0xC0A000); /* -3.25 */
    CHECK_EQ(s->fconst[0].f24[3], 0x459000); /* 100 = 1.5625 * 2^6 */

    uint32_t n = pvk_shbin_upload(s, NULL, 0);
    CHECK(n <= PVK_SHBIN_UPLOAD_MAX);
    pvk_reg_write *w = calloc(n, sizeof *w);
    CHECK_EQ(pvk_shbin_upload(s, w, n), n);
    CHECK_EQ(w[0].id, PVK_GPUREG_VSH_CODETRANSFER_CONFIG);
    CHECK_EQ(w[1].id, PVK_GPUREG_VSH_CODETRANSFER_DATA);
    CHECK_EQ(w[1].value, s->code[0]);
    /* f24 mode: the index, then w:z:y:x as three words, most significant first */
    uint32_t k = 0;
    while (k < n && w[k].id != PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG)
        k++;
    CHECK(k + 3 < n);
    CHECK_EQ(w[k].value, 95);
    CHECK_EQ(w[k + 1].value, 0x459000u << 8 | 0xC0A000u >> 16);
    CHECK_EQ(w[k + 2].value, (0xC0A000u & 0xFFFF) << 16 | 0x3E0000u >> 8);
    CHECK_EQ(w[k + 3].value, (0x3E0000u & 0xFF) << 24 | 0x3F0000u);

    pvk_context *ctx = th_context(NULL, 0);
    /* CPU writes to the 0x10401000 + 4*id window */
    pvk_pica_reset(&ctx->pica);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(pvk_mmio_write32(ctx, 0x10401000u + 4 * w[i].id, w[i].value), PVK_SUCCESS);
    check_unit(ctx, s);
    CHECK_EQ(ctx->pica.sh[1].code_pos, s->code_len);

    /* the same writes as a command list: one single-parameter command each */
    pvk_pica_reset(&ctx->pica);
    CHECK_EQ(ctx->pica.sh[1].code[0], 0);
    uint32_t *list = calloc(2 * n, sizeof *list);
    for (uint32_t i = 0; i < n; i++) {
        list[2 * i] = w[i].value;
        list[2 * i + 1] = pvk_cmd_header(w[i].id, 0xF, 0, 0);
    }
    CHECK_EQ(pvk_cmdlist_run_words(&ctx->pica, list, 2 * n), PVK_SUCCESS);
    check_unit(ctx, s);

    /* and as a SHBIN file read back */
    uint8_t *data;
    size_t size;
    pvk_shbin *back = malloc(sizeof *back);
    CHECK_EQ(pvk_shbin_write(s, &data, &size), PVK_SUCCESS);
    CHECK_EQ(pvk_shbin_read(data, size, back), PVK_SUCCESS);
    pvk_reg_write *w2 = calloc(n, sizeof *w2);
    CHECK_EQ(pvk_shbin_upload(back, w2, n), n);
    CHECK(!memcmp(w, w2, n * sizeof *w));
    CHECK_EQ(pvk_shbin_upload(back, w2, 3), n); /* a short buffer still reports the count */

    free(w2);
    free(back);
    free(data);
    free(list);
    free(w);
    th_release(ctx);
}

/* Cross-check with the vertex shader interpreter: an assembled program,
 * uploaded through the registers, computes what its source says. */
/* .gsh (picasso's meaning): the DVLE fields, the uniform allocation floor,
 * b15 kept free, the SHBIN round trip, and the registers a VS + GS program
 * writes (libctru shaderProgramConfigure). */
static void test_gsh(void)
{
    /* point mode from c0: .fvec starts at c0; legacy bare .gsh */
    CHECK_EQ(assemble(".gsh point c0\n.fvec proj[4]\n.out p position\n.proc main\n  emit\n  end\n.end\n"),
             PVK_SUCCESS);
    CHECK(g_sh->geometry && g_sh->gsh_mode == 0);
    CHECK_EQ(g_sh->uniform[0].first, 0x10);
    CHECK_EQ(assemble(".gsh\n.proc main\n  end\n.end\n"), PVK_SUCCESS);
    CHECK(g_sh->geometry && !g_sh->gsh_explicit && g_sh->gsh_mode == 0);
    /* variable: uniforms from c48; bools stop at b14 */
    CHECK_EQ(assemble(".gsh variable c48 3\n.fvec m[4]\n.bool b[15]\n.proc main\n  end\n.end\n"), PVK_SUCCESS);
    CHECK_EQ(g_sh->gsh_mode, 1);
    CHECK_EQ(g_sh->gsh_variable_num, 3);
    CHECK_EQ(g_sh->uniform[0].first, 0x10 + 48);
    CHECK_EQ(g_sh->uniform[1].first, 0x78);
    CHECK_EQ(g_sh->uniform[1].last, 0x78 + 14);
    expect_error(".gsh point c0\n.bool b[16]\n", "line 2: not enough uniform registers");
    CHECK_EQ(assemble(".bool b[16]\n.proc main\n  end\n.end\n"), PVK_SUCCESS); /* a vertex shader has b15 */
    /* fixed: the vertex array at c4, 4 vertices; the SHBIN keeps it all */
    CHECK_EQ(assemble(".gsh particle c16 c4 4\n.out p position\n.out - dummy o1\n"
                      ".proc main\n  setemit 2, prim inv\n  emit\n  end\n.end\n"),
             PVK_SUCCESS);
    CHECK_EQ(g_sh->gsh_mode, 2);
    CHECK_EQ(g_sh->gsh_fixed_start, 4);
    CHECK_EQ(g_sh->gsh_fixed_num, 4);
    CHECK(g_sh->merge_outmaps); /* a dummy output in a geometry shader */
    CHECK_EQ(g_sh->code[0], (uint32_t)PVK_SH_SETEMIT << 26 | 2u << 24 | 1u << 23 | 1u << 22);
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK_EQ(pvk_shbin_write(g_sh, &data, &size), PVK_SUCCESS);
    uint32_t dvle = data[8] | data[9] << 8;
    CHECK_EQ(data[dvle + 6], 1);    /* geometry shader */
    CHECK_EQ(data[dvle + 7], 1);    /* merged output maps */
    CHECK_EQ(rd32(data + dvle + 0x14), 2u | 4u << 8 | 0u << 16 | 4u << 24); /* mode, start, variable, fixed */
    pvk_shbin *back = malloc(sizeof *back);
    CHECK_EQ(pvk_shbin_read(data, size, back), PVK_SUCCESS);
    CHECK(back->geometry && back->merge_outmaps);
    CHECK_EQ(back->gsh_mode, 2);
    CHECK_EQ(back->gsh_fixed_start, 4);
    CHECK_EQ(back->gsh_fixed_num, 4);
    data[dvle + 0x14] = 3; /* no such mode */
    CHECK_EQ(pvk_shbin_read(data, size, back), PVK_ERROR_BAD_DATA);
    free(data);

    /* the program's registers: VS (2 outputs) + fixed-mode GS */
    pvk_shbin *vs = malloc(sizeof *vs);
    static const char vs_src[] = ".out p position\n.out c color\n.proc main\n  mov p, v0\n  mov c, v1\n  end\n.end\n";
    CHECK_EQ(pvk_pica_asm(vs_src, strlen(vs_src), vs, g_err, sizeof g_err), PVK_SUCCESS);
    CHECK_EQ(assemble(".gsh fixed c16 c4 3\n.out p position\n.out c color\n.proc main\n  end\n.end\n"),
             PVK_SUCCESS);
    uint32_t n = pvk_shbin_upload_program(vs, g_sh, 0, NULL, 0);
    CHECK(n <= PVK_SHBIN_PROGRAM_UPLOAD_MAX);
    pvk_reg_write *w = calloc(n, sizeof *w);
    CHECK_EQ(pvk_shbin_upload_program(vs, g_sh, 0, w, n), n);
    CHECK_EQ(w[0].id, PVK_GPUREG_GEOSTAGE_CONFIG);
    CHECK_EQ(w[0].value, 2);
    pvk_pica *p = calloc(1, sizeof *p);
    pvk_pica_reset(p);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(pvk_pica_write(p, w[i].id, w[i].value), PVK_SUCCESS);
    CHECK_EQ(p->regs[PVK_GPUREG_VSH_COM_MODE], 1);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_MISC0], 0x01000000u | 4u << 16 | 1u << 12 | 2u << 8 | 2u);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_MISC1], 0);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_INPUTBUFFER_CONFIG], 0x08000101u);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_ATTRIBUTES_PERMUTATION_LOW], 0x76543210u);
    CHECK_EQ(p->regs[PVK_GPUREG_VSH_OUTMAP_TOTAL1], 1);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_BOOLUNIFORM] & 0xFFFF, 0); /* b15 clear */
    CHECK(!memcmp(p->sh[1].code, vs->code, 4 * vs->code_len));
    CHECK(!memcmp(p->sh[0].code, g_sh->code, 4 * g_sh->code_len));
    CHECK(p->sh[0].code_pos == g_sh->code_len);
    pvk_gs_plan plan;
    CHECK_EQ(pvk_gs_plan_build(p, PVK_DRAW_ARRAYS, &plan), PVK_SUCCESS);
    CHECK_EQ(plan.mode, PVK_GS_FIXED);
    CHECK_EQ(plan.vertices, 3);
    CHECK_EQ(plan.stride, 2);
    CHECK_EQ(plan.first_uniform, 4);
    CHECK_EQ(plan.vs_outputs, 2);
    CHECK_EQ(plan.out_mask, 3);
    /* variable mode: GEOSTAGE_CONFIG bit 31, MISC1 = vertices - 1; a stride given */
    CHECK_EQ(assemble(".gsh variable c48 3\n.out p position\n.proc main\n  end\n.end\n"), PVK_SUCCESS);
    n = pvk_shbin_upload_program(vs, g_sh, 4, w, n);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(pvk_pica_write(p, w[i].id, w[i].value), PVK_SUCCESS);
    CHECK_EQ(p->regs[PVK_GPUREG_GEOSTAGE_CONFIG], 0x80000002u);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_MISC0], 1);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_MISC1], 2);
    CHECK_EQ(p->regs[PVK_GPUREG_GSH_INPUTBUFFER_CONFIG], 0x08000103u);
    CHECK_EQ(p->regs[PVK_GPUREG_SH_OUTMAP_TOTAL], 1);
    free(p);
    free(w);
    free(vs);
    free(back);
}

/* ---- several sources in one SHBIN (picasso's `-o x.shbin a.v.pica a.g.pica`) ---- */

/* The vertex and geometry programs of tests/scenes/gs_point_sprites.pvs, the
 * GS with a call so its code has addresses to relocate. */
static const char g_two_vs[] = ".constf k(0.0, 1.0, 0.0, 0.0)\n"
                               ".out outpos position\n.out outclr color\n"
                               ".entry vmain\n.proc vmain\n  mov outpos, v0\n  mov outclr, v1\n  end\n.end\n";
static const char g_two_gs[] = ".gsh point c0\n"
                               ".constf bl(-0.25, -0.25, 0.0, 0.0)\n.constf br(0.25, -0.25, 0.0, 0.0)\n"
                               ".constf tl(-0.25, 0.25, 0.0, 0.0)\n.constf tr(0.25, 0.25, 0.0, 0.0)\n"
                               ".out outpos position\n.out outclr color\n"
                               ".entry gmain\n.proc gmain\n  mov outclr, v1\n"
                               "  setemit 0\n  add outpos, bl, v0\n  emit\n"
                               "  setemit 1\n  add outpos, br, v0\n  emit\n"
                               "  setemit 2, prim\n  call corner\n"
                               "  setemit 0, prim inv\n  add outpos, tr, v0\n  emit\n  end\n.end\n"
                               ".proc corner\n  add outpos, tl, v0\n  emit\n.end\n";

/* The point-sprite scene after its `shader` blocks: attributes, colour
 * buffer, three points drawn in geometry mode, probes of the three quads. */
static const char g_sprite_draw[] =
    "reg GPUREG_VSH_INPUTBUFFER_CONFIG = 0xA0000001\nreg GPUREG_VSH_NUM_ATTR = 1\n"
    "reg GPUREG_VSH_ATTRIBUTES_PERMUTATION_LOW = 0x10\n"
    "reg GPUREG_COLORBUFFER_FORMAT = 0x00000002\nreg GPUREG_COLORBUFFER_LOC = 0x03000000\n"
    "reg GPUREG_COLORBUFFER_READ = 0xF\nreg GPUREG_COLORBUFFER_WRITE = 0xF\n"
    "reg GPUREG_COLOR_OPERATION = 0x00E40100\nreg GPUREG_BLEND_FUNC = 0x01010000\n"
    "reg GPUREG_DEPTH_COLOR_MASK = 0x00000F00\nreg GPUREG_FACECULLING_CONFIG = 2\n"
    "reg GPUREG_FRAMEBUFFER_DIM = 0x0103F040\nreg GPUREG_VIEWPORT_WIDTH = 0x440000\n"
    "reg GPUREG_VIEWPORT_HEIGHT = 0x440000\nreg GPUREG_VIEWPORT_XY = 0\n"
    "mem 0x18200000 f32 -0.5 -0.5 -0.5 1   1 0 0 1\nmem 0x18200020 f32  0.5 -0.5 -0.5 1   0 1 0 1\n"
    "mem 0x18200040 f32  0.0  0.5 -0.5 1   0 0 1 1\n"
    "reg GPUREG_ATTRIBBUFFERS_LOC = 0x03040000\nreg GPUREG_ATTRIBBUFFERS_FORMAT_LOW = 0xFF\n"
    "reg GPUREG_ATTRIBBUFFERS_FORMAT_HIGH = 0x10000000\nreg GPUREG_ATTRIBBUFFER0_OFFSET = 0\n"
    "reg GPUREG_ATTRIBBUFFER0_CONFIG1 = 0x10\nreg GPUREG_ATTRIBBUFFER0_CONFIG2 = 0x20200000\n"
    "reg GPUREG_PRIMITIVE_CONFIG = 0x0301\nreg GPUREG_NUMVERTICES = 3\nreg GPUREG_VERTEX_OFFSET = 0\n"
    "reg GPUREG_DRAWARRAYS = 1\nwait\n"
    "probe color 9 9 rgba(255,0,0,255)\nprobe color 22 22 rgba(255,0,0,255)\n"
    "probe color 26 16 rgba(0,0,0,0)\nprobe color 48 16 rgba(0,255,0,255)\n"
    "probe color 54 22 rgba(0,255,0,255)\nprobe color 32 48 rgba(0,0,255,255)\n"
    "probe color 38 54 rgba(0,0,255,255)\nprobe color 32 58 rgba(0,0,0,0)\n"
    "probe color 32 32 rgba(0,0,0,0)\nexpect errors 0\nexpect unsupported 0\n";

static pvk_result asm_two(const char *a, const char *b, pvk_shbin *out, uint32_t *bad)
{
    const char *src[2] = {a, b};
    size_t len[2] = {strlen(a), strlen(b)};
    return pvk_pica_asm_files(2, src, len, out, bad, g_err, sizeof g_err);
}

static bool is_flow(uint32_t op)
{
    return op == PVK_SH_CALL || op == PVK_SH_CALLC || op == PVK_SH_CALLU || op == PVK_SH_IFU || op == PVK_SH_IFC ||
           op == PVK_SH_LOOP || op == PVK_SH_JMPC || op == PVK_SH_JMPU;
}

static void test_shbin_entries(void)
{
    pvk_shbin *two = calloc(2, sizeof *two), *vs = malloc(sizeof *vs), *gs = malloc(sizeof *gs);
    pvk_shbin *back = malloc(sizeof *back);
    uint32_t bad = 9;
    CHECK_EQ(pvk_pica_asm(g_two_vs, strlen(g_two_vs), vs, g_err, sizeof g_err), PVK_SUCCESS);
    CHECK_EQ(pvk_pica_asm(g_two_gs, strlen(g_two_gs), gs, g_err, sizeof g_err), PVK_SUCCESS);
    CHECK_EQ(asm_two(g_two_vs, g_two_gs, two, &bad), PVK_SUCCESS);
    CHECK_EQ(bad, 0);
    /* one code blob: the VS's, then the GS's; both entries carry all of it */
    uint32_t base = vs->code_len;
    CHECK_EQ(two[0].code_len, base + gs->code_len);
    CHECK_EQ(two[1].code_len, two[0].code_len);
    CHECK(!memcmp(two[0].code, two[1].code, 4 * two[0].code_len));
    CHECK(!memcmp(two[0].opdesc, two[1].opdesc, 4 * two[0].opdesc_len));
    CHECK(!memcmp(two[0].code, vs->code, 4 * base)); /* the first source as it is alone */
    CHECK_EQ(two[0].entry, vs->entry);
    CHECK_EQ(two[0].entry_end, vs->entry_end);
    CHECK_EQ(two[1].entry, base + gs->entry);
    CHECK_EQ(two[1].entry_end, base + gs->entry_end);
    /* the GS's words: addresses moved by `base`, descriptors renumbered into
     * the shared table (the destination mask kept), the rest as alone */
    CHECK(two[0].opdesc_len <= vs->opdesc_len + gs->opdesc_len);
    CHECK(two[0].opdesc_len < vs->opdesc_len + gs->opdesc_len); /* `mov outclr, v1` is shared */
    unsigned calls = 0;
    for (uint32_t i = 0; i < gs->code_len; i++) {
        uint32_t w1 = gs->code[i], w2 = two[0].code[base + i], op = pvk_sh_opcode(w1);
        if (is_flow(op)) {
            calls += op == PVK_SH_CALL;
            CHECK_EQ(pvk_sh_f2_dst(w2), pvk_sh_f2_dst(w1) + base);
            CHECK_EQ(w2 & ~(0xFFFu << 10), w1 & ~(0xFFFu << 10));
        } else if (op < 0x20 || pvk_sh_is_mad(op)) {
            uint32_t m = pvk_sh_is_mad(op) ? 0x1F : 0x7F;
            CHECK_EQ(w2 & ~m, w1 & ~m);
            CHECK_EQ(two[0].opdesc[w2 & m] & 0xF, gs->opdesc[w1 & m] & 0xF);
        } else {
            CHECK_EQ(w2, w1);
        }
    }
    CHECK_EQ(calls, 1);
    /* each entry its own DVLE fields */
    CHECK(!two[0].geometry && two[1].geometry && two[1].gsh_explicit);
    CHECK_EQ(two[0].fconst_count, 1);
    CHECK_EQ(two[1].fconst_count, 4);
    CHECK_EQ(two[1].fconst[0].reg, gs->fconst[0].reg);
    CHECK_EQ(two[0].out_count, 2);
    CHECK_EQ(two[1].out_count, 2);

    /* the file: DVLB with two DVLE offsets, one DVLP, the DVLEs in order */
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK_EQ(pvk_shbin_write_entries(two, 2, &data, &size), PVK_SUCCESS);
    CHECK(data && !memcmp(data, "DVLB", 4));
    CHECK_EQ(rd32(data + 4), 2);
    CHECK(!memcmp(data + 16, "DVLP", 4));
    CHECK_EQ(rd32(data + 16 + 0x0C), two[0].code_len);
    CHECK_EQ(rd32(data + 16 + 0x14), two[0].opdesc_len);
    uint32_t e0 = rd32(data + 8), e1 = rd32(data + 12);
    CHECK_EQ(e0, 16 + rd32(data + 16 + 0x18)); /* right after the DVLP */
    CHECK(e1 > e0 && e1 < size && e1 % 4 == 0);
    CHECK(!memcmp(data + e0, "DVLE", 4) && !memcmp(data + e1, "DVLE", 4));
    CHECK_EQ(data[e0 + 6], 0); /* vertex */
    CHECK_EQ(data[e1 + 6], 1); /* geometry */
    CHECK_EQ(rd32(data + e1 + 8), base + gs->entry);
    CHECK_EQ(pvk_shbin_entries(data, size), 2);
    for (uint32_t k = 0; k < 2; k++) {
        CHECK_EQ(pvk_shbin_read_entry(data, size, k, back), PVK_SUCCESS);
        CHECK_EQ(back->code_len, two[k].code_len);
        CHECK(!memcmp(back->code, two[k].code, 4 * back->code_len));
        CHECK_EQ(back->opdesc_len, two[k].opdesc_len);
        CHECK(!memcmp(back->opdesc, two[k].opdesc, 4 * back->opdesc_len));
        CHECK_EQ(back->entry, two[k].entry);
        CHECK_EQ(back->entry_end, two[k].entry_end);
        CHECK_EQ(back->geometry, two[k].geometry);
        CHECK_EQ(back->out_count, two[k].out_count);
        CHECK(!memcmp(back->outmap, two[k].outmap, sizeof back->outmap));
        CHECK_EQ(back->fconst_count, two[k].fconst_count);
    }
    CHECK_EQ(pvk_shbin_read_entry(data, size, 2, back), PVK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(pvk_shbin_read(data, size, back), PVK_SUCCESS); /* the first */
    CHECK(!back->geometry);
    /* entries that do not share their program cannot make one file */
    uint8_t *junk = NULL;
    CHECK_EQ(pvk_shbin_write_entries((pvk_shbin[]){*vs, *gs}, 2, &junk, &size), PVK_ERROR_INVALID_ARGUMENT);
    CHECK(junk == NULL);
    /* one entry: the same file as pvk_shbin_write */
    uint8_t *d1 = NULL, *d2 = NULL;
    size_t s1 = 0, s2 = 0;
    CHECK_EQ(pvk_shbin_write(vs, &d1, &s1), PVK_SUCCESS);
    CHECK_EQ(pvk_shbin_write_entries(vs, 1, &d2, &s2), PVK_SUCCESS);
    CHECK(s1 == s2 && !memcmp(d1, d2, s1));
    free(d1);
    free(d2);

    /* a draw with both entries as read back from the file: the scene's
     * point sprites, the GS running from instruction `base` of the shared code */
    pvk_shbin *ent = calloc(2, sizeof *ent);
    CHECK_EQ(pvk_shbin_read_entry(data, size, 0, &ent[0]), PVK_SUCCESS);
    CHECK_EQ(pvk_shbin_read_entry(data, size, 1, &ent[1]), PVK_SUCCESS);
    uint32_t n = pvk_shbin_upload_program(&ent[0], &ent[1], 2, NULL, 0);
    pvk_reg_write *w = calloc(n, sizeof *w);
    CHECK_EQ(pvk_shbin_upload_program(&ent[0], &ent[1], 2, w, n), n);
    pvk_context *ctx = th_context(NULL, 0);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(pvk_mmio_write32(ctx, 0x10401000u + 4 * w[i].id, w[i].value), PVK_SUCCESS);
    int failures = -1;
    CHECK_EQ(pvk_scene_run_text(ctx, g_sprite_draw, strlen(g_sprite_draw), "two-entry sprites", ".", &failures),
             PVK_SUCCESS);
    CHECK_EQ(failures, 0);
    th_release(ctx);
    free(w);
    free(ent);
    free(data);

    /* picasso's program-wide rules */
    /* a procedure is the program's: defined once, callable from a later source */
    CHECK_EQ(asm_two(".proc main\n  end\n.end\n", ".proc main\n  end\n.end\n", two, &bad), PVK_ERROR_BAD_DATA);
    CHECK_EQ(bad, 1);
    CHECK(!strcmp(g_err, "line 1: procedure 'main' is already defined"));
    CHECK_EQ(asm_two(".proc helper\n  mov o0, v0\n.end\n.proc main\n  call helper\n  end\n.end\n",
                     ".entry second\n.proc second\n  call helper\n  end\n.end\n", two, &bad),
             PVK_SUCCESS);
    CHECK_EQ(pvk_sh_f2_dst(two[1].code[two[1].entry]), 0); /* helper, in the first source */
    /* the shared uniform space: one name, one register; new ones continue */
    CHECK_EQ(asm_two(".fvec proj[4]\n.proc main\n  end\n.end\n",
                     ".fvec extra\n.fvec proj[4]\n.entry m2\n.proc m2\n  end\n.end\n", two, &bad),
             PVK_SUCCESS);
    CHECK_EQ(two[1].uniform_count, 2);
    CHECK(!strcmp(two[1].uniform[0].name, "proj") && two[1].uniform[0].first == 0x10);
    CHECK(!strcmp(two[1].uniform[1].name, "extra") && two[1].uniform[1].first == 0x14);
    CHECK_EQ(asm_two(".fvec proj[4]\n.proc main\n  end\n.end\n", ".fvec proj[3]\n", two, &bad),
             PVK_ERROR_BAD_DATA);
    CHECK_EQ(bad, 1);
    CHECK(!strcmp(g_err, "line 1: uniform 'proj' has another type or size in an earlier source"));
    /* constants are each source's own, from the top; the shared uniforms
     * stop below every source's constants */
    CHECK_EQ(asm_two(".constf a(1.0, 2.0, 3.0, 4.0)\n.proc main\n  end\n.end\n",
                     ".constf b(1.0, 2.0, 3.0, 4.0)\n.fvec big[95]\n", two, &bad),
             PVK_SUCCESS);
    CHECK_EQ(two[0].fconst[0].reg, 95);
    CHECK_EQ(two[1].fconst[0].reg, 95);
    CHECK_EQ(asm_two(".constf a(1.0, 2.0, 3.0, 4.0)\n.constf a2(1.0, 2.0, 3.0, 4.0)\n.proc main\n  end\n.end\n",
                     ".fvec big[95]\n", two, &bad),
             PVK_ERROR_BAD_DATA);
    CHECK(!strcmp(g_err, "line 1: not enough uniform registers for 'big'"));
    /* a bare .gsh (picasso's legacy form) shares the space; b15 stays for later sources */
    CHECK_EQ(asm_two(".gsh\n.bool flags[14]\n.proc main\n  end\n.end\n", ".bool two_more[2]\n", two, &bad),
             PVK_SUCCESS);
    CHECK_EQ(two[1].uniform[0].first, 0x78 + 14);
    /* .gsh with a mode: registers of its own from its first register */
    CHECK_EQ(asm_two(".fvec proj[4]\n.proc main\n  end\n.end\n",
                     ".gsh point c0\n.fvec proj[2]\n.entry g\n.proc g\n  end\n.end\n", two, &bad),
             PVK_SUCCESS);
    CHECK_EQ(two[1].uniform[0].first, 0x10);
    /* a source that fails is named by *bad, its line in the message */
    CHECK_EQ(asm_two(g_two_vs, ".proc g\n  mov r0, v0\n  bogus\n.end\n", two, &bad), PVK_ERROR_BAD_DATA);
    CHECK_EQ(bad, 1);
    CHECK(!strcmp(g_err, "line 3: unknown instruction 'bogus'"));
    CHECK_EQ(two[0].code_len, 0); /* nothing half-made */

    /* 128 operand descriptors for the whole program: 70 distinct ones in each
     * source fit alone, not together; the error is the second source's */
    static const char xyzw[] = "xyzw";
    size_t cap = 70 * 32 + 64;
    char *a = malloc(cap), *b = malloc(cap);
    for (int f = 0; f < 2; f++) {
        char *t = f ? b : a;
        int at = snprintf(t, cap, f ? ".entry m%d\n.proc m%d\n" : ".proc main\n", f, f);
        for (int i = 0; i < 70; i++) {
            int v = i + 70 * f; /* a swizzle per instruction, all lanes used */
            at += snprintf(t + at, cap - (size_t)at, "  mov r0, v0.%c%c%c%c\n", xyzw[v & 3], xyzw[v >> 2 & 3],
                           xyzw[v >> 4 & 3], xyzw[v >> 6 & 3]);
        }
        snprintf(t + at, cap - (size_t)at, "  end\n.end\n");
        CHECK_EQ(pvk_pica_asm(t, strlen(t), vs, g_err, sizeof g_err), PVK_SUCCESS);
        CHECK_EQ(vs->opdesc_len, 70);
    }
    CHECK_EQ(asm_two(a, b, two, &bad), PVK_ERROR_BAD_DATA);
    CHECK_EQ(bad, 1);
    CHECK(!strcmp(g_err, "line 61: too many operand descriptors (limit 128)"));
    /* a MAD (5-bit descriptor index) in the second source after the first
     * used 70: its descriptor trades places with one below 32, and the first
     * source's words follow it */
    pvk_shbin *alone = malloc(sizeof *alone);
    static const char mad_src[] = ".entry m\n.proc m\n  mad r1, v1.xzxw, c3.yxwz, r2.zwxy\n  end\n.end\n";
    CHECK_EQ(asm_two(a, mad_src, two, &bad), PVK_SUCCESS);
    uint32_t mad = two[1].code[two[1].entry];
    CHECK(pvk_sh_is_mad(pvk_sh_opcode(mad)));
    CHECK_EQ(two[0].opdesc_len, 71); /* a new one, made at 70, swapped below 32 */
    CHECK(pvk_pica_asm(mad_src, strlen(mad_src), alone, g_err, sizeof g_err) == PVK_SUCCESS &&
          two[0].opdesc[mad & 0x1F] == alone->opdesc[alone->code[alone->entry] & 0x1F]);
    CHECK_EQ(pvk_pica_asm(a, strlen(a), alone, g_err, sizeof g_err), PVK_SUCCESS);
    for (uint32_t i = 0; i < alone->code_len; i++)
        if (pvk_sh_opcode(alone->code[i]) == PVK_SH_MOV) /* dest mask and src1: what a MOV reads */
            CHECK_EQ(two[0].opdesc[two[0].code[i] & 0x7F] & 0x1FFF, alone->opdesc[alone->code[i] & 0x7F] & 0x1FFF);
    free(alone);
    free(a);
    free(b);
    CHECK_EQ(pvk_pica_asm_files(0, NULL, NULL, two, &bad, g_err, sizeof g_err), PVK_ERROR_INVALID_ARGUMENT);
    free(two);
    free(vs);
    free(gs);
    free(back);
}

static void test_interpreter(void)
{
    const char *src =
        ".fvec m[4]\n"
        ".constf k(2.0, 0.5, -1.0, 3.0)\n"
        ".consti lp(2, 0, 1, 0)\n"
        ".setb b1 true\n"
        ".out opos position\n"
        ".out oclr color\n"
        ".proc main\n"
        "  dp4 opos.x, m[0], v0\n"       /* 1*1 + 2*2 + 3*3 + 4*1 = 18 */
        "  dph opos.y, v0, m[1]\n"       /* dphi: 1 + 2 + 3 + 1 = 7 (m1 = 1) */
        "  mov r1, v1\n"
        "  mad opos.z, v0.x, k.x, r1.y\n" /* 1*2 + 20 = 22 */
        "  mov opos.w, -k.z\n"           /* 1 */
        "  mov r0, k.wwww\n"
        "  for lp\n"                      /* three passes: 3 + 3*0.5 */
        "    add r0, k.y, r0\n"
        "  .end\n"
        "  mov oclr, r0\n"
        "  ifu b1\n"
        "    mov oclr.y, k.x\n"
        "  .else\n"
        "    mov oclr.y, k.z\n"
        "  .end\n"
        "  cmp v0, lt, gt, v0.yxzw\n"     /* x: 1 < 2, y: 2 > 1 */
        "  ifc cmp.x && cmp.y\n"
        "    mov oclr.z, -k.w\n"
        "  .end\n"
        "  end\n"
        ".end\n";
    CHECK_EQ(assemble(src), PVK_SUCCESS);
    uint32_t n = pvk_shbin_upload(g_sh, NULL, 0);
    pvk_reg_write *w = calloc(n, sizeof *w);
    pvk_shbin_upload(g_sh, w, n);
    pvk_context *ctx = th_context(NULL, 0);
    pvk_pica_reset(&ctx->pica);
    for (uint32_t i = 0; i < n; i++)
        pvk_mmio_write32(ctx, 0x10401000u + 4 * w[i].id, w[i].value);
    /* m[0] = (1, 2, 3, 1), m[1] = 1 (uploaded as f32 uniforms) */
    static const uint32_t f32_words[] = {0x3F800000, 0x40400000, 0x40000000, 0x3F800000,  /* w z y x */
                                         0x3F800000, 0x3F800000, 0x3F800000, 0x3F800000};
    pvk_mmio_write32(ctx, 0x10401000u + 4 * PVK_GPUREG_VSH_FLOATUNIFORM_CONFIG, 0x80000000u);
    for (int i = 0; i < 8; i++)
        pvk_mmio_write32(ctx, 0x10401000u + 4 * PVK_GPUREG_VSH_FLOATUNIFORM_DATA, f32_words[i]);
    float v[PVK_SH_INPUTS][4] = {{1, 2, 3, 4}, {10, 20, 30, 40}};
    float o[PVK_SH_OUTPUTS][4] = {{0}};
    CHECK_EQ(pvk_vs_run(&ctx->pica, v, o), PVK_SUCCESS);
    CHECK(o[0][0] == 18.0f && o[0][1] == 7.0f && o[0][2] == 22.0f && o[0][3] == 1.0f);
    CHECK(o[1][0] == 4.5f && o[1][1] == 2.0f && o[1][2] == -3.0f && o[1][3] == 4.5f);
    if (o[0][0] != 18.0f || o[1][0] != 4.5f || o[1][2] != -3.0f)
        fprintf(stderr, "  interpreter: o0 %g %g %g %g, o1 %g %g %g %g\n", o[0][0], o[0][1], o[0][2], o[0][3],
                o[1][0], o[1][1], o[1][2], o[1][3]);
    free(w);
    th_release(ctx);
}

int main(void)
{
    g_sh = malloc(sizeof *g_sh);
    test_formats();
    test_opdescs();
    test_flow();
    test_directives();
    test_errors();
    test_shbin_file();
    test_picasso_files();
    test_upload();
    test_gsh();
    test_shbin_entries();
    test_interpreter();
    free(g_sh);
    return th_finish("test_asm");
}

/* Vertex programs translated to GLSL (translator/glsl_vs.c) and run on the
 * GPU through the compute harness (runtime/vs_compute.c), against the
 * interpreter (translator/shader.c), bit for bit: outputs, temporaries,
 * address registers, aL, cmp, the instruction count, the END's PC, and the
 * status (success, runaway, error).  NaN matches NaN of any payload (the
 * interpreter's NaNs are C's NAN, the GPU's whatever the operation made);
 * every other value, zeros included, compares by its bits.
 *  - every program tests/test_shader.c runs (that file is included here and
 *    its run() hook sends each program through both paths);
 *  - random structured programs: arithmetic of every opcode with random
 *    descriptors, relative addressing, nested IF/CALL/LOOP with BREAKC and
 *    JMPs, over inputs and uniforms full of infinities, NaN, zeros, f24
 *    subnormals, negatives and values at the edges of the f24 range;
 *  - random unstructured programs (flow words with arbitrary targets) under a
 *    small step budget: runaways, stack overflows, jumps into loops. */
#define main test_shader_main
#include "test_shader.c"
#undef main

static pvk_vs_compute *vc;
static unsigned programs, vertices_compared, skipped, fallbacks, straight, looped, runaways;
static unsigned bounded, bounded_vertices; /* programs pvk_sh_step_bound bounds, and their vertices checked */
static char interp_msg[256];

/* The interpreter's messages, to tell a runaway from other errors. */
static void on_report(void *user, pvk_pica_report kind, pvk_log_level level, uint32_t count, const char *msg)
{
    (void)user, (void)kind, (void)level, (void)count;
    if (msg)
        snprintf(interp_msg, sizeof interp_msg, "%s", msg);
}
static pvk_pica logger;

static bool same_f(float a, float b) { return (isnan(a) && isnan(b)) || bits(a) == bits(b); }

#define MAX_VERTS 64

/* Run `n` input vertices through both paths and compare.  `what` names the program. */
static void compare_program(const pvk_shader_unit *unit, const pvk_sh_run_info *ri, const float (*in)[16][4], uint32_t n,
                            const char *what)
{
    static pvk_vs_result res[MAX_VERTS];
    pvk_vs_uniforms uni;
    pvk_vs_uniforms_pack(unit, ri->bools, ri->ints, ri->max_steps, NULL, &uni);
    pvk_vs_program prog = {.code = unit->code, .opdesc = unit->opdesc, .entry = ri->entry};
    pvk_result gr = pvk_vs_compute_run(vc, &prog, &uni, in, n, true, res);
    programs++;
    char *src = NULL;
    pvk_glsl_vs_stats st;
    if (!pvk_glsl_vertex_program(&prog, &src, &st) && st.straight) {
        straight++; /* translated without the dispatcher */
        looped += st.loops != 0;
    }
    free(src);
    /* the static step bound (translator/budget.c) the GPU paths charge and
     * stop an invocation at: no run of the interpreter may pass it */
    static pvk_shader_unit bu;
    memcpy(bu.code, unit->code, sizeof bu.code);
    memcpy(bu.i, ri->ints, sizeof bu.i);
    uint64_t bound = pvk_sh_step_bound(&bu, ri->entry);
    bounded += bound != 0;
    int reported = 0;
    for (uint32_t v = 0; v < n; v++) {
        pvk_sh_run_info i2 = *ri;
        pvk_sh_regs rr;
        memset(&rr, 0, sizeof rr);
        i2.regs_out = &rr;
        i2.emit = NULL;
        float o[16][4];
        memset(o, 0, sizeof o);
        interp_msg[0] = 0;
        pvk_result ir = pvk_sh_run(&logger, &i2, in[v], o);
        th_checks++;
        bool ok = true;
        char why[512] = "";
        uint32_t cap = ri->max_steps ? ri->max_steps : PVK_SH_MAX_STEPS;
        if (bound) {
            bounded_vertices++;
            if (ir ? strstr(interp_msg, "runaway") && cap > bound : rr.steps > bound) {
                th_failures++;
                fprintf(stderr, "%s, vertex %u: the interpreter ran %s%u steps past the step bound %llu\n", what, v,
                        ir ? "away after " : "", ir ? cap : rr.steps, (unsigned long long)bound);
            }
        }
        if (gr) {
            ok = ir != PVK_SUCCESS && gr == PVK_ERROR_BAD_DATA;
            snprintf(why, sizeof why, "translator refused (%s), interpreter %s", pvk_result_string(gr),
                     pvk_result_string(ir));
        } else if (res[v].status == PVK_VS_STATUS_FALLBACK) {
            fallbacks++; /* the interpreter's result is the result */
        } else if (ir) {
            uint32_t want = strstr(interp_msg, "runaway") ? PVK_VS_STATUS_RUNAWAY : PVK_VS_STATUS_BAD;
            ok = res[v].status == want;
            snprintf(why, sizeof why, "status %u, interpreter: %s", res[v].status, interp_msg);
        } else if (res[v].status != PVK_VS_STATUS_OK) {
            ok = false;
            snprintf(why, sizeof why, "status %u (pc %u), interpreter succeeded", res[v].status, res[v].end_pc);
        } else {
            for (int r = 0; r < 16 && ok; r++)
                for (int c = 0; c < 4 && ok; c++) {
                    if (!same_f(res[v].o[r][c], o[r][c]))
                        ok = false, snprintf(why, sizeof why, "o%d.%c = %a (0x%08X), interpreter %a (0x%08X)", r,
                                             "xyzw"[c], (double)res[v].o[r][c], bits(res[v].o[r][c]),
                                             (double)o[r][c], bits(o[r][c]));
                    else if (!same_f(res[v].r[r][c], rr.r[r][c]))
                        ok = false, snprintf(why, sizeof why, "r%d.%c = %a (0x%08X), interpreter %a (0x%08X)", r,
                                             "xyzw"[c], (double)res[v].r[r][c], bits(res[v].r[r][c]),
                                             (double)rr.r[r][c], bits(rr.r[r][c]));
                }
            uint32_t cmp = (uint32_t)rr.cmp[0] | (uint32_t)rr.cmp[1] << 1;
            if (ok && (res[v].a0[0] != rr.a0[0] || res[v].a0[1] != rr.a0[1] || res[v].aL != rr.aL ||
                       res[v].cmp != cmp || res[v].steps != rr.steps || res[v].end_pc != rr.end_pc)) {
                ok = false;
                snprintf(why, sizeof why, "a0 (%d, %d) aL %u cmp %u steps %u end %u; interpreter (%d, %d) %u %u %u %u",
                         res[v].a0[0], res[v].a0[1], res[v].aL, res[v].cmp, res[v].steps, res[v].end_pc, rr.a0[0],
                         rr.a0[1], rr.aL, cmp, rr.steps, rr.end_pc);
            }
        }
        vertices_compared++;
        if (!ok) {
            th_failures++;
            if (reported++ < 3)
                fprintf(stderr, "%s, vertex %u: %s\n", what, v, why);
        }
    }
}

/* Every program of test_shader.c, one vertex (its inputs) each. */
static void shader_case_hook(pvk_result interpreted)
{
    (void)interpreted;
    if (info.emit) { /* the geometry unit's EMIT: not the vertex path */
        skipped++;
        return;
    }
    char what[64];
    snprintf(what, sizeof what, "test_shader program %u", programs);
    compare_program(&U, &info, (const float(*)[16][4])vin, 1, what);
}

/* ---- random programs ---- */

static float rnd_input(void)
{
    static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -2.0f, INFINITY, -INFINITY, NAN,
                                    0x1p-62f, -0x1p-62f, 0x1.fffep-63f, 0x1p-70f, 0x1.ffffp63f, 0x1p64f, -0x1p64f,
                                    1e-45f, 3.0f, 0.25f, 127.99f, -300.0f, 1 + 0x1p-16f, 1 + 0x1.8p-17f};
    uint32_t k = th_rand() % 8;
    if (k < 3)
        return special[th_rand() % (sizeof special / sizeof special[0])];
    if (k < 5)
        return (float)((int32_t)th_rand_range(0, 40) - 20); /* small integers: addresses, loop values */
    if (k < 7) { /* a normal value of moderate exponent */
        uint32_t b = (th_rand() & 0x807FFFFFu) | (th_rand_range(110, 140) << 23);
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    uint32_t b = th_rand(); /* anything */
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t rnd_uniform_word(void)
{
    static const uint32_t special[] = {F24_INF, F24_NINF, F24_NAN, F24_NZERO, F24_SUBMAX, F24_MINNORM, 0, 0x000001u,
                                       0x800123u, 0x7EFFFFu, 0xFEFFFFu};
    uint32_t k = th_rand() % 6;
    if (k < 2)
        return special[th_rand() % (sizeof special / sizeof special[0])];
    if (k < 4)
        return f24((float)((int32_t)th_rand_range(0, 60) - 20));
    if (k < 5)
        return (th_rand() & 0x80FFFFu) | th_rand_range(53, 73) << 16;
    return th_rand() & 0xFFFFFFu;
}

static uint32_t pos;     /* next instruction */
static uint32_t sub_at[4], sub_len[4], n_subs;

static uint32_t rnd_src7(void)
{
    uint32_t k = th_rand() % 3;
    return k == 0 ? V(th_rand() % 16) : k == 1 ? R(th_rand() % 16) : C(th_rand() % 96);
}
static uint32_t rnd_src5(void) { return th_rand() & 1 ? V(th_rand() % 16) : R(th_rand() % 16); }
static uint32_t rnd_dst(void) { return th_rand() % 3 ? R(th_rand() % 16) : O(th_rand() % 16); }
static uint32_t rnd_idx(void) { return th_rand() % 3 ? 0 : th_rand() % 4; }

static uint32_t rnd_alu(void)
{
    static const uint32_t ops[] = {ADD, DP3, DP4, DPH, DST, EX2, LG2, LITP, MUL, SGE, SLT, FLR, MAX, MIN, RCP,
                                   RSQ, MOVA, MOV, DPHI, DSTI, SGEI, SLTI, 0x2E, 0x38, 0x30};
    uint32_t op = ops[th_rand() % (sizeof ops / sizeof ops[0])];
    uint32_t d = th_rand() % 32; /* descriptors 0-31 are random */
    if (op == 0x38)
        return f5(rnd_dst(), rnd_src5(), rnd_src7(), rnd_idx(), rnd_src5(), d);
    if (op == 0x30)
        return f5i(rnd_dst(), rnd_src5(), rnd_src5(), rnd_src7(), rnd_idx(), d);
    if (op == 0x2E)
        return f1c(th_rand() % 8, th_rand() % 8, rnd_src7(), rnd_idx(), rnd_src5(), d);
    if (op >= DPHI && op <= SLTI)
        return f1i(op, rnd_dst(), rnd_src5(), rnd_src7(), rnd_idx(), d);
    return f1(op, rnd_dst(), rnd_src7(), rnd_idx(), rnd_src5(), d);
}

static uint32_t rnd_cond_f2(uint32_t op, uint32_t dst, uint32_t num)
{
    return f2(op, dst, num, th_rand() % 4, th_rand() & 1, th_rand() & 1);
}

/* A block of about `len` instructions at pos, nested `depth` deep at most. */
static void gen_block(uint32_t len, unsigned depth, bool in_loop)
{
    for (uint32_t k = 0; k < len; k++) {
        uint32_t choice = th_rand() % 16;
        if (depth && choice == 0) { /* IF with then and else blocks */
            uint32_t at = pos++;
            gen_block(th_rand_range(0, 3), depth - 1, in_loop);
            put_at(pos++, f0(NOP)); /* blocks never share an end (as picasso pads) */
            uint32_t else_at = pos;
            gen_block(th_rand_range(0, 3), depth - 1, in_loop);
            uint32_t num = pos - else_at;
            put_at(at, th_rand() & 1 ? f3(IFU, else_at, num, th_rand() % 16) : rnd_cond_f2(IFC, else_at, num));
        } else if (depth && choice == 1) { /* LOOP over a body, maybe with BREAKC */
            uint32_t at = pos++;
            gen_block(th_rand_range(1, 3), depth - 1, true);
            if (th_rand() & 1)
                put_at(pos++, rnd_cond_f2(BREAKC, 0, 0));
            put_at(pos++, f0(NOP));
            put_at(at, f3(LOOP, pos - 1, 0, th_rand() % 4));
        } else if (choice == 2 && n_subs) { /* CALL, CALLC, CALLU of a subroutine */
            uint32_t s = th_rand() % n_subs, which = th_rand() % 3;
            put_at(pos++, which == 0   ? f2(CALL, sub_at[s], sub_len[s], 0, 0, 0)
                          : which == 1 ? rnd_cond_f2(CALLC, sub_at[s], sub_len[s])
                                       : f3(CALLU, sub_at[s], sub_len[s], th_rand() % 16));
        } else if (choice == 3) { /* a forward jump over a few instructions */
            uint32_t at = pos++, skip = th_rand_range(0, 2);
            for (uint32_t i = 0; i < skip; i++)
                put_at(pos++, rnd_alu());
            put_at(at, th_rand() & 1 ? rnd_cond_f2(JMPC, pos, 0) : f3(JMPU, pos, th_rand() & 1, th_rand() % 16));
        } else if (choice == 4 && in_loop) {
            put_at(pos++, rnd_cond_f2(BREAKC, 0, 0));
        } else {
            put_at(pos++, rnd_alu());
        }
    }
}

static void random_state(void)
{
    reset();
    for (unsigned d = 0; d < 32; d++) {
        uint32_t mask = th_rand() % 5 ? 0xFu : th_rand() % 16;
        U.opdesc[d] = opdesc(mask, th_rand() & 0xFF, (th_rand() % 4) == 0, th_rand() & 0xFF, (th_rand() % 4) == 0,
                             th_rand() & 0xFF, (th_rand() % 4) == 0);
    }
    U.opdesc[0] = opdesc(M_ALL, XYZW, 0, XYZW, 0, XYZW, 0);
    for (unsigned i = 0; i < 96; i++)
        for (unsigned c = 0; c < 4; c++)
            U.f[i][c] = rnd_uniform_word();
    info.bools = th_rand() & 0xFFFF;
    static const uint32_t steps[] = {0, 1, 2, 255, 254, 3};
    for (unsigned i = 0; i < 4; i++)
        info.ints[i] = th_rand_range(0, 4) | th_rand() % 256 << 8 | steps[th_rand() % 6] << 16;
}

static void random_inputs(float (*in)[16][4], uint32_t n)
{
    for (uint32_t v = 0; v < n; v++)
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 4; c++)
                in[v][r][c] = rnd_input();
}

static void test_random_structured(unsigned count)
{
    static float in[MAX_VERTS][16][4];
    for (unsigned p = 0; p < count; p++) {
        random_state();
        /* subroutines at 0x200 + 0x40 k: straight code with an IF or a call of a later one */
        n_subs = 0;
        for (int s = 3; s >= 0; s--) {
            pos = 0x200 + 0x40 * (uint32_t)s;
            sub_at[n_subs] = pos;
            gen_block(th_rand_range(1, 5), 1, false);
            sub_len[n_subs] = pos - sub_at[n_subs];
            n_subs++;
        }
        pos = 0;
        gen_block(th_rand_range(4, 24), 3, false);
        /* the outputs see the temporaries */
        for (int o = 0; o < 4; o++)
            put_at(pos++, f1u(MOV, O(th_rand() % 16), R(th_rand() % 16), 0, 0));
        put_at(pos++, f0(END));
        info.entry = 0;
        info.max_steps = 100000;
        random_inputs(in, MAX_VERTS);
        char what[64];
        snprintf(what, sizeof what, "random structured program %u", p);
        compare_program(&U, &info, (const float(*)[16][4])in, MAX_VERTS, what);
    }
}

/* Flow words with arbitrary targets in a small program: loops into the
 * middle of loops, calls with odd ranges, overflowing stacks, runaways. */
static void test_random_unstructured(unsigned count)
{
    static float in[MAX_VERTS][16][4];
    static const uint32_t flow[] = {BREAKC, CALL, CALLC, CALLU, IFU, IFC, LOOP, JMPC, JMPU, BREAK, NOP};
    for (unsigned p = 0; p < count; p++) {
        random_state();
        uint32_t len = th_rand_range(8, 40);
        for (uint32_t pc = 0; pc < len; pc++) {
            uint32_t k = th_rand() % 10;
            if (k < 6) {
                U.code[pc] = rnd_alu();
            } else {
                uint32_t op = flow[th_rand() % (sizeof flow / sizeof flow[0])];
                U.code[pc] = op << 26 | (th_rand() & 0x3FFFFFFu);
                U.code[pc] = (U.code[pc] & ~(0xFFFu << 10)) | th_rand_range(0, len + 1) << 10; /* DST nearby */
                U.code[pc] = (U.code[pc] & ~0xFFu) | th_rand_range(0, 6);                      /* NUM small */
            }
        }
        U.code[len] = f0(END);
        if (th_rand() % 4 == 0)
            U.code[th_rand_range(0, len - 1)] = f0(END);
        info.entry = th_rand_range(0, 3);
        info.max_steps = 3000;
        random_inputs(in, 8);
        char what[64];
        snprintf(what, sizeof what, "random unstructured program %u", p);
        compare_program(&U, &info, (const float(*)[16][4])in, 8, what);
    }
}

/* Straight-line programs (arithmetic, NOPs, no flow: glsl_vs.c's emission
 * without the dispatcher) of every opcode, ending in END, an undefined
 * opcode, or the end of code memory, some under a budget shorter than the
 * program (a runaway), from a random entry point. */
static void test_random_straight(unsigned count)
{
    static float in[MAX_VERTS][16][4];
    for (unsigned p = 0; p < count; p++) {
        random_state();
        uint32_t entry = th_rand_range(0, 8), len = th_rand_range(1, 40), pc = entry;
        for (uint32_t k = 0; k < len; k++)
            U.code[pc++] = th_rand() % 12 ? rnd_alu() : f0(NOP);
        for (int o = 0; o < 2; o++)
            U.code[pc++] = f1u(MOV, O(th_rand() % 16), R(th_rand() % 16), 0, 0);
        uint32_t end = th_rand() % 8;
        U.code[pc] = end == 0 ? 0x10u << 26 | (th_rand() & 0x3FFFFFFu) : f0(END); /* 0x10: undefined */
        info.entry = entry;
        info.max_steps = th_rand() % 6 == 0 ? th_rand_range(1, len) : 100000;
        if (p == count - 1) { /* zero words are ADDs: from near the end of code memory past it */
            reset();
            info.entry = PVK_SH_CODE_WORDS - 5;
            info.max_steps = 100000;
        }
        random_inputs(in, MAX_VERTS);
        char what[64];
        snprintf(what, sizeof what, "random straight program %u", p);
        unsigned before = straight;
        compare_program(&U, &info, (const float(*)[16][4])in, MAX_VERTS, what);
        CHECK_EQ(straight, before + 1);
    }
}

/* LOOPs one after another with straight bodies (glsl_vs.c's straight
 * emission with GLSL loops): bodies of arithmetic through aL, counts up to
 * 255, starts at the edges of the byte, steps that wrap, budgets that stop
 * the program in the prefix, a body or the tail. */
static void test_random_loops(unsigned count)
{
    static float in[MAX_VERTS][16][4];
    static const uint32_t edge[] = {0, 1, 2, 126, 127, 128, 129, 253, 254, 255};
    for (unsigned p = 0; p < count; p++) {
        random_state();
        for (unsigned i = 0; i < 4; i++) {
            uint32_t c = th_rand() % 4 == 0 ? 255 - th_rand() % 2 : th_rand() % 8;
            uint32_t y = th_rand() % 2 ? edge[th_rand() % 10] : th_rand() % 256;
            uint32_t z = th_rand() % 2 ? edge[th_rand() % 10] : th_rand() % 256;
            info.ints[i] = c | y << 8 | z << 16 | (th_rand() % 4 == 0 ? th_rand() & 0xFF000000u : 0);
        }
        uint32_t entry = th_rand_range(0, 8), pc = entry, nloops = th_rand_range(1, 3), total = 0;
        for (uint32_t l = 0; l < nloops; l++) {
            uint32_t pre = th_rand_range(0, 4), body = th_rand_range(1, 8);
            for (uint32_t k = 0; k < pre; k++)
                U.code[pc++] = th_rand() % 12 ? rnd_alu() : f0(NOP);
            uint32_t id = th_rand() % 4;
            U.code[pc] = f3(LOOP, pc + body, th_rand() & 0xFF, id);
            pc++;
            for (uint32_t k = 0; k < body; k++) {
                uint32_t w = th_rand() % 12 ? rnd_alu() : f0(NOP);
                if (th_rand() % 2 && pvk_sh_opcode(w) != NOP) /* read through aL */
                    w = pvk_sh_is_mad(pvk_sh_opcode(w)) ? (w & ~(3u << 22)) | 3u << 22 : (w & ~(3u << 19)) | 3u << 19;
                U.code[pc++] = w;
            }
            total += pre + 1 + body * ((info.ints[id] & 0xFF) + 1);
        }
        for (int o = 0; o < 2; o++)
            U.code[pc++] = f1u(MOV, O(th_rand() % 16), R(th_rand() % 16), 0, 0);
        U.code[pc] = th_rand() % 8 == 0 ? 0x10u << 26 | (th_rand() & 0x3FFFFFFu) : f0(END); /* 0x10: undefined */
        total += 3;
        info.entry = entry;
        info.max_steps = th_rand() % 3 == 0 ? th_rand_range(1, total + 1) : 100000;
        random_inputs(in, 16);
        char what[64];
        snprintf(what, sizeof what, "random loop program %u", p);
        unsigned before = looped;
        compare_program(&U, &info, (const float(*)[16][4])in, 16, what);
        CHECK_EQ(looped, before + 1);
        /* a runaway's step count and PC are the dispatcher's (the
         * interpreter stops inside a block, the dispatcher before it) */
        static pvk_vs_result res[16], ref[16];
        pvk_vs_uniforms uni;
        pvk_vs_uniforms_pack(&U, info.bools, info.ints, info.max_steps, NULL, &uni);
        pvk_vs_program prog = {.code = U.code, .opdesc = U.opdesc, .entry = info.entry};
        CHECK_EQ(pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[16][4])in, 16, true, res), PVK_SUCCESS);
        prog.flags = PVK_GLSL_VS_DISPATCH;
        CHECK_EQ(pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[16][4])in, 16, true, ref), PVK_SUCCESS);
        for (unsigned v = 0; v < 16; v++) {
            CHECK_EQ(res[v].status, ref[v].status);
            CHECK_EQ(res[v].steps, ref[v].steps);
            CHECK_EQ(res[v].end_pc, ref[v].end_pc);
            runaways += ref[v].status == PVK_VS_STATUS_RUNAWAY;
        }
    }
}

/* A runaway program stops on the GPU at the step budget and says so. */
static void test_runaway(void)
{
    reset();
    put(f1(ADD, R(0), C(1), 0, R(0), 0));
    put(f2(JMPC, 0, 0, C_OR, 0, 0)); /* cmp stays false: forever */
    set_c(1, 1, 0, 0, 0);
    info.max_steps = 1001;
    pvk_vs_uniforms uni;
    pvk_vs_uniforms_pack(&U, 0, info.ints, info.max_steps, NULL, &uni);
    pvk_vs_program prog = {.code = U.code, .opdesc = U.opdesc};
    pvk_vs_result res;
    CHECK_EQ(pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[16][4])vin, 1, true, &res), PVK_SUCCESS);
    CHECK_EQ(res.status, PVK_VS_STATUS_RUNAWAY);
    CHECK_EQ(res.steps, 1000); /* blocks of two: the one that would pass 1001 does not start */
    CHECK_F(res.r[0][0], 500.0f);
    /* the same program again is found in memory, not compiled */
    uint64_t compiled, hits, compiled2, hits2;
    pvk_vs_compute_counts(vc, &compiled, &hits);
    CHECK_EQ(pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[16][4])vin, 1, true, &res), PVK_SUCCESS);
    pvk_vs_compute_counts(vc, &compiled2, &hits2);
    CHECK_EQ(compiled2, compiled);
    CHECK_EQ(hits2, hits + 1);
    /* an entry point past code memory: refused, the interpreter's job */
    prog.entry = PVK_SH_CODE_WORDS;
    CHECK_EQ(pvk_vs_compute_run(vc, &prog, &uni, (const float(*)[16][4])vin, 1, true, &res), PVK_ERROR_BAD_DATA);
}

int main(void)
{
    ctx = th_context(NULL, 0);
    pvk_pica_env env = {.report = on_report, .log_level = PVK_LOG_ERROR};
    pvk_pica_set_env(&logger, &env);
    if (pvk_vs_compute_create(ctx, &vc)) {
        fprintf(stderr, "test_vs_gpu: no compute harness\n");
        return 1;
    }
    unsigned failures = (unsigned)th_failures;
    run_hook = shader_case_hook;
    th_quiet_errors = 1;
    run_all_cases(); /* test_shader's own checks run too: they must still pass */
    th_quiet_errors = 0;
    run_hook = NULL;
    printf("test_shader programs on the GPU: %u programs (%u skipped: EMIT), %u failures\n", programs, skipped,
           (unsigned)th_failures - failures);
    unsigned before = programs;
    test_runaway();
    test_random_structured(40);
    test_random_unstructured(30);
    test_random_straight(40);
    test_random_loops(60);
    CHECK(runaways > 0);
    printf("random programs: %u, vertices compared in all: %u, of which %u left the translated code (interpreter)\n",
           programs - before, vertices_compared, fallbacks);
    printf("programs translated as straight-line code: %u of %u (%u with GLSL loops)\n", straight, programs, looped);
    printf("programs with a static step bound: %u of %u, %u vertices within it\n", bounded, programs,
           bounded_vertices);
    pvk_vs_compute_destroy(vc);
    th_release(ctx);
    return th_finish("test_vs_gpu");
}

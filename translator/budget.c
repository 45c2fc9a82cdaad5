/* translator/: the per-call work budgets (see PVK_SHADER_BUDGET,
 * PVK_VERTEX_BUDGET and PVK_AREA_BUDGET in geometry.h), shared by the vertex
 * and geometry stages so that neither depends on the other. */
#include <stdlib.h>
#include <string.h>

#include "translator/geometry.h"

void pvk_pica_new_call(pvk_pica *p)
{
    p->budget = PVK_SHADER_BUDGET;
    p->vertex_budget = p->vertex_limit ? p->vertex_limit : PVK_VERTEX_BUDGET;
    p->area_budget = p->area_limit ? p->area_limit : PVK_AREA_BUDGET;
}

/* A work budget ran out: the list stops (see PVK_VERTEX_BUDGET). */
pvk_result pvk_over_budget(pvk_pica *p, const char *what, uint64_t limit)
{
    pvk_pica_bad_input(p, "draw: more than %llu %s in one call; the command list stops", (unsigned long long)limit,
                       what);
    p->budget_stop = true;
    return PVK_ERROR_BAD_DATA;
}

pvk_result pvk_charge_vertices(pvk_pica *p, uint32_t n)
{
    if (n > p->vertex_budget) {
        p->vertex_budget = 0;
        return pvk_over_budget(p, "vertices", p->vertex_limit ? p->vertex_limit : PVK_VERTEX_BUDGET);
    }
    p->vertex_budget -= n;
    return PVK_SUCCESS;
}

pvk_result pvk_sh_run_charged(pvk_pica *p, pvk_sh_run_info *info, const float v[PVK_SH_INPUTS][4],
                              float o[PVK_SH_OUTPUTS][4])
{
    if (p->budget == 0)
        return pvk_over_budget(p, "shader instructions", PVK_SHADER_BUDGET);
    pvk_sh_regs regs;
    info->max_steps = p->budget < PVK_SH_MAX_STEPS ? (uint32_t)p->budget : PVK_SH_MAX_STEPS;
    info->regs_out = &regs;
    regs.steps = 0;
    pvk_result r = pvk_sh_run(p, info, v, o);
    p->budget -= regs.steps < p->budget ? regs.steps : p->budget;
    if (r)
        p->budget = 0; /* a runaway program: nothing more this call */
    return r;
}

/* ---- a static bound on a program's steps (pvk_sh_step_bound) ----
 *
 * An upper bound on the instructions one invocation runs, read from the
 * code with the interpreter's flow rules (translator/shader.c), for the
 * shapes whose count the code fixes: straight code, LOOPs (the integer
 * uniform's count + 1 iterations of the body), IF/IFC (the longer branch),
 * CALL/CALLC/CALLU (the subroutine's bound) and forward JMPC/JMPU (the
 * longer way), nested up to each stack's depth; BREAK/BREAKC straight in a
 * LOOP's body (an early way out).  Anything whose count the stack model
 * could change is refused (0: unknown): other BREAKs, backward jumps, a jump or a construct leaving the range it sits in, an
 * instruction whose PC+1 is the end of an enclosing construct other than
 * the innermost range's own end (the stacks would act out of order: two
 * constructs ending on one instruction, a subroutine running over a loop's
 * end), a flow instruction on a range's last word, empty or backward
 * ranges.  END, an undefined opcode and a PC past code memory stop the run
 * (inside a construct the walk counts what follows it too: an over-estimate).  The bound
 * is sound for what it accepts, so the GPU path may stop an invocation at
 * it (max_steps) without ever stopping one the interpreter finishes. */

#define BOUND_UNKNOWN UINT64_MAX
/* Instructions visited at most (each construct's range is walked once per
 * place it is reached from; forward jumps' continuations are remembered):
 * past it the bound is unknown, so a program cannot make each draw's walk
 * long. */
#define BOUND_WORK 16384u

typedef struct bound_walk {
    const uint32_t *code;
    const uint32_t *ints;
    uint32_t ends[16], nends; /* PC+1 values of the enclosing constructs' ends */
    uint32_t loops, ifs, calls;
    uint32_t work;
    uint32_t ctx, next_ctx;   /* the enclosing construct's walk (memo entries are its own) */
    uint32_t loop_ctx;        /* the innermost LOOP body's walk (0: none) */
    struct {                  /* per PC: the steps from there to the end e of a range of walk ctx */
        uint32_t ctx, e;
        bool natural;
        uint64_t steps;
    } memo[PVK_SH_CODE_WORDS];
} bound_walk;

static bool bound_is_end(const bound_walk *w, uint32_t next)
{
    for (uint32_t i = 0; i < w->nends; i++)
        if (w->ends[i] == next)
            return true;
    return false;
}

static uint64_t bound_add(uint64_t a, uint64_t b)
{
    return a == BOUND_UNKNOWN || b == BOUND_UNKNOWN || a + b < a ? BOUND_UNKNOWN : a + b;
}

static uint64_t bound_mul(uint64_t a, uint64_t n)
{
    return a == BOUND_UNKNOWN || (n && a > UINT64_MAX / 2 / n) ? BOUND_UNKNOWN : a * n;
}

static uint64_t bound_max(uint64_t a, uint64_t b)
{
    return a == BOUND_UNKNOWN || b == BOUND_UNKNOWN ? BOUND_UNKNOWN : a > b ? a : b;
}

/* Steps from `pc` until the run leaves [pc, e] at e + 1 (its natural end
 * when `natural`: the innermost construct's). */
static uint64_t bound_range(bound_walk *w, uint32_t pc, uint32_t e, bool natural);

/* A construct ending at `end` (its PC+1 value) around [s, e]. */
static uint64_t bound_nested(bound_walk *w, uint32_t s, uint32_t e)
{
    if (s > e || e >= PVK_SH_CODE_WORDS || bound_is_end(w, e + 1) || w->nends == 16)
        return BOUND_UNKNOWN;
    w->ends[w->nends++] = e + 1;
    uint32_t ctx = w->ctx;
    w->ctx = ++w->next_ctx;
    uint64_t b = bound_range(w, s, e, true);
    w->ctx = ctx;
    w->nends--;
    return b;
}

/* bound_range from a forward jump's continuation, remembered per walk. */
static uint64_t bound_from(bound_walk *w, uint32_t pc, uint32_t e, bool natural)
{
    if (pc >= PVK_SH_CODE_WORDS)
        return 0;
    if (w->memo[pc].ctx == w->ctx && w->memo[pc].e == e && w->memo[pc].natural == natural)
        return w->memo[pc].steps;
    uint64_t b = bound_range(w, pc, e, natural);
    w->memo[pc].ctx = w->ctx, w->memo[pc].e = e, w->memo[pc].natural = natural, w->memo[pc].steps = b;
    return b;
}

static uint64_t bound_range(bound_walk *w, uint32_t pc, uint32_t e, bool natural)
{
    uint64_t total = 0;
    for (; pc <= e; pc++) {
        if (pc >= PVK_SH_CODE_WORDS)
            return total; /* the interpreter stops there */
        if (++w->work > BOUND_WORK)
            return BOUND_UNKNOWN;
        uint32_t word = w->code[pc], op = pvk_sh_opcode(word);
        uint32_t num = pvk_sh_f2_num(word), dst = pvk_sh_f2_dst(word);
        bool flow = op == PVK_SH_BREAK || op == PVK_SH_BREAKC || (op >= PVK_SH_CALL && op <= PVK_SH_LOOP) ||
                    op == PVK_SH_JMPC || op == PVK_SH_JMPU;
        /* an enclosing construct's end other than this range's own */
        if (bound_is_end(w, pc + 1) && !(natural && pc == e))
            return BOUND_UNKNOWN;
        if (flow && natural && pc == e)
            return BOUND_UNKNOWN; /* the end check would win over the instruction's own flow */
        total = bound_add(total, 1);
        switch (op) {
        case PVK_SH_END: /* the run ends: the rest of this range is not run */
            return total;
        case PVK_SH_BREAK:
        case PVK_SH_BREAKC:
            /* straight in a LOOP's body (not inside an IF part or a
             * subroutine, whose stack entries it would leave behind): it
             * leaves the loop early, fewer steps than walked on */
            if (!w->loop_ctx || w->ctx != w->loop_ctx)
                return BOUND_UNKNOWN;
            break;
        case PVK_SH_LOOP: { /* body [pc + 1, dst], then dst + 1 */
            if (dst < pc + 1 || dst >= e || w->loops == 4)
                return BOUND_UNKNOWN;
            w->loops++;
            uint32_t outer = w->loop_ctx;
            w->loop_ctx = w->next_ctx + 1; /* the body's walk (bound_nested's) */
            uint64_t body = bound_nested(w, pc + 1, dst);
            w->loop_ctx = outer;
            w->loops--;
            total = bound_add(total, bound_mul(body, (w->ints[pvk_sh_f3_id(word) & 3u] & 0xFFu) + 1u));
            pc = dst; /* the loop goes on at dst + 1 */
            break;
        }
        case PVK_SH_IFU:
        case PVK_SH_IFC: { /* then [pc + 1, dst - 1] (its end dst pushed), else [dst, dst + num - 1] */
            if (dst < pc + 1 || dst + num > e || w->ifs == 8)
                return BOUND_UNKNOWN;
            w->ifs++;
            uint64_t then = dst == pc + 1 ? (bound_is_end(w, dst) ? BOUND_UNKNOWN : 0)
                                          : bound_nested(w, pc + 1, dst - 1);
            w->ifs--;
            uint64_t other = num ? bound_range(w, dst, dst + num - 1, false) : 0;
            total = bound_add(total, bound_max(then, other));
            pc = dst + num - 1; /* on at dst + num */
            break;
        }
        case PVK_SH_CALL:
        case PVK_SH_CALLC:
        case PVK_SH_CALLU: { /* [dst, dst + num - 1], back to pc + 1 */
            if (!num || w->calls == 4)
                return BOUND_UNKNOWN;
            w->calls++;
            total = bound_add(total, bound_nested(w, dst, dst + num - 1));
            w->calls--;
            break;
        }
        case PVK_SH_JMPC:
        case PVK_SH_JMPU: /* forward inside the range: the longer way to its end */
            if (dst <= pc || dst > e)
                return BOUND_UNKNOWN;
            return bound_add(total, bound_max(bound_from(w, pc + 1, e, natural), bound_from(w, dst, e, natural)));
        default:
            if ((op >= 0x10 && op <= 0x11) || (op >= 0x14 && op <= 0x17) || (op >= 0x1C && op <= 0x1F))
                return total; /* an undefined opcode stops the run */
            break;
        }
        if (total == BOUND_UNKNOWN)
            return BOUND_UNKNOWN;
    }
    return total;
}

uint64_t pvk_sh_step_bound(const pvk_shader_unit *unit, uint32_t entry)
{
    if (entry >= PVK_SH_CODE_WORDS)
        return 0;
    bound_walk *w = calloc(1, sizeof *w); /* 96 KiB of memo: not on the stack */
    if (!w)
        return 0; /* unknown: the caller caps the program instead */
    w->code = unit->code, w->ints = unit->i, w->ctx = w->next_ctx = 1;
    uint64_t b = bound_range(w, entry, PVK_SH_CODE_WORDS - 1, false);
    free(w);
    return b == BOUND_UNKNOWN || b == 0 ? 0 : b;
}

uint64_t pvk_step_bound_cached(pvk_pica *p, unsigned unit, uint64_t code_hash, uint32_t entry)
{
    const pvk_shader_unit *u = &p->sh[unit];
    pvk_step_bound_memo *m = &p->step_bound[unit];
    if (!m->valid || m->code_hash != code_hash || m->entry != entry || memcmp(m->ints, u->i, sizeof m->ints)) {
        m->bound = pvk_sh_step_bound(u, entry);
        m->code_hash = code_hash, m->entry = entry;
        memcpy(m->ints, u->i, sizeof m->ints);
        m->valid = true;
    }
    return m->bound;
}

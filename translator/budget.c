/* translator/: the per-call work budgets (see PVK_SHADER_BUDGET,
 * PVK_VERTEX_BUDGET and PVK_AREA_BUDGET in geometry.h), shared by the vertex
 * and geometry stages so that neither depends on the other. */
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

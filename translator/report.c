/* How translator/ speaks: messages and counts go out through the
 * environment's report callback (the runtime logs and counts them). */
#include <stdarg.h>
#include <stdio.h>

#include "translator/translator.h"

void pvk_pica_report_msg(const pvk_pica *p, pvk_pica_report kind, pvk_log_level level, const char *fmt, ...)
{
    if (!p->env.report)
        return;
    if (kind == PVK_PICA_NOTE && level > p->env.log_level)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->env.report(p->env.user, kind, level, 1, msg);
}

void pvk_pica_count(const pvk_pica *p, pvk_pica_report kind, uint32_t count)
{
    if (p->env.report && count)
        p->env.report(p->env.user, kind, PVK_LOG_ERROR, count, NULL);
}

/* The external register file, 0x10400000-0x10400FFF (the PICA internal
 * registers at 0x10401000+ belong to translator/).  Every register of the
 * seed documents 002/003/004 is named once here with its reset value and
 * writable bits; reads of computed registers are derived from state. */
#include <stdio.h>
#include <string.h>

#include "vram/vram.h"

enum {
    F_RO = 1,      /* read-only: writes are ignored */
    F_SPECIAL = 2, /* write has a side effect handled in mmio_write_special */
};

typedef struct reg_info {
    uint16_t offset;
    uint8_t flags;
    const char *name;
    uint32_t reset, wmask;
} reg_info;

static const reg_info regs_table[] = {
    {0x000, F_RO, "GPU_HW_ID", 0x00010002u, 0},
    {0x004, 0, "GPU_VRAM_CNT", 0, 0xFFFFFFFFu},
    {0x008, 0, "GPU_UNKNOWN_2BIT", 0, 0x3},
    {0x010, 0, "GPU_MEMFILL_DST_ADDR0", 0, 0x1FFFFFFEu},
    {0x014, 0, "GPU_MEMFILL_DST_END0", 0, 0x1FFFFFFEu},
    {0x018, 0, "GPU_MEMFILL_DATA0", 0, 0xFFFFFFFFu},
    {0x01C, F_SPECIAL, "GPU_MEMFILL_CNT0", 0, 0x001F0300u},
    {0x020, 0, "GPU_MEMFILL_DST_ADDR1", 0, 0x1FFFFFFEu},
    {0x024, 0, "GPU_MEMFILL_DST_END1", 0, 0x1FFFFFFEu},
    {0x028, 0, "GPU_MEMFILL_DATA1", 0, 0xFFFFFFFFu},
    {0x02C, F_SPECIAL, "GPU_MEMFILL_CNT1", 0, 0x001F0300u},
    {0x030, 0, "GPU_VRAM_POWER", 0, 0xFFFFFFFFu},
    {0x034, F_RO, "GPU_STAT_IRQ_FLAGS", 0, 0},
    {0x038, F_RO, "GPU_STAT_SOMETHING", 0x10402000u, 0},
    {0x03C, F_SPECIAL, "GPU_MAKE_SOMETHING", 0, 0xFFFFFFFFu},
    {0x040, F_RO, "GPU_STAT_BACKLIGHT_OR_SO", 0, 0},
    {0x044, F_RO, "GPU_UNKNOWN_CAN_BE_7F80H", 0, 0},
    {0x048, 0, "GPU_UNKNOWN_32BIT", 0, 0xFFFFFFFFu},
    {0x050, 0, "GPU_TIMING_CNT1", 0x1111EF00u, 0xFFFFFFFFu},
    {0x054, 0, "GPU_TIMING_CNT2", 0x00000112u, 0xFFFFFFFFu},
    {0x058, F_RO, "GPU_STAT_BUSY_FLAGS", 0, 0},
    {0x05C, F_SPECIAL, "GPU_MAKE_WHATEVER_MESS", 0, 0x3F3F0000u},
    {0x060, F_RO, "GPU_STAT_WHATEVER_MESS", 0, 0},
    {0x068, 0, "GPU_UNKNOWN_INITIALLY_00A80000H", 0x00A80000u, 0xFFFFFFFFu},
    {0x070, F_RO, "GPU_STAT_TOTAL_NON_VRAM_READS", 0, 0},
    {0x074, F_RO, "GPU_STAT_TOTAL_NON_VRAM_WRITES", 0, 0},
    {0x078, F_RO, "GPU_STAT_TOTAL_VRAM_A_READS", 0, 0},
    {0x07C, F_RO, "GPU_STAT_TOTAL_VRAM_A_WRITES", 0, 0},
    {0x080, F_RO, "GPU_STAT_TOTAL_VRAM_B_READS", 0, 0},
    {0x084, F_RO, "GPU_STAT_TOTAL_VRAM_B_WRITES", 0, 0},
    {0x088, F_RO, "GPU_STAT_POLYGON_ARRAY_READS", 0, 0},
    {0x08C, F_RO, "GPU_STAT_POLYGON_TEXTURE_READS", 0, 0},
    {0x090, F_RO, "GPU_STAT_POLYGON_DEPTHBUFFER_READS", 0, 0},
    {0x094, F_RO, "GPU_STAT_POLYGON_DEPTHBUFFER_WRITES", 0, 0},
    {0x098, F_RO, "GPU_STAT_POLYGON_COLORBUFFER_READS", 0, 0},
    {0x09C, F_RO, "GPU_STAT_POLYGON_COLORBUFFER_WRITES", 0, 0},
    {0x0A0, F_RO, "GPU_STAT_LCD_UPPER_SCREEN_READS", 0, 0},
    {0x0A4, F_RO, "GPU_STAT_LCD_LOWER_SCREEN_READS", 0, 0},
    {0x0A8, F_RO, "GPU_STAT_MEMCOPY_SRC_READS", 0, 0},
    {0x0AC, F_RO, "GPU_STAT_MEMCOPY_DST_WRITES", 0, 0},
    {0x0B0, F_RO, "GPU_STAT_MEMFILL_0_DST_WRITES", 0, 0},
    {0x0B4, F_RO, "GPU_STAT_MEMFILL_1_DST_WRITES", 0, 0},
    {0x0B8, F_RO, "GPU_STAT_CPU_READS_FROM_VRAM_A_B", 0, 0},
    {0x0BC, F_RO, "GPU_STAT_CPU_WRITES_TO_VRAM_A_B", 0, 0},
    {0x0C0, 0, "GPU_BACKLIGHT_OR_SO_1", 0x20000000u, 0xFFFFFFFFu},
    {0x0C4, 0, "GPU_BASE_ADDR_VRAM_A", 0x18000000u, 0xFFFFFFFFu},
    {0x0C8, 0, "GPU_BASE_ADDR_VRAM_B", 0x18300000u, 0xFFFFFFFFu},
    {0x0CC, 0, "GPU_BACKLIGHT_OR_SO_2", 0x20000000u, 0xFFFFFFFFu},
    {0x0D0, 0, "GPU_UNKNOWN_4BIT", 0, 0xF},
    {0xC00, 0, "GPU_MEMCOPY_SRC_ADDR", 0, 0x1FFFFFFEu},
    {0xC04, 0, "GPU_MEMCOPY_DST_ADDR", 0, 0x1FFFFFFEu},
    {0xC08, 0, "GPU_MEMCOPY_DISPLAY_OUT_SIZE", 0, 0xFFF8FFF8u},
    {0xC0C, 0, "GPU_MEMCOPY_DISPLAY_IN_SIZE", 0, 0xFFF8FFF8u},
    {0xC10, 0, "GPU_MEMCOPY_FLAGS", 0, 0x0301772Fu},
    {0xC14, 0, "GPU_MEMCOPY_UNKNOWN_21BIT", 0, 0x001FFFFFu},
    {0xC18, F_SPECIAL, "GPU_MEMCOPY_CNT", 0, 0},
    {0xC1C, 0, "GPU_MEMCOPY_REMAIN_IRQ", 0, 0x3FFF},
    {0xC20, 0, "GPU_MEMCOPY_TEX_SIZE", 0, 0xFFFFFFF0u},
    {0xC24, 0, "GPU_MEMCOPY_TEX_SRC_WIDTH", 0, 0xFFFFFFFFu},
    {0xC28, 0, "GPU_MEMCOPY_TEX_DST_WIDTH", 0, 0xFFFFFFFFu},
    {0xC2C, 0, "GPU_MEMCOPY_UNKNOWN_FLAG", 0, 0x1},
};
#define N_REGS (sizeof regs_table / sizeof regs_table[0])

/* The PDC blocks (0x400 top, 0x500 bottom), by offset inside the block.
 * Offsets the document leaves unnamed but the OS initialises are kept as
 * plain 32-bit storage. */
static const reg_info pdc_table[] = {
    {0x00, 0, "HTOTAL", 0, 0xFFF},
    {0x04, 0, "HSTART", 0, 0xFFF},
    {0x08, 0, "HBR", 0, 0xFFF},
    {0x0C, 0, "HPF", 0, 0xFFF},
    {0x10, 0, "HSYNC", 0, 0xFFF},
    {0x14, 0, "HPB", 0, 0xFFF},
    {0x18, 0, "HBL", 0, 0xFFF},
    {0x1C, 0, "H_IRQ_TIMING", 0, 0x0FFF0FFFu},
    {0x20, 0, "UNKNOWN_20", 0, 0x0FFF0FFFu},
    {0x24, 0, "VTOTAL", 0, 0xFFF},
    {0x28, 0, "VBLANK", 0, 0xFFF},
    {0x2C, 0, "UNKNOWN_2C", 0, 0xFFF},
    {0x30, 0, "V_LINES", 0, 0xFFF},
    {0x34, 0, "VDISP", 0, 0xFFF},
    {0x38, 0, "V_DATA_OFFSET", 0, 0xFFF},
    {0x3C, 0, "UNKNOWN_3C", 0, 0xFFF},
    {0x40, 0, "V_IRQ_TIMING", 0, 0x0FFF0FFFu},
    {0x44, 0, "UNKNOWN_44", 0, 0xFFF},
    {0x48, 0, "SYNC_DISABLE", 0, 0x101},
    {0x4C, 0, "OVERSCAN_COLOR", 0, 0x00FFFFFFu},
    {0x50, F_RO, "HCOUNT", 0, 0},
    {0x54, F_RO, "VCOUNT", 0, 0},
    {0x5C, 0, "IMAGE_SIZE", 0, 0x0FFF0FFFu},
    {0x60, 0, "HDISP", 0, 0x0FFF0FFFu},
    {0x64, 0, "FB_HEIGHT", 0, 0x0FFF0FFFu},
    {0x68, 0, "FB_A_ADDR0", 0, 0xFFFFFFFFu},
    {0x6C, 0, "FB_A_ADDR1", 0, 0xFFFFFFFFu},
    {0x70, 0, "FB_FORMAT", 0, 0xFFFF037Fu},
    {0x74, 0, "CONTROL", 0, 0x00010701u},
    {0x78, F_SPECIAL, "FB_SELECT", 0, 0x1},
    {0x80, F_SPECIAL, "LUT_INDEX", 0, 0xFF},
    {0x84, F_SPECIAL, "LUT_DATA", 0, 0x00FFFFFFu},
    {0x90, 0, "FB_STRIDE", 0, 0xFFFFFFFFu},
    {0x94, 0, "FB_B_ADDR0", 0, 0xFFFFFFFFu},
    {0x98, 0, "FB_B_ADDR1", 0, 0xFFFFFFFFu},
    {0x9C, 0, "UNKNOWN_9C", 0, 0xFFFFFFFFu},
};
#define N_PDC (sizeof pdc_table / sizeof pdc_table[0])

static const reg_info *lookup(uint32_t off, int *pdc)
{
    *pdc = -1;
    if (off >= PVK_REG_PDC0 && off < PVK_REG_PDC1 + 0x100) {
        *pdc = off >= PVK_REG_PDC1;
        uint32_t rel = off & 0xFF;
        for (size_t i = 0; i < N_PDC; i++)
            if (pdc_table[i].offset == rel)
                return &pdc_table[i];
        return NULL;
    }
    for (size_t i = 0; i < N_REGS; i++)
        if (regs_table[i].offset == off)
            return &regs_table[i];
    return NULL;
}

const char *pvk_mmio_name(uint32_t off)
{
    static _Thread_local char buf[48];
    int pdc;
    const reg_info *r = lookup(off, &pdc);
    if (!r)
        return NULL;
    if (pdc < 0)
        return r->name;
    snprintf(buf, sizeof buf, "GPU_PDC%d_%s", pdc, r->name);
    return buf;
}

void pvk_mmio_reset(pvk_vram *vm)
{
    pvk_mmio *m = &vm->mmio;
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < N_REGS; i++)
        m->regs[regs_table[i].offset / 4] = regs_table[i].reset;
    if (vm->gpu->cfg.new_3ds)
        m->regs[PVK_REG_HW_ID / 4] |= 4; /* 3dbrew: bit 2 = New 3DS */
    m->regs[PVK_REG_MEMCOPY_REMAIN_IRQ / 4] = 0;
    m->irq_low_bits = 3; /* GPU_STAT_IRQ_FLAGS bits 0-1 "usually set" */
    /* The colour LUT (a per-channel gamma table) starts as the identity that
     * boot code programs, so screens show colours before anyone writes it. */
    for (uint32_t i = 0; i < PVK_LCD_LUT_SIZE; i++)
        m->lut[0][i] = m->lut[1][i] = 0x010101u * i;
}

/* Bits of the special registers a snapshot may set besides their writable
 * ones: the finished flags, the PDC select/status bits, the LUT index. */
static uint32_t snapshot_mask(uint32_t off, int pdc, const reg_info *r)
{
    if (pdc >= 0) {
        switch (off & 0xFF) {
        case PVK_PDC_SELECT: return 0x70011;
        case PVK_PDC_LUT_INDEX: return 0xFF;
        case PVK_PDC_LUT_DATA: return 0;
        }
        return r->wmask;
    }
    switch (off) {
    case 0x01C:
    case 0x02C: return 0x001F0302; /* never busy: nothing runs for a snapshot */
    case PVK_REG_MEMCOPY_CNT: return 0x100;
    case PVK_REG_MAKE_SOMETHING: return 0xFFFFFFFF;
    case PVK_REG_MAKE_MESS: return 0x3F3F0100;
    }
    return r->wmask;
}

void pvk_mmio_load(pvk_vram *vm, const uint32_t *regs, const uint32_t lut[2][PVK_LCD_LUT_SIZE], uint32_t count)
{
    pvk_mmio *m = &vm->mmio;
    for (uint32_t i = 0; i < PVK_MMIO_WORDS; i++) {
        int pdc;
        const reg_info *r = lookup(i * 4, &pdc);
        if (!r || (r->flags & F_RO))
            continue; /* unnamed: stays 0; read-only: picavk's own */
        m->regs[i] = i < count ? regs[i] & snapshot_mask(i * 4, pdc, r) : r->reset;
    }
    if (lut)
        for (int p = 0; p < 2; p++)
            for (int k = 0; k < PVK_LCD_LUT_SIZE; k++)
                m->lut[p][k] = lut[p][k] & 0x00FFFFFFu;
}

void pvk_mmio_state_load(pvk_vram *vm, const uint32_t *regs, const uint32_t lut[2][PVK_LCD_LUT_SIZE], uint32_t irq)
{
    pvk_mmio *m = &vm->mmio;
    pvk_mmio_load(vm, regs, lut, PVK_MMIO_WORDS);
    for (uint32_t i = 0; i < PVK_MMIO_WORDS; i++) { /* what picavk itself keeps there */
        int pdc;
        const reg_info *r = lookup(i * 4, &pdc);
        if (r && (r->flags & F_RO) && i != PVK_REG_HW_ID / 4)
            m->regs[i] = regs[i];
    }
    m->p3d_irq = irq >> 31;
    m->irq_low_bits = irq & 3;
    m->fill_busy[0] = m->fill_busy[1] = m->copy_busy = 0;
}

uint32_t pvk_mmio_reg(const pvk_vram *vm, uint32_t off)
{
    return vm->mmio.regs[(off & 0xFFC) / 4];
}

void pvk_mmio_set_p3d(pvk_vram *vm, bool active)
{
    vm->mmio.p3d_irq = active;
}

static uint32_t irq_flags(const pvk_vram *vm)
{
    const pvk_mmio *m = &vm->mmio;
    uint32_t v = m->irq_low_bits;
    v |= ((m->regs[0x01C / 4] >> 1) & 1) << 26;
    v |= ((m->regs[0x02C / 4] >> 1) & 1) << 27;
    v |= ((m->regs[(PVK_REG_PDC0 + PVK_PDC_SELECT) / 4] >> 16) & 7 ? 1u : 0u) << 28;
    v |= ((m->regs[(PVK_REG_PDC1 + PVK_PDC_SELECT) / 4] >> 16) & 7 ? 1u : 0u) << 29;
    v |= ((m->regs[PVK_REG_MEMCOPY_CNT / 4] >> 8) & 1) << 30;
    v |= (uint32_t)m->p3d_irq << 31;
    return v;
}

uint32_t pvk_mmio_ext_read(pvk_vram *vm, uint32_t off)
{
    pvk_mmio *m = &vm->mmio;
    int pdc;
    const reg_info *r = lookup(off, &pdc);
    if (!r)
        return 0;
    switch (off) {
        case PVK_REG_STAT_IRQ_FLAGS: return irq_flags(vm);
        case PVK_REG_STAT_BUSY:
            return ((m->fill_busy[0] || m->fill_busy[1]) ? 1u << 19 : 0) | (m->copy_busy ? 1u << 20 : 0);
        case PVK_REG_STAT_BACKLIGHT:
            /* the document saw 3 here while either backlight register was 0 */
            return (!m->regs[PVK_REG_BACKLIGHT1 / 4] || !m->regs[PVK_REG_BACKLIGHT2 / 4]) ? 3 : 0;
        case PVK_REG_MEMCOPY_REMAIN_IRQ:
            /* Remain counter: 3FFFh when done; picavk does not expose progress. */
            return (m->regs[off / 4] & 0x3FFF) | (m->copy_busy ? 0 : 0x3FFFu << 16);
        default: break;
    }
    if (pdc >= 0) {
        uint32_t rel = off & 0xFF;
        if (rel == PVK_PDC_LUT_INDEX)
            return 0; /* write-only */
        if (rel == PVK_PDC_LUT_DATA) {
            uint32_t *idx = &m->regs[(off - 4) / 4];
            uint32_t v = m->lut[pdc][*idx & 0xFF];
            *idx = (*idx + 1) & 0xFF;
            return v;
        }
    }
    return m->regs[off / 4];
}

static pvk_result write_special(pvk_vram *vm, uint32_t off, int pdc, uint32_t v)
{
    pvk_mmio *m = &vm->mmio;
    uint32_t *reg = &m->regs[off / 4];
    if (pdc >= 0) {
        switch (off & 0xFF) {
        case PVK_PDC_SELECT:
            /* bit 0 next buffer; bits 16-18 IRQ status, write 1 to acknowledge;
             * bit 4 (displayed buffer) is set at VBlank. */
            *reg = (*reg & ~0x1u & ~((v & 0x70000u))) | (v & 1);
            return PVK_SUCCESS;
        case PVK_PDC_LUT_INDEX:
            *reg = v & 0xFF;
            return PVK_SUCCESS;
        case PVK_PDC_LUT_DATA: {
            uint32_t *idx = &m->regs[(off - 4) / 4];
            m->lut[pdc][*idx & 0xFF] = v & 0x00FFFFFFu;
            *idx = (*idx + 1) & 0xFF;
            return PVK_SUCCESS;
        }
        }
        return PVK_SUCCESS;
    }
    switch (off) {
    case 0x01C:
    case 0x02C: {
        int unit = off == 0x02C;
        /* bit 1 (finished) can only be cleared by writing 0; bit 0 is busy */
        uint32_t keep = *reg & 0x3;
        if (!(v & 2))
            keep &= ~2u;
        *reg = (v & 0x001F0300u) | keep;
        if (v & 1)
            return pvk_transfer_fill(vm, unit);
        return PVK_SUCCESS;
    }
    case PVK_REG_MEMCOPY_CNT: {
        uint32_t keep = *reg & 0x101;
        if (!(v & 0x100))
            keep &= ~0x100u;
        *reg = keep;
        if (v & 1)
            return pvk_transfer_memcopy(vm);
        return PVK_SUCCESS;
    }
    case PVK_REG_MAKE_SOMETHING:
        *reg = v;
        if (v & 1) { /* the document: status changes and IRQ flag bits 0-1 clear */
            m->regs[PVK_REG_STAT_SOMETHING / 4] = 0x10410000u;
            m->irq_low_bits = 0;
        }
        return PVK_SUCCESS;
    case PVK_REG_MAKE_MESS:
        *reg = (v & 0x3F3F0000u) | ((v & 1) << 8); /* bit 0 reads back at bit 8 */
        return PVK_SUCCESS;
    }
    return PVK_SUCCESS;
}

pvk_result pvk_mmio_ext_write(pvk_vram *vm, uint32_t off, uint32_t value)
{
    int pdc;
    const reg_info *ri = lookup(off, &pdc);
    if (!ri) {
        pvk_log(vm->gpu, PVK_LOG_DEBUG, "write 0x%08X to unnamed register 0x%08X ignored", value, PVK_MMIO_BASE + off);
        return PVK_SUCCESS;
    }
    if (ri->flags & F_RO) {
        pvk_log(vm->gpu, PVK_LOG_DEBUG, "write to read-only register %s ignored", pvk_mmio_name(off));
        return PVK_SUCCESS;
    }
    if (ri->flags & F_SPECIAL)
        return write_special(vm, off, pdc, value);
    vm->mmio.regs[off / 4] = value & ri->wmask;
    return PVK_SUCCESS;
}

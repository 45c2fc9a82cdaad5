/* An out-of-tree program that uses an installed picavk (scripts/consumer.sh
 * builds it with find_package and with pkg-config): a headless context, a
 * 32-bit memory fill through the registers, the bytes checked in guest memory. */
#include <picavk/picavk.h>
#include <stdio.h>
#include <string.h>

static int irqs[PVK_IRQ_COUNT];

static void on_irq(void *user, pvk_context *ctx, pvk_irq which)
{
    (void)user, (void)ctx;
    irqs[which]++;
}

int main(void)
{
    const uint32_t addr = PVK_VRAM_BASE + 0x1000, len = 0x2000, value = 0x11223344;
    pvk_config cfg = {.irq = on_irq};
    pvk_context *ctx;
    pvk_result r = pvk_context_create(&cfg, &ctx);
    if (r != PVK_SUCCESS) {
        fprintf(stderr, "consumer: pvk_context_create: %s\n", pvk_result_string(r));
        return 1;
    }
    int bad = 0;
    uint8_t *mem = pvk_guest_ptr(ctx, addr, len + 4);
    if (!mem) {
        fprintf(stderr, "consumer: pvk_guest_ptr failed\n");
        pvk_context_destroy(ctx);
        return 1;
    }
    memset(mem, 0xAB, len + 4);
    pvk_guest_written(ctx, addr, len + 4);

    pvk_mmio_write32(ctx, 0x10400010, addr >> 3);         /* PSC0 start */
    pvk_mmio_write32(ctx, 0x10400014, (addr + len) >> 3); /* end (exclusive) */
    pvk_mmio_write32(ctx, 0x10400018, value);
    r = pvk_mmio_write32(ctx, 0x1040001C, 0x201); /* 32-bit, start */
    if (r == PVK_SUCCESS)
        r = pvk_wait_idle(ctx);
    if (r == PVK_SUCCESS)
        r = pvk_guest_flush(ctx, addr, len + 4);
    if (r != PVK_SUCCESS) {
        fprintf(stderr, "consumer: memory fill: %s\n", pvk_result_string(r));
        bad++;
    }
    const uint8_t want[4] = {0x44, 0x33, 0x22, 0x11}; /* little-endian words */
    for (uint32_t i = 0; i < len; i++)
        if (mem[i] != want[i % 4] && bad++ < 5)
            fprintf(stderr, "consumer: byte %u is 0x%02X, want 0x%02X\n", i, mem[i], want[i % 4]);
    for (uint32_t i = len; i < len + 4; i++)
        if (mem[i] != 0xAB && bad++ < 5)
            fprintf(stderr, "consumer: byte %u past the end changed to 0x%02X\n", i, mem[i]);
    if (irqs[PVK_IRQ_PSC0] != 1) {
        fprintf(stderr, "consumer: %d PSC0 interrupts, want 1\n", irqs[PVK_IRQ_PSC0]);
        bad++;
    }
    pvk_stats st = {0};
    if (pvk_get_stats(ctx, &st) != PVK_SUCCESS || st.fills != 1 || !st.submissions || st.bad_input ||
        st.validation_errors) {
        fprintf(stderr, "consumer: stats: fills %llu, submissions %llu, bad input %llu, validation messages %llu\n",
                (unsigned long long)st.fills, (unsigned long long)st.submissions, (unsigned long long)st.bad_input,
                (unsigned long long)st.validation_errors);
        bad++;
    }
    /* the installed header and library are the same version */
    char want_version[32];
    snprintf(want_version, sizeof want_version, "%d.%d.", PVK_VERSION_MAJOR, PVK_VERSION_MINOR);
    if (strncmp(pvk_version(), want_version, strlen(want_version))) {
        fprintf(stderr, "consumer: pvk_version() is %s, the header says %d.%d\n", pvk_version(), PVK_VERSION_MAJOR,
                PVK_VERSION_MINOR);
        bad++;
    }
    printf("consumer: picavk %s on %s: memory fill %s\n", pvk_version(), pvk_device_name(ctx), bad ? "FAILED" : "ok");
    pvk_context_destroy(ctx);
    return bad != 0;
}

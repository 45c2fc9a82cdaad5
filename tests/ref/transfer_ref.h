/* A slow CPU reference model of the 3DS transfer engine (memory fill,
 * display transfer, tiled->tiled raw copy, texture copy), written straight
 * from the specification as an independent oracle for the tests.
 *
 * Guest memory is given as a few windows of plain bytes (each a copy of part
 * of one guest region).  The model decides acceptance against the real guest
 * memory map and then reads/writes the windows; touching a byte that no
 * window holds is a test bug and sets `fault`. */
#ifndef PVK_TRANSFER_REF_H
#define PVK_TRANSFER_REF_H

#include <stdbool.h>
#include <stdint.h>

#define REF_MAX_WINDOWS 8

typedef struct ref_window {
    uint32_t base, size;
    uint8_t *data;
} ref_window;

typedef struct ref_guest {
    ref_window win[REF_MAX_WINDOWS];
    int count;
    uint32_t fcram_size; /* 0: the Old 3DS size (128 MiB) */
    int fault;           /* the model touched a byte outside every window */
} ref_guest;

/* One window: `mem` holds guest bytes [mem_base, mem_base + mem_size). */
void ref_guest_init(ref_guest *g, uint8_t *mem, uint32_t mem_base, uint32_t mem_size);
/* Another window; returns false when there is no room. */
bool ref_guest_add(ref_guest *g, uint8_t *mem, uint32_t mem_base, uint32_t mem_size);

/* Register values exactly as the program wrote them (the model masks them). */
typedef struct ref_fill_regs {
    uint32_t dst_addr, dst_end, value, cnt;
} ref_fill_regs;

typedef struct ref_copy_regs {
    uint32_t src_addr, dst_addr;
    uint32_t out_dim, in_dim;
    uint32_t flags;
    uint32_t tex_size, tex_src_width, tex_dst_width;
} ref_copy_regs;

/* Both return true when the operation was accepted, false when the hardware
 * would drop it (nothing is written then).  A fill runs only when the CNT
 * value has bit 0 set; without it the call returns false and does nothing. */
bool ref_memfill(ref_guest *g, const ref_fill_regs *r);
bool ref_memcopy(ref_guest *g, const ref_copy_regs *r);

/* Helpers for tests. */
uint32_t ref_format_bpp(uint32_t fmt);                         /* 4, 3 or 2 */
uint32_t ref_morton_index(uint32_t x, uint32_t y, uint32_t w); /* tiled pixel index */
bool ref_range_in_region(const ref_guest *g, uint32_t addr, uint64_t len);

#endif

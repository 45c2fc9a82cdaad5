/* Texture dumps (pvk_config.texture_dump_dir, PVK_TEXTURE_DUMP): every
 * texture level decoded from guest memory, once per hash, as a PNG named
 * the way Citra and Azahar name their dumps, so that a dump edited into a
 * texture pack loads in either:
 *
 *   tex1_{W}x{H}_{HASH:016X}_{FORMAT}_mip{LEVEL}.png
 *
 * W x H the level's own size, HASH CityHash64 of the level's bytes in guest
 * memory (tiled, undecoded: Azahar's "new hash"), FORMAT the PICA texture
 * format number (0 RGBA8 .. 13 ETC1A4), LEVEL from 0.  Only power-of-two
 * sizes (Azahar's rule: others are usually framebuffers); each face of a
 * cube map as a 2D texture.  The PNG's first row is the level's first row in
 * guest memory (as Azahar writes them: upright, texture coordinate t = 0 at
 * the bottom), 8-bit RGBA.  A pack.json template (Azahar's fields) is written
 * beside them unless one is there.
 *
 * Nothing of it runs on the draw's path but the hash: texture.c records a
 * copy of each new level into a host-visible buffer after the decode; when
 * the GPU is done with it (its op retires) the pixels go to a worker thread
 * that converts them to RGBA8 and writes the PNG (to a temporary name, then
 * renamed: a reader never sees half a file).  A file that exists is left
 * alone. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>

#include "vram/vram.h"

typedef struct dump_job {
    struct dump_job *next;
    char path[600];
    uint32_t w, h;
    uint8_t rgba[]; /* w * h * 4 */
} dump_job;

#define QUEUE_MAX 64u /* PNGs waiting for the worker; more: the host's thread waits for room */

struct pvk_dump {
    char dir[512];
    uint64_t *seen;             /* hashes dumped or on their way (open addressing, 0: empty) */
    uint32_t n_seen, cap_seen;
    pvk_dump_level slots[PVK_DUMP_SLOTS]; /* read-backs in flight, by pvk_pending.arg */
    pthread_t thread;
    bool thread_ok;
    pthread_mutex_t lock;
    pthread_cond_t work, room;
    dump_job *head, *tail;
    uint32_t queued;
    bool stop;
    atomic_uint_fast64_t written, failed;
};

static bool seen_add(struct pvk_dump *d, uint64_t h)
{
    h |= 1; /* 0 marks an empty slot; the lowest bit lost is one hash in 2^63 of false "seen" */
    if (d->n_seen * 2 >= d->cap_seen) {
        uint32_t cap = d->cap_seen ? d->cap_seen * 2 : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            return false;
        for (uint32_t i = 0; i < d->cap_seen; i++)
            if (d->seen[i]) {
                uint32_t j = (uint32_t)d->seen[i] & (cap - 1);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = d->seen[i];
            }
        free(d->seen);
        d->seen = t;
        d->cap_seen = cap;
    }
    uint32_t j = (uint32_t)h & (d->cap_seen - 1);
    for (; d->seen[j]; j = (j + 1) & (d->cap_seen - 1))
        if (d->seen[j] == h)
            return false;
    d->seen[j] = h;
    d->n_seen++;
    return true;
}

static bool write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h)
{
    char tmp[620];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGBA;
    if (!png_image_write_to_file(&img, tmp, 0, rgba, (png_int_32)(w * 4), NULL)) {
        png_image_free(&img);
        unlink(tmp);
        return false;
    }
    return !rename(tmp, path);
}

static void *worker(void *arg)
{
    struct pvk_dump *d = arg;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        while (!d->head && !d->stop)
            pthread_cond_wait(&d->work, &d->lock);
        dump_job *j = d->head;
        if (!j)
            break; /* stopped with nothing left */
        d->head = j->next;
        if (!d->head)
            d->tail = NULL;
        d->queued--;
        pthread_cond_signal(&d->room);
        pthread_mutex_unlock(&d->lock);
        struct stat st;
        if (stat(j->path, &st)) { /* a file that is there stays */
            if (write_png(j->path, j->rgba, j->w, j->h))
                atomic_fetch_add(&d->written, 1);
            else
                atomic_fetch_add(&d->failed, 1);
        }
        free(j);
        pthread_mutex_lock(&d->lock);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* Azahar's template, written once into an empty dump folder. */
static void write_template(pvk_vram *vm, const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/pack.json", dir);
    struct stat st;
    if (!stat(path, &st))
        return;
    FILE *f = fopen(path, "w");
    if (!f) {
        pvk_log(vm->gpu, PVK_LOG_WARN, "texture dumps: cannot write %s: %s", path, strerror(errno));
        return;
    }
    fputs("{\n    \"author\": \"picavk\",\n    \"version\": \"1.0.0\",\n    \"description\": \"A graphics pack\",\n"
          "    \"options\": {\n        \"skip_mipmap\": false,\n        \"flip_png_files\": true,\n"
          "        \"use_new_hash\": true\n    }\n}\n", f);
    fclose(f);
}

pvk_result pvk_dump_init(pvk_vram *vm, const char *dir)
{
    if (!dir || !*dir)
        return PVK_SUCCESS;
    if (mkdir(dir, 0755) && errno != EEXIST) {
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture dumps: cannot make %s: %s", dir, strerror(errno));
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    struct pvk_dump *d = calloc(1, sizeof *d);
    if (!d)
        return PVK_ERROR_OUT_OF_MEMORY;
    snprintf(d->dir, sizeof d->dir, "%s", dir);
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->work, NULL);
    pthread_cond_init(&d->room, NULL);
    if (pthread_create(&d->thread, NULL, worker, d)) {
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture dumps: no worker thread");
        pthread_mutex_destroy(&d->lock);
        pthread_cond_destroy(&d->work);
        pthread_cond_destroy(&d->room);
        free(d);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    d->thread_ok = true;
    vm->dump = d;
    write_template(vm, dir);
    pvk_log(vm->gpu, PVK_LOG_INFO, "texture dumps: into %s", dir);
    return PVK_SUCCESS;
}

void pvk_dump_destroy(pvk_vram *vm)
{
    struct pvk_dump *d = vm->dump;
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->stop = true; /* what is queued is still written */
    pthread_cond_signal(&d->work);
    pthread_mutex_unlock(&d->lock);
    if (d->thread_ok)
        pthread_join(d->thread, NULL);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->work);
    pthread_cond_destroy(&d->room);
    free(d->seen);
    free(d);
    vm->dump = NULL;
}

void pvk_dump_counts(const pvk_vram *vm, uint64_t *written, uint64_t *failed)
{
    struct pvk_dump *d = vm->dump;
    *written = d ? atomic_load(&d->written) : 0;
    *failed = d ? atomic_load(&d->failed) : 0;
}

int pvk_dump_claim(pvk_vram *vm, const pvk_dump_level *level)
{
    struct pvk_dump *d = vm->dump;
    if (!d || !seen_add(d, level->hash))
        return -1;
    for (int i = 0; i < (int)PVK_DUMP_SLOTS; i++)
        if (!d->slots[i].w) {
            d->slots[i] = *level;
            return i;
        }
    return -1; /* every slot waiting for the GPU: this one is not dumped (it is marked seen) */
}

void pvk_dump_release(pvk_vram *vm, int slot)
{
    if (vm->dump && slot >= 0 && slot < (int)PVK_DUMP_SLOTS)
        vm->dump->slots[slot].w = 0;
}

/* The level's texels (the image's format: 1, 2 or 4 bytes, `swz` its
 * view's swizzle) as RGBA8. */
static void to_rgba8(const uint8_t *src, uint32_t n, uint32_t bytes, const VkComponentMapping *swz, uint8_t *dst)
{
    const VkComponentSwizzle c[4] = {swz->r, swz->g, swz->b, swz->a};
    for (uint32_t i = 0; i < n; i++, src += bytes, dst += 4)
        for (int k = 0; k < 4; k++) {
            VkComponentSwizzle s = c[k] == VK_COMPONENT_SWIZZLE_IDENTITY ? (VkComponentSwizzle)(VK_COMPONENT_SWIZZLE_R + k)
                                                                         : c[k];
            uint32_t ch = (uint32_t)(s - VK_COMPONENT_SWIZZLE_R);
            dst[k] = s == VK_COMPONENT_SWIZZLE_ZERO  ? 0
                     : s == VK_COMPONENT_SWIZZLE_ONE ? 255
                     : ch < bytes                    ? src[ch]
                                                     : 0;
        }
}

void pvk_dump_retire(pvk_gpu *gpu, const pvk_pending *p)
{
    pvk_vram *vm = p->owner;
    struct pvk_dump *d = vm->dump;
    if (!d || p->arg >= PVK_DUMP_SLOTS || !d->slots[p->arg].w)
        return;
    pvk_dump_level lv = d->slots[p->arg];
    d->slots[p->arg].w = 0;
    VkComponentMapping swz;
    uint32_t bytes = 4;
    pvk_texture_vk_format(lv.format, &swz, &bytes);
    dump_job *j = malloc(sizeof *j + (size_t)lv.w * lv.h * 4);
    void *mapped = NULL;
    if (!j || gpu->vk.vkMapMemory(gpu->device, p->scratch_mem, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS) {
        free(j);
        atomic_fetch_add(&d->failed, 1);
        return;
    }
    to_rgba8(mapped, lv.w * lv.h, bytes, &swz, j->rgba);
    gpu->vk.vkUnmapMemory(gpu->device, p->scratch_mem);
    j->next = NULL;
    j->w = lv.w;
    j->h = lv.h;
    snprintf(j->path, sizeof j->path, "%s/tex1_%ux%u_%016llX_%u_mip%u.png", d->dir, lv.w, lv.h,
             (unsigned long long)lv.hash, lv.format, lv.level);
    pthread_mutex_lock(&d->lock);
    while (d->queued >= QUEUE_MAX)
        pthread_cond_wait(&d->room, &d->lock);
    if (d->tail)
        d->tail->next = j;
    else
        d->head = j;
    d->tail = j;
    d->queued++;
    pthread_cond_signal(&d->work);
    pthread_mutex_unlock(&d->lock);
}

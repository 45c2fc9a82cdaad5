/* Texture packs (pvk_config.texture_pack_dir, PVK_TEXTURE_PACK): a folder
 * of replacement PNGs as Citra and Azahar read it (docs/texture-packs.md).
 *
 * At context creation the folder is read once: pack.json's options (all
 * three of skip_mipmap, flip_png_files and use_new_hash as booleans, else
 * the legacy defaults: old hash, mips generated, files upright) and its
 * optional "textures" map (hash in hex -> a file name or a list of them),
 * and every file below it (sub-folders too) named
 * tex1_{W}x{H}_{HASH}_{FORMAT}[_mip{L}].png: only HASH is used, the others
 * are what the dump wrote.  The index maps each hash to its file.
 *
 * A texture decoded from guest memory looks up the hash of its level 0
 * (each level has its own file, found by its own hash): the CityHash64 of
 * the level's guest bytes (the new hash), or of the level decoded as Citra
 * decodes it (the old hash, vram/oldhash.c).  A replacement is
 * decoded on this file's worker thread (libpng), checked (the size an
 * integer power-of-two multiple of the texture's, the same for width and
 * height; each level file half the one before; else logged and skipped),
 * levels without a file made by a 2x2 box filter, and kept here: a
 * material, keyed by the level-0 hash, in host memory bounded by the
 * budget's pack share (least recently used go).  The texture cache
 * (texture.c) draws the original until the material is ready and then
 * uploads it as an image `scale` times the texture's size. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <png.h>

#include "vram/vram.h"

enum { UNKNOWN, QUEUED, READY, FAILED };

typedef struct pack_file {
    uint64_t hash;
    uint32_t path; /* offset into the string pool */
} pack_file;

typedef struct material {
    uint64_t hash;               /* level 0's; 0: a free slot */
    int state;                   /* UNKNOWN .. FAILED, under the lock */
    uint32_t tw, th, levels;     /* the texture it was asked for */
    int32_t file[PVK_PACK_LEVELS]; /* index of each level's file, -1: made from the level before */
    uint32_t w, h, scale;        /* level 0's size; scale = w / tw */
    uint8_t *rgba;               /* READY: every level, one after another, rows of w >> l texels */
    size_t bytes;
    uint64_t last_use;
    char error[256];             /* FAILED: why, logged by the host's thread once */
    bool logged;
} material;

#define MATERIALS 1024u

struct pvk_pack {
    char dir[512];
    bool new_hash, skip_mipmap, flip;
    pack_file *files;
    uint32_t n_files;
    char *pool;
    size_t pool_len, pool_cap;
    material m[MATERIALS]; /* searched in full: only a texture decode looks (a microsecond) */
    uint64_t tick, held, share;
    pthread_t thread;
    bool thread_ok, stop, sync;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    material *queue[MATERIALS];
    uint32_t q_head, q_len;
    uint64_t replaced, pending_draws, failures;
};

/* ---- the index ---- */

static uint32_t pool_add(struct pvk_pack *p, const char *s)
{
    size_t n = strlen(s) + 1;
    if (p->pool_len + n > p->pool_cap) {
        size_t cap = p->pool_cap ? p->pool_cap * 2 : 4096;
        while (cap < p->pool_len + n)
            cap *= 2;
        char *t = realloc(p->pool, cap);
        if (!t)
            return UINT32_MAX;
        p->pool = t;
        p->pool_cap = cap;
    }
    memcpy(p->pool + p->pool_len, s, n);
    p->pool_len += n;
    return (uint32_t)(p->pool_len - n);
}

static bool file_add(struct pvk_pack *p, uint64_t hash, uint32_t path, uint32_t *cap)
{
    if (p->n_files == *cap) {
        uint32_t c = *cap ? *cap * 2 : 256;
        pack_file *t = realloc(p->files, c * sizeof *t);
        if (!t)
            return false;
        p->files = t;
        *cap = c;
    }
    p->files[p->n_files++] = (pack_file){hash, path};
    return true;
}

/* pack.json's "textures": file name -> hashes (several names may map one hash). */
typedef struct name_map {
    char **name;
    uint64_t *hash;
    uint32_t n;
} name_map;

/* The hex key of a "textures" entry: the whole string a hash. */
static bool parse_hex(const char *s, uint64_t *out)
{
    if (!*s || strlen(s) > 16)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return true;
}

static void map_add(pvk_vram *vm, name_map *nm, const char *file, uint64_t hash)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    char **n = realloc(nm->name, (nm->n + 1) * sizeof *n);
    if (n)
        nm->name = n;
    uint64_t *h = realloc(nm->hash, (nm->n + 1) * sizeof *h);
    if (h)
        nm->hash = h;
    char *copy = n && h ? strdup(base) : NULL;
    if (!copy) {
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture pack: out of memory reading pack.json");
        return;
    }
    nm->name[nm->n] = copy;
    nm->hash[nm->n++] = hash;
}

/* A small text file, NUL-terminated; NULL: none (or past 16 MiB). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
    if (n >= 0 && n <= (16l << 20) && !fseek(f, 0, SEEK_SET) && (text = malloc((size_t)n + 1))) {
        if (fread(text, 1, (size_t)n, f) != (size_t)n) {
            free(text);
            text = NULL;
        } else
            text[n] = 0;
    }
    fclose(f);
    return text;
}

/* pack.json: the options (false: legacy defaults) and the textures map. */
static bool read_config(pvk_vram *vm, struct pvk_pack *p, name_map *nm)
{
    char path[600];
    snprintf(path, sizeof path, "%s/pack.json", p->dir);
    char *text = read_text(path);
    if (!text) {
        pvk_log(vm->gpu, PVK_LOG_INFO, "texture pack %s: no pack.json; legacy defaults (old hash, mips generated)",
                p->dir);
        return false;
    }
    cJSON_Minify(text); /* Azahar's reader allows comments: this drops them */
    cJSON *json = cJSON_Parse(text);
    free(text);
    bool ok = false;
    const cJSON *o = json ? cJSON_GetObjectItemCaseSensitive(json, "options") : NULL;
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(o, "skip_mipmap"),
                *fl = cJSON_GetObjectItemCaseSensitive(o, "flip_png_files"),
                *nh = cJSON_GetObjectItemCaseSensitive(o, "use_new_hash");
    if (!json || !cJSON_IsObject(json))
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture pack: %s is not a JSON object; legacy defaults", path);
    else if (!cJSON_IsObject(o) || !cJSON_IsBool(sm) || !cJSON_IsBool(fl) || !cJSON_IsBool(nh))
        pvk_log(vm->gpu, PVK_LOG_ERROR,
                "texture pack: %s: options need skip_mipmap, flip_png_files and use_new_hash as true or false; "
                "legacy defaults", path);
    else {
        ok = true;
        p->skip_mipmap = cJSON_IsTrue(sm);
        p->flip = cJSON_IsTrue(fl);
        p->new_hash = cJSON_IsTrue(nh);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(json, "textures"), *e;
        if (t && !cJSON_IsObject(t))
            pvk_log(vm->gpu, PVK_LOG_ERROR, "texture pack: %s: \"textures\" is not an object; ignored", path);
        const cJSON *map = cJSON_IsObject(t) ? t : NULL;
        cJSON_ArrayForEach(e, map)
        {
            uint64_t h;
            if (!parse_hex(e->string, &h)) {
                pvk_log(vm->gpu, PVK_LOG_WARN, "texture pack: %s: key \"%s\" is not a hash; skipped", path, e->string);
                continue;
            }
            const cJSON *f;
            if (cJSON_IsString(e)) {
                map_add(vm, nm, e->valuestring, h);
            } else if (cJSON_IsArray(e)) {
                cJSON_ArrayForEach(f, e)
                {
                    if (cJSON_IsString(f))
                        map_add(vm, nm, f->valuestring, h);
                }
            } else {
                pvk_log(vm->gpu, PVK_LOG_WARN, "texture pack: %s: \"%s\" names no file; skipped", path, e->string);
            }
        }
    }
    cJSON_Delete(json);
    return ok;
}

typedef struct scan {
    uint32_t cap, skipped_kind, skipped_name;
} scan;

/* One file: its hashes (the textures map's, and its name's) into the index. */
static void index_file(struct pvk_pack *p, const name_map *nm, const char *dirpath, const char *name, scan *s)
{
    const char *dot = strchr(name, '.'), *ext = strrchr(name, '.');
    if (!dot)
        return;
    if (strcmp(ext, ".png")) {
        s->skipped_kind += !strcmp(ext, ".dds") || !strcmp(ext, ".ktx");
        return; /* pack.json and the rest */
    }
    if (dot != ext) { /* name.kind.png: a material map other than colour (Azahar: .norm) */
        s->skipped_kind++;
        return;
    }
    char full[1100];
    snprintf(full, sizeof full, "%s/%s", dirpath, name);
    uint32_t path = UINT32_MAX;
    bool any = false;
    for (uint32_t i = 0; i < nm->n; i++)
        if (!strcmp(nm->name[i], name)) {
            if (path == UINT32_MAX && (path = pool_add(p, full)) == UINT32_MAX)
                return;
            any |= file_add(p, nm->hash[i], path, &s->cap);
        }
    unsigned w, h, f;
    unsigned long long hash;
    if (sscanf(name, "tex1_%ux%u_%llX_%u", &w, &h, &hash, &f) == 4) {
        if (path == UINT32_MAX && (path = pool_add(p, full)) == UINT32_MAX)
            return;
        any |= file_add(p, hash, path, &s->cap);
    }
    s->skipped_name += !any;
}

static void scan_dir(struct pvk_pack *p, const name_map *nm, const char *dirpath, int depth, scan *s)
{
    DIR *d = opendir(dirpath);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[1100];
        snprintf(sub, sizeof sub, "%s/%s", dirpath, e->d_name);
        struct stat st;
        if (stat(sub, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 16)
                scan_dir(p, nm, sub, depth + 1, s);
        } else if (S_ISREG(st.st_mode))
            index_file(p, nm, dirpath, e->d_name, s);
    }
    closedir(d);
}

static int by_hash(const void *a, const void *b)
{
    const pack_file *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash ? 1 : x->path < y->path ? -1 : x->path > y->path;
}

static int32_t find_file(const struct pvk_pack *p, uint64_t hash)
{
    uint32_t lo = 0, hi = p->n_files;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (p->files[mid].hash < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_files && p->files[lo].hash == hash ? (int32_t)lo : -1;
}

/* ---- the worker: PNG files to materials ---- */

static uint8_t *load_png(const char *path, uint32_t *w, uint32_t *h, char *err, size_t errlen)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        snprintf(err, errlen, "%s: %s", path, img.message);
        return NULL;
    }
    img.format = PNG_FORMAT_RGBA;
    if (img.width > 16384 || img.height > 16384) {
        snprintf(err, errlen, "%s: %ux%u is larger than 16384", path, img.width, img.height);
        png_image_free(&img);
        return NULL;
    }
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    if (!px) {
        snprintf(err, errlen, "%s: out of memory", path);
        png_image_free(&img);
        return NULL;
    }
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
        snprintf(err, errlen, "%s: %s", path, img.message);
        free(px);
        return NULL;
    }
    *w = img.width;
    *h = img.height;
    return px;
}

static bool pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

/* Level l+1 from level l (w x h, both even or 1): the mean of each 2x2. */
static void box_down(const uint8_t *src, uint32_t w, uint32_t h, uint8_t *dst)
{
    uint32_t dw = w > 1 ? w / 2 : 1, dh = h > 1 ? h / 2 : 1;
    for (uint32_t y = 0; y < dh; y++)
        for (uint32_t x = 0; x < dw; x++)
            for (int c = 0; c < 4; c++) {
                uint32_t x0 = x * 2, y0 = y * 2, x1 = x0 + (w > 1), y1 = y0 + (h > 1);
                uint32_t s = src[((size_t)y0 * w + x0) * 4 + c] + src[((size_t)y0 * w + x1) * 4 + c] +
                             src[((size_t)y1 * w + x0) * 4 + c] + src[((size_t)y1 * w + x1) * 4 + c];
                dst[((size_t)y * dw + x) * 4 + c] = (uint8_t)((s + 2) / 4);
            }
}

static void flip_rows(uint8_t *px, uint32_t w, uint32_t h)
{
    size_t row = (size_t)w * 4;
    uint8_t *tmp = malloc(row);
    for (uint32_t y = 0; tmp && y < h / 2; y++) {
        memcpy(tmp, px + y * row, row);
        memcpy(px + y * row, px + (h - 1 - y) * row, row);
        memcpy(px + (h - 1 - y) * row, tmp, row);
    }
    free(tmp);
}

/* A material's levels from its files (on the worker; `m`'s request fields
 * are not written by anyone while it is QUEUED). */
static bool decode(const struct pvk_pack *p, material *m)
{
    uint32_t w, h;
    const char *path0 = p->pool + p->files[m->file[0]].path;
    uint8_t *l0 = load_png(path0, &w, &h, m->error, sizeof m->error);
    if (!l0)
        return false;
    uint32_t s = w / m->tw;
    if (w % m->tw || h % m->th || h / m->th != s || !pow2(s) || s > 16) {
        snprintf(m->error, sizeof m->error,
                 "%s: %ux%u is not the texture's %ux%u times a power of two (at most 16) in both directions", path0, w,
                 h, m->tw, m->th);
        free(l0);
        return false;
    }
    size_t total = 0;
    for (uint32_t l = 0; l < m->levels; l++)
        total += (size_t)(w >> l) * (h >> l) * 4;
    uint8_t *all = realloc(l0, total);
    if (!all) {
        snprintf(m->error, sizeof m->error, "%s: out of memory", path0);
        free(l0);
        return false;
    }
    if (!p->flip) /* flip_png_files false: the files are stored bottom row first */
        flip_rows(all, w, h);
    size_t off = (size_t)w * h * 4;
    for (uint32_t l = 1; l < m->levels; l++) {
        uint32_t lw = w >> l, lh = h >> l, fw = 0, fh = 0;
        uint8_t *dst = all + off, *prev = all + off - (size_t)(lw * 2) * (lh * 2) * 4;
        uint8_t *px = NULL;
        if (!p->skip_mipmap && m->file[l] >= 0) {
            char err[256];
            const char *path = p->pool + p->files[m->file[l]].path;
            px = load_png(path, &fw, &fh, err, sizeof err);
            if (px && (fw != lw || fh != lh)) {
                free(px);
                px = NULL;
            }
        }
        if (px) {
            if (!p->flip)
                flip_rows(px, lw, lh);
            memcpy(dst, px, (size_t)lw * lh * 4);
            free(px);
        } else
            box_down(prev, lw * 2, lh * 2, dst);
        off += (size_t)lw * lh * 4;
    }
    m->w = w;
    m->h = h;
    m->scale = s;
    m->rgba = all;
    m->bytes = total;
    return true;
}

static void *worker(void *arg)
{
    struct pvk_pack *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->q_len && !p->stop)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stop)
            break;
        material *m = p->queue[p->q_head];
        p->q_head = (p->q_head + 1) % MATERIALS;
        p->q_len--;
        pthread_mutex_unlock(&p->lock);
        bool ok = decode(p, m);
        pthread_mutex_lock(&p->lock);
        m->state = ok ? READY : FAILED;
        if (ok)
            p->held += m->bytes;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- the host's side ---- */

pvk_result pvk_pack_init(pvk_vram *vm, const char *dir, bool sync)
{
    if (!dir || !*dir)
        return PVK_SUCCESS;
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture pack: %s is not a folder", dir);
        return PVK_ERROR_INVALID_ARGUMENT;
    }
    struct pvk_pack *p = calloc(1, sizeof *p);
    if (!p)
        return PVK_ERROR_OUT_OF_MEMORY;
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    name_map nm = {0};
    if (!read_config(vm, p, &nm)) { /* Azahar's legacy defaults */
        p->new_hash = false;
        p->skip_mipmap = true;
        p->flip = true;
    }
    scan s = {0};
    scan_dir(p, &nm, p->dir, 0, &s);
    for (uint32_t i = 0; i < nm.n; i++)
        free(nm.name[i]);
    free(nm.name);
    free(nm.hash);
    if (p->n_files)
        qsort(p->files, p->n_files, sizeof *p->files, by_hash);
    uint32_t dups = 0, n = 0; /* one file per hash: the first in path order */
    for (uint32_t i = 0; i < p->n_files; i++) {
        if (n && p->files[n - 1].hash == p->files[i].hash) {
            dups += p->files[n - 1].path != p->files[i].path;
            continue;
        }
        p->files[n++] = p->files[i];
    }
    p->n_files = n;
    if (dups)
        pvk_log(vm->gpu, PVK_LOG_WARN, "texture pack %s: %u files name a hash another file names already; the first "
                                       "in path order is used", dir, dups);
    if (s.skipped_kind)
        pvk_log(vm->gpu, PVK_LOG_WARN,
                "texture pack %s: %u DDS, KTX or material-map (.norm) files skipped: picavk reads colour PNGs only",
                dir, s.skipped_kind);
    if (s.skipped_name)
        pvk_log(vm->gpu, PVK_LOG_WARN, "texture pack %s: %u PNG files not named tex1_WxH_HASH_FORMAT and not in "
                                       "pack.json's textures; skipped", dir, s.skipped_name);
    p->share = vm->gpu->budget.pack;
    p->sync = sync;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    if (pthread_create(&p->thread, NULL, worker, p)) {
        pvk_log(vm->gpu, PVK_LOG_ERROR, "texture pack: no worker thread");
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->work);
        pthread_cond_destroy(&p->done);
        free(p->files);
        free(p->pool);
        free(p);
        return PVK_ERROR_OUT_OF_MEMORY;
    }
    p->thread_ok = true;
    vm->pack = p;
    pvk_log(vm->gpu, PVK_LOG_INFO, "texture pack %s: %u files (%s hash, mips %s, PNGs %s)", dir, p->n_files,
            p->new_hash ? "new" : "old", p->skip_mipmap ? "generated" : "from files", p->flip ? "upright" : "flipped");
    return PVK_SUCCESS;
}

void pvk_pack_destroy(pvk_vram *vm)
{
    struct pvk_pack *p = vm->pack;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
    if (p->thread_ok)
        pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    for (uint32_t i = 0; i < MATERIALS; i++)
        free(p->m[i].rgba);
    free(p->files);
    free(p->pool);
    free(p);
    vm->pack = NULL;
}

/* The material for `hash`, under the lock: its own, else a free slot,
 * else the least recently used one not being decoded (its pixels go; a
 * failure it remembered is forgotten).  NULL: every slot is being decoded. */
static material *slot_of(struct pvk_pack *p, uint64_t hash)
{
    material *free_slot = NULL, *lru = NULL;
    for (uint32_t i = 0; i < MATERIALS; i++) {
        material *m = &p->m[i];
        if (m->hash == hash)
            return m;
        if (!m->hash)
            free_slot = free_slot ? free_slot : m;
        else if (m->state != QUEUED && (!lru || m->last_use < lru->last_use))
            lru = m;
    }
    material *m = free_slot ? free_slot : lru;
    if (m) {
        p->held -= m->bytes;
        free(m->rgba);
        memset(m, 0, sizeof *m);
        m->hash = hash;
    }
    return m;
}

/* Ready materials past the share go, least recently used first (not `keep`). */
static void trim(struct pvk_pack *p, const material *keep)
{
    while (p->held > p->share) {
        material *lru = NULL;
        for (uint32_t i = 0; i < MATERIALS; i++)
            if (p->m[i].state == READY && &p->m[i] != keep && (!lru || p->m[i].last_use < lru->last_use))
                lru = &p->m[i];
        if (!lru)
            return;
        p->held -= lru->bytes;
        free(lru->rgba);
        lru->rgba = NULL;
        lru->bytes = 0;
        lru->state = UNKNOWN; /* asked again, decoded again; the slot stays (no tombstones needed) */
    }
}

int pvk_pack_find(pvk_vram *vm, const pvk_texture_desc *d, const uint64_t *level_hash, pvk_replacement *out)
{
    struct pvk_pack *p = vm->pack;
    if (!p || d->faces != 1 || !pow2(d->width) || !pow2(d->height) || d->levels > PVK_PACK_LEVELS)
        return PVK_PACK_NONE;
    int32_t f0 = find_file(p, level_hash[0]);
    if (f0 < 0)
        return PVK_PACK_NONE;
    pthread_mutex_lock(&p->lock);
    material *m = slot_of(p, level_hash[0]);
    int st = PVK_PACK_NONE;
    if (m) {
        if (m->hash && m->state == READY && (m->tw != d->width || m->th != d->height || m->levels != d->levels)) {
            p->held -= m->bytes; /* asked for as another texture: made again for this one */
            free(m->rgba);
            m->rgba = NULL;
            m->state = UNKNOWN;
        }
        m->last_use = ++p->tick;
        if (m->state == UNKNOWN && p->q_len < MATERIALS) {
            m->tw = d->width, m->th = d->height, m->levels = d->levels;
            for (uint32_t l = 0; l < d->levels; l++)
                m->file[l] = l ? find_file(p, level_hash[l]) : f0;
            m->state = QUEUED;
            m->logged = false;
            p->queue[(p->q_head + p->q_len++) % MATERIALS] = m;
            pthread_cond_signal(&p->work);
        }
        while (p->sync && m->state == QUEUED) /* the host asked to draw no original while decoding */
            pthread_cond_wait(&p->done, &p->lock);
        st = m->state == READY    ? PVK_PACK_READY
             : m->state == FAILED ? PVK_PACK_NONE
                                  : PVK_PACK_PENDING;
        if (st == PVK_PACK_READY) {
            trim(p, m);
            *out = (pvk_replacement){m->rgba, m->w, m->h, m->levels, m->scale};
        }
        if (m->state == FAILED && !m->logged) {
            m->logged = true;
            p->failures++;
            pvk_log(vm->gpu, PVK_LOG_WARN, "texture pack: %s; the texture %016llX stays as it is", m->error,
                    (unsigned long long)m->hash);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return st;
}

bool pvk_pack_old_hash(const pvk_vram *vm)
{
    return vm->pack && !vm->pack->new_hash;
}

void pvk_pack_count(pvk_vram *vm, bool replaced, bool pending)
{
    if (vm->pack)
        vm->pack->replaced += replaced, vm->pack->pending_draws += pending;
}

void pvk_pack_stats(const pvk_vram *vm, pvk_stats *s)
{
    struct pvk_pack *p = vm->pack;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    s->textures_replaced = p->replaced;
    s->replacement_pending_draws = p->pending_draws;
    s->texture_pack_failures = p->failures;
    s->held_pack_bytes = p->held;
    pthread_mutex_unlock(&p->lock);
}

bool pvk_pack_idle(pvk_vram *vm)
{
    struct pvk_pack *p = vm->pack;
    if (!p)
        return true;
    pthread_mutex_lock(&p->lock);
    bool idle = !p->q_len;
    for (uint32_t i = 0; idle && i < MATERIALS; i++)
        idle = p->m[i].state != QUEUED;
    pthread_mutex_unlock(&p->lock);
    return idle;
}

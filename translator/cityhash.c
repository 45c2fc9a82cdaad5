/* CityHash64, version 1.1 (Geoff Pike and Jyrki Alakuijala's published
 * algorithm), the hash Citra and Azahar name dumped textures and texture
 * pack files by.  No Debian package computes this version (libfarmhash's
 * Hash64 agrees only up to 64 bytes), so it is written here from the
 * algorithm; tests/test_cityhash.c checks it against reference values
 * (../shared/vectors/cityhash64.txt, tests/vectors/).  Bytes are read
 * little-endian whatever the host. */
#include "translator/translator.h"

static const uint64_t k0 = 0xC3A5C85C97CB3127ull;
static const uint64_t k1 = 0xB492B66FBE98F273ull;
static const uint64_t k2 = 0x9AE16A3B2F90404Full;

static uint64_t fetch64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t fetch32(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t rot(uint64_t v, int s)
{
    return s ? v >> s | v << (64 - s) : v;
}

static uint64_t shift_mix(uint64_t v)
{
    return v ^ v >> 47;
}

static uint64_t bswap(uint64_t v)
{
    return __builtin_bswap64(v);
}

static uint64_t hash16_mul(uint64_t u, uint64_t v, uint64_t mul)
{
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t hash16(uint64_t u, uint64_t v)
{
    return hash16_mul(u, v, 0x9DDFEA08EB382D69ull);
}

static uint64_t len0to16(const uint8_t *s, size_t len)
{
    if (len >= 8) {
        uint64_t mul = k2 + len * 2, a = fetch64(s) + k2, b = fetch64(s + len - 8);
        uint64_t c = rot(b, 37) * mul + a, d = (rot(a, 25) + b) * mul;
        return hash16_mul(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = k2 + len * 2, a = fetch32(s);
        return hash16_mul(len + (a << 3), fetch32(s + len - 4), mul);
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix(y * k2 ^ z * k0) * k2;
    }
    return k2;
}

static uint64_t len17to32(const uint8_t *s, size_t len)
{
    uint64_t mul = k2 + len * 2, a = fetch64(s) * k1, b = fetch64(s + 8);
    uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
    return hash16_mul(rot(a + b, 43) + rot(c, 30) + d, a + rot(b + k2, 18) + c, mul);
}

static uint64_t len33to64(const uint8_t *s, size_t len)
{
    uint64_t mul = k2 + len * 2, a = fetch64(s) * k2, b = fetch64(s + 8), c = fetch64(s + len - 24);
    uint64_t d = fetch64(s + len - 32), e = fetch64(s + 16) * k2, f = fetch64(s + 24) * 9;
    uint64_t g = fetch64(s + len - 8), h = fetch64(s + len - 16) * mul;
    uint64_t u = rot(a + g, 43) + (rot(b, 30) + c) * 9, v = ((a + g) ^ d) + f + 1;
    uint64_t w = bswap((u + v) * mul) + h, x = rot(e + f, 42) + c;
    uint64_t y = (bswap((v + w) * mul) + g) * mul, z = e + f + c;
    a = bswap((x + z) * mul + y) + b;
    b = shift_mix((z + a) * mul + d + h) * mul;
    return b + x;
}

/* 32 bytes at `s` mixed into seeds a, b: out[0], out[1]. */
static void weak32(const uint8_t *s, uint64_t a, uint64_t b, uint64_t out[2])
{
    uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16), z = fetch64(s + 24);
    a += w;
    b = rot(b + a + z, 21);
    uint64_t c = a;
    a += x;
    a += y;
    b += rot(a, 44);
    out[0] = a + z;
    out[1] = b + c;
}

uint64_t pvk_cityhash64(const void *data, size_t len)
{
    const uint8_t *s = data;
    if (len <= 16)
        return len0to16(s, len);
    if (len <= 32)
        return len17to32(s, len);
    if (len <= 64)
        return len33to64(s, len);
    /* 64 bytes a step, seeded from the last 64 */
    uint64_t x = fetch64(s + len - 40), y = fetch64(s + len - 16) + fetch64(s + len - 56);
    uint64_t z = hash16(fetch64(s + len - 48) + len, fetch64(s + len - 24)), v[2], w[2];
    weak32(s + len - 64, len, z, v);
    weak32(s + len - 32, y + k1, x, w);
    x = x * k1 + fetch64(s);
    size_t left = (len - 1) & ~(size_t)63;
    do {
        x = rot(x + y + v[0] + fetch64(s + 8), 37) * k1;
        y = rot(y + v[1] + fetch64(s + 48), 42) * k1;
        x ^= w[1];
        y += v[0] + fetch64(s + 40);
        z = rot(z + w[0], 33) * k1;
        weak32(s, v[1] * k1, x + w[0], v);
        weak32(s + 32, z + w[1], y + fetch64(s + 16), w);
        uint64_t t = z;
        z = x;
        x = t;
        s += 64;
        left -= 64;
    } while (left);
    return hash16(hash16(v[0], w[0]) + shift_mix(y) * k1 + z, hash16(v[1], w[1]) + x);
}

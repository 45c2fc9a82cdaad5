/* CityHash64 v1.1 (translator/cityhash.c), the hash of texture dumps and
 * packs, against reference values computed with the implementation Azahar
 * uses (tests/vectors/cityhash64.txt, a copy of
 * ../shared/vectors/cityhash64.txt): every length class of the algorithm
 * (0-16, 17-32, 33-64, and the 64-byte loop with and without a partial
 * last block) up to 256 KiB.  The same bytes at an odd address hash the
 * same (textures start at any 8-byte guest address; the hash reads bytes). */
#include "harness.h"

#include "translator/translator.h"

int main(void)
{
    FILE *f = fopen(PVK_VECTOR_DIR "/cityhash64.txt", "r");
    CHECK(f != NULL);
    char line[256];
    int vectors = 0;
    size_t longest = 0;
    while (f && fgets(line, sizeof line, f)) {
        size_t len;
        unsigned long long want;
        if (line[0] == '#' || sscanf(line, "%zu %llx", &len, &want) != 2)
            continue;
        uint8_t *b = malloc(len + 1);
        CHECK(b != NULL);
        if (!b)
            break;
        for (size_t i = 0; i < len; i++)
            b[i + 1] = (uint8_t)((i * 131 + 7) & 0xFF);
        uint64_t got = pvk_cityhash64(b + 1, len);
        if (got != want)
            fprintf(stderr, "length %zu: %016llX, expected %016llX\n", len, (unsigned long long)got, want);
        CHECK_EQ(got, want);
        memmove(b, b + 1, len); /* aligned this time */
        CHECK_EQ(pvk_cityhash64(b, len), want);
        free(b);
        vectors++;
        longest = len > longest ? len : longest;
    }
    if (f)
        fclose(f);
    printf("%d reference values, lengths up to %zu\n", vectors, longest);
    CHECK(vectors >= 30);
    CHECK(longest >= 65536);
    return th_finish("test_cityhash");
}

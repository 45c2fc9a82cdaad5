/* Runs a fuzz target over files (the stored corpus) without libFuzzer, so
 * every build checks that the corpus still passes: no crash, a usable
 * context after each input (the target checks), no validation message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
uint64_t pvk_fuzz_validation_errors(void);

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int ran = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
        size_t got = fread(buf, 1, n > 0 ? (size_t)n : 0, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, got);
        free(buf);
        ran++;
    }
    uint64_t validation = pvk_fuzz_validation_errors();
    printf("%d inputs ran, %llu validation messages\n", ran, (unsigned long long)validation);
    return validation ? 1 : 0;
}

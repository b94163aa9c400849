/* A stand-in for libFuzzer given to libfuzzer-sys through CUSTOM_LIBFUZZER_PATH (as the only
 * member of an archive), so that cargo can link a `#![no_main]` fuzz target without compiling
 * and linking libFuzzer. It runs each file named on the command line through
 * LLVMFuzzerTestOneInput once: a plain, uninstrumented replayer. The binary evotest runs is
 * linked separately, with fuzz_main.c (../ROUTE.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
            return 2;
        fclose(f);
        int r = LLVMFuzzerTestOneInput(buf, len);
        printf("%s: %d\n", argv[i], r);
        free(buf);
    }
    return 0;
}

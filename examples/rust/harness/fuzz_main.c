/* evotest's driver for a libFuzzer-style target (cargo-fuzz's fuzz_target!, or C's
 * LLVMFuzzerTestOneInput): main() takes inputs from the evotest runtime and hands each, as raw
 * bytes, to LLVMFuzzerTestOneInput. It stands in for libFuzzer, which therefore must not be linked
 * (see ../ROUTE.md: libfuzzer-sys's link_libfuzzer feature). Run by hand: ./a.out FILE.
 *
 * libfuzzer-sys's LLVMFuzzerInitialize installs a panic hook that aborts, so a panic in the target
 * ends the process with SIGABRT, as a crash under libFuzzer does. Link libfuzzer_stubs.c too. */
#include <stddef.h>
#include <stdint.h>

extern const unsigned char *__evotest_next(int argc, char **argv, size_t *len);
extern void __evotest_return(uint32_t kind, uint64_t bits);
extern int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t len = 0;
    const unsigned char *in;
    while ((in = __evotest_next(argc, argv, &len)) != 0) {
        /* libfuzzer-sys returns -1 for an input its target rejected (Corpus::Reject), else 0. */
        int r = LLVMFuzzerTestOneInput(in, len);
        __evotest_return(1 /* RET_SIGNED */, (uint64_t)(int64_t)r);
    }
    return 0;
}

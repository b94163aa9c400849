/* The libFuzzer functions that libfuzzer-sys references besides the entry points it defines
 * itself (LLVMFuzzerMutate, for fuzz_mutator! and libfuzzer_sys::fuzzer_mutate). Linked in place
 * of libFuzzer: evotest generates inputs itself, so a custom mutator gets its input back
 * unchanged. Weak, so that a real libFuzzer wins if one is linked as well. */
#include <stddef.h>
#include <stdint.h>

__attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
    (void)data;
    (void)max_size;
    return size;
}

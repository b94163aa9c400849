/* Hand-written harness for examples/rust/triangle's extern "C" function triangle_c, in the shape
 * evotest's generated harnesses have (src/harness.rs): inputs from the runtime, return value
 * recorded. Input: 12 bytes, three little-endian int32 (run by hand: ./a.out FILE). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern const unsigned char *__evotest_next(int argc, char **argv, size_t *len);
extern void __evotest_return(uint32_t kind, uint64_t bits);
int32_t triangle_c(int32_t a, int32_t b, int32_t c);

int main(int argc, char **argv) {
    size_t len = 0;
    const unsigned char *in;
    while ((in = __evotest_next(argc, argv, &len)) != 0) {
        unsigned char buf[12] = {0};
        memcpy(buf, in, len < 12 ? len : 12);
        int32_t a, b, c;
        memcpy(&a, buf, 4);
        memcpy(&b, buf + 4, 4);
        memcpy(&c, buf + 8, 4);
        int32_t r = triangle_c(a, b, c);
        __evotest_return(1 /* RET_SIGNED */, (uint64_t)(int64_t)r);
    }
    return 0;
}

#include <stdint.h>
#include <stddef.h>
volatile int sink;
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
  if (n == 0) return 0;
  int s = 0;
  for (int i = 0; i < 20000; i++) {
    uint8_t c = d[i % n];
    if (c == 'x') s++;
    if (c > 'a' && c < 'z') s += 2;
    switch (c & 7) { case 1: s += 3; break; case 2: s -= 1; break; default: break; }
  }
  sink = s;
  return 0;
}

// lite_replay.c: the harness's own cost per execution, without any engine (bench/fuzz/harness-cost.sh).
// Usage: replay DIR ROUNDS. Reads every file of DIR into memory, then runs each through
// LLVMFuzzerTestOneInput ROUNDS times (a fresh heap copy each time, as the engines hand it over)
// and prints the process's CPU microseconds per execution. With LITE=1 in the environment, an
// evotest build runs every execution coverage-only (FLAG_LITE in the word __evotest_flags points
// at: the functions' coverage-only clones); other builds ignore it.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
__attribute__((weak)) int LLVMFuzzerInitialize(int *, char ***);
__attribute__((weak)) unsigned *__evotest_flags;
static unsigned myflags;
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  if (getenv("LITE") && &__evotest_flags) { myflags = 8; __evotest_flags = &myflags; }
  DIR *d = opendir(argv[1]); struct dirent *e; int n = 0, cap = 1 << 16;
  uint8_t **bufs = malloc(cap * sizeof *bufs); size_t *lens = malloc(cap * sizeof *lens);
  char p[4096];
  while ((e = readdir(d)) && n < cap) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", argv[1], e->d_name);
    FILE *f = fopen(p, "rb"); if (!f) continue;
    fseek(f, 0, SEEK_END); long l = ftell(f); fseek(f, 0, SEEK_SET);
    if (l < 0 || l > 1 << 20) { fclose(f); continue; }
    bufs[n] = malloc(l + 1); lens[n] = fread(bufs[n], 1, l, f); fclose(f); n++;
  }
  int rounds = atoi(argv[2]);
  struct timespec a, b; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) {
      uint8_t *c = malloc(lens[i] ? lens[i] : 1); memcpy(c, bufs[i], lens[i]);
      LLVMFuzzerTestOneInput(c, lens[i]); free(c);
    }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  double us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3;
  printf("%d inputs x %d rounds: %.2f us/exec\n", n, rounds, us / ((double)n * rounds));
  return 0;
}

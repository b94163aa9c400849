// evotest's libFuzzer-compatible main(); see lib.rs.
#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);
const uint8_t *__evotest_next(int argc, char **argv, size_t *len);
void __evotest_return(uint32_t kind, uint64_t bits);
int __evotest_under_engine(void);

// Marks executables linked with this driver (the engine looks for the symbol).
__attribute__((used)) const char __evotest_fuzz_driver[] = "evotest libFuzzer-compatible driver";

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// Run the harness once on the contents of `path`. Returns 0, or 1 if it cannot be read.
static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "evotest driver: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      cap *= 2;
      uint8_t *b = realloc(buf, cap);
      if (!b) { free(buf); buf = NULL; }
      else buf = b;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "evotest driver: out of memory reading %s\n", path);
    return 1;
  }
  // exactly n bytes, so that reads past the end are caught by a sanitizer
  uint8_t *copy = malloc(n ? n : 1);
  memcpy(copy, buf, n);
  free(buf);
  fprintf(stderr, "Running: %s\n", path);
  double t0 = now_ms();
  LLVMFuzzerTestOneInput(copy, n);
  fprintf(stderr, "Executed %s in %.0f ms\n", path, now_ms() - t0);
  free(copy);
  return 0;
}

static int run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "evotest driver: no such file: %s\n", path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path);
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "evotest driver: cannot read directory %s\n", path);
    return 1;
  }
  int failed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    char *p = malloc(len);
    snprintf(p, len, "%s/%s", path, e->d_name);
    struct stat s2;
    if (stat(p, &s2) == 0 && S_ISREG(s2.st_mode)) failed |= run_file(p);
    free(p);
  }
  closedir(d);
  return failed;
}

// In-process mode (`evotest fuzz --in_process`): load evotest's engine into this process and let it
// call the harness in a loop. Returns the process's exit status.
static int run_in_process(const char *engine) {
  void *h = dlopen(engine, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "evotest driver: cannot load the in-process engine: %s\n", dlerror());
    return 2;
  }
  typedef int (*entry_t)(int (*)(const uint8_t *, size_t), void (*)(uint32_t, uint64_t));
  entry_t entry = (entry_t)dlsym(h, "__evotest_in_process_main");
  if (!entry) {
    fprintf(stderr, "evotest driver: %s has no __evotest_in_process_main\n", engine);
    return 2;
  }
  return entry(LLVMFuzzerTestOneInput, __evotest_return);
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  const char *engine = getenv("__EVOTEST_IN_PROCESS");
  if (engine && *engine) return run_in_process(engine);
  if (__evotest_under_engine()) {
    size_t len = 0;
    const uint8_t *p;
    while ((p = __evotest_next(argc, argv, &len)) != NULL) {
      uint8_t *copy = malloc(len ? len : 1);
      memcpy(copy, p, len);
      LLVMFuzzerTestOneInput(copy, len);
      free(copy);
      __evotest_return(0, 0);
    }
    return 0;
  }
  int files = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') continue;  // a libFuzzer flag
    files++;
    failed |= run_path(argv[i]);
  }
  if (files == 0) {
    if (isatty(0)) {
      fprintf(stderr,
              "usage: %s FILE|DIR...   (runs each input once)\n"
              "This harness was linked with evotest's driver; fuzz it with `evotest fuzz %s CORPUS_DIR`.\n",
              argv[0], argv[0]);
      return 1;
    }
    fprintf(stderr, "Running: standard input\n");
    return run_file("/dev/stdin");
  }
  return failed;
}

// evotest's libFuzzer-compatible main(); see lib.rs.
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
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
void __evotest_install_crash_stacks(void);

// Leak detection under the engine, as libFuzzer's -detect_leaks=1: with LeakSanitizer linked
// (-fsanitize=address or =leak) and enabled (evotest sets ASAN_OPTIONS=detect_leaks=1 for the fork
// server), an input after which more blocks were allocated than freed gets a leak check at once;
// a leak is reported on stderr and the process aborts, so that the input is a crash of its own.
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
extern int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void *, size_t),
                                                     void (*)(const volatile void *)) __attribute__((weak));
static volatile int counting = 0;
static volatile long mallocs = 0, frees = 0;
static void on_malloc(const volatile void *p, size_t n) {
  (void)p, (void)n;
  if (counting) mallocs++;
}
static void on_free(const volatile void *p) {
  (void)p;
  if (counting) frees++;
}

// By hand: libFuzzer's -timeout=N (seconds per input; exit 70 past it) and -rss_limit_mb=N
// (exit 71 past it), so that `./harness -timeout=1 timeout-…` reproduces a hang as it does with
// libFuzzer's binaries.
static unsigned timeout_s = 0;
static unsigned long rss_limit_mb = 0;
static char timeout_msg[256];
static size_t timeout_msg_len = 0;

static void on_alarm(int sig) {
  (void)sig;
  if (write(2, timeout_msg, timeout_msg_len) < 0) {}
  _exit(70);
}

static unsigned long rss_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;
  if (!f) return 0;
  if (fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
  fclose(f);
  return resident * (unsigned long)sysconf(_SC_PAGESIZE) >> 20;
}

static void *rss_watch(void *arg) {
  (void)arg;
  for (;;) {
    unsigned long mb = rss_mb();
    if (mb > rss_limit_mb) {
      fprintf(stderr, "==%d== ERROR: evotest: out-of-memory (used: %luMb; exceeds: %luMb)\n", (int)getpid(), mb, rss_limit_mb);
      _exit(71);
    }
    usleep(100000);
  }
  return NULL;
}

// Marks executables linked with this driver (the engine looks for the symbol).
__attribute__((used)) const char __evotest_fuzz_driver[] = "evotest libFuzzer-compatible driver";

// By hand: libFuzzer's -error_exitcode=N (77 by default), the status of a run whose harness
// called exit() inside LLVMFuzzerTestOneInput.
static int error_exitcode = 77;
// The input LLVMFuzzerTestOneInput is running on (NULL outside the call), for the exit handler.
static const char *volatile running_label = NULL;

// An atexit handler, registered when running files by hand: exit() called by the harness while
// it runs an input is a failure, as libFuzzer reports it ("fuzz target exited"); under the engine
// that input is a crash, so that its reproducer must not replay as a success.
static void on_exit_in_harness(void) {
  const char *label = running_label;
  if (!label) return;
  running_label = NULL;
  fflush(NULL);
  fprintf(stderr, "==%d== ERROR: evotest: fuzz target exited (exit() called inside LLVMFuzzerTestOneInput on %s)\n",
          (int)getpid(), label);
  _exit(error_exitcode);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// Run the harness once on the contents of `path` (shown as `label`). Returns 0, or 1 if it
// cannot be read.
static int run_file(const char *path, const char *label) {
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
  fprintf(stderr, "Running: %s\n", label);
  if (timeout_s) {
    int k = snprintf(timeout_msg, sizeof timeout_msg, "==%d== ERROR: evotest: timeout after %u seconds on %s\n",
                     (int)getpid(), timeout_s, label);
    timeout_msg_len = k < 0 ? 0 : (size_t)k < sizeof timeout_msg ? (size_t)k : sizeof timeout_msg - 1;
    alarm(timeout_s);
  }
  double t0 = now_ms();
  running_label = label;
  LLVMFuzzerTestOneInput(copy, n);
  running_label = NULL;
  if (timeout_s) alarm(0);
  fprintf(stderr, "Executed %s in %.0f ms\n", label, now_ms() - t0);
  free(copy);
  return 0;
}

static int run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "evotest driver: no such file: %s\n", path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path, path);
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
    if (stat(p, &s2) == 0 && S_ISREG(s2.st_mode)) failed |= run_file(p, p);
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

// libFuzzer's LLVMFuzzerMutate, for custom mutators (LLVMFuzzerCustomMutator) that call it, as most
// do, to change the bytes of a structure they keep valid. evotest does not call custom mutators
// (`evotest fuzz` warns when a harness defines one); this is so that such harnesses link and run.
// Byte-level havoc, 1 to 4 mutations of: a flipped bit, a random byte, an interesting 8/16/32-bit
// value, a small addition, inserted bytes, erased bytes, a copied block, a swapped pair. The
// random stream is this process's own (fixed start, so a run by hand is repeatable).
static uint64_t mutate_state = 0x9e3779b97f4a7c15ull;

static uint64_t mutate_rand(void) {
  uint64_t x = mutate_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return mutate_state = x;
}

static size_t mutate_below(size_t n) { return n ? (size_t)(mutate_rand() % n) : 0; }

size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t MaxSize) {
  static const int64_t interesting[] = {0, 1, -1, 16, 32, 64, 100, 127, -128, 255, 256, 512, 1000, 1024, 4096,
                                        32767, -32768, 65535, 65536, 0x7fffffff, -0x7fffffffll - 1, 0xffffffffll};
  if (!Data || MaxSize == 0) return 0;
  if (Size > MaxSize) Size = MaxSize;
  if (Size == 0) {
    Data[0] = (uint8_t)mutate_rand();
    return 1;
  }
  int rounds = 1 + (int)mutate_below(4);
  for (int r = 0; r < rounds; r++) {
    size_t at = mutate_below(Size);
    switch (mutate_below(8)) {
    case 0:
      Data[at] ^= (uint8_t)(1u << mutate_below(8));
      break;
    case 1:
      Data[at] = (uint8_t)mutate_rand();
      break;
    case 2: {
      int64_t v = interesting[mutate_below(sizeof interesting / sizeof *interesting)];
      size_t width = (size_t)1 << mutate_below(3);  // 1, 2 or 4 bytes
      if (width > Size - at) width = Size - at;
      int big = (int)mutate_below(2);
      for (size_t k = 0; k < width; k++) Data[at + k] = (uint8_t)((uint64_t)v >> (8 * (big ? width - 1 - k : k)));
      break;
    }
    case 3:
      Data[at] = (uint8_t)(Data[at] + (mutate_below(2) ? 1 : -1) * (int)(1 + mutate_below(16)));
      break;
    case 4: {  // insert 1 to 8 bytes (a repeated or random byte)
      if (Size >= MaxSize) {
        Data[at] = (uint8_t)mutate_rand();
        break;
      }
      size_t k = 1 + mutate_below(8);
      if (k > MaxSize - Size) k = MaxSize - Size;
      at = mutate_below(Size + 1);
      memmove(Data + at + k, Data + at, Size - at);
      int same = (int)mutate_below(2);
      uint8_t b = (uint8_t)mutate_rand();
      for (size_t j = 0; j < k; j++) Data[at + j] = same ? b : (uint8_t)mutate_rand();
      Size += k;
      break;
    }
    case 5: {  // erase 1 to 8 bytes, leaving at least one
      if (Size <= 1) {
        Data[0] ^= (uint8_t)(1 + mutate_below(255));
        break;
      }
      size_t k = 1 + mutate_below(8);
      if (k > Size - 1) k = Size - 1;
      at = mutate_below(Size - k + 1);
      memmove(Data + at, Data + at + k, Size - at - k);
      Size -= k;
      break;
    }
    case 6: {  // copy a block over another part of the input
      size_t from = mutate_below(Size), len = 1 + mutate_below(Size - (from > at ? from : at));
      memmove(Data + at, Data + from, len);
      break;
    }
    default: {  // swap two bytes, or change one when they are the same
      size_t other = mutate_below(Size);
      uint8_t t = Data[at];
      if (t == Data[other]) Data[at] = (uint8_t)(t + 1);
      else {
        Data[at] = Data[other];
        Data[other] = t;
      }
      break;
    }
    }
  }
  return Size;
}

#ifndef EVOTEST_BIN
#define EVOTEST_BIN "evotest"
#endif

// Whether `a` is libFuzzer's -ignore_remaining_args=N with N non-zero: the arguments after it are
// the harness's own (LLVMFuzzerInitialize reads them), neither flags nor inputs.
static int ignores_remaining(const char *a) {
  static const char flag[] = "-ignore_remaining_args=";
  return strncmp(a, flag, sizeof flag - 1) == 0 && strtol(a + sizeof flag - 1, NULL, 10) != 0;
}

// The index of the first -ignore_remaining_args=1 (the arguments after it are the harness's own),
// or argc.
static int ignore_flag_at(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (ignores_remaining(argv[i])) return i;
  return argc;
}

// Whether libFuzzer flag `a` is one of `flags`.
static int flag_in(const char *a, const char *const *flags, size_t n_flags) {
  while (*a == '-') a++;
  for (size_t i = 0; i < n_flags; i++) {
    size_t n = strlen(flags[i]);
    if (strncmp(a, flags[i], n) == 0 && (a[n] == '=' || a[n] == 0)) return 1;
  }
  return 0;
}

// Whether a libFuzzer binary run with these arguments would fuzz (or merge, or minimise) rather
// than run the files it was given: -merge, -minimize_crash, -jobs, -workers or -fork; -runs or
// -max_total_time with a corpus directory or no input at all; two directories or more (a corpus
// and its seeds); a directory with a flag that only fuzzing reads (-dict, -max_len, -seed, …),
// as a project's `make fuzz` target runs it. (A directory alone, with no such flag, is replayed
// here, where libFuzzer would fuzz it without end.)
static int would_fuzz(int argc, char **argv) {
  static const char *const always[] = {"jobs", "workers", "fork", "merge", "minimize_crash", "set_cover_merge"};
  static const char *const budget[] = {"runs", "max_total_time"};
  static const char *const fuzzing[] = {"dict", "max_len", "seed", "only_ascii", "use_value_profile", "len_control",
                                        "mutate_depth"};
  int budgeted = 0, fuzz_flag = 0, dirs = 0, inputs = 0, end = ignore_flag_at(argc, argv);
  for (int i = 1; i < end; i++) {
    if (argv[i][0] == '-') {
      if (argv[i][1] == '-') continue;  // the harness's own option, not libFuzzer's
      // libFuzzer's -merge=0, -fork=0, -jobs=0 … are its defaults: off
      size_t len = strlen(argv[i]);
      int off = len > 2 && strcmp(argv[i] + len - 2, "=0") == 0;
      if (!off && flag_in(argv[i], always, sizeof always / sizeof *always)) return 1;
      budgeted |= flag_in(argv[i], budget, sizeof budget / sizeof *budget);
      fuzz_flag |= flag_in(argv[i], fuzzing, sizeof fuzzing / sizeof *fuzzing);
      continue;
    }
    struct stat st;
    inputs++;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) dirs++;
  }
  return (budgeted && (dirs > 0 || inputs == 0)) || dirs >= 2 || (dirs > 0 && fuzz_flag);
}

// Run by hand with a fuzzing flag: `evotest fuzz THIS_HARNESS ARGS...`, as a libFuzzer binary
// would fuzz itself (a project's fuzz test script that ran each file once and passed would be a
// false pass). evotest is $EVOTEST, else the one built with this driver, else `evotest` on PATH.
// Arguments that start with `--` are the harness's own (libFuzzer ignores them and leaves them to
// LLVMFuzzerInitialize, as libsrtp's fuzzer reads `--no_align`): they go after `--`, which
// `evotest fuzz` passes on to the harness.
static int hand_to_evotest(int argc, char **argv) {
  char self[4096];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) return -1;
  self[k] = 0;
  char **args = calloc((size_t)argc + 4, sizeof *args);
  if (!args) return -1;
  args[0] = "evotest";
  args[1] = "fuzz";
  args[2] = self;
  // with -ignore_remaining_args=1 (which `evotest fuzz` reads too: what follows it goes to the
  // harness), the `--` arguments before it go right after it, and the rest as they are
  int n = 3, own = 0, at = ignore_flag_at(argc, argv);
  for (int i = 1; i < at; i++) {
    if (strncmp(argv[i], "--", 2) == 0) own++;
    else args[n++] = argv[i];
  }
  if (at < argc) args[n++] = argv[at];
  else if (own) args[n++] = "--";
  if (own)
    for (int i = 1; i < at; i++)
      if (strncmp(argv[i], "--", 2) == 0) args[n++] = argv[i];
  for (int i = at + 1; i < argc; i++) args[n++] = argv[i];
  const char *env = getenv("EVOTEST");
  if (env && *env) execv(env, args);
  if (access(EVOTEST_BIN, X_OK) == 0) execv(EVOTEST_BIN, args);
  execvp("evotest", args);
  fprintf(stderr,
          "%s: this harness fuzzes with evotest (`evotest fuzz %s ARGS`), which was not found: set EVOTEST=/path/to/evotest "
          "or put it on PATH\n",
          argv[0], argv[0]);
  return 1;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  const char *engine = getenv("__EVOTEST_IN_PROCESS");
  if (engine && *engine) return run_in_process(engine);
  if (__evotest_under_engine()) {
    int leaks = __lsan_do_recoverable_leak_check && __sanitizer_install_malloc_and_free_hooks &&
                __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
    size_t len = 0;
    const uint8_t *p;
    while ((p = __evotest_next(argc, argv, &len)) != NULL) {
      uint8_t *copy = malloc(len ? len : 1);
      memcpy(copy, p, len);
      mallocs = frees = 0;
      counting = 1;
      int r = LLVMFuzzerTestOneInput(copy, len);
      counting = 0;
      free(copy);
      if (leaks && mallocs > frees && __lsan_do_recoverable_leak_check()) {
        fprintf(stderr, "INFO: evotest: a memory leak after this input (-detect_leaks=0 turns leak detection off)\n");
        abort();
      }
      // RET_SIGNED: the engine reads -1 as "reject this input" (libFuzzer: not added to the corpus)
      __evotest_return(1, (uint64_t)(int64_t)r);
    }
    // without the exit-time leak check: what the harness's initialisation keeps is no input's leak
    fflush(NULL);
    _exit(0);
  }
  if (would_fuzz(argc, argv)) return hand_to_evotest(argc, argv);
  int files = 0, failed = 0, at = ignore_flag_at(argc, argv);
  for (int i = 1; i < at; i++) {
    if (strncmp(argv[i], "-timeout=", 9) == 0) timeout_s = (unsigned)strtoul(argv[i] + 9, NULL, 10);
    if (strncmp(argv[i], "-error_exitcode=", 16) == 0) error_exitcode = (int)strtol(argv[i] + 16, NULL, 10);
    if (strncmp(argv[i], "-rss_limit_mb=", 14) == 0) rss_limit_mb = strtoul(argv[i] + 14, NULL, 10);
    if (strncmp(argv[i], "-help=", 6) == 0 && strcmp(argv[i], "-help=0") != 0) {
      fprintf(stderr,
              "usage: %s [-timeout=SECS] [-rss_limit_mb=MB] [-error_exitcode=N] FILE|DIR... [-ignore_remaining_args=1 ARGS...]\n"
              "(runs each input once; no file: standard input; exit() inside the harness exits with -error_exitcode, 77)\n"
              "This harness was linked with evotest's driver: fuzz it with `evotest fuzz %s CORPUS_DIR` (evotest fuzz --help).\n"
              "Where a libFuzzer binary would fuzz (-merge, -minimize_crash, -jobs, -workers, -fork; -runs or -max_total_time\n"
              "with a corpus directory or no input) it runs `evotest fuzz` on itself with the same arguments; other libFuzzer\n"
              "flags are ignored when running files.\n",
              argv[0], argv[0]);
      return 0;
    }
  }
  // a crash without a sanitizer prints its stack, as under the engine
  __evotest_install_crash_stacks();
  if (timeout_s) signal(SIGALRM, on_alarm);
  atexit(on_exit_in_harness);
  if (rss_limit_mb) {
    pthread_t t;
    pthread_create(&t, NULL, rss_watch, NULL);
  }
  for (int i = 1; i < at; i++) {
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
    return run_file("/dev/stdin", "standard input");
  }
  return failed;
}

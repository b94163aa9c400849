/*
 * Coverage replay driver for libFuzzer-style harnesses (evotest bench/fuzz).
 *
 *   replay [DIR | FILE | @LISTFILE]...
 *
 * Calls LLVMFuzzerInitialize (if the harness defines it) once, then
 * LLVMFuzzerTestOneInput on every regular file of every directory (sorted by name, not
 * recursive), every file, and every path listed one per line in a LISTFILE, in that
 * order.  Arguments starting with '-' are ignored (libFuzzer-style flags).
 *
 * Linked with -fprofile-instr-generate, the profile is written at exit.  If an input
 * crashes (SIGSEGV, SIGABRT, ...) or runs longer than $REPLAY_TIMEOUT seconds (default
 * 10), the profile gathered so far is written, the line
 *   replay: aborted at input N: PATH (signal S)
 * goes to stderr (N counts inputs from 0 in the order above) and the process exits with
 * status 77, so that the caller can resume after input N.  If the harness calls exit()
 * itself, the line "replay: exit at input N: PATH" is printed.  This file is compiled
 * without coverage instrumentation: it is not part of any coverage count.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);
__attribute__((weak)) int __llvm_profile_write_file(void);

static volatile long current_index = -1;
static const char *volatile current_path = "";
static long next_index = 0;
static unsigned timeout_secs = 10;

static void write_str(const char *s) {
  ssize_t r = write(2, s, strlen(s));
  (void)r;
}

static void write_long(long v) {
  char buf[32];
  int i = sizeof(buf) - 1;
  int neg = v < 0;
  unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;
  buf[i] = 0;
  do {
    buf[--i] = '0' + (u % 10);
    u /= 10;
  } while (u && i > 1);
  if (neg)
    buf[--i] = '-';
  write_str(buf + i);
}

static void on_fatal(int sig) {
  if (__llvm_profile_write_file)
    __llvm_profile_write_file();
  write_str("replay: aborted at input ");
  write_long(current_index);
  write_str(": ");
  write_str((const char *)current_path);
  write_str(" (signal ");
  write_long(sig);
  write_str(")\n");
  _exit(77);
}

static void on_exit_check(void) {
  if (current_index >= 0) {
    write_str("replay: exit at input ");
    write_long(current_index);
    write_str(": ");
    write_str((const char *)current_path);
    write_str("\n");
  }
}

static void run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  long size;
  uint8_t *buf;
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    next_index++;
    return;
  }
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (size < 0)
    size = 0;
  buf = (uint8_t *)malloc(size ? (size_t)size : 1);
  if (size && fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "replay: short read on %s\n", path);
    size = 0;
  }
  fclose(f);
  current_path = path;
  current_index = next_index;
  alarm(timeout_secs);
  LLVMFuzzerTestOneInput(buf, (size_t)size);
  alarm(0);
  current_index = -1;
  next_index++;
  free(buf);
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void run_dir(const char *dir) {
  struct dirent **names;
  int n = scandir(dir, &names, NULL, alphasort);
  int i;
  if (n < 0) {
    fprintf(stderr, "replay: cannot read directory %s\n", dir);
    return;
  }
  for (i = 0; i < n; i++) {
    char *p;
    struct stat st;
    size_t len = strlen(dir) + strlen(names[i]->d_name) + 2;
    p = (char *)malloc(len);
    snprintf(p, len, "%s/%s", dir, names[i]->d_name);
    if (names[i]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
      run_file(p);
    free(p);
    free(names[i]);
  }
  free(names);
}

static void run_list(const char *listfile) {
  FILE *f = fopen(listfile, "r");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  if (!f) {
    fprintf(stderr, "replay: cannot open list %s\n", listfile);
    exit(2);
  }
  while ((len = getline(&line, &cap, f)) > 0) {
    if (line[len - 1] == '\n')
      line[--len] = 0;
    if (len)
      run_file(line);
  }
  free(line);
  fclose(f);
}

int main(int argc, char **argv) {
  const char *t = getenv("REPLAY_TIMEOUT");
  int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM, SIGTRAP};
  unsigned i;
  int a;
  if (t && atoi(t) > 0)
    timeout_secs = (unsigned)atoi(t);
  for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
    signal(sigs[i], on_fatal);
  atexit(on_exit_check);
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  for (a = 1; a < argc; a++) {
    const char *arg = argv[a];
    if (arg[0] == '-')
      continue;
    if (arg[0] == '@')
      run_list(arg + 1);
    else if (is_dir(arg))
      run_dir(arg);
    else
      run_file(arg);
  }
  fprintf(stderr, "replay: %ld inputs\n", next_index);
  return 0;
}

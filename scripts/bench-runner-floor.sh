#!/usr/bin/env bash
# The floor under perflab's cost per run, measured without perflab: what
# this machine charges for the two things a contained run through the fork
# server adds to a plain fork/exec/wait loop.
#
#   scripts/bench-runner-floor.sh [--runs N] [--round-trips N] [--moves N] [--lookups N]
#
# 1. Wake-ups. Two processes pass a one-byte message back and forth over a
#    SOCK_SEQPACKET pair, as perflab and its fork server do, N round trips
#    (20,000) with the answering process sleeping between messages, then
#    with it polling for up to 100 µs first. A run through the server has
#    two wake-ups that a loop forking its runs itself does not.
# 2. Containment. A C loop runs /bin/true N times (300) bare (fork, exec,
#    wait4), then N times as perflab contains a run: born in a cgroup v2 of
#    its own (clone3 with CLONE_INTO_CGROUP), the cgroup's cpu.stat,
#    cpu.pressure and cgroup.procs read after it, and its memory cgroup's
#    peak reset before and read after (a v1 memory cgroup on a hybrid
#    system, else the run cgroup's memory.peak where it has one); 7 rounds,
#    the two taking turns. Needs root and a cgroup v2 hierarchy; without
#    them this part says why and is skipped.
# 3. Entering a v1 memory cgroup. On a hybrid system the fork server moves
#    itself into its v1 memory cgroup once per experiment. Written to
#    cgroup.procs (a whole thread group), the move takes the kernel's
#    cgroup write lock, which waits for an RCU grace period unless another
#    move took it moments before; written to tasks by a process of one
#    thread (as perflab does), the kernel can skip that lock. A C program
#    moves itself between two memory cgroups N times (5) through each
#    file, 200 ms apart so that each move finds the lock idle, and times
#    each write. Needs root and a v1 memory hierarchy; without them this
#    part says why and is skipped.
# 4. Looking for a run's profile. After each run perflab reads the profile
#    the command may have written into a folder of perflab's own; most
#    commands write none. A C program looks for N (20,000) missing files of
#    new names in a new folder under $TMPDIR (the path lookup perflab made
#    for each run), then reads an empty inotify descriptor watching that
#    folder N times (what perflab does instead, looking for the file only
#    after an event).
#
# Prints the machine's load and CPU pressure at the start, then one line a
# part. Needs a C compiler (cc); `perflab` itself is not used.
set -euo pipefail

usage() {
  echo "bench-runner-floor.sh: $1" >&2
  echo "usage: scripts/bench-runner-floor.sh [--runs N] [--round-trips N] [--moves N] [--lookups N]" >&2
  exit 2
}

runs=300 round_trips=20000 moves=5 lookups=20000
while [[ $# -gt 0 ]]; do
  case $1 in
    --lookups) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 1 ]] || usage "--lookups takes a number of 1 or more"; lookups=$2; shift 2 ;;
    --runs) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 1 ]] || usage "--runs takes a number of 1 or more"; runs=$2; shift 2 ;;
    --round-trips) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 1 ]] || usage "--round-trips takes a number of 1 or more"; round_trips=$2; shift 2 ;;
    --moves) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -ge 1 ]] || usage "--moves takes a number of 1 or more"; moves=$2; shift 2 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
command -v cc >/dev/null || { echo "bench-runner-floor.sh: no C compiler (cc) on PATH; install gcc" >&2; exit 2; }

work=$(mktemp -d)
made=()
cleanup() {
  for dir in "${made[@]}"; do rmdir "$dir" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/wakeup.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
/* Receives one message, polling without sleeping for up to poll_ns first. */
static int receive(int fd, long poll_ns) {
  char byte[8];
  long until = now_ns() + poll_ns;
  while (poll_ns > 0 && now_ns() < until) {
    int n = recv(fd, byte, sizeof byte, MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno != EAGAIN) return -1;
  }
  return recv(fd, byte, sizeof byte, 0);
}
/* Microseconds per round trip, the answering process polling for poll_us. */
static double round_trips(int n, long poll_us) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) { perror("socketpair"); exit(1); }
  pid_t answerer = fork();
  if (answerer == 0) {
    close(pair[0]);
    while (receive(pair[1], poll_us * 1000) > 0) send(pair[1], "a", 1, 0);
    _exit(0);
  }
  close(pair[1]);
  long start = now_ns();
  for (int i = 0; i < n; i++) { send(pair[0], "q", 1, 0); receive(pair[0], 0); }
  long elapsed = now_ns() - start;
  close(pair[0]);
  waitpid(answerer, NULL, 0);
  return elapsed / 1e3 / n;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double sleeping = round_trips(n, 0), polling = round_trips(n, 100);
  printf("wake-ups: a message and its answer took %.1f µs a round trip with the answering process "
         "sleeping, %.1f µs with it polling (%d round trips each)\n", sleeping, polling, n);
  return 0;
}
EOF

cat > "$work/contained.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
static char *true_argv[] = {"/bin/true", NULL};
/* The file `name` of the cgroup `dir`; -1 where it is missing and not
   `required` (cpu.pressure, on a kernel without pressure stall info). */
static int open_in(const char *dir, const char *name, int flags, int required) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, flags);
  if (fd < 0 && required) { perror(path); exit(1); }
  return fd;
}
/* argv: runs, the run cgroup's directory, the memory peak file ("" for
   none), and the v1 memory cgroup to move into first ("" for none). */
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  const char *cgroup = argv[2], *peak_file = argv[3], *memory = argv[4];
  if (*memory) { int procs = open_in(memory, "tasks", O_WRONLY, 1); if (write(procs, "0", 1) != 1) { perror("enter the memory cgroup"); return 1; } close(procs); }
  int dir = open(cgroup, O_RDONLY | O_DIRECTORY);
  int stat = open_in(cgroup, "cpu.stat", O_RDONLY, 1), procs = open_in(cgroup, "cgroup.procs", O_RDONLY, 1);
  int pressure = open_in(cgroup, "cpu.pressure", O_RDONLY, 0);
  int peak = *peak_file ? open(peak_file, O_RDWR) : -1;
  char buffer[4096];
  double bare_ns = 0, contained_ns = 0;
  const int rounds = 7;
  for (int round = 0; round < rounds; round++) {
    long start = now_ns();
    for (int i = 0; i < n; i++) {
      pid_t child = fork();
      if (child == 0) { execv(true_argv[0], true_argv); _exit(127); }
      int status; struct rusage usage; wait4(child, &status, 0, &usage);
    }
    long middle = now_ns();
    for (int i = 0; i < n; i++) {
      if (peak >= 0 && pwrite(peak, "0", 1, 0) != 1) { perror("reset the memory peak"); return 1; }
      struct clone_args args;
      memset(&args, 0, sizeof args);
      args.flags = CLONE_INTO_CGROUP;
      args.exit_signal = SIGCHLD;
      args.cgroup = dir;
      long child = syscall(SYS_clone3, &args, sizeof args);
      if (child == 0) { execv(true_argv[0], true_argv); _exit(127); }
      if (child < 0) { perror("clone3 into the cgroup"); return 1; }
      int status; struct rusage usage; wait4(child, &status, 0, &usage);
      if (pread(stat, buffer, sizeof buffer, 0) < 0 || pread(procs, buffer, sizeof buffer, 0) < 0) { perror("read the cgroup"); return 1; }
      if (pressure >= 0) pread(pressure, buffer, sizeof buffer, 0);
      if (peak >= 0) pread(peak, buffer, sizeof buffer, 0);
    }
    long end = now_ns();
    bare_ns += middle - start;
    contained_ns += end - middle;
  }
  printf("containment: a run of /bin/true took %.1f µs bare and %.1f µs contained (born in its "
         "cgroup, its counters read%s): %.3f times as long (%d rounds of %d runs each, taking turns)\n",
         bare_ns / 1e3 / n / rounds, contained_ns / 1e3 / n / rounds,
         peak >= 0 ? ", its memory peak reset and read" : "", contained_ns / bare_ns, rounds, n);
  return 0;
}
EOF

cat > "$work/moves.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
static int by_value(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
/* argv: moves, the file to write ("cgroup.procs" or "tasks"), then the
   directories of two memory cgroups to move between, 200 ms apart. */
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  const char *file = argv[2];
  double *ms = calloc(n, sizeof *ms);
  for (int i = 0; i < n; i++) {
    usleep(200000);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[3 + i % 2], file);
    int entry = open(path, O_WRONLY);
    if (entry < 0) { perror(path); return 1; }
    long start = now_ns();
    if (write(entry, "0", 1) != 1) { perror("enter the memory cgroup"); return 1; }
    ms[i] = (now_ns() - start) / 1e6;
    close(entry);
  }
  qsort(ms, n, sizeof *ms, by_value);
  printf("memory cgroup: entering a v1 memory cgroup by its %s took %.2f ms (median of %d moves, %.2f to %.2f ms)%s\n",
         file, ms[n / 2], n, ms[0], ms[n - 1],
         *file == 't' ? "; perflab's fork server enters so, once per experiment" : "");
  return 0;
}
EOF

cat > "$work/lookups.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
/* argv: lookups, then an empty folder, watched as perflab watches its
   profiles' folder. */
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  const char *dir = argv[2];
  char path[4096], events[4096];
  long start = now_ns();
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/run-%d.json", dir, i);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) { fprintf(stderr, "%s exists\n", path); return 1; }
  }
  long middle = now_ns();
  int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch < 0 || inotify_add_watch(watch, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) { perror("inotify"); return 1; }
  long watched = now_ns();
  for (int i = 0; i < n; i++) {
    if (read(watch, events, sizeof events) > 0) { fprintf(stderr, "%s: an event came\n", dir); return 1; }
  }
  long end = now_ns();
  printf("profile lookup: looking for a missing file of a new name took %.2f µs, reading an empty "
         "inotify descriptor watching its folder %.2f µs (%d of each)\n",
         (middle - start) / 1e3 / n, (end - watched) / 1e3 / n, n);
  return 0;
}
EOF

cc -O2 -o "$work/wakeup" "$work/wakeup.c"
cc -O2 -o "$work/lookups" "$work/lookups.c"
cc -O2 -o "$work/contained" "$work/contained.c"
cc -O2 -o "$work/moves" "$work/moves.c"

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; CPU pressure: $(head -1 /proc/pressure/cpu 2>/dev/null || echo 'not available')"
"$work/wakeup" "$round_trips"

# The cgroup hierarchies and this process's place in them.
v2_mount=$(awk '{ split($0, halves, " - "); split(halves[2], after, " "); if (after[1] == "cgroup2") { split(halves[1], before, " "); print before[5]; exit } }' /proc/self/mountinfo)
v2_own=$(sed -n 's/^0:://p' /proc/self/cgroup)
v1_mount=$(awk '{ split($0, halves, " - "); split(halves[2], after, " "); if (after[1] == "cgroup" && after[3] ~ /(^|,)memory(,|$)/) { split(halves[1], before, " "); print before[5]; exit } }' /proc/self/mountinfo)
v1_own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
v1_here=''
[[ -n $v1_mount && -n $v1_own ]] && v1_here="$v1_mount${v1_own%/}"

if [[ $(id -u) -ne 0 || -z $v2_mount || -z $v2_own ]]; then
  echo "containment: skipped: making a cgroup needs root and a cgroup v2 hierarchy"
else
  run_cgroup="$v2_mount${v2_own%/}/perflab-floor-$$"
  mkdir "$run_cgroup"
  made+=("$run_cgroup")
  peak='' memory=''
  if [[ -n $v1_here ]]; then
    memory="$v1_here/perflab-floor-$$"
    mkdir "$memory"
    made=("$memory" "${made[@]}")
    peak="$memory/memory.max_usage_in_bytes"
  elif [[ -w $run_cgroup/memory.peak ]]; then
    peak="$run_cgroup/memory.peak"
  fi
  # The loop moves itself into the memory cgroup; it leaves it by exiting,
  # so both cgroups are empty again when they are removed.
  "$work/contained" "$runs" "$run_cgroup" "$peak" "$memory"
fi

if [[ $(id -u) -ne 0 || -z $v1_here ]]; then
  echo "memory cgroup: skipped: moving into a cgroup needs root and a v1 memory hierarchy (a system without one has no such move)"
else
  for side in a b; do
    mkdir "$v1_here/perflab-floor-move-$side-$$"
    made=("$v1_here/perflab-floor-move-$side-$$" "${made[@]}")
  done
  # It leaves the cgroups by exiting, so they are empty when removed.
  for file in cgroup.procs tasks; do
    "$work/moves" "$moves" "$file" "$v1_here/perflab-floor-move-a-$$" "$v1_here/perflab-floor-move-b-$$"
  done
fi

mkdir "$work/profiles"
"$work/lookups" "$lookups" "$work/profiles"

// The memory limit of this process (see memlimit.h).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys/fileio.h"
#include "sys/memlimit.h"

// Lowers *have to the number in the cgroup file at path, when it holds a smaller one ("max",
// or v1's huge "no limit", leave it).
static void cgroup_limit(const char *path, double *have, const char **what) {
    FILE *f = fopen(path, "r");
    double v;
    if (f && fscanf(f, "%lf", &v) == 1 && v > 0 && v < *have)
        *have = v, *what = "allowed by the memory cgroup (a container or batch-job limit)";
    if (f) fclose(f);
}

double ordo_memory_limit(const char **what) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    *what = "of memory on this machine";
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (double)rl.rlim_cur < have)
        have = (double)rl.rlim_cur, *what = "of address space allowed (ulimit -v)";
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (double)rl.rlim_cur < have)
        have = (double)rl.rlim_cur, *what = "of data allowed (ulimit -d)";
    // cgroup v2: the group named by "0::/path" in /proc/self/cgroup, or the namespace's root;
    // v1: the memory controller's root as a container sees it
    char line[512] = "", path[ORDO_PATH_MAX];
    FILE *f = fopen("/proc/self/cgroup", "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) found = strncmp(line, "0::", 3) == 0;
    if (f) fclose(f);
    line[strcspn(line, "\n")] = 0;
    if (found && !ordo_path(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3))
        cgroup_limit(path, &have, what);
    cgroup_limit("/sys/fs/cgroup/memory.max", &have, what);
    cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes", &have, what);
    return have;
}

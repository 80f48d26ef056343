// How much memory this process may use: the machine's, or less under a limit. Both training
// and eval check their estimate against it before they allocate, so that a request that
// cannot fit is refused with the numbers instead of being killed by the kernel or a cgroup.
#ifndef ORDO_MEMLIMIT_H
#define ORDO_MEMLIMIT_H

// The bytes this process may use (INFINITY when nothing says), and what sets it (*what, a
// static phrase that reads after a number of GiB: "of memory on this machine", "of address
// space allowed (ulimit -v)", "of data allowed (ulimit -d)", "allowed by the memory cgroup (a
// container or batch-job limit)"). The smallest of: physical memory, RLIMIT_AS, RLIMIT_DATA,
// the cgroup v2 group's memory.max, the namespace root's, cgroup v1's limit_in_bytes.
double ordo_memory_limit(const char **what);

#endif

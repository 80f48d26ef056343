// File I/O shared by checkpoints and run files: a bounded whole-file read, an atomic
// whole-file write (temporary file, fsync, rename, fsync of the directory), mkdir -p, and
// path formatting that fails instead of truncating.
// Inputs that must be regular files (training data, vocab files) are opened without blocking
// and checked with fstat before a byte is read, and can be mapped instead of read.
// Deliberately not here: streaming readers, locking, or cleaning up temporary files left by
// a process that was killed (they never carry the final name, so they are only litter).
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/fileio.h"

// Largest single read/write request; Linux transfers at most ~2 GiB per call anyway.
#define IO_CHUNK ((size_t)1 << 30)

// How much of a path that is too long the message quotes: enough to recognise it.
#define PATH_QUOTE 64

// The error for a path (at least its first PATH_QUOTE bytes) longer than limit bytes.
static ordo_status path_too_long(const char *path, size_t limit) {
    int k = (int)strnlen(path, PATH_QUOTE);
    while (k > 0 && ((unsigned char)path[k] & 0xC0) == 0x80) k--; // not inside a UTF-8 char
    return ordo_error(ORDO_ERR_ARG, "path too long: '%.*s...' is over %zu bytes", k, path, limit);
}

ordo_status ordo_path_check(const char *path) {
    if (strnlen(path, ORDO_PATH_MAX) < ORDO_PATH_MAX) return ORDO_OK;
    return path_too_long(path, ORDO_PATH_MAX - 1);
}

ordo_status ordo_path(char *buf, size_t cap, const char *fmt, ...) {
    ORDO_ASSERT(cap > 0);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < cap) return ORDO_OK;
    // buf holds the start of the path: quote it, then make sure nothing can use it
    ordo_status s = n < 0 ? ordo_error(ORDO_ERR_ARG, "path: cannot format '%s'", fmt)
                          : path_too_long(buf, cap - 1);
    buf[0] = 0;
    return s;
}

// What a file of mode `mode` is, for the message refusing it where a regular file is needed.
static const char *file_kind(mode_t mode) {
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

ordo_status ordo_open_regular(const char *path, int *fd, size_t *size) {
    *fd = -1;
    *size = 0;
    // O_NONBLOCK: opening a FIFO that no one writes to would otherwise wait here
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f < 0) return ordo_error(ORDO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return ordo_error(ORDO_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return ordo_error(ORDO_ERR_IO, "%s: is %s, expected a regular file", path,
                          file_kind(st.st_mode));
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) { // 32-bit hosts only
        close(f);
        return ordo_error(ORDO_ERR_IO, "%s: file is %lld bytes, more than this machine addresses",
                          path, (long long)st.st_size);
    }
    // regular files never block; clear the flag anyway so that reads behave as usual
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    *size = (size_t)st.st_size;
    return ORDO_OK;
}

// Reads all of the open fd into a new buffer, as ordo_read_file; closes fd.
static ordo_status read_fd(const char *path, int fd, size_t max_bytes, char **buf, size_t *len);

ordo_status ordo_read_regular_file(const char *path, size_t max_bytes, char **buf, size_t *len) {
    *buf = NULL;
    *len = 0;
    int fd;
    size_t size;
    ordo_status s = ordo_open_regular(path, &fd, &size);
    if (s) return s;
    return read_fd(path, fd, max_bytes, buf, len);
}

ordo_status ordo_read_head(const char *path, void *buf, size_t n, size_t *got) {
    *got = 0;
    int fd;
    size_t size;
    ordo_status s = ordo_open_regular(path, &fd, &size);
    if (s) return s;
    while (*got < n) {
        ssize_t r = read(fd, (char *)buf + *got, n - *got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        *got += (size_t)r;
    }
    close(fd);
    return ORDO_OK;
}

// ---- a mapped file that shrinks under us
//
// A read past the end of a file truncated while mapped raises SIGBUS, which kills the process
// with "Bus error" and no word of which file. The mappings are registered here; a SIGBUS
// inside one prints which file changed and that the run's checkpoints are as they were, then
// ends the process (exit status 1). The fault may come from any OpenMP thread, so there is no
// unwinding to an error return: checkpoints are written atomically, so stopping here loses
// only the step in progress. A SIGBUS elsewhere gets the default action, as before.

enum { MAPS_MAX = 8 };
static struct {
    const char *lo, *hi;
    char msg[ORDO_PATH_MAX + 256]; // composed when mapped: a handler may not format
    size_t len;
} g_maps[MAPS_MAX];
static volatile sig_atomic_t g_bus_installed;

static void on_sigbus(int sig, siginfo_t *info, void *ctx) {
    (void)ctx;
    const char *a = (const char *)info->si_addr;
    for (int i = 0; i < MAPS_MAX; i++)
        if (g_maps[i].lo && a >= g_maps[i].lo && a < g_maps[i].hi) {
            (void)!write(STDERR_FILENO, g_maps[i].msg, g_maps[i].len);
            _exit(1);
        }
    signal(sig, SIG_DFL); // not ours: the fault repeats and takes its default course
}

static void maps_register(const char *path, const void *p, size_t len) {
    if (!g_bus_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGBUS, &sa, NULL);
        g_bus_installed = 1;
    }
    for (int i = 0; i < MAPS_MAX; i++)
        if (!g_maps[i].lo) {
            int n = snprintf(g_maps[i].msg, sizeof g_maps[i].msg,
                             "ordo: error: %s changed while ordo read it (it is shorter than "
                             "when it was opened; was it truncated or rewritten in place?); "
                             "stopped. Checkpoints are written whole, so the run resumes from "
                             "its newest one once the file is back as it was (replace a data "
                             "file by renaming a new one into place)\n",
                             path);
            g_maps[i].len = n < 0                              ? 0
                            : (size_t)n < sizeof g_maps[i].msg ? (size_t)n
                                                               : sizeof g_maps[i].msg - 1;
            g_maps[i].hi = (const char *)p + len;
            g_maps[i].lo = p;
            return;
        }
}

static void maps_unregister(const void *p) {
    for (int i = 0; i < MAPS_MAX; i++)
        if (g_maps[i].lo == p) g_maps[i].lo = g_maps[i].hi = NULL;
}

ordo_status ordo_map_file(const char *path, ordo_mapped_file *m) {
    memset(m, 0, sizeof *m);
    int fd;
    size_t size;
    ordo_status s = ordo_open_regular(path, &fd, &size);
    if (s) return s;
    if (size == 0) {
        close(fd);
        return ORDO_OK;
    }
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return ordo_error(ORDO_ERR_IO, "%s: cannot map %zu bytes: %s", path, size, strerror(e));
    m->data = p;
    m->len = size;
    maps_register(path, p, size);
    return ORDO_OK;
}

void ordo_unmap_file(ordo_mapped_file *m) {
    if (m->data) maps_unregister(m->data), munmap((void *)m->data, m->len);
    memset(m, 0, sizeof *m);
}

json_t *ordo_json_load_file(const char *path, size_t flags, json_error_t *err) {
    int fd;
    size_t size;
    if (ordo_open_regular(path, &fd, &size)) {
        memset(err, 0, sizeof *err);
        // the reason alone: callers print the path before it, as with jansson's own texts
        const char *m = ordo_error_message();
        size_t n = strlen(path);
        if (strncmp(m, path, n) == 0 && m[n] == ':' && m[n + 1] == ' ') m += n + 2;
        snprintf(err->text, sizeof err->text, "%s", m);
        snprintf(err->source, sizeof err->source, "%s", path);
        return NULL;
    }
    json_t *j = json_loadfd(fd, flags, err);
    close(fd);
    return j;
}

ordo_status ordo_json_load_error(const char *path, const json_error_t *err) {
    return err->line > 0
               ? ordo_error(ORDO_ERR_FORMAT, "%s: line %d: %s", path, err->line, err->text)
               : ordo_error(ORDO_ERR_FORMAT, "%s: %s", path, err->text);
}

ordo_status ordo_fopen_regular(const char *path, FILE **f) {
    int fd;
    size_t size;
    *f = NULL;
    ordo_status s = ordo_open_regular(path, &fd, &size); // a FIFO is refused, not waited on
    if (s) return s;
    if (!(*f = fdopen(fd, "rb"))) {
        int e = errno;
        close(fd);
        return ordo_error(ORDO_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    return ORDO_OK;
}

ordo_status ordo_file_each_piece(const char *path, void (*fn)(void *arg, const void *p, size_t n),
                                 void *arg, uint64_t *total) {
    FILE *f;
    ordo_status s = ordo_fopen_regular(path, &f);
    if (s) return s;
    static _Thread_local unsigned char buf[1 << 16];
    uint64_t sum = 0;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) fn(arg, buf, n), sum += n;
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) return ordo_error(ORDO_ERR_IO, "%s: read failed: %s", path, strerror(err));
    if (total) *total = sum;
    return ORDO_OK;
}

int ordo_open_append(const char *path, int create, mode_t mode) {
    // O_NONBLOCK: opening a FIFO for writing would wait for a reader
    int f = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC | (create ? O_CREAT : 0), mode);
    if (f < 0) {
        ordo_error(ORDO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int e = fstat(f, &st) != 0 ? errno : 0;
    if (e || !S_ISREG(st.st_mode)) {
        if (e)
            ordo_error(ORDO_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
        else
            ordo_error(ORDO_ERR_IO, "%s: is %s, expected a regular file", path,
                       file_kind(st.st_mode));
        close(f);
        return -1;
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    return f;
}

long ordo_tmp_name_pid(const char *name, const char *base) {
    const char *t = strstr(name, ".tmp.");
    if (!t || t == name || !t[5] || strspn(t + 5, "0123456789") != strlen(t + 5)) return 0;
    if (base && (strlen(base) != (size_t)(t - name) || strncmp(name, base, (size_t)(t - name))))
        return 0;
    errno = 0;
    long pid = strtol(t + 5, NULL, 10);
    return errno || pid <= 0 ? 0 : pid;
}

void ordo_remove_dead_tmp(const char *dir, const char *base) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[ORDO_PATH_MAX];
    while ((e = readdir(d))) {
        long pid = ordo_tmp_name_pid(e->d_name, base);
        if (pid <= 0 || pid > INT_MAX) continue;
        // alive (or not ours to signal: EPERM) means a writer is at work
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        if (ordo_path(path, sizeof path, "%s/%s", dir, e->d_name) == ORDO_OK) unlink(path);
    }
    closedir(d);
}

ordo_status ordo_read_file(const char *path, size_t max_bytes, char **buf, size_t *len) {
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ordo_error(ORDO_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return read_fd(path, fd, max_bytes, buf, len);
}

static ordo_status read_fd(const char *path, int fd, size_t max_bytes, char **buf, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ordo_error(ORDO_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return ordo_error(ORDO_ERR_IO, "%s: is a directory, expected a file", path);
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)max_bytes) {
        close(fd);
        return ordo_error(ORDO_ERR_IO, "%s: file is %lld bytes, more than the limit of %zu bytes",
                          path, (long long)st.st_size, max_bytes);
    }
    // Regular files: exactly their size. Pipes and the like: grow as needed, up to the limit.
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size : 65536;
    if (cap > max_bytes) cap = max_bytes;
    char *p = ordo_xmalloc(cap + 1);
    size_t n = 0;
    for (;;) {
        if (n == cap) {
            // Full: probe for one more byte before deciding whether to grow or stop.
            char probe;
            ssize_t r = read(fd, &probe, 1);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) goto read_error;
            if (r == 0) break;
            if (cap >= max_bytes) {
                free(p);
                close(fd);
                return ordo_error(ORDO_ERR_IO, "%s: file is more than the limit of %zu bytes", path,
                                  max_bytes);
            }
            size_t ncap = cap < max_bytes / 2 ? (cap ? 2 * cap : 4096) : max_bytes;
            p = ordo_xrealloc(p, ncap + 1);
            cap = ncap;
            p[n++] = probe;
            continue;
        }
        size_t want = cap - n < IO_CHUNK ? cap - n : IO_CHUNK;
        ssize_t r = read(fd, p + n, want);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) goto read_error;
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    p[n] = 0;
    *buf = p;
    *len = n;
    return ORDO_OK;

read_error : {
    int e = errno;
    free(p);
    close(fd);
    return ordo_error(ORDO_ERR_IO, "%s: read failed: %s", path, strerror(e));
}
}

int ordo_write_all(int fd, const void *data, size_t n) {
    const char *buf = data;
    while (n > 0) {
        ssize_t r = write(fd, buf, n < IO_CHUNK ? n : IO_CHUNK);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno;
        if (r == 0) return ENOSPC;
        buf += r;
        n -= (size_t)r;
    }
    return 0;
}

// The directory holding `path` ("." when it has no slash), as a new string.
static char *parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return ordo_xstrdup(".");
    if (slash == path) return ordo_xstrdup("/");
    size_t n = (size_t)(slash - path);
    char *d = ordo_xmalloc(n + 1);
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

// The name ordo_write_atomic writes `path` under first, for the process `pid`.
static ordo_status tmp_name(char *buf, size_t cap, const char *path, long pid) {
    return ordo_path(buf, cap, "%s.tmp.%ld", path, pid);
}

// Linux's PID_MAX_LIMIT: pids are below it, so it is at least as wide as any of them.
#define WIDEST_PID 4194304L

ordo_status ordo_write_atomic_check(const char *path) {
    char tmp[ORDO_PATH_MAX];
    return tmp_name(tmp, sizeof tmp, path, WIDEST_PID);
}

// A rename into path's directory is durable only once the directory entry is on disk.
static ordo_status sync_parent(const char *path) {
    char *dir = parent_dir(path);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || (fsync(dfd) != 0 && errno != EINVAL && errno != ENOTSUP)) {
        int e = errno;
        if (dfd >= 0) close(dfd);
        ordo_status s = ordo_error(ORDO_ERR_IO, "%s: written, but fsync of directory %s failed: %s",
                                   path, dir, strerror(e));
        free(dir);
        return s;
    }
    close(dfd);
    free(dir);
    return ORDO_OK;
}

ordo_status ordo_write_atomic(const char *path, const void *const *parts, const size_t *lens,
                              int nparts) {
    if (!path || !*path || nparts < 0 || (nparts > 0 && (!parts || !lens)))
        return ordo_error(ORDO_ERR_ARG, "ordo_write_atomic: bad arguments for %s",
                          path ? path : "(null)");
    for (int i = 0; i < nparts; i++)
        if (!parts[i] && lens[i])
            return ordo_error(ORDO_ERR_ARG, "%s: part %d is NULL with length %zu", path, i,
                              lens[i]);

    char tmp[ORDO_PATH_MAX];
    ordo_status s = tmp_name(tmp, sizeof tmp, path, (long)getpid());
    if (s) return s;
    // O_TRUNC replaces a stale temporary of a dead process with the same pid; O_NOFOLLOW
    // refuses to write through a symlink planted under the temporary name.
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        return ordo_error(ORDO_ERR_IO, "%s: cannot create temporary file %s: %s", path, tmp,
                          strerror(e));
    }
    const char *what = "write failed";
    int e = 0;
    for (int i = 0; i < nparts && !e; i++) e = ordo_write_all(fd, parts[i], lens[i]);
    if (!e && fsync(fd) != 0) e = errno, what = "fsync failed";
    if (close(fd) != 0 && !e) e = errno, what = "close failed"; // NFS reports errors late
    if (!e && rename(tmp, path) != 0) e = errno, what = "cannot rename the temporary file over it";
    if (e) {
        unlink(tmp);
        return ordo_error(ORDO_ERR_IO, "%s: %s: %s", path, what, strerror(e));
    }
    return sync_parent(path);
}

ordo_status ordo_symlink_atomic(const char *target, const char *path) {
    char tmp[ORDO_PATH_MAX];
    ordo_status s = tmp_name(tmp, sizeof tmp, path, (long)getpid());
    if (s) return s;
    unlink(tmp); // a dead process's of the same pid
    if (symlink(target, tmp) != 0)
        return ordo_error(ORDO_ERR_IO, "%s: cannot create the link %s: %s", path, tmp,
                          strerror(errno));
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return ordo_error(ORDO_ERR_IO, "%s: cannot rename the link %s over it: %s", path, tmp,
                          strerror(e));
    }
    return sync_parent(path);
}

ordo_status ordo_mkdir_p(const char *path, mode_t mode) {
    if (!path || !*path) return ordo_error(ORDO_ERR_ARG, "mkdir: empty path");
    // refused whole: mkdir(2) would create the parents that fit, then fail on the rest
    ordo_status s = ordo_path_check(path);
    if (s) return s;
    char *p = ordo_xstrdup(path);
    size_t n = strlen(p);
    // Visit each prefix ending before a '/', then the whole path.
    for (size_t i = 1; i <= n; i++) {
        if (i < n && p[i] != '/') continue;
        if (i < n && p[i - 1] == '/') continue; // "a//b"
        char saved = p[i];
        p[i] = 0;
        if (mkdir(p, mode) != 0) {
            int e = errno;
            struct stat st;
            if (e != EEXIST || stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
                s = ordo_error(ORDO_ERR_IO, "%s: cannot create directory %s: %s", path, p,
                               e == EEXIST ? "exists and is not a directory" : strerror(e));
                free(p);
                return s;
            }
        }
        p[i] = saved;
    }
    free(p);
    return ORDO_OK;
}

ordo_status ordo_write_json_atomic(const char *path, const json_t *j) {
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(9));
    if (!text) return ordo_error(ORDO_ERR_ARG, "%s: the value cannot be written as JSON", path);
    size_t lens[2] = {strlen(text), 1};
    const void *parts[2] = {text, "\n"};
    ordo_status s = ordo_write_atomic(path, parts, lens, 2);
    free(text);
    return s;
}

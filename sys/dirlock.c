// The lock on a directory that ordo writes (see dirlock.h). flock rather than fcntl: an fcntl
// lock belongs to the process and is dropped when it closes ANY descriptor of the file, and
// fork does not pass it on; a flock lock belongs to the open file description. Linux's NFS
// client maps flock onto byte-range locks, which the server enforces across machines.
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/dirlock.h"
#include "sys/dist.h"

// Cuts p to its parent ("a/b//c" -> "a/b"); 0 when it has none (a single component, or "/").
static int parent(char *p) {
    char *slash = strrchr(p, '/');
    if (!slash) return 0;
    while (slash > p && slash[-1] == '/') slash--;
    if (slash == p) return 0;
    *slash = 0;
    return 1;
}

// The length of the shortest prefix of dir that does not exist yet (the first directory
// ordo_mkdir_p will make), or 0 when dir exists.
static size_t first_missing(const char *dir) {
    char p[ORDO_PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    size_t top = 0;
    struct stat st;
    while (stat(p, &st) != 0) {
        top = strlen(p);
        if (!parent(p)) break;
    }
    return top;
}

// The message for a lock held by another process, from the record it wrote into the file
// (fd, open on it). A record not written yet (the holder has only just locked) or unreadable
// gives the message without the pid.
static ordo_status busy(const ordo_dirlock *l, const char *what, int fd) {
    char buf[sizeof l->prev];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf, 0) : -1;
    json_t *j = n > 0 ? json_loadb(buf, (size_t)n, 0, NULL) : NULL;
    json_int_t pid = json_integer_value(json_object_get(j, "pid"));
    const char *host = json_string_value(json_object_get(j, "host"));
    const char *since = json_string_value(json_object_get(j, "since"));
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    int elsewhere = host && strcmp(host, me) != 0; // on a shared file system: say where
    ordo_status s;
    if (pid > 0)
        s = ordo_error(ORDO_ERR_STATE,
                       "%s %s is in use by ordo pid %lld%s%s (since %s); wait for it or stop it",
                       what, l->dir, (long long)pid, elsewhere ? " on host " : "",
                       elsewhere ? host : "", since ? since : "?");
    else
        s = ordo_error(ORDO_ERR_STATE,
                       "%s %s is in use by another process (%s names no holder yet); wait for "
                       "it or stop it",
                       what, l->dir, l->path);
    json_decref(j);
    return s;
}

// Keeps the file's content for release to put back, then writes this process's record. A
// failed write (a full disk) costs only the pid in another process's message: not an error.
static void write_record(ordo_dirlock *l) {
    ssize_t n = pread(l->fd, l->prev, sizeof l->prev, 0);
    l->prev_kept = n >= 0 && (size_t)n < sizeof l->prev;
    l->prev_len = l->prev_kept ? (size_t)n : 0;
    char host[256] = "", since[64] = "";
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm)) strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S %z", &tm);
    json_t *j = json_object();
    json_object_set_new(j, "pid", json_integer((json_int_t)getpid()));
    json_object_set_new(j, "host", json_string(host)); // NULL (left out) if not UTF-8
    json_object_set_new(j, "since", json_string(since));
    char *text = json_dumps(j, 0), line[sizeof l->prev];
    json_decref(j);
    int len = text ? snprintf(line, sizeof line, "%s\n", text) : -1;
    free(text);
    if (len > 0 && (size_t)len < sizeof line && pwrite(l->fd, line, (size_t)len, 0) == len)
        (void)!ftruncate(l->fd, (off_t)len);
}

// Whether flock's errno says that the file system cannot lock at all (NFS without a lock
// daemon, some FUSE file systems), as opposed to a lock held by someone else.
static int no_lock_support(int e) {
    return e == ENOLCK || e == EOPNOTSUPP || e == ENOSYS;
}

// flock on the directory itself: *dfd open on it, or -1 where the file system cannot lock a
// directory. Returns 1 when take must start a new round (the directory went away or was
// replaced meanwhile, or a signal), else 0 with *s: ORDO_OK, ORDO_ERR_STATE naming the holder
// (from the record in .lock) when another process holds it, ORDO_ERR_IO.
static int lock_dir(ordo_dirlock *l, const char *what, int *dfd, ordo_status *s) {
    *s = ORDO_OK;
    *dfd = -1;
    int d = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) {
        if (errno == ENOENT) return 1;
        *s = ordo_error(ORDO_ERR_IO, "%s: cannot open the %s: %s", l->dir, what, strerror(errno));
        return 0;
    }
    if (flock(d, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            // the record: read without blocking (a FIFO at .lock) and never followed
            int rfd = open(l->path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
            *s = busy(l, what, rfd);
            if (rfd >= 0) close(rfd);
        } else if (e != EINTR && e != EBADF && !no_lock_support(e)) {
            *s = ordo_error(ORDO_ERR_IO, "%s: cannot lock the %s: %s", l->dir, what, strerror(e));
        }
        close(d);
        return e == EINTR; // EBADF (NFS) and the like: the file's lock alone
    }
    struct stat a, b; // the name still the directory we locked (not removed and remade)
    if (fstat(d, &a) != 0 || stat(l->dir, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        close(d);
        return 1;
    }
    *dfd = d;
    return 0;
}

static ordo_status take(ordo_dirlock *l, const char *what, const char *dir, int create) {
    ordo_status s = ordo_path(l->dir, sizeof l->dir, "%s", dir);
    if (!s) s = ordo_path(l->path, sizeof l->path, "%s/" ORDO_DIRLOCK_FILE, dir);
    if (s) return s;
    for (size_t k = strlen(l->dir); k > 1 && l->dir[k - 1] == '/'; k--) l->dir[k - 1] = 0;
    // Another process undoing its take may remove the file (and the directories it made)
    // between our open and our flock: then we hold a lock on a file nobody else can open,
    // and must start again. A few rounds settle it; many mean something else is at work.
    for (int round = 0; round < 100; round++) {
        struct stat st;
        if (create) {
            size_t top = first_missing(l->dir);
            if ((s = ordo_mkdir_p(l->dir, 0755))) return s;
            if (top && (!l->made_top || top < l->made_top)) l->made_top = top;
        } else {
            int r = stat(l->dir, &st);
            if (r != 0 || !S_ISDIR(st.st_mode))
                return ordo_error(ORDO_ERR_IO, "%s: cannot open the %s: %s", l->dir, what,
                                  r != 0 ? strerror(errno) : "not a directory");
        }
        // The directory's own lock first: a directory with files in it cannot be removed, so
        // unlike the file's lock this one cannot be lost to `rm RUN/.lock` under a live
        // holder. Where directories cannot be flocked (NFS: EBADF) the
        // file's lock below is the only one, as before.
        int dfd;
        if (lock_dir(l, what, &dfd, &s)) continue;
        if (s) return s;
        int fd = open(l->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        int made = fd >= 0;
        if (fd < 0 && errno == EEXIST) fd = open(l->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            if (dfd >= 0) close(dfd);
            if (e == ENOENT) continue; // the directory went away meanwhile
            return ordo_error(ORDO_ERR_IO, "%s: cannot open the lock file: %s", l->path,
                              strerror(e));
        }
        // A hard link to another file (or anything but a plain file) at .lock would get the
        // record written into it: under the directory's lock, replace the name.
        struct stat ls;
        if (fstat(fd, &ls) == 0 && (!S_ISREG(ls.st_mode) || ls.st_nlink > 1)) {
            close(fd);
            if (dfd >= 0 && unlink(l->path) == 0) {
                close(dfd);
                continue;
            }
            if (dfd >= 0) close(dfd);
            return ordo_error(ORDO_ERR_IO,
                              "%s: is %s, expected a file of ordo's own; remove it (ordo will "
                              "not write its record into it)",
                              l->path,
                              S_ISREG(ls.st_mode) ? "a hard link to another file"
                                                  : "not a regular file");
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            if (e == EWOULDBLOCK) {
                s = busy(l, what, fd);
                close(fd);
                if (dfd >= 0) close(dfd);
                return s;
            }
            if (e == EINTR) {
                close(fd);
                if (dfd >= 0) close(dfd);
                continue;
            }
            if (!no_lock_support(e)) {
                close(fd);
                if (dfd >= 0) close(dfd);
                return ordo_error(ORDO_ERR_IO, "%s: cannot lock: %s", l->path, strerror(e));
            }
            fprintf(stderr,
                    "ordo: warning: %s: cannot lock (%s): this file system does not support "
                    "flock, so nothing stops a second process from writing %s at the same "
                    "time\n",
                    l->path, strerror(e), l->dir);
        }
        struct stat a, b;
        if (fstat(fd, &a) != 0 || stat(l->path, &b) != 0 || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino) {
            close(fd);
            if (dfd >= 0) close(dfd);
            continue;
        }
        l->fd = fd;
        l->dfd = dfd;
        l->held = 1;
        l->made_file = made;
        write_record(l);
        return ORDO_OK;
    }
    return ordo_error(ORDO_ERR_IO,
                      "%s: the lock file was replaced 100 times while ordo tried to lock it; is "
                      "another program removing it?",
                      l->path);
}

ordo_status ordo_dirlock_take(ordo_dirlock *l, const char *what, const char *dir, int create) {
    memset(l, 0, sizeof *l);
    ordo_status s = ordo_dist_rank() == 0 ? take(l, what, dir, create) : ORDO_OK;
    s = ordo_dist_agree(s);
    if (s) ordo_dirlock_release(l); // only another rank failed: nothing was written
    return s;
}

void ordo_dirlock_mark_written(ordo_dirlock *l) {
    l->written = 1;
}

void ordo_dirlock_release(ordo_dirlock *l) {
    if (!l->held) return;
    // Undone while still held, so that no other process sees it half undone; one that
    // opened the file before it was removed finds that out after its flock (take's rounds).
    if (!l->written && l->made_file) {
        unlink(l->path);
        char p[ORDO_PATH_MAX];
        memcpy(p, l->dir, sizeof p);
        // from dir up to the first directory take made; rmdir fails on one not empty
        while (l->made_top && strlen(p) >= l->made_top && rmdir(p) == 0 && parent(p)) {
        }
    } else if (!l->written && l->prev_kept) {
        if (pwrite(l->fd, l->prev, l->prev_len, 0) == (ssize_t)l->prev_len)
            (void)!ftruncate(l->fd, (off_t)l->prev_len);
    }
    close(l->fd);
    if (l->dfd >= 0) close(l->dfd);
    l->held = 0;
}

void ordo_dirlock_forget(const ordo_dirlock *l) {
    if (!l->held) return;
    close(l->fd);
    if (l->dfd >= 0) close(l->dfd);
}

// One writer per directory: the exclusive lock that `ordo train` takes on its run directory
// (and `ordo sweep` on its sweep directory), so that a second process started on the same
// directory fails at once instead of mixing its config, metrics and checkpoints into it.
//
// It is flock(LOCK_EX | LOCK_NB) on the directory itself and on DIR/.lock. The directory's
// lock cannot be lost by removing .lock (a directory with files cannot be removed); the
// file's remains for file systems that cannot lock a directory (NFS), and holds the record. The
// kernel drops it when the holder ends in any way (exit, a crash, kill -9), so there is never a
// stale lock to clear by hand. The file is kept (removing it would race with a process that has
// just opened it) and holds the holder's record, {"pid", "host", "since"}, which the refused
// process quotes. The descriptor is O_CLOEXEC: a program started with exec does not inherit the
// lock. Readers (eval, sample, viz, compare) take no lock: every file a writer replaces is replaced
// atomically.
//
// Deliberately not here: waiting for a lock, shared (reader) locks, breaking a lock.
#ifndef ORDO_DIRLOCK_H
#define ORDO_DIRLOCK_H
#include <stddef.h>

#include "sys/error.h"
#include "sys/fileio.h"

#define ORDO_DIRLOCK_FILE ".lock"

// Zero-initialised means "not held", and releasing it is then a no-op.
typedef struct ordo_dirlock {
    int held;    // this process holds the lock (on MPI rank 0 only)
    int fd;      // DIR/.lock, open while held
    int dfd;     // DIR itself, flocked while held; -1 where the file system cannot
    int written; // set by ordo_dirlock_mark_written: release then undoes nothing
    int made_file;
    size_t made_top; // take created the directories dir[0..k) for every k >= made_top (0: none)
    size_t prev_len; // the file's content before take (the last holder's record), when
    int prev_kept;   // it fitted in prev
    char prev[512];
    char dir[ORDO_PATH_MAX], path[ORDO_PATH_MAX];
} ordo_dirlock;

// Takes the lock of dir (`what` names it in messages: "run directory"). With create, dir and
// its missing parents are made first; without, dir must exist ("DIR: cannot open the <what>").
// Then writes this process's record into DIR/.lock. Collective under MPI: rank 0 alone takes
// it, every rank shares the outcome. Errors: ORDO_ERR_STATE when another process holds it
// ("<what> DIR is in use by ordo pid N (since T); wait for it or stop it"), and only then;
// ORDO_ERR_IO naming the path when dir or the file cannot be made, opened or locked;
// ordo_path's for a path too long.
// A file system without flock gives a warning on stderr, and the lock is then not exclusive.
ordo_status ordo_dirlock_take(ordo_dirlock *l, const char *what, const char *dir, int create);

// Marks that the holder has written into the directory: release then leaves everything as it
// is, the holder's record included.
void ordo_dirlock_mark_written(ordo_dirlock *l);

// Releases the lock. Unless marked written it first undoes take (the previous record put
// back, or the lock file and the directories take made removed), so that a command refused
// before it wrote anything leaves the directory as it found it.
void ordo_dirlock_release(ordo_dirlock *l);

// In a child made by fork: closes the inherited descriptor without unlocking, so that the
// lock lasts as long as the parent holds it, not as long as this child lives.
void ordo_dirlock_forget(const ordo_dirlock *l);

#endif

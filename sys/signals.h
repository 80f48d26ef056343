// SIGINT and SIGTERM as a request to stop: while the handlers are installed, either signal
// only records its number, and a long job (the training loop, a sweep waiting on its runs)
// polls ordo_signals_caught() at a point where stopping is safe: it finishes the step,
// checkpoints and returns ORDO_ERR_INTERRUPTED instead of dying mid-write.
#ifndef ORDO_SIGNALS_H
#define ORDO_SIGNALS_H
#include <signal.h>

// The handlers that were in place before ordo_signals_install, for ordo_signals_restore.
typedef struct ordo_signals {
    struct sigaction old_int, old_term;
} ordo_signals;

// Clears the caught signal and installs the recording handler for SIGINT and SIGTERM,
// keeping the previous handlers in *saved. Calls nest (a sweep's child process that trains
// installs over the handlers it inherited) when each is paired with a restore.
void ordo_signals_install(ordo_signals *saved);
// Puts back the handlers saved by the matching ordo_signals_install. The caught signal is
// left as it is, for the caller to report.
void ordo_signals_restore(const ordo_signals *saved);
// The last SIGINT or SIGTERM received since ordo_signals_install, or 0 when none was.
int ordo_signals_caught(void);

#endif

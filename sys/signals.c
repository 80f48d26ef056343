// The stop-request handlers of signals.h. The handler does nothing but store the signal
// number in a sig_atomic_t (async-signal-safe); everything else happens in the polling
// code. One flag per process: a forked child (a sweep's run) has its own copy.
// Deliberately not here: SA_RESTART (a sweep's wait() must return EINTR to see the
// signal), and any other signal.
#include "sys/signals.h"

static volatile sig_atomic_t caught;

static void on_signal(int sig) {
    caught = sig;
}

void ordo_signals_install(ordo_signals *saved) {
    caught = 0;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
}

void ordo_signals_restore(const ordo_signals *saved) {
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

int ordo_signals_caught(void) {
    return caught;
}

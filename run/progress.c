// The progress line and the end-of-run summary (see progress.h). Lines are formatted into
// stack buffers and written with one fputs; the live line is rewritten with '\r' and padded
// with spaces over what the previous one left (no terminal escapes), and cut to the
// terminal's width so that it never wraps into a new line at each redraw.
// Deliberately not here: what is logged (metrics.jsonl is the trainer's), any timing of the
// step itself (the clock is read once per step, nothing else).
#include "run/progress.h"

#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sys/clock.h"

ORDO_NAMES_TABLE(ordo_progress_names, "progress mode", ORDO_PROGRESS_OFF + 1, "auto", "live",
                 "plain", "off");

#define LIVE_INTERVAL_S 0.2 // at most 5 redraws a second: readable, and no cost to the step

void ordo_progress_init(ordo_progress *p, ordo_progress_mode mode, FILE *out, int64_t total) {
    memset(p, 0, sizeof *p);
    p->out = out;
    p->total = total;
    p->val = p->best_val = NAN;
    p->val_step = p->best_step = -1;
    int fd = fileno(out), tty = fd >= 0 && isatty(fd);
    p->mode = mode == ORDO_PROGRESS_AUTO ? (tty ? ORDO_PROGRESS_LIVE : ORDO_PROGRESS_PLAIN) : mode;
    struct winsize ws;
    p->width = tty && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
    p->t0 = p->t_draw = ordo_now_s();
}

void ordo_progress_start(ordo_progress *p, int64_t step, double elapsed0) {
    p->step0 = step;
    p->elapsed0 = elapsed0;
    p->t0 = p->t_draw = ordo_now_s();
    p->tokens = p->tok_draw = 0;
}

void ordo_progress_val(ordo_progress *p, int64_t step, double val) {
    p->val = val;
    p->val_step = step;
    if (isfinite(val) && (!isfinite(p->best_val) || val < p->best_val)) {
        p->best_val = val;
        p->best_step = step;
    }
}

// 950, 12.3k, 1.25M
static const char *rate(char *buf, size_t cap, double x) {
    if (!isfinite(x) || x < 0) return "?";
    if (x < 1e3)
        snprintf(buf, cap, "%.0f", x);
    else if (x < 1e6)
        snprintf(buf, cap, "%.1fk", x / 1e3);
    else
        snprintf(buf, cap, "%.2fM", x / 1e6);
    return buf;
}

// The one line both modes show, into buf[cap].
static int format_line(const ordo_progress *p, char *buf, size_t cap, int64_t step, double loss,
                       double lr, double tps, double now) {
    char val[48] = "val -", el[24], eta[24], tp[24];
    if (p->val_step >= 0)
        snprintf(val, sizeof val, "val %.4f@%lld", p->val, (long long)p->val_step);
    double done = (double)(step - p->step0), spent = now - p->t0;
    double left = done > 0 ? (double)(p->total - step) * spent / done : NAN;
    return snprintf(buf, cap, "step %lld/%lld loss %.4f %s lr %.2e %s tok/s %s ETA %s",
                    (long long)step, (long long)p->total, loss, val, lr, rate(tp, sizeof tp, tps),
                    ordo_duration_text(el, sizeof el, p->elapsed0 + spent),
                    ordo_duration_text(eta, sizeof eta, left));
}

void ordo_progress_step(ordo_progress *p, int64_t step, double loss, double lr, double tokens,
                        int logged, double tps) {
    p->tokens += tokens;
    if (p->mode == ORDO_PROGRESS_OFF) return;
    char line[256];
    if (p->mode == ORDO_PROGRESS_PLAIN) {
        if (!logged) return;
        format_line(p, line, sizeof line, step, loss, lr, tps, ordo_now_s());
        fprintf(p->out, "%s\n", line);
        fflush(p->out);
        return;
    }
    double now = ordo_now_s(); // live
    int must = step == p->step0 + 1 || step == p->total || (logged && p->val_step == step);
    if (now - p->t_draw < LIVE_INTERVAL_S && !must) return;
    if (now > p->t_draw) p->tps = (p->tokens - p->tok_draw) / (now - p->t_draw);
    p->t_draw = now;
    p->tok_draw = p->tokens;
    int n = format_line(p, line, sizeof line, step, loss, lr, p->tps, now);
    if (n < 0) return;
    if (n > p->width - 1) n = p->width - 1; // a line that wraps is a new line at every redraw
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
    line[n] = 0;
    int pad = p->drawn > n ? p->drawn - n : 0; // blank out the end of a longer previous line
    fprintf(p->out, "\r%s%*s", line, pad, "");
    fflush(p->out);
    p->drawn = n;
}

void ordo_progress_break(ordo_progress *p) {
    if (p->mode != ORDO_PROGRESS_LIVE || !p->drawn) return;
    fputc('\n', p->out);
    fflush(p->out);
    p->drawn = 0;
}

// Seconds as the summary shows them: "3.2 s" under a minute (not "0:03"), else "2:18".
static const char *duration(char *buf, size_t cap, double s) {
    if (s < 60)
        snprintf(buf, cap, "%.1f s", s);
    else
        ordo_duration_text(buf, cap, s);
    return buf;
}

void ordo_progress_summary(ordo_progress *p, int64_t step, int interrupted, const char *ckpt) {
    ordo_progress_break(p);
    double spent = ordo_now_s() - p->t0;
    char el[24], all[24], tp[24];
    // "after": this process's time; a resumed run's whole time follows as "in all"
    fprintf(p->out, "ordo: %s at step %lld/%lld after %s", interrupted ? "stopped" : "done",
            (long long)step, (long long)p->total, duration(el, sizeof el, spent));
    const char *sep = " (";
    if (step > p->step0) {
        fprintf(p->out, "%s%lld steps here, %s tok/s", sep, (long long)(step - p->step0),
                rate(tp, sizeof tp, spent > 0 ? p->tokens / spent : NAN));
        sep = "; ";
    }
    if (p->elapsed0 > 0)
        fprintf(p->out, "%sthe run: %s in all", sep,
                duration(all, sizeof all, p->elapsed0 + spent));
    if (step > p->step0 || p->elapsed0 > 0) fputc(')', p->out);
    fputc('\n', p->out);
    if (p->best_step >= 0)
        fprintf(p->out, "ordo: val loss: best %.4f at step %lld, last %.4f at step %lld\n",
                p->best_val, (long long)p->best_step, p->val, (long long)p->val_step);
    else if (p->val_step >= 0)
        fprintf(p->out, "ordo: val loss: last %g at step %lld (none finite)\n", p->val,
                (long long)p->val_step);
    else
        fprintf(p->out, "ordo: val loss: none measured\n");
    if (ckpt) fprintf(p->out, "ordo: checkpoint: %s\n", ckpt);
    fflush(p->out);
}

void ordo_eval_progress_init(ordo_eval_progress *p, ordo_progress_mode mode, FILE *out,
                             const char *what, const char *unit, size_t total) {
    memset(p, 0, sizeof *p);
    int fd = out ? fileno(out) : -1, tty = fd >= 0 && isatty(fd);
    if (mode == ORDO_PROGRESS_AUTO) mode = tty ? ORDO_PROGRESS_LIVE : ORDO_PROGRESS_OFF;
    if (mode == ORDO_PROGRESS_LIVE && !tty) mode = ORDO_PROGRESS_PLAIN; // no '\r' into files
    if (!out || mode == ORDO_PROGRESS_OFF) return;
    p->out = out;
    p->mode = mode;
    snprintf(p->what, sizeof p->what, "%s", what);
    p->unit = unit;
    p->total = total;
    struct winsize ws;
    p->width = tty && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
    p->t0 = p->t_draw = ordo_now_s();
}

// The line for `done` units (a fraction inside a forward), with the layer when layer > 0.
static void eval_progress_show(ordo_eval_progress *p, double done, int layer, int L) {
    double now = ordo_now_s(), spent = now - p->t0;
    double frac = p->total ? done / (double)p->total : 1;
    if (p->mode == ORDO_PROGRESS_LIVE) {
        if (spent < ORDO_EVAL_PROGRESS_DELAY_S || now - p->t_draw < LIVE_INTERVAL_S) return;
    } else { // plain: at each tenth, or when a line is long overdue
        int tenth = (int)floor(10 * frac + 1e-9);
        if (tenth <= p->tenth && now - p->t_draw < ORDO_EVAL_PROGRESS_PLAIN_S) return;
        if (tenth > p->tenth) p->tenth = tenth;
    }
    p->t_draw = now;
    char line[192], el[24], eta[24], in[40] = "";
    double left = done > 0 ? ((double)p->total - done) * spent / done : NAN;
    if (layer > 0) snprintf(in, sizeof in, ", layer %d/%d", layer, L);
    int n = snprintf(line, sizeof line, "%s: %s %zu/%zu%s %.0f%% %s ETA %s", p->what, p->unit,
                     (size_t)(done + 1e-9), p->total, in, 100.0 * frac,
                     ordo_duration_text(el, sizeof el, spent),
                     ordo_duration_text(eta, sizeof eta, left));
    if (n < 0) return;
    if (p->mode == ORDO_PROGRESS_PLAIN) {
        fprintf(p->out, "%s\n", line);
        fflush(p->out);
        return;
    }
    if (n > p->width - 1) n = p->width - 1;
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
    line[n] = 0;
    int pad = p->drawn > n ? p->drawn - n : 0;
    fprintf(p->out, "\r%s%*s", line, pad, "");
    fflush(p->out);
    p->drawn = n;
}

void ordo_eval_progress_update(ordo_eval_progress *p, size_t done) {
    if (p->out) eval_progress_show(p, (double)done, 0, 0);
}

void ordo_eval_progress_layer(ordo_eval_progress *p, size_t done, size_t rows, int layer, int L) {
    // the forward's last layer is not the forward's end (the head follows): the update after
    // it says so
    if (p->out && layer < L && L > 0)
        eval_progress_show(p, (double)done + (double)rows * layer / L, layer, L);
}

void ordo_eval_progress_end(ordo_eval_progress *p) {
    if (!p->out || !p->drawn) return;
    fprintf(p->out, "\r%*s\r", p->drawn, "");
    fflush(p->out);
    p->drawn = 0;
}

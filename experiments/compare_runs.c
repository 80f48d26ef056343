// Which runs `ordo compare` is of (a sweep directory's runs, run directories as given) and
// `compare --reeval`, which makes their stale eval records again. Declared in compare.h.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include <jansson.h>

#include "eval/eval_record.h"
#include "experiments/compare.h"
#include "experiments/runinfo.h"
#include "run/config.h"
#include "sys/dirlock.h"
#include "sys/fileio.h"
#include "sys/strbuf.h"

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// A directory that is not a run and has no sweep.json (a sweep stopped before writing it):
// its subdirectories holding a config.json, by name. *n = 0 when there are none. Errors:
// an entry whose path does not fit (*out is then freed).
static ordo_status subdir_runs(const char *dir, char ***out, int *n) {
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return ORDO_OK;
    int cap = 0;
    struct dirent *e;
    ordo_status s = ORDO_OK;
    while (!s && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[ORDO_PATH_MAX];
        struct stat st;
        if ((s = ordo_path(path, sizeof path, "%s/%s/config.json", dir, e->d_name))) break;
        if (stat(path, &st) != 0) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = ordo_xrealloc(*out, (size_t)cap * sizeof **out);
        }
        s = ordo_path(path, sizeof path, "%s/%s", dir, e->d_name); // shorter: fits
        (*out)[(*n)++] = ordo_xstrdup(path);
    }
    closedir(d);
    if (s) {
        for (int i = 0; i < *n; i++) free((*out)[i]);
        free(*out);
        *out = NULL;
        *n = 0;
        return s;
    }
    if (*n) qsort(*out, (size_t)*n, sizeof **out, cmp_name);
    return ORDO_OK;
}

// The run dirs named by a sweep dir's sweep.json ({"runs": ["learned-s1", ...]}), relative
// to the sweep dir unless absolute; without sweep.json, the run dirs directly inside dir
// when dir is not itself a run. *is_sweep = 0 (no error) when neither applies.
ordo_status ordo_compare_sweep_runs(const char *dir, char ***out, int *n, int *is_sweep) {
    char path[ORDO_PATH_MAX];
    *is_sweep = 0;
    ordo_status s = ordo_path(path, sizeof path, "%s/sweep.json", dir);
    if (s) return s;
    struct stat st;
    *is_sweep = stat(path, &st) == 0;
    if (!*is_sweep) {
        if ((s = ordo_path(path, sizeof path, "%s/config.json", dir))) return s;
        if (stat(path, &st) == 0) return ORDO_OK;
        s = subdir_runs(dir, out, n);
        *is_sweep = *n > 0;
        return s;
    }
    json_error_t err;
    json_t *j = ordo_json_load_file(path, 0, &err);
    if (!j) return ordo_json_load_error(path, &err);
    json_t *runs = json_object_get(j, "runs");
    if (!json_is_array(runs) || json_array_size(runs) == 0) {
        json_decref(j);
        return ordo_error(ORDO_ERR_FORMAT, "%s: expected a non-empty \"runs\" array of run dirs",
                          path);
    }
    *n = (int)json_array_size(runs);
    *out = ordo_xcalloc((size_t)*n, sizeof(char *));
    for (int i = 0; i < *n; i++) {
        const char *name = json_string_value(json_array_get(runs, (size_t)i));
        if (!name) {
            json_decref(j);
            return ordo_error(ORDO_ERR_FORMAT, "%s: runs[%d] is not a string", path, i);
        }
        char buf[ORDO_PATH_MAX];
        s = name[0] == '/' ? ordo_path(buf, sizeof buf, "%s", name)
                           : ordo_path(buf, sizeof buf, "%s/%s", dir, name);
        if (s) {
            json_decref(j);
            return ordo_error_wrap(s, "sweep.json: runs[%d]", i); // s quotes the dir's start
        }
        (*out)[i] = ordo_xstrdup(buf);
    }
    json_decref(j);
    return ORDO_OK;
}

ordo_status ordo_compare_expand(const char **args, int n, char ***dirs, int *ndirs,
                                ordo_strbuf *source, const char **sweep) {
    *dirs = NULL;
    *ndirs = 0;
    *sweep = NULL;
    int nsweeps = 0, nplain = 0;
    ordo_strbuf sw;
    ordo_strbuf_init(&sw);
    ordo_status s = ORDO_OK;
    for (int i = 0; i < n && !s; i++) {
        char **runs = NULL;
        int nr = 0, is_sweep = 0;
        if ((s = ordo_compare_sweep_runs(args[i], &runs, &nr, &is_sweep))) break;
        *dirs = ordo_xrealloc(*dirs, ((size_t)*ndirs + (size_t)nr + 1) * sizeof **dirs);
        if (is_sweep) {
            for (int k = 0; k < nr; k++) (*dirs)[(*ndirs)++] = runs[k];
            ordo_strbuf_printf(&sw, "%s%s", nsweeps++ ? ", " : "", args[i]);
        } else {
            (*dirs)[(*ndirs)++] = ordo_xstrdup(args[i]);
            nplain++;
        }
        free(runs);
    }
    if (nsweeps == 1 && !nplain) *sweep = args[0];
    if (nsweeps) ordo_strbuf_printf(source, "sweep%s %s", nsweeps > 1 ? "s" : "", sw.buf);
    if (nsweeps && nplain) ordo_strbuf_puts(source, " and ");
    if (nplain || !nsweeps)
        ordo_strbuf_printf(source, "%d run director%s", nplain, nplain == 1 ? "y" : "ies");
    ordo_strbuf_free(&sw);
    return s;
}

// Evaluates record e of run r again at the run's newest checkpoint, as it was made.
static ordo_status reeval_one(const ordo_runinfo *r, const ordo_run_eval *e) {
    ordo_eval_report rec;
    ordo_eval_request q;
    int lens[64];
    ordo_status s = ordo_eval_report_read(e->path, &rec);
    if (!s) s = ordo_eval_request_of(&rec, r->dir, &q, lens, 64);
    if (!s) s = ordo_eval_record_make(&q, e->name);
    ordo_eval_report_free(&rec);
    if (!s)
        printf("reeval: %s: eval %s made again at the newest checkpoint (it was of step %lld)\n",
               r->dir, e->name, e->step);
    return s;
}

ordo_status ordo_compare_reeval(const char **dirs, int n) {
    ordo_status s = ORDO_OK;
    for (int i = 0; i < n && !s; i++) {
        ordo_runinfo r;
        if ((s = ordo_runinfo_load(&r, dirs[i]))) {
            ordo_runinfo_free(&r);
            break;
        }
        int stale = 0;
        for (int e = 0; e < r.nevals; e++) stale += r.evals[e].stale;
        ordo_dirlock lock = {0};
        if (stale && (s = ordo_dirlock_take(&lock, "run directory", r.dir, 0)) == ORDO_ERR_STATE) {
            fprintf(stderr, "ordo: warning: --reeval: %s; its evals are left as they are\n",
                    ordo_error_message());
            s = ORDO_OK;
            stale = 0;
        }
        for (int e = 0; e < r.nevals && stale && !s; e++)
            if (r.evals[e].stale) {
                ordo_dirlock_mark_written(&lock);
                s = reeval_one(&r, &r.evals[e]);
            }
        ordo_dirlock_release(&lock);
        ordo_runinfo_free(&r);
        ordo_config_strings_free();
    }
    return s;
}

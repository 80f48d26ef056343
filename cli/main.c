// The `ordo` CLI: dispatches to a subcommand and is the one place that turns a status
// into "ordo: <what>: <why>" on stderr and a non-zero exit.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework/cpu.h"
#include "framework/blas.h"
#include "sys/dist.h"
#include "framework/dnnl.h"
#include "sys/fileio.h"
#include "cli/commands.h"

typedef struct command {
    const char *name;
    ordo_status (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"train", ordo_cmd_train, "train a model (or --resume a run) with a chosen position scheme"},
    {"eval", ordo_cmd_eval, "validation loss and perplexity of a run at given context lengths"},
    {"sample", ordo_cmd_sample, "generate text from a run's newest checkpoint"},
    {"sweep", ordo_cmd_sweep,
     "train every position scheme x seed on equal terms, then evaluate each"},
    {"tokenize", ordo_cmd_tokenize, "encode text to token ids, or decode ids back to text"},
    {"compare", ordo_cmd_compare, "tables, plots and report.html comparing runs or a sweep"},
    {"viz", ordo_cmd_viz, "SVG heatmaps of a run's position table, biases and attention"},
    // what train reads, and a run's weights for other tools
    {"data", ordo_cmd_data,
     "show what the dataloader feeds train: counts, first batches as ids and text"},
    {"baseline", ordo_cmd_baseline,
     "n-gram levels (orders 1-6) of a run's data, on the targets eval scores"},
    {"export", ordo_cmd_export, "write a run's checkpoint as a Hugging Face GPT-2 folder"},
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
    fprintf(f, "usage: ordo <command> [options]\n\n"
               "ordo trains small GPT-style models to study positional embeddings.\n\n"
               "commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'ordo <command> --help' lists a command's options and their defaults.\n"
               "'ordo --version' prints the version.\n");
}

// OpenMP threads that wait for work by spinning (libgomp's default) starve each other and
// every other process when the cores are shared: a tiny model on 2 busy cores ran 7x
// slower with --threads 2 than with 1 (50 steps: 14.3 s against 2.2 s; passive: 2.0 s).
// libgomp reads OMP_WAIT_POLICY once, when it is loaded, so unless the user chose a policy
// we set PASSIVE and start again (same pid, same arguments). If exec fails we go on as is.
static void passive_openmp(char **argv) {
    if (getenv("OMP_WAIT_POLICY")) return;
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    // the resolved path, not /proc/self/exe, so that ps, top and pkill still see "ordo"
    char path[ORDO_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    // no /proc, or a name that may be truncated: go on with the default policy
    if (n <= 0 || (size_t)n >= sizeof path - 1) return;
    path[n] = 0;
    execv(path, argv);
}

int main(int argc, char **argv) {
    passive_openmp(argv);
    // before anything calls OpenBLAS (--version asks it its core): a forced core this CPU
    // cannot run would die there with an illegal instruction and no word
    if (ordo_cpu_check_coretype() != ORDO_OK) {
        fprintf(stderr, "ordo: %s\n", ordo_error_message());
        return 2;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        char backend[256]; // what `ordo train` would run its products on, as it logs it
        printf("ordo %s%s\n%s\n", ORDO_VERSION, ordo_dist_available() ? " (MPI)" : "",
               ordo_blas_describe(backend, sizeof backend));
        // whether --precision bf16 runs here, and if not why (the message train would give)
        if (ordo_dnnl_bf16_check() == ORDO_OK)
            printf("--precision bf16: available (oneDNN on %s)\n", ordo_dnnl_isa());
        else
            printf("--precision bf16: not available: %s\n", ordo_error_message());
        return 0;
    }
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(name, commands[i].name) != 0) continue;
        // under mpirun every rank runs the command; only rank 0 prints results (stdout)
        ordo_status s = ordo_dist_init(&argc, &argv);
        if (!s && ordo_dist_rank() != 0 && !freopen("/dev/null", "w", stdout))
            s = ordo_error(ORDO_ERR_IO, "/dev/null: cannot redirect rank %d's output",
                           ordo_dist_rank());
        if (!s) s = commands[i].run(argc - 2, argv + 2);
        int rank = ordo_dist_rank(), report = ordo_dist_should_report();
        // the message goes out before finalize: once a rank leaves finalize with a non-zero
        // status, mpirun kills the others, and a message printed after it could be lost
        if (s != ORDO_OK && rank > 0 && report)
            fprintf(stderr, "ordo: %s (rank %d): %s\n", name, rank, ordo_error_message());
        else if (s != ORDO_OK && report)
            fprintf(stderr, "ordo: %s: %s\n", name, ordo_error_message());
        fflush(stderr);
        ordo_dist_finalize();
        if (s == ORDO_OK) return 0;
        return s == ORDO_ERR_INTERRUPTED ? 130 : 1;
    }
    fprintf(stderr, "ordo: unknown command '%s' (commands: ", name);
    for (int i = 0; i < NCOMMANDS; i++) fprintf(stderr, "%s%s", i ? ", " : "", commands[i].name);
    fprintf(stderr, "; see 'ordo --help')\n");
    return 2;
}

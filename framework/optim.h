// Optimizers over a parameter block: SGD with momentum and AdamW (decoupled weight decay,
// bias correction), global-norm gradient clipping, and the learning-rate schedules.
// Moments live in flat arrays with the parameter block's layout, so a step is one loop
// per tensor and a checkpoint stores them tensor by tensor under the parameter's name.
#ifndef ORDO_OPTIM_H
#define ORDO_OPTIM_H
#include <stdint.h>

#include "sys/error.h"
#include "framework/names.h"
#include "framework/params.h"

typedef enum ordo_optim_kind { ORDO_OPTIM_ADAMW, ORDO_OPTIM_SGD } ordo_optim_kind;
typedef enum ordo_schedule {
    ORDO_SCHED_COSINE,
    ORDO_SCHED_CONSTANT,
    ORDO_SCHED_LINEAR
} ordo_schedule;

typedef struct ordo_optim_config {
    ordo_optim_kind kind;
    double beta1, beta2, eps; // AdamW
    double momentum;          // SGD
    double weight_decay;      // on tensors of 2+ dims (AdamW: decoupled; SGD: L2 added to g)
    int decay_pos;            // position tables (ORDO_POSITION) decayed too (default 1)
} ordo_optim_config;

typedef struct ordo_optim {
    ordo_optim_config cfg;
    ordo_params *p;
    float *m, *v; // first and second moments (SGD: m is the momentum buffer, v unused)
    int64_t t;    // steps taken
} ordo_optim;

// GPT-2 practice: AdamW, betas 0.9/0.95, eps 1e-8, weight decay 0.1, momentum 0.9. The one
// place for them: `ordo train`'s defaults (ordo_train_config_defaults) are read from here.
void ordo_optim_defaults(ordo_optim_config *c);
// The optimizers' names in enum order: "adamw", "sgd" (parse, name, lists of choices).
extern const ordo_names ordo_optim_kind_names;
// The optimizer named `name`; ORDO_ERR_ARG otherwise, naming the value and the choices.
ordo_status ordo_optim_parse_kind(const char *name, ordo_optim_kind *out);
const char *ordo_optim_kind_name(ordo_optim_kind k); // "?" out of range
// Checks ranges (betas in [0,1), eps > 0, ...); allocates zeroed moments for p's block.
ordo_status ordo_optim_init(ordo_optim *o, ordo_params *p, const ordo_optim_config *cfg);
void ordo_optim_free(ordo_optim *o);
// Whether tensor t is weight-decayed under this config.
int ordo_optim_decays(const ordo_optim *o, const ordo_tensor *t);
// One update of every parameter from its gradient with learning rate lr.
void ordo_optim_step(ordo_optim *o, float lr);

// L2 norm of all gradients (accumulated in double).
double ordo_grad_norm(const ordo_params *p);
// As torch.nn.utils.clip_grad_norm_: scales every gradient by max_norm/(norm+1e-6) when that
// is below 1. Returns the norm before clipping. max_norm <= 0 only measures.
double ordo_clip_grad_norm(ordo_params *p, double max_norm);

// The schedules' names in enum order: "cosine", "constant", "linear".
extern const ordo_names ordo_schedule_names;
// The schedule named `name`; ORDO_ERR_ARG otherwise, naming the value and the choices.
ordo_status ordo_schedule_parse(const char *name, ordo_schedule *out);
const char *ordo_schedule_name(ordo_schedule s); // "?" out of range
// Learning rate for step (0-based) of total: linear warmup from lr/warmup to lr over
// `warmup` steps, then constant, or cosine / linear decay to min_lr at step total-1.
double ordo_lr_at(ordo_schedule s, int64_t step, int64_t total, int64_t warmup, double lr,
                  double min_lr);

#endif

// The parameter registry: tensors are declared by name and shape first, then allocated
// in one block for data and one for gradients (so the optimizer, the gradient norm and
// checkpointing are flat loops). Names are the checkpoint names.
#ifndef ORDO_PARAMS_H
#define ORDO_PARAMS_H
#include "framework/tensor.h"

typedef struct ordo_params {
    ordo_tensor **t; // count tensors, in declaration order
    int count, cap;
    float *data, *grad; // the two blocks; NULL before ordo_params_alloc
    size_t total;       // floats in each block (with alignment padding)
    size_t numel;       // floats in the tensors themselves
    ordo_bf16 *bf16;    // data rounded to bf16, laid out as `data`; NULL unless enabled
} ordo_params;

void ordo_params_init(ordo_params *p);
// Declares a parameter (flags: ORDO_NO_DECAY etc.; ORDO_PARAM and ORDO_REQUIRES_GRAD are
// added). The name is copied. Only before ordo_params_alloc. Returns the tensor.
ordo_tensor *ordo_params_add(ordo_params *p, const char *name, int ndim, const int *shape,
                             int flags);
// Allocates both blocks zero-filled and points every tensor into them.
void ordo_params_alloc(ordo_params *p);
ordo_tensor *ordo_params_find(const ordo_params *p, const char *name);
void ordo_params_zero_grad(ordo_params *p);
// bf16 copies for the bf16 matmuls: allocates a block laid out as the data block, points the
// `bf16` of every tensor flagged ORDO_MATMUL_WEIGHT into it, and fills it (refresh). Only
// after ordo_params_alloc; again is a refresh. disable frees the block and clears the pointers.
void ordo_params_bf16_enable(ordo_params *p);
void ordo_params_bf16_disable(ordo_params *p);
// Rounds the data into the bf16 copies: after every change of the weights (an optimizer step,
// a load), or the bf16 matmuls read stale ones. One pass over the block, parallel; nothing
// when the copies are not enabled.
void ordo_params_bf16_refresh(ordo_params *p);
void ordo_params_free(ordo_params *p);

#endif

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
void ordo_params_free(ordo_params *p);

#endif

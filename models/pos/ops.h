// The position schemes' tape ops (models/pos/ops_bias.c, ops_gate.c, ops_cope.c): the
// materialized attention's biases and what makes them. Each node carries its backward rule;
// their tags number on from the framework's ops (autograd.h), so that gradcheck's coverage
// check and its messages know them (ordo_pos_op_name).
#ifndef ORDO_POS_OPS_H
#define ORDO_POS_OPS_H
#include <stdint.h>

#include "framework/autograd.h"
#include "framework/tensor.h"

// (ordo_op values past the framework's enum: the tape stores any tag it is given)
#define ORDO_POS_OP(k)         ((ordo_op)(ORDO_OP_COUNT + (k)))
#define ORDO_OP_FIRE_DIST      ORDO_POS_OP(0) // FIRE's log-normalised distance of each pair
#define ORDO_OP_PAIR_BIAS      ORDO_POS_OP(1) // [pairs, NH] values scattered to [NH, T, T]
#define ORDO_OP_KERPLE_TABLE   ORDO_POS_OP(2) // [n, NH]: -r1 log(1 + r2 d) or -r1 d^r2 per head
#define ORDO_OP_DIST_BIAS      ORDO_POS_OP(3) // a [n, NH] value per distance spread causally
#define ORDO_OP_CUM_LOGSIGMOID ORDO_POS_OP(4) // [B, T, NH] -> [B, NH, T] prefix sums (fox)
#define ORDO_OP_DIFF_BIAS      ORDO_POS_OP(5) // [B, NH, T] -> [B, NH, T, T] c_i - c_j (fox)
#define ORDO_OP_COPE_POSITIONS ORDO_POS_OP(6) // cope's gated counts p [B, NH, T, T]
#define ORDO_OP_COPE_BIAS      ORDO_POS_OP(7) // cope's q_i . e[p] interpolated [B, NH, T, T]
#define ORDO_POS_OP_END        (ORDO_OP_COUNT + 8)
_Static_assert(ORDO_POS_OP_END <= ORDO_OP_MAX_TAGS, "the op tags fit the tape's census");
// The name of any op tag, the framework's and these ("?" for none).
const char *ordo_pos_op_name(int op);

// ---- the learned relative biases (FIRE, Kerple); docs/positions.md.
// The causal pairs (i, j <= i) of a length T are numbered p = i(i+1)/2 + j, P = T(T+1)/2.
// FIRE's input of each causal pair, out [P, 1]: log(|c| (i-j) + 1) / (log(|c| max(i, L) + 1)
// + eps), L = |lmul * init_L|; c and lmul are [1]. Gradients flow to c and lmul (at i == L
// the max splits its gradient in halves, as torch.maximum).
ordo_tensor *ordo_fire_dist(ordo_ctx *ctx, ordo_tensor *c, ordo_tensor *lmul, int T, float init_L,
                            float eps);
// The same at per-row positions pos [B, T] (--pos-random; increasing in each row), out
// [B*P, 1]: i and j above read pos[b, i] and pos[b, j] (the normaliser max(pos[b, i], L)).
ordo_tensor *ordo_fire_dist_at(ordo_ctx *ctx, ordo_tensor *c, ordo_tensor *lmul, const int32_t *pos,
                               int B, int T, float init_L, float eps);
// x [P, NH] scattered to a bias [NH, T, T]: out[h, i, j] = x[p(i, j), h] for j <= i, 0 above.
// x [B*P, NH] (B > 1): per batch row, out [B, NH, T, T].
ordo_tensor *ordo_pair_bias(ordo_ctx *ctx, ordo_tensor *x, int T);
// Kerple's table by distance from r1, r2 [NH]: out [n, NH], out[d, h] = -r1 log(1 + r2 d), or
// with `power` -r1 d^r2, for d = 0..n-1, computed in double and rounded once; read by
// ordo_dist_bias or the distance tiles. Computed as given (the model keeps r1, r2 positive).
ordo_tensor *ordo_kerple_table(ordo_ctx *ctx, ordo_tensor *r1, ordo_tensor *r2, int n, int power);
// ---- a value per distance spread into the causal bias (the stationary biases' one dense op)
// x [n, NH], a value per distance d = 0..n-1 and head, spread to a causal bias: at 0..T-1 (pos
// NULL, B not read, n >= T) out [NH, T, T], out[h, i, j] = x[i - j, h]; at per-row positions pos
// [B, T] (--pos-random; increasing in each row, the distances below n) out [B, NH, T, T], out[b, h,
// i, j] = x[pos[b, i] - pos[b, j], h]; 0 above the diagonal. Backward sums per distance. pos is
// read again by backward: it must live as long as the tape.
ordo_tensor *ordo_dist_bias(ordo_ctx *ctx, ordo_tensor *x, const int32_t *pos, int B, int T);

// ---- the forget gate (fox; ops_gate.c)
// c [B, NH, T] from the gate logits z [B, T, NH]: c[b, h, t] = sum_{l <= t} log sigmoid(z[b,
// l, h]), summed in double and rounded once per element.
ordo_tensor *ordo_cum_logsigmoid(ordo_ctx *ctx, ordo_tensor *z);
// The materialized forget bias [B, NH, T, T] from c [B, NH, T]: c_i - c_j for j <= i (the
// sum of log f over positions j+1..i), 0 above the diagonal. For ordo_attention's per-row
// bias.
ordo_tensor *ordo_diff_bias(ordo_ctx *ctx, ordo_tensor *c);

// ---- contextual positions (cope; ops_cope.c). The materialized path's two ops; the
// fused attention computes the same in its tiles (models/cope_tiles.c), both with cope_math.h's
// gate and interpolation (cope_math.h).
// Positions p [B, NH, T, T] from qkv [B, T, 3C] (q, k of head h at h*hs): p_ij = min(sum_{l =
// j..i} gate(q_i . k_l / sqrt(hs)), P - 1) for j <= i (summed in double from l = i down,
// rounded once), 0 above the diagonal. Backward into q and k through the gates; a clamped
// p_ij passes no gradient (torch's clamp).
ordo_tensor *ordo_cope_positions(ordo_ctx *ctx, ordo_tensor *qkv, int NH, int P);
// The bias [B, NH, T, T] from qkv, e [NH, P, hs] and p [B, NH, T, T]: ordo_cope_interp(q_i .
// e[h], p_ij) for j <= i, 0 above, with q unscaled (the reference's query @ pos_emb).
// Gradients to q, e and p (through w; floor and ceil are constants).
ordo_tensor *ordo_cope_bias(ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *e, ordo_tensor *p);

#endif
